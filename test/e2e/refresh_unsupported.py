#!/usr/bin/env python3
"""Rewrites unsupported.txt from a run of the fixtures without it: every
fixture that fails is listed with the first error it gives. Run after
changing what the compiler supports:

  test/e2e/refresh_unsupported.py build
"""
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
build = sys.argv[1] if len(sys.argv) > 1 else "build"
listed = os.path.join(here, "unsupported.txt")
os.rename(listed, listed + ".old")
try:
    out = subprocess.run(["/usr/lib/llvm-22/bin/lit", "-v", "-j2",
                          os.path.join(build, "test", "e2e")],
                         capture_output=True, text=True).stdout
finally:
    os.rename(listed + ".old", listed)
failures = {}
for block in re.split(r"\*{20} TEST 'SPYRE :: e2e/models/", out)[1:]:
    name = block.split("'")[0]
    m = re.search(r"error: (.*)", block)
    if "mismatches:" in block:
        msg = "wrong answer"
    else:
        msg = m.group(1) if m else "fails"
    msg = re.sub(r"unsupported op '([^']*)'.*", r"no decomposition for \1", msg)
    msg = re.sub(r"reshape from .* changes the innermost.*",
                 "reshape of the stick dimension", msg)
    failures[name] = msg[:160]
with open(listed, "w") as f:
    f.write("# Fixtures the compiler cannot run yet, with the first error each "
            "gives.\n# A listed fixture that passes fails the suite (XPASS). "
            "Regenerate with\n# test/e2e/refresh_unsupported.py BUILD_DIR.\n")
    for name in sorted(failures):
        f.write("%s: %s\n" % (name, failures[name]))
print("%d fixtures listed" % len(failures))
