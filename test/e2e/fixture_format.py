"""lit test format: one test per end-to-end fixture (models/<name>/).

Each test compiles models/<name>/model.pt2 with spyre-compile, runs it on
the simulator with spyre-run --check (every kernel against the host
reference of its compute ops) and compares every output with PyTorch's
(spyre-npy-compare) within the tolerance of tolerances.json for the output's
dtype and the fixture's kind. Adding a fixture directory adds a test.
"""

import json
import os
import subprocess

import lit.Test
import lit.formats

MATMUL_OPS = ("linear", "addmm", ".mm.", "bmm", "matmul", "baddbmm",
              "scaled_dot_product_attention", "embedding")
REDUCTION_OPS = ("sum", "mean", "amax", "amin", "max.dim", "var", "softmax",
                 "argmax", "norm")


def tolerance_class(fixture):
    if "tolerance_class" in fixture:
        return fixture["tolerance_class"]
    ops = " ".join(fixture.get("ops", []))
    if any(op in ops for op in MATMUL_OPS):
        return "matmul"
    if any(op in ops for op in REDUCTION_OPS):
        return "reduction"
    return "elementwise"


def read_expected_failures(path):
    """`name: reason` lines of fixtures the compiler cannot run yet."""
    expected = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    name, _, reason = line.partition(":")
                    expected[name.strip()] = reason.strip()
    return expected


class FixtureTest(lit.formats.TestFormat):
    def __init__(self, tools_dir, tolerances, expected_failures):
        self.tools_dir = tools_dir
        with open(tolerances) as f:
            self.tolerances = json.load(f)
        self.expected_failures = read_expected_failures(expected_failures)

    def getTestsInDirectory(self, testSuite, path_in_suite, litConfig,
                            localConfig):
        models = os.path.join(testSuite.getSourcePath(path_in_suite),
                              "models")
        if not os.path.isdir(models):
            return
        for name in sorted(os.listdir(models)):
            if os.path.isfile(os.path.join(models, name, "fixture.json")):
                yield lit.Test.Test(testSuite,
                                    path_in_suite + ("models", name),
                                    localConfig)

    def tool(self, name):
        return os.path.join(self.tools_dir, name)

    def execute(self, test, litConfig):
        code, log = self.run_fixture(test)
        name = os.path.basename(test.getSourcePath())
        if name in self.expected_failures:
            # A listed fixture that passes is an error too: keep the list
            # exact.
            reason = self.expected_failures[name]
            if code == lit.Test.PASS:
                return lit.Test.XPASS, "listed in unsupported.txt but passes"
            return lit.Test.XFAIL, "unsupported: %s\n%s" % (reason, log)
        return code, log

    def run_fixture(self, test):
        src = test.getSourcePath()
        with open(os.path.join(src, "fixture.json")) as f:
            fixture = json.load(f)
        tmp = test.getExecPath()
        os.makedirs(tmp, exist_ok=True)
        spy = os.path.join(tmp, "model.spy")
        out = os.path.join(tmp, "out")
        log = []

        def run(cmd):
            log.append("$ " + " ".join(cmd))
            p = subprocess.run(cmd, capture_output=True, text=True)
            log.append(p.stdout + p.stderr)
            return p.returncode

        if run([self.tool("spyre-compile"), os.path.join(src, "model.pt2"),
                "-o", spy]):
            return lit.Test.FAIL, "\n".join(log)
        inputs = []
        for i in range(len(fixture["inputs"])):
            inputs += ["--input", os.path.join(src, "input_%d.npy" % i)]
        # --check: every kernel also matches the host reference of its
        # compute ops (spyre-run exits 1 and names the kernel otherwise).
        if run([self.tool("spyre-run"), spy] + inputs +
               ["--output-dir", out, "--check"]):
            return lit.Test.FAIL, "\n".join(log)
        kind = tolerance_class(fixture)
        # Results computed from fp16/bf16 data carry that data's rounding
        # (stored as DLFloat16 on Spyre) whatever their own dtype.
        precision = ["bfloat16", "float16", "float32"]
        inputs = [i.get("reference_dtype", i["dtype"])
                  for i in fixture["inputs"]]
        for i, o in enumerate(fixture["outputs"]):
            dtype = o.get("reference_dtype", o["dtype"])
            if dtype in self.tolerances:
                floats = [d for d in inputs + [dtype] if d in precision]
                dtype = min(floats, key=precision.index)
                rtol, atol = self.tolerances[dtype][kind]
            else:  # integers and bools: exact
                rtol, atol = self.tolerances["exact"]
            if run([self.tool("spyre-npy-compare"),
                    os.path.join(out, "output_%d.npy" % i),
                    os.path.join(src, "output_%d.npy" % i),
                    "--rtol", str(rtol), "--atol", str(atol)]):
                return lit.Test.FAIL, "\n".join(log)
        return lit.Test.PASS, "\n".join(log)
