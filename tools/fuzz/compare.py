"""Output comparison, with the end-to-end fixtures' tolerances.

Mirrors test/e2e/fixture_format.py: the tolerance of a floating output is
test/e2e/tolerances.json's entry for the least precise float dtype among the
call's inputs and that output, and the call's tolerance class; integers and
bools compare exactly; NaNs equal NaNs, infinities equal infinities.

fp16 and bf16 tensors are stored on the device as DLFloat16, which has no
NaN (docs/runtime.md): where PyTorch's answer is NaN, such an output holds
an infinity or a finite value instead, and that is not counted as wrong.
"""

import json
import os
from typing import List, Optional, Tuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TOLERANCES_JSON = os.path.join(HERE, "..", "..", "test", "e2e", "tolerances.json")
PRECISION = ["bfloat16", "float16", "float32"]

with open(TOLERANCES_JSON) as f:
    TOLERANCES = json.load(f)


def tolerance(out_dtype: str, input_dtypes: List[str], kind: str) -> Tuple[float, float]:
    """(rtol, atol) as fixture_format.py derives them."""
    if out_dtype not in TOLERANCES:
        return tuple(TOLERANCES["exact"])
    floats = [d for d in input_dtypes + [out_dtype] if d in PRECISION]
    return tuple(TOLERANCES[min(floats, key=PRECISION.index)][kind])


DL16_DTYPES = ("float16", "bfloat16")


def compare(got: np.ndarray, ref: np.ndarray, rtol: float, atol: float,
            shape_only: bool = False, dl16: bool = False) -> Optional[str]:
    """None when `got` matches, else a one-line description. `dl16`: the
    output is stored as DLFloat16 (no NaN)."""
    if got.shape != ref.shape:
        return f"shape {tuple(got.shape)}, expected {tuple(ref.shape)}"
    if got.dtype.kind != ref.dtype.kind and not (got.dtype.kind in "fc" and ref.dtype.kind in "fc"):
        return f"dtype {got.dtype}, expected {ref.dtype}"
    if shape_only or ref.size == 0:
        return None
    a, b = got.astype(np.float64), ref.astype(np.float64)
    both_nan = np.isnan(b) if dl16 else np.isnan(a) & np.isnan(b)
    same_inf = np.isinf(a) & (a == b)
    diff = np.abs(a - b)
    bad = ~(both_nan | same_inf | (diff <= atol + rtol * np.abs(b)))
    if not bad.any():
        return None
    i = int(np.flatnonzero(bad)[0])
    idx = np.unravel_index(i, ref.shape)
    return (f"{int(bad.sum())} of {ref.size} elements differ (rtol {rtol:g}, atol {atol:g}); "
            f"first at {tuple(int(k) for k in idx)}: {a.flat[i]!r} vs {b.flat[i]!r}")
