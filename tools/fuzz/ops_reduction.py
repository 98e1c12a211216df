"""Generators of the reduction family: sums, means, extrema and their
indices, cumsum, softmaxes, topk, variances.  Dim lists with negative and
repeated-sign dims, keepdim, reductions over everything; distinct values
where an index is returned (no ties); reduced sizes >= 1 where PyTorch
rejects empty ones."""

import numpy as np
import torch

from gen import BOOL, F32, FLOATS, I64, lit
from table import Table

T = Table("reduction")


def _dims(b, rank, empty_ok=False):
    """A non-empty list of distinct dims (some negative), or [] when
    `empty_ok` now and then."""
    if rank == 0 or (empty_ok and b.chance(0.1)):
        return []
    k = b.randint(1, rank)
    return [d - rank if b.chance(0.4) else d for d in b.rng.sample(range(rank), k)]


def _keepdim(b):
    return b.choice((True, False))


@T.add("aten.sum.default", tol="reduction")
def sum_all(b, op):
    """torch.sum(x) / x.sum(), sometimes dtype= (f32 for floats, i64 for
    integers)."""
    d = b.dtype()
    x = b.operand(b.shape(), d)
    if b.chance(0.3):
        return f"torch.sum({x}, dtype={lit(F32 if d in FLOATS else I64)})"
    return f"torch.sum({x})" if b.chance(0.5) else f"{x}.sum()"


@T.add("aten.sum.dim_IntList", tol="reduction")
def sum_dims(b, op):
    """torch.sum(x, dims, keepdim) over one or several dims."""
    d = b.dtype()
    shape = b.shape(lo=1)
    x = b.operand(shape, d)
    return f"torch.sum({x}, {_dims(b, len(shape))}, keepdim={_keepdim(b)})"


@T.add("aten.mean.default", tol="reduction")
def mean_all(b, op):
    """torch.mean(x) over everything."""
    return f"torch.mean({b.operand(b.shape(), b.dtype())})"


@T.add("aten.mean.dim", tol="reduction")
def mean_dims(b, op):
    """torch.mean(x, dims, keepdim)."""
    shape = b.shape(lo=1)
    x = b.operand(shape, b.dtype())
    return f"torch.mean({x}, {_dims(b, len(shape))}, keepdim={_keepdim(b)})"


@T.add("aten.amax.default", "aten.amin.default", tol="reduction")
def amax_amin(b, op):
    """torch.amax/amin(x, dims, keepdim); dims [] reduces everything;
    reduced sizes >= 1."""
    fn = op.split(".")[1]
    shape = b.shape(nonzero=True)
    x = b.operand(shape, b.dtype(), b.choice(("normal", "grid")))
    return f"torch.{fn}({x}, {_dims(b, len(shape), empty_ok=True)}, keepdim={_keepdim(b)})"


@T.add("aten.argmax.default", "aten.argmin.default", tol="reduction")
def argmax_argmin(b, op):
    """torch.argmax/argmin(x, dim, keepdim) on distinct values along dim,
    or over the flattened tensor (dim None)."""
    fn = op.split(".")[1]
    shape = b.shape(nonzero=True)
    if not shape or b.chance(0.25):
        x = b.operand(shape, b.dtype(), "distinct")
        return f"torch.{fn}({x})"
    dim = b.dim(len(shape))
    x = b.operand(shape, b.dtype(), "distinct", dim=dim)
    return f"torch.{fn}({x}, {dim}, keepdim={_keepdim(b)})"


@T.add("aten.max.default", "aten.min.default", tol="reduction")
def max_min_all(b, op):
    """torch.max(x) / torch.min(x) of a non-empty tensor (ties are fine)."""
    fn = op.split(".")[1]
    x = b.operand(b.shape(nonzero=True), b.dtype(), b.choice(("normal", "grid")))
    return f"torch.{fn}({x})"


@T.add("aten.max.dim", "aten.min.dim", tol="reduction")
def max_min_dim(b, op):
    """torch.max/min(x, dim, keepdim): values and indices, distinct values
    along dim (one first extremum)."""
    fn = op.split(".")[1]
    shape = b.shape(lo=1, nonzero=True)
    dim = b.dim(len(shape))
    x = b.operand(shape, b.dtype(), "distinct", dim=dim)
    return f"torch.{fn}({x}, {dim}, keepdim={_keepdim(b)})" if b.chance(0.5) else \
        f"{x}.{fn}(dim={dim}, keepdim={_keepdim(b)})"


@T.add("aten.cumsum.default", tol="reduction")
def cumsum(b, op):
    """torch.cumsum(x, dim[, dtype=]) with the scanned dim up to 8192 (the
    registry's limit) and, rarely, beyond; integers give i64."""
    d = b.dtype()
    shape = list(b.shape(lo=1, long_ok=False))
    dim = b.dim(len(shape))
    if b.chance(0.05):
        shape[dim] = b.randint(8193, 9000)
        shape = [s if i == dim % len(shape) else min(s, 1) for i, s in enumerate(shape)]
    x = b.operand(shape, d, "unit" if d in FLOATS else "small")
    if b.chance(0.2):
        return f"torch.cumsum({x}, {dim}, dtype={lit(F32 if d in FLOATS else I64)})"
    return f"torch.cumsum({x}, {dim})"


def _softmax_input(b, masked=False):
    """x along `dim`; `masked`: with -inf entries, whole rows of them too."""
    shape = b.shape(lo=1)
    dim = b.dim(len(shape))
    x = b.operand(shape, b.dtype())
    if masked:
        m = b.operand(shape[dim % len(shape):] if b.chance(0.5) else shape, BOOL)
        x = f"{x}.masked_fill({m}, float('-inf'))"
    return x, dim


@T.add("aten.softmax.int", "aten.log_softmax.int", tol="reduction")
def softmax(b, op):
    """torch.softmax / F.log_softmax(x, dim[, dtype=f32]) along any dim."""
    fn = op.split(".")[1]
    x, dim = _softmax_input(b)
    if b.chance(0.2):
        return f"torch.{fn}({x}, {dim}, dtype=torch.float32)"
    return f"F.{fn}({x}, dim={dim})" if b.chance(0.5) else f"torch.{fn}({x}, {dim})"


@T.add("aten._softmax.default", "aten._log_softmax.default", tol="reduction")
def softmax_aten(b, op):
    """aten._softmax / _log_softmax(x, dim, half_to_float=False) by name."""
    fn = op.split(".")[1]
    x, dim = _softmax_input(b)
    return f"torch.ops.aten.{fn}.default({x}, {dim}, False)"


@T.add("aten._safe_softmax.default", tol="reduction")
def safe_softmax(b, op):
    """_safe_softmax(x, dim) (keep op) on inputs with -inf entries and
    fully masked rows (which give 0)."""
    x, dim = _softmax_input(b, masked=b.chance(0.7))
    return f"keep('_safe_softmax')({x}, {dim})"


@T.add("aten.topk.default", tol="reduction")
def topk(b, op):
    """torch.topk(x, k, dim, largest, sorted=True) with k up to 64 (and,
    rarely, beyond), distinct values along dim."""
    shape = b.shape(lo=1, nonzero=True)
    dim = b.dim(len(shape))
    n = shape[dim]
    k = min(n, b.choice((1, 2, 3, 5, 8, 64, 65)))
    x = b.operand(shape, b.dtype(), "distinct", dim=dim)
    return f"torch.topk({x}, {k}, dim={dim}, largest={b.choice((True, False))})"


def _var_operand(b):
    """x and dims with more elements reduced than any correction used."""
    shape = b.shape(lo=1)
    shape = tuple(max(s, 3) for s in shape)
    return b.operand(shape, b.dtype()), _dims(b, len(shape))


@T.add("aten.var.correction", "aten.var_mean.correction", tol="reduction")
def var_correction(b, op):
    """torch.var / var_mean(x, dims or None, correction=0|1|2, keepdim)."""
    fn = op.split(".")[1]
    x, dims = _var_operand(b)
    dims = None if b.chance(0.2) else dims
    return (f"torch.{fn}({x}, {dims}, correction={b.choice((0, 1, 2))}, "
            f"keepdim={_keepdim(b)})")


@T.add("aten.var.dim", "aten.var_mean.dim", tol="reduction")
def var_dim(b, op):
    """var.dim / var_mean.dim(x, dims or None, unbiased, keepdim) (keep
    ops: torch 1.13 rewrites them to .correction)."""
    x, dims = _var_operand(b)
    dims = None if b.chance(0.2) else dims
    return f"keep({op[5:]!r})({x}, {dims}, {b.choice((True, False))}, {_keepdim(b)})"



def _truth_operand(b, shape):
    """Values whose truth varies: all non-zero half the time (all() is
    True), else with zeros."""
    return b.operand(shape, b.dtype(), b.choice(("nonzero", "grid")))


@T.add("aten.all.default", "aten.any.default", tol="reduction")
def all_any(b, op):
    """torch.all(x) / torch.any(x) over everything, every dtype."""
    fn = op.split(".")[1]
    return f"torch.{fn}({_truth_operand(b, b.shape())})"


@T.add("aten.all.dim", "aten.any.dim", tol="reduction")
def all_any_dim(b, op):
    """torch.all/any(x, dim, keepdim)."""
    fn = op.split(".")[1]
    shape = b.shape(lo=1)
    return f"torch.{fn}({_truth_operand(b, shape)}, {b.dim(len(shape))}, {_keepdim(b)})"


@T.add("aten.all.dims", "aten.any.dims", tol="reduction")
def all_any_dims(b, op):
    """all/any.dims(x, dims or None, keepdim) (keep ops: torch 1.13 has no
    multi-dim all/any)."""
    shape = b.shape(lo=1)
    dims = None if b.chance(0.2) else _dims(b, len(shape))
    return f"keep({op[5:]!r})({_truth_operand(b, shape)}, {dims}, {_keepdim(b)})"


@T.add("aten.prod.default", "aten.prod.dim_int", tol="reduction")
def prod(b, op):
    """torch.prod(x[, dim, keepdim][, dtype=]) on +-1 with a few +-2,
    +-0.5 and 0 (exact products that stay in range)."""
    d = b.dtype()
    shape = b.shape(lo=0 if op.endswith("default") else 1, max_numel=4096, long_ok=False)
    v = b.values(shape, I64, "nonzero").sign().double()
    scale = torch.from_numpy(np.asarray(b.np.choice(
        [1.0, 2.0, 0.5, 0.0], shape, p=[0.985, 0.006, 0.006, 0.003])))
    if d not in FLOATS:
        scale = scale.clamp(min=1).round()
    x = b.operand(shape, d, values=(v * scale).to(d))
    dt = f", dtype={lit(F32 if d in FLOATS else I64)}" if b.chance(0.2) else ""
    if op.endswith("default"):
        return f"torch.prod({x}{dt})"
    return f"torch.prod({x}, {b.dim(len(shape))}, {_keepdim(b)}{dt})"


@T.add("aten.sort.default", tol="reduction")
def sort(b, op):
    """torch.sort(x, dim, descending) on distinct values along dim (the
    unstable sort's indices are then unique); lines up to 4096 (the
    registry's limit) and, rarely, beyond."""
    shape = list(b.shape(lo=1, long_ok=False))
    dim = b.dim(len(shape))
    if b.chance(0.03):
        shape = [1] * len(shape)
        shape[dim] = b.randint(4097, 5000)
    x = b.operand(shape, b.dtype(), "distinct", dim=dim)
    return f"torch.sort({x}, {dim}, {b.choice((True, False))})"


@T.add("aten.sort.stable", tol="reduction")
def sort_stable(b, op):
    """torch.sort(x, stable=True, dim=, descending=) on a grid (ties keep
    their order)."""
    shape = b.shape(lo=1, max_numel=4096, long_ok=False)
    x = b.operand(shape, b.dtype(), b.choice(("grid", "normal")))
    return (f"torch.sort({x}, stable=True, dim={b.dim(len(shape))}, "
            f"descending={b.choice((True, False))})")
