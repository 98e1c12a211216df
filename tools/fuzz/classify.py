"""Result classes, and the one function that sorts a failed tool run into
them (adapt it when the tools' exit codes change)."""

import re

OK = "OK"
MISMATCH = "MISMATCH"            # ran, exit 0, wrong values: the worst
INTERNAL = "INTERNAL ERROR"      # crash, assertion, verifier failure on the compiler's own IR
REFUSED = "REFUSED"              # a clean "not supported" error naming the op
GENERATOR = "GENERATOR ERROR"    # PyTorch or the exporter rejected a call: a fuzzer bug
CLASSES = (MISMATCH, INTERNAL, REFUSED, GENERATOR)

NORMAL_ERROR_EXIT = 1            # spyre-compile's exit status for a diagnosed user error
INTERNAL_ERROR_EXIT = 70         # spyre-compile: the IR after a pass does not verify

# text of crashes and of verifiers rejecting IR that a pass produced
_INTERNAL_TEXT = re.compile(
    r"Assertion .* failed|LLVM ERROR|UNREACHABLE|Stack dump|PLEASE report|internal error|"
    r"verification failed|failed to verify|"
    # a verifier message on a compiler-made op ('spyre.kernel' op ...);
    # 'spyre.aten' is the imported node itself, where refusals are reported
    r"error: '(?!spyre\.aten')[\w.]+' op ")


def classify(tool: str, returncode: int, output: str) -> str:
    """`tool` is "spyre-compile" or "spyre-run"; `returncode` is negative
    for a signal (subprocess convention), None for a timeout."""
    if returncode == 0:
        return OK
    if returncode is None or returncode < 0:
        return INTERNAL
    if tool == "spyre-run":
        # every input the fuzzer passes is valid: a compiled program that
        # fails on it is the compiler's or the runtime's bug
        return INTERNAL
    if returncode != NORMAL_ERROR_EXIT or _INTERNAL_TEXT.search(output):
        return INTERNAL
    return REFUSED


def signature(output: str) -> str:
    """The stem of the first error (an assertion's condition, else the
    first line saying error): no location, numbers or types, so that one
    bug gives one signature."""
    m = re.search(r"Assertion `(.*)' failed", output)
    if m:
        line = "assertion " + m.group(1)
    else:
        lines = output.strip().splitlines() or ["no output"]
        line = next((ln for ln in lines if "error" in ln.lower()), lines[0])
        line = re.sub(r"^.*?\berror: ", "", line, flags=re.IGNORECASE)
    line = re.sub(r"tensor<[^>]*>", "tensor<...>", line)
    line = re.sub(r"\b\d+\b", "N", line)
    return line.strip()[:160]
