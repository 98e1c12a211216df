# -*- Python -*-
# lit configuration of the spyre tests (run: ninja check-spyre, or
# scripts/test.sh).

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SPYRE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.spyre_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py", "models"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%spyre_src", config.spyre_src_root))
config.substitutions.append(("%spyre_obj", config.spyre_obj_root))
# Debian's interpreter (numpy, torch): the first python3 on PATH may lack them.
config.substitutions.append(("%python", "/usr/bin/python3"))
config.substitutions.append(("%models", os.path.join(config.spyre_src_root,
                                                     "test", "e2e", "models")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.spyre_tools_dir, config.llvm_tools_dir]
tools = ["spyre-opt", "spyre-translate", "spyre-compile", "spyre-run",
         "spyre-npy-compare", "spyre-fuzz-loader", "spyre-fuzz-pt2",
         "spyre-fuzz-pickle", "spyre-fuzz-npy", "spyre-dispatch-bench"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.add_tool_substitutions(["not", "count", "split-file"],
                                   [config.llvm_tools_dir])
