#!/usr/bin/python3
"""Runs a fixture's exported graph with numpy, reading only the archive.

    /usr/bin/python3 tools/export/reference_interpreter.py FIXTURE_DIR [...]
        [--no-round]   keep float64 between ops (default: round every value
                       to its graph dtype, as an fp16 backend would)
        [--verbose]    per-output error report
        [--intermediates DIR]
                       also write every node's value as DIR/NODE.npy (NODE:
                       the node's output name, as the importer's locations
                       carry it): `spyre-run --check --reference DIR`

A second, independent reader of the format (zipfile + json + numpy; no
torch): it takes the weights from data/weights/ and the constants from
data/constants/ through their configs (dtype, sizes, strides,
storage_offset), the inputs from input_<i>.npy, interprets
models/model.json node by node in float64, and compares with output_<i>.npy
using the tolerance in fixture.json (per output when "output_tolerances" is
given).  Argument defaults that torch.export omits are filled from the
torch 2.9 op schemas (the `A.get(name, default)` calls below).

It is the executable form of docs/pt2-format.md for every op of the fixture
zoo and a model for the C++ importer's reading of the archive.  Every value
is rounded to its tensor_values dtype after each node (fp16, bf16, fp32),
so the comparison also checks that the fixture tolerances cover an fp16
backend that rounds between ops; --no-round keeps float64.
"""

import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep tools/export free of __pycache__
sys.path.insert(0, HERE)

from pt2_format import read_archive  # noqa: E402

NP_DTYPES = {1: np.uint8, 2: np.int8, 3: np.int16, 4: np.int32, 5: np.int64,
             6: np.float16, 7: np.float32, 8: np.float64, 12: np.bool_}
FLOAT_CODES = {6, 7, 8, 13}
INT_CODES = {1, 2, 3, 4, 5}
BOOL = 12
# rms_norm's default eps: the epsilon of the type PyTorch computes in (fp32
# for fp16, bf16 and fp32; rms_norm_composite in layer_norm.cpp)
OPMATH_EPS = {6: float(np.finfo(np.float32).eps), 7: float(np.finfo(np.float32).eps),
              8: float(np.finfo(np.float64).eps), 13: float(np.finfo(np.float32).eps)}
INT64_MAX = 9223372036854775807


# ----------------------------------------------------------------------------
# dtype helpers
# ----------------------------------------------------------------------------


def bf16_round(x):
    """Round-to-nearest-even to bfloat16, returned as float64."""
    f = np.asarray(x, dtype=np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    out = rounded.astype(np.uint32).view(np.float32).astype(np.float64)
    return np.where(np.isnan(f), np.nan, out)


def bf16_from_bits(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def cast(x, code):
    """Value of x converted to ScalarType `code`, in the interpreter's
    representation (floats as float64, ints as int64, bools as bool)."""
    x = np.asarray(x)
    if code == BOOL:
        return x != 0
    if code in INT_CODES:
        if x.dtype.kind == "f":
            x = np.trunc(x)
        bits = {1: np.uint8, 2: np.int8, 3: np.int16, 4: np.int32, 5: np.int64}[code]
        return x.astype(bits).astype(np.int64)
    if code == 13:
        return bf16_round(x.astype(np.float64))
    return x.astype(NP_DTYPES[code]).astype(np.float64)


def as_repr(x, code):
    """Bring a loaded array into the interpreter representation."""
    if code in FLOAT_CODES:
        return np.asarray(x, dtype=np.float64)
    if code == BOOL:
        return np.asarray(x, dtype=np.bool_)
    return np.asarray(x).astype(np.int64)


def _ints(syms):
    out = []
    for s in syms:
        (tag, v), = s.items()
        if tag != "as_int":
            raise ValueError(f"symbolic value {s} not supported")
        out.append(v)
    return out


def load_payload(files, directory, config_file):
    if config_file not in files:
        return {}
    cfg = json.loads(files[config_file])["config"]
    out = {}
    for fqn, pm in cfg.items():
        if pm["use_pickle"]:
            raise ValueError(f"{fqn}: pickled payloads not supported")
        tm = pm["tensor_meta"]
        code = tm["dtype"]
        raw = files[directory + pm["path_name"]]
        if code == 13:
            flat = bf16_from_bits(np.frombuffer(raw, dtype=np.uint16))
        else:
            flat = np.frombuffer(raw, dtype=NP_DTYPES[code])
        sizes, strides = _ints(tm["sizes"]), _ints(tm["strides"])
        off = _ints([tm["storage_offset"]])[0]
        item = flat.itemsize
        arr = np.lib.stride_tricks.as_strided(
            flat[off:], shape=sizes, strides=[s * item for s in strides]).copy()
        out[fqn] = (arr, code)
    return out


# ----------------------------------------------------------------------------
# op implementations: fn(A, ctx) -> value | tuple | list ; A = {arg name: value}
# ----------------------------------------------------------------------------


def _dim(d, nd):
    return d + nd if d < 0 else d


def _dims(ds, nd):
    if nd == 0:  # a rank-0 tensor's dim 0 / -1 reduces nothing
        return ()
    if ds is None:
        return tuple(range(nd))
    if isinstance(ds, int):
        ds = [ds]
    if len(ds) == 0:
        return tuple(range(nd))
    return tuple(_dim(d, nd) for d in ds)


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x) if np.size(x) else np.asarray(x, float)


def _gelu(x, approximate):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _softmax(x, dim):
    if x.shape[dim] == 0:  # no elements to normalize (attention over no keys)
        return x
    m = np.max(x, axis=dim, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(x - m)
    return e / np.sum(e, axis=dim, keepdims=True)


def _log_softmax(x, dim):
    m = np.max(x, axis=dim, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=dim, keepdims=True))


def _slice(x, dim, start, end, step):
    n = x.shape[dim]
    start = 0 if start is None else start
    end = n if end is None else end
    start, end, _ = slice(start, end, step).indices(n)
    idx = [slice(None)] * x.ndim
    idx[dim] = slice(start, max(end, start), step)
    return x[tuple(idx)]


def _split(x, sizes, dim):
    out, s = [], 0
    for k in sizes:
        out.append(_slice(x, dim, s, s + k, 1))
        s += k
    return out


def _reshape(x, shape):
    return np.reshape(x, tuple(shape))


def _var(x, dims, correction, keepdim):
    n = 1
    for d in dims:
        n *= x.shape[d]
    mean = np.mean(x, axis=dims, keepdims=True)
    v = np.sum((x - mean) ** 2, axis=dims, keepdims=keepdim) / max(n - correction, 0)
    return v


def _layer_norm(x, shape, w, b, eps):
    dims = tuple(range(x.ndim - len(shape), x.ndim))
    mean = np.mean(x, axis=dims, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=dims, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    y = (x - mean) * rstd
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y, mean, rstd


def _batch_norm(x, w, b, rm, rv, eps):
    shp = [1, x.shape[1]] + [1] * (x.ndim - 2)
    y = (x - rm.reshape(shp)) / np.sqrt(rv.reshape(shp) + eps)
    if w is not None:
        y = y * w.reshape(shp)
    if b is not None:
        y = y + b.reshape(shp)
    return y


def _sdpa(A, ctx):
    q, k, v = A["query"], A["key"], A["value"]
    mask = A.get("attn_mask")
    if A.get("dropout_p", 0.0) != 0.0:
        raise ValueError("dropout_p != 0")
    E = q.shape[-1]
    scale = A.get("scale")
    scale = 1.0 / math.sqrt(E) if scale is None else scale
    if A.get("enable_gqa", False) and k.shape[-3] != q.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k = np.repeat(k, rep, axis=-3)
        v = np.repeat(v, rep, axis=-3)
    att = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
    if A.get("is_causal", False):
        L, S = q.shape[-2], k.shape[-2]
        att = np.where(np.tril(np.ones((L, S), dtype=bool)), att, -np.inf)
    if mask is not None:
        att = np.where(mask, att, -np.inf) if mask.dtype == np.bool_ else att + mask
    p = _softmax(att, -1)
    p = np.where(np.all(att == -np.inf, axis=-1, keepdims=True), 0.0, p)
    return np.matmul(p, v)


def _index_copy(x, dim, index, src):
    out = np.array(x, copy=True)
    idx = [slice(None)] * x.ndim
    for j, i in enumerate(np.asarray(index).reshape(-1)):
        idx[dim] = int(i)
        sidx = [slice(None)] * x.ndim
        sidx[dim] = j
        out[tuple(idx)] = src[tuple(sidx)]
    return out


PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
             "circular": "wrap"}


def _pad(x, pad, value, mode="constant"):
    """pad[2i], pad[2i+1]: before/after amounts of dim ndim-1-i; negative
    amounts crop (constant_pad_nd narrows, then pads)."""
    widths, crop = [(0, 0)] * x.ndim, [slice(None)] * x.ndim
    for i in range(len(pad) // 2):
        d, lo, hi = x.ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        widths[d] = (max(lo, 0), max(hi, 0))
        crop[d] = slice(max(-lo, 0), x.shape[d] - max(-hi, 0))
    x = x[tuple(crop)]
    kw = {"constant_values": value} if mode == "constant" else {}
    return np.pad(x, widths, mode=PAD_MODES[mode], **kw)


def _conv(A, padding=None, transposed=False):
    """conv1d / conv2d / convolution (not transposed): N-d cross-correlation,
    grouped; an unbatched input (C, *spatial) gets a batch dim of 1.
    Padding is a list or 'valid' / 'same' (the odd remainder of 'same' goes
    after, as torch pads it)."""
    if transposed:
        raise ValueError("transposed convolution not supported")
    x, w, b, groups = A["input"], A["weight"], A.get("bias"), A.get("groups", 1)
    nd = w.ndim - 2
    unbatched = x.ndim == nd + 1
    x = x[None] if unbatched else x
    full = lambda v: list(v) * nd if len(v) == 1 else list(v)  # noqa: E731
    stride, dil = full(A.get("stride", [1])), full(A.get("dilation", [1]))
    padding = A.get("padding", [0]) if padding is None else padding
    if padding == "valid":
        lo = hi = [0] * nd
    elif padding == "same":
        total = [d * (k - 1) for d, k in zip(dil, w.shape[2:])]
        lo, hi = [t // 2 for t in total], [t - t // 2 for t in total]
    else:
        lo = hi = full(padding)
    x = np.pad(x, [(0, 0), (0, 0)] + list(zip(lo, hi)))
    n, cin, cout, ks = x.shape[0], x.shape[1], w.shape[0], w.shape[2:]
    osz = [(x.shape[2 + i] - dil[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    xg = x.reshape(n, groups, cin // groups, *x.shape[2:])
    wg = w.reshape(groups, cout // groups, *w.shape[1:])
    out = np.zeros((n, groups, cout // groups, *osz))
    for k in np.ndindex(*ks):  # one strided window of the input per kernel tap
        win = tuple(slice(k[i] * dil[i], k[i] * dil[i] + (osz[i] - 1) * stride[i] + 1, stride[i])
                    for i in range(nd))
        out += np.einsum("ngc...,goc->ngo...", xg[(Ellipsis,) + win], wg[(Ellipsis,) + k])
    out = out.reshape(n, cout, *osz)
    if b is not None:
        out = out + b.reshape(cout, *[1] * nd)
    return out[0] if unbatched else out


def _desc(x):
    """A sort key whose ascending order is x's descending order (~ on
    ints and bools, no overflow)."""
    return -x if x.dtype.kind == "f" else ~x


def _sort(A):
    """sort / sort.stable: stable in both directions; NaN sorts as the
    largest value (last ascending, first descending), as torch does."""
    x = A["self"]
    if x.ndim == 0:
        return x, np.zeros((), np.int64)
    d = _dim(A.get("dim", -1), x.ndim)
    if A.get("descending", False):
        nan = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool)
        key, first = np.moveaxis(np.where(nan, 0, _desc(x)), d, -1), ~np.moveaxis(nan, d, -1)
        idx = np.moveaxis(np.lexsort((key, first), axis=-1), -1, d)
    else:
        idx = np.argsort(x, axis=d, kind="stable")
    return np.take_along_axis(x, idx, axis=d), idx.astype(np.int64)


def _all_any(A, f):
    """all / any (.default, .dim, .dims): bool results.  .dims with dim=[]
    reduces nothing (torch 2.9 allows empty dims here); None: every dim."""
    x, d = A["self"] != 0, A.get("dim")
    if isinstance(d, list) and len(d) == 0:
        return x
    return f(x, axis=_dims(d, x.ndim), keepdims=A.get("keepdim", False))


def _index_add(A):
    """out = self; out[index[j] along dim] += alpha * source[j] (repeated
    indices accumulate)."""
    out = np.array(A["self"], copy=True)
    d = _dim(A["dim"], out.ndim)
    view = np.moveaxis(out.reshape(out.shape or (1,)), d, 0)  # writes reach out
    src = A["source"]
    src = np.moveaxis(src.reshape(src.shape or (1,)), d, 0)
    np.add.at(view, A["index"].reshape(-1), A.get("alpha", 1) * src)
    return out


def _masked_scatter(A):
    """self and mask broadcast together; the True positions take source's
    leading elements in row-major order."""
    x, m = np.broadcast_arrays(A["self"], A["mask"])
    out = np.array(x, copy=True)
    out[m] = A["source"].reshape(-1)[:int(np.sum(m))]
    return out


def _factory_dtype(A, default):
    code = A.get("dtype")
    return default if code is None else code


def _scalar_code(v):
    if isinstance(v, bool):
        return BOOL
    if isinstance(v, int):
        return 5
    return 7


def _arange(A, start, end, step):
    vals = [start, end, step]
    code = A.get("dtype")
    if code is None:
        code = 7 if any(isinstance(v, float) for v in vals) else 5
    return cast(np.arange(start, end, step), code)


def _max_dim(A, ctx, arg=np.argmax):
    """max.dim / min.dim: (values, int64 indices of the first extreme)."""
    x = A["self"]
    if x.ndim == 0:
        return x, np.zeros((), np.int64)
    d, kd = _dim(A["dim"], x.ndim), A.get("keepdim", False)
    idx = arg(x, axis=d)
    vals = np.take_along_axis(x, np.expand_dims(idx, d), axis=d).squeeze(d)
    if kd:
        idx, vals = np.expand_dims(idx, d), np.expand_dims(vals, d)
    return vals, idx.astype(np.int64)


def _argmax(A):
    x, d = A["self"], A.get("dim")
    if d is None:
        return np.asarray(np.argmax(x.reshape(-1)), dtype=np.int64)
    d = _dim(d, x.ndim)
    r = np.argmax(x, axis=d)
    return (np.expand_dims(r, d) if A.get("keepdim", False) else r).astype(np.int64)


def _alpha(A):
    return A.get("alpha", 1)


def _cmp(f):
    return lambda A, c: f(A["self"], A["other"])


def _topk(A):
    x, k = A["self"], A["k"]
    d = _dim(A.get("dim", -1), x.ndim)
    key = _desc(x) if A.get("largest", True) else x
    idx = np.take(np.argsort(key, axis=d, kind="stable"), np.arange(k), axis=d)
    return np.take_along_axis(x, idx, axis=d), idx


def _scatter(A, add=False):
    x = np.array(A["self"], copy=True)
    d = _dim(A["dim"], x.ndim)
    index = A["index"]
    src = A.get("src")
    src = np.broadcast_to(A["value"], index.shape) if src is None else \
        src[tuple(slice(0, n) for n in index.shape)]
    grid = list(np.indices(index.shape))
    grid[d] = index
    if add:
        np.add.at(x, tuple(grid), src)
    else:
        x[tuple(grid)] = src
    return x


def _slice_scatter(A, select=False):
    x = np.array(A["self"], copy=True)
    d = _dim(A.get("dim", 0), x.ndim)
    window = [slice(None)] * x.ndim
    if select:
        window[d] = A["index"]
    else:
        window[d] = slice(A.get("start"), A.get("end"), A.get("step", 1))
    x[tuple(window)] = A["src"]
    return x


def _index_put(A):
    x = np.array(A["self"], copy=True)
    x[tuple(slice(None) if i is None else i for i in A["indices"])] = A["values"]
    return x


def _matmul(a, b):
    return np.matmul(a, b)


OPS = {
    # linear algebra
    "linear": lambda A, c: _matmul(A["input"], A["weight"].T) + (
        A["bias"] if A.get("bias") is not None else 0),
    "addmm": lambda A, c: A.get("beta", 1) * A["self"] + A.get("alpha", 1) * (A["mat1"] @ A["mat2"]),
    "mm": lambda A, c: A["self"] @ A["mat2"],
    "bmm": lambda A, c: np.matmul(A["self"], A["mat2"]),
    "matmul": lambda A, c: np.matmul(A["self"], A["other"]),
    "baddbmm": lambda A, c: A.get("beta", 1) * A["self"] + A.get("alpha", 1) * np.matmul(
        A["batch1"], A["batch2"]),
    # binary pointwise
    "add.Tensor": lambda A, c: A["self"] + _alpha(A) * A["other"],
    "add.Scalar": lambda A, c: A["self"] + _alpha(A) * A["other"],
    "add_.Tensor": lambda A, c: A["self"] + _alpha(A) * A["other"],
    "mul_.Tensor": lambda A, c: A["self"] * A["other"],
    "sub.Tensor": lambda A, c: A["self"] - _alpha(A) * A["other"],
    "sub.Scalar": lambda A, c: A["self"] - _alpha(A) * A["other"],
    "rsub.Scalar": lambda A, c: A["other"] - _alpha(A) * A["self"],
    "mul.Tensor": lambda A, c: A["self"] * A["other"],
    "mul.Scalar": lambda A, c: A["self"] * A["other"],
    "div.Tensor": lambda A, c: np.true_divide(A["self"], A["other"]),
    "div.Scalar": lambda A, c: np.true_divide(A["self"], A["other"]),
    "div.Tensor_mode": lambda A, c: {"trunc": np.trunc, "floor": np.floor,
                                     None: lambda v: v}[A.get("rounding_mode")](
        np.true_divide(A["self"], A["other"])),
    "pow.Tensor_Scalar": lambda A, c: np.power(A["self"], A["exponent"]),
    "pow.Tensor_Tensor": lambda A, c: np.power(A["self"], A["exponent"]),
    "minimum": lambda A, c: np.minimum(A["self"], A["other"]),
    "maximum": lambda A, c: np.maximum(A["self"], A["other"]),
    # unary pointwise
    "neg": lambda A, c: -A["self"], "abs": lambda A, c: np.abs(A["self"]),
    "exp": lambda A, c: np.exp(A["self"]), "log": lambda A, c: np.log(A["self"]),
    "sqrt": lambda A, c: np.sqrt(A["self"]), "rsqrt": lambda A, c: 1.0 / np.sqrt(A["self"]),
    "reciprocal": lambda A, c: 1.0 / A["self"], "tanh": lambda A, c: np.tanh(A["self"]),
    "sigmoid": lambda A, c: _sigmoid(A["self"]),
    "relu": lambda A, c: np.maximum(A["self"], 0),
    "gelu": lambda A, c: _gelu(A["self"], A.get("approximate", "none")),
    "silu": lambda A, c: A["self"] * _sigmoid(A["self"]),
    "softplus": lambda A, c: np.where(
        A["self"] * A.get("beta", 1) > A.get("threshold", 20), A["self"],
        np.log1p(np.exp(np.minimum(A["self"] * A.get("beta", 1), 80.0))) / A.get("beta", 1)),
    "sin": lambda A, c: np.sin(A["self"]), "cos": lambda A, c: np.cos(A["self"]),
    "floor": lambda A, c: np.floor(A["self"]), "ceil": lambda A, c: np.ceil(A["self"]),
    "clamp": lambda A, c: np.clip(A["self"],
                                  -np.inf if A.get("min") is None else A["min"],
                                  np.inf if A.get("max") is None else A["max"]),
    "clamp.Tensor": lambda A, c: np.clip(A["self"],
                                         -np.inf if A.get("min") is None else A["min"],
                                         np.inf if A.get("max") is None else A["max"]),
    "clamp_min": lambda A, c: np.maximum(A["self"], A["min"]),
    "clamp_max": lambda A, c: np.minimum(A["self"], A["max"]),
    "logical_not": lambda A, c: np.logical_not(A["self"]),
    "logical_and": lambda A, c: np.logical_and(A["self"], A["other"]),
    "logical_or": lambda A, c: np.logical_or(A["self"], A["other"]),
    "logical_xor": lambda A, c: np.logical_xor(A["self"], A["other"]),
    "bitwise_and.Tensor": lambda A, c: np.bitwise_and(A["self"], A["other"]),
    "bitwise_or.Tensor": lambda A, c: np.bitwise_or(A["self"], A["other"]),
    "bitwise_xor.Tensor": lambda A, c: np.bitwise_xor(A["self"], A["other"]),
    "bitwise_not": lambda A, c: np.invert(A["self"]),
    # the operators a & b, a | b, a ^ b (CompositeImplicitAutograd in torch 2.9)
    "__and__.Tensor": lambda A, c: np.bitwise_and(A["self"], A["other"]),
    "__or__.Tensor": lambda A, c: np.bitwise_or(A["self"], A["other"]),
    "__xor__.Tensor": lambda A, c: np.bitwise_xor(A["self"], A["other"]),
    "remainder.Tensor": lambda A, c: np.remainder(A["self"], A["other"]),
    "remainder.Scalar": lambda A, c: np.remainder(A["self"], A["other"]),
    "floor_divide": lambda A, c: np.floor_divide(A["self"], A["other"]),
    # select / compare
    "where.self": lambda A, c: np.where(A["condition"], A["self"], A["other"]),
    "where.ScalarOther": lambda A, c: np.where(A["condition"], A["self"], A["other"]),
    "where.ScalarSelf": lambda A, c: np.where(A["condition"], A["self"], A["other"]),
    "where.Scalar": lambda A, c: np.where(A["condition"], A["self"], A["other"]),
    "masked_fill.Scalar": lambda A, c: np.where(A["mask"], A["value"], A["self"]),
    "masked_fill_.Scalar": lambda A, c: np.where(A["mask"], A["value"], A["self"]),
    "copy_": lambda A, c: np.broadcast_to(A["src"], A["self"].shape),
    "eq.Tensor": _cmp(np.equal), "eq.Scalar": _cmp(np.equal),
    "ne.Tensor": _cmp(np.not_equal), "ne.Scalar": _cmp(np.not_equal),
    "lt.Tensor": _cmp(np.less), "lt.Scalar": _cmp(np.less),
    "le.Tensor": _cmp(np.less_equal), "le.Scalar": _cmp(np.less_equal),
    "gt.Tensor": _cmp(np.greater), "gt.Scalar": _cmp(np.greater),
    "ge.Tensor": _cmp(np.greater_equal), "ge.Scalar": _cmp(np.greater_equal),
    # casts (rounding happens when the node's value is stored)
    "to.dtype": lambda A, c: cast(A["self"], A["dtype"]),
    "to.dtype_layout": lambda A, c: cast(A["self"], A["dtype"]) if A.get("dtype") is not None
    else A["self"],
    "_to_copy": lambda A, c: cast(A["self"], A["dtype"]) if A.get("dtype") is not None
    else A["self"],
    # reductions
    "sum.dim_IntList": lambda A, c: np.sum(A["self"], axis=_dims(A["dim"], A["self"].ndim),
                                           keepdims=A.get("keepdim", False)),
    "mean.dim": lambda A, c: np.mean(A["self"], axis=_dims(A["dim"], A["self"].ndim),
                                     keepdims=A.get("keepdim", False)),
    "amax": lambda A, c: np.max(A["self"], axis=_dims(A.get("dim", []), A["self"].ndim),
                                keepdims=A.get("keepdim", False)),
    "amin": lambda A, c: np.min(A["self"], axis=_dims(A.get("dim", []), A["self"].ndim),
                                keepdims=A.get("keepdim", False)),
    "max.dim": _max_dim,
    "min.dim": lambda A, c: _max_dim(A, c, np.argmin),
    "sort": lambda A, c: _sort(A), "sort.stable": lambda A, c: _sort(A),
    "prod": lambda A, c: np.prod(A["self"]),
    "prod.dim_int": lambda A, c: np.prod(A["self"], axis=_dims(A["dim"], A["self"].ndim),
                                         keepdims=A.get("keepdim", False)),
    "all": lambda A, c: _all_any(A, np.all), "all.dim": lambda A, c: _all_any(A, np.all),
    "all.dims": lambda A, c: _all_any(A, np.all),
    "any": lambda A, c: _all_any(A, np.any), "any.dim": lambda A, c: _all_any(A, np.any),
    "any.dims": lambda A, c: _all_any(A, np.any),
    "topk": lambda A, c: _topk(A),
    "cumsum": lambda A, c: np.cumsum(A["self"], axis=_dim(A["dim"], A["self"].ndim)),
    "argmax": lambda A, c: _argmax(A),
    "var.correction": lambda A, c: _var(A["self"], _dims(A.get("dim"), A["self"].ndim),
                                        A.get("correction", 1), A.get("keepdim", False)),
    "var_mean.correction": lambda A, c: (
        _var(A["self"], _dims(A.get("dim"), A["self"].ndim), A.get("correction", 1),
             A.get("keepdim", False)),
        np.mean(A["self"], axis=_dims(A.get("dim"), A["self"].ndim),
                keepdims=A.get("keepdim", False))),
    "softmax.int": lambda A, c: _softmax(A["self"], A["dim"]),
    "_softmax": lambda A, c: _softmax(A["self"], A["dim"]),
    "log_softmax.int": lambda A, c: _log_softmax(A["self"], A["dim"]),
    "_log_softmax": lambda A, c: _log_softmax(A["self"], A["dim"]),
    # normalization
    "layer_norm": lambda A, c: _layer_norm(A["input"], A["normalized_shape"], A.get("weight"),
                                           A.get("bias"), A.get("eps", 1e-5))[0],
    "native_layer_norm": lambda A, c: _layer_norm(A["input"], A["normalized_shape"],
                                                  A["weight"], A["bias"], A["eps"]),
    "rms_norm": lambda A, c: (lambda x, dims, eps: x / np.sqrt(
        np.mean(x * x, axis=dims, keepdims=True) + eps) * (
        A["weight"] if A.get("weight") is not None else 1.0))(
        A["input"], tuple(range(-len(A["normalized_shape"]), 0)),
        A.get("eps") if A.get("eps") is not None else OPMATH_EPS[c["dtype_of"]("input")]),
    "batch_norm": lambda A, c: _batch_norm(A["input"], A.get("weight"), A.get("bias"),
                                           A["running_mean"], A["running_var"], A["eps"]),
    "_native_batch_norm_legit_no_training": lambda A, c: (
        _batch_norm(A["input"], A.get("weight"), A.get("bias"), A["running_mean"],
                    A["running_var"], A["eps"]), np.zeros((0,)), np.zeros((0,))),
    "scaled_dot_product_attention": _sdpa,
    # shape / data movement
    "t": lambda A, c: A["self"].T,
    "transpose.int": lambda A, c: np.swapaxes(A["self"], A["dim0"], A["dim1"])
    if A["self"].ndim else A["self"],
    "permute": lambda A, c: np.transpose(A["self"], A["dims"]),
    "view": lambda A, c: _reshape(A["self"], A["size"]),
    "_unsafe_view": lambda A, c: _reshape(A["self"], A["size"]),
    "reshape": lambda A, c: _reshape(A["self"], A["shape"]),
    "flatten.using_ints": lambda A, c: (lambda x, s, e: _reshape(
        x, list(x.shape[:s]) + [-1] + list(x.shape[e + 1:])))(
        A["self"], _dim(A.get("start_dim", 0), A["self"].ndim),
        _dim(A.get("end_dim", -1), A["self"].ndim)),
    "unsqueeze": lambda A, c: np.expand_dims(A["self"], _dim(A["dim"], A["self"].ndim + 1)),
    "squeeze.dim": lambda A, c: np.squeeze(A["self"], _dim(A["dim"], A["self"].ndim))
    if A["self"].shape[_dim(A["dim"], A["self"].ndim)] == 1 else A["self"],
    "expand": lambda A, c: np.broadcast_to(A["self"], [
        A["self"].shape[i - (len(A["size"]) - A["self"].ndim)] if s == -1 else s
        for i, s in enumerate(A["size"])]),
    "slice.Tensor": lambda A, c: _slice(A["self"], _dim(A.get("dim", 0), A["self"].ndim),
                                        A.get("start"), A.get("end"), A.get("step", 1)),
    "select.int": lambda A, c: np.take(A["self"], A["index"], axis=A["dim"]),
    "cat": lambda A, c: np.concatenate(A["tensors"], axis=A.get("dim", 0)),
    "split.Tensor": lambda A, c: (lambda x, n, d: _split(
        x, [min(n, x.shape[d] - s) for s in range(0, x.shape[d], n)], d))(
        A["self"], A["split_size"], _dim(A.get("dim", 0), A["self"].ndim)),
    "split_with_sizes": lambda A, c: _split(A["self"], A["split_sizes"],
                                            _dim(A.get("dim", 0), A["self"].ndim)),
    "chunk": lambda A, c: (lambda x, k, d: _split(
        x, [min(-(-x.shape[d] // k), x.shape[d] - s)
            for s in range(0, x.shape[d], -(-x.shape[d] // k))], d))(
        A["self"], A["chunks"], _dim(A.get("dim", 0), A["self"].ndim)),
    "index_select": lambda A, c: np.take(A["self"], A["index"], axis=A["dim"]),
    "gather": lambda A, c: np.take_along_axis(
        A["self"][tuple(slice(0, n) if k != _dim(A["dim"], A["self"].ndim) else slice(None)
                        for k, n in enumerate(A["index"].shape))],
        A["index"], axis=_dim(A["dim"], A["self"].ndim)),
    "embedding": lambda A, c: A["weight"][A["indices"]],
    "index.Tensor": lambda A, c: A["self"][tuple(slice(None) if i is None else i
                                                 for i in A["indices"])],
    "index_copy": lambda A, c: _index_copy(A["self"], _dim(A["dim"], A["self"].ndim),
                                           A["index"], A["source"]),
    "index_copy_": lambda A, c: _index_copy(A["self"], _dim(A["dim"], A["self"].ndim),
                                            A["index"], A["source"]),
    "full": lambda A, c: cast(np.full(A["size"], A["fill_value"], dtype=np.float64),
                              _factory_dtype(A, _scalar_code(A["fill_value"]))),
    "zeros": lambda A, c: cast(np.zeros(A["size"]), _factory_dtype(A, 7)),
    "ones": lambda A, c: cast(np.ones(A["size"]), _factory_dtype(A, 7)),
    "arange": lambda A, c: _arange(A, 0, A["end"], 1),
    "arange.start": lambda A, c: _arange(A, A["start"], A["end"], 1),
    "arange.start_step": lambda A, c: _arange(A, A["start"], A["end"], A.get("step", 1)),
    "full_like": lambda A, c: cast(np.full(np.shape(A["self"]), A["fill_value"],
                                           dtype=np.float64),
                                   _factory_dtype(A, c["dtype_of"]("self"))),
    "new_full": lambda A, c: cast(np.full(A["size"], A["fill_value"], dtype=np.float64),
                                  _factory_dtype(A, c["dtype_of"]("self"))),
    "new_zeros": lambda A, c: cast(np.zeros(A["size"]), _factory_dtype(A, c["dtype_of"]("self"))),
    "new_ones": lambda A, c: cast(np.ones(A["size"]), _factory_dtype(A, c["dtype_of"]("self"))),
    "zeros_like": lambda A, c: np.zeros_like(A["self"]),
    "ones_like": lambda A, c: np.ones_like(A["self"]),
    "scatter.src": lambda A, c: _scatter(A),
    "scatter_.src": lambda A, c: _scatter(A),
    "scatter.value": lambda A, c: _scatter(A),
    "scatter_add": lambda A, c: _scatter(A, add=True),
    "unbind.int": lambda A, c: list(np.moveaxis(A["self"], _dim(A.get("dim", 0),
                                                                  A["self"].ndim), 0)),
    "stack": lambda A, c: np.stack(A["tensors"], axis=_dim(A.get("dim", 0),
                                                          A["tensors"][0].ndim + 1)),
    "repeat": lambda A, c: np.tile(A["self"], A["repeats"]),
    "slice_scatter": lambda A, c: _slice_scatter(A),
    "select_scatter": lambda A, c: _slice_scatter(A, select=True),
    "index_put": lambda A, c: _index_put(A),
    "triu": lambda A, c: np.triu(A["self"], A.get("diagonal", 0)),
    "tril": lambda A, c: np.tril(A["self"], A.get("diagonal", 0)),
    "clone": lambda A, c: np.array(A["self"], copy=True),
    "contiguous": lambda A, c: A["self"], "alias": lambda A, c: A["self"],
    "detach": lambda A, c: A["self"],
    "lift_fresh_copy": lambda A, c: np.array(A["self"], copy=True),
    "dropout": lambda A, c: A["input"] if not A["train"] else None,
    "constant_pad_nd": lambda A, c: _pad(A["self"], A["pad"], A.get("value", 0)),
    "pad": lambda A, c: _pad(A["self"], A["pad"], 0.0 if A.get("value") is None else A["value"],
                             A.get("mode", "constant")),
    "index_add": lambda A, c: _index_add(A),
    "masked_scatter": lambda A, c: _masked_scatter(A),
    # convolution
    "conv1d": lambda A, c: _conv(A), "conv2d": lambda A, c: _conv(A),
    "conv1d.padding": lambda A, c: _conv(A, A.get("padding", "valid")),
    "conv2d.padding": lambda A, c: _conv(A, A.get("padding", "valid")),
    "convolution": lambda A, c: _conv(A, transposed=A["transposed"]),
}
NO_OUTPUT = {"_assert_tensor_metadata"}
INPLACE_FIRST_ARG = {"add_.Tensor", "mul_.Tensor", "index_copy_", "scatter_.src",
                     "masked_fill_.Scalar", "copy_"}
# Views an in-place op may write through: the write reaches their base.
VIEW_OPS = {"slice.Tensor", "select.int"}


def _op_key(target):
    # torch.ops.aten.<op>.<overload>  ->  "<op>" for .default, else "<op>.<overload>"
    parts = target.split(".")
    if parts[:3] != ["torch", "ops", "aten"]:
        raise ValueError(f"unsupported target {target}")
    op, overload = parts[3], parts[4]
    return op if overload == "default" else f"{op}.{overload}"


def _float(v):
    if isinstance(v, str):
        return {"Infinity": math.inf, "-Infinity": -math.inf, "NaN": math.nan}[v]
    return v


def _arg_value(arg, env):
    (tag, v), = arg.items()
    if tag == "as_tensor":
        return env[v["name"]]
    if tag == "as_tensors":
        return [env[t["name"]] for t in v]
    if tag == "as_optional_tensors":
        return [None if "as_none" in t else env[t["as_tensor"]["name"]] for t in v]
    if tag == "as_none":
        return None
    if tag == "as_float":
        return _float(v)
    if tag == "as_floats":
        return [_float(x) for x in v]
    if tag in ("as_int", "as_bool", "as_string", "as_ints", "as_bools", "as_strings",
               "as_scalar_type", "as_layout", "as_memory_format", "as_device"):
        return v
    raise ValueError(f"argument tag {tag} not supported")


def run(fixture_dir, round_values=True, verbose=False, intermediates=None):
    _root, files, _order = read_archive(os.path.join(fixture_dir, "model.pt2"))
    ep = json.loads(files["models/model.json"])
    weights = load_payload(files, "data/weights/", "data/weights/model_weights_config.json")
    consts = load_payload(files, "data/constants/", "data/constants/model_constants_config.json")
    fx = json.load(open(os.path.join(fixture_dir, "fixture.json")))
    g = ep["graph_module"]["graph"]
    tv = g["tensor_values"]
    env = {}
    user_i = 0
    for spec in ep["graph_module"]["signature"]["input_specs"]:
        (tag, v), = spec.items()
        if tag == "parameter":
            arr, code = weights[v["parameter_name"]]
            env[v["arg"]["name"]] = as_repr(arr, code)
        elif tag == "buffer":
            arr, code = (weights if v["persistent"] else consts)[v["buffer_name"]]
            env[v["arg"]["name"]] = as_repr(arr, code)
        elif tag == "tensor_constant":
            arr, code = consts[v["tensor_constant_name"]]
            env[v["arg"]["name"]] = as_repr(arr, code)
        elif tag == "user_input":
            name = v["arg"]["as_tensor"]["name"]
            arr = np.load(os.path.join(fixture_dir, f"input_{user_i}.npy"))
            code = tv[name]["dtype"]
            if code == 13:  # bf16 stored as float32
                assert fx["inputs"][user_i].get("stored_as") == "float32"
            env[name] = as_repr(arr, code)
            user_i += 1
        else:
            raise ValueError(f"input spec {tag} not supported")
    for name, x in env.items():
        assert list(x.shape) == _ints(tv[name]["sizes"]), (name, x.shape)

    def store(name, val):
        code = tv[name]["dtype"]
        val = np.asarray(val)
        assert list(val.shape) == _ints(tv[name]["sizes"]), (name, val.shape, tv[name]["sizes"])
        if code in FLOAT_CODES:
            val = cast(val, code) if round_values else val.astype(np.float64)
        else:
            val = cast(val, code)
        env[name] = val
        if intermediates is not None:
            os.makedirs(intermediates, exist_ok=True)
            np.save(os.path.join(intermediates, name + ".npy"), np.ascontiguousarray(val))

    ctx = {"dtype_of": None}
    views = {}
    for node in g["nodes"]:
        key = _op_key(node["target"])
        A = {}
        dtype_codes = {}
        for na in node["inputs"]:
            A[na["name"]] = _arg_value(na["arg"], env)
            if "as_tensor" in na["arg"]:
                dtype_codes[na["name"]] = tv[na["arg"]["as_tensor"]["name"]]["dtype"]
        ctx["dtype_of"] = dtype_codes.get
        if key in NO_OUTPUT:
            src = node["inputs"][0]["arg"]["as_tensor"]["name"]
            if A.get("dtype") is not None and A["dtype"] != tv[src]["dtype"]:
                raise AssertionError(f"_assert_tensor_metadata: {src} is not dtype {A['dtype']}")
            continue
        if key not in OPS:
            raise KeyError(f"op {node['target']} not implemented in the interpreter")
        out = OPS[key](A, ctx)
        outs = node["outputs"]
        if len(outs) == 1 and "as_tensors" in outs[0]:
            for t, val in zip(outs[0]["as_tensors"], out):
                store(t["name"], val)
        elif len(outs) == 1:
            store(outs[0]["as_tensor"]["name"], out)
        else:
            for o, val in zip(outs, out):
                if "as_tensor" in o:
                    store(o["as_tensor"]["name"], val)
        if key in VIEW_OPS:
            views[outs[0]["as_tensor"]["name"]] = (
                node["inputs"][0]["arg"]["as_tensor"]["name"], key, A)
        if key in INPLACE_FIRST_ARG:
            tgt = node["inputs"][0]["arg"]["as_tensor"]["name"]
            env[tgt] = env[outs[0]["as_tensor"]["name"]]
            while tgt in views:  # carry the write back to the view's base
                parent, vkey, va = views[tgt]
                base = np.array(env[parent], copy=True)
                window = [slice(None)] * base.ndim
                d = _dim(va.get("dim", 0), base.ndim)
                window[d] = va["index"] if vkey == "select.int" else \
                    slice(va.get("start"), va.get("end"), va.get("step", 1))
                base[tuple(window)] = env[tgt]
                env[parent] = base
                tgt = parent
    tol = fx["tolerance"]
    tols = fx.get("output_tolerances") or [tol] * len(g["outputs"])
    worst = 0.0
    ok = True
    for i, o in enumerate(g["outputs"]):
        got = env[o["as_tensor"]["name"]]
        ref = np.load(os.path.join(fixture_dir, f"output_{i}.npy"))
        t = tols[i]
        if got.dtype == np.bool_ or ref.dtype == np.bool_ or ref.dtype.kind in "iu":
            bad = int(np.sum(got.astype(np.int64) != ref.astype(np.int64)))
            err = 0.0 if bad == 0 else float("inf")
            good = bad == 0 or t["atol"] > 0 and \
                np.all(np.abs(got.astype(np.float64) - ref) <= t["atol"] + t["rtol"] * np.abs(ref))
        else:
            ref = ref.astype(np.float64)
            same_inf = np.isinf(got) & np.isinf(ref) & (np.sign(got) == np.sign(ref))
            with np.errstate(invalid="ignore"):
                diff = np.where(same_inf, 0.0, np.abs(got - ref))
            err = float(np.max(diff)) if diff.size else 0.0
            good = bool(np.all(diff <= t["atol"] + t["rtol"] * np.where(same_inf, 0.0, np.abs(ref))))
        worst = max(worst, err)
        ok = ok and bool(good)
        if verbose:
            print(f"   output_{i}: max|diff|={err:.3g} tol={t} {'ok' if good else 'FAIL'}")
    return ok, worst


def main(argv):
    round_values = "--no-round" not in argv
    verbose = "--verbose" in argv
    intermediates = None
    if "--intermediates" in argv:
        at = argv.index("--intermediates")
        if at + 1 >= len(argv):
            print("--intermediates needs a directory", file=sys.stderr)
            return 2
        intermediates = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    dirs = [a for a in argv if not a.startswith("--")]
    if intermediates is not None and len(dirs) != 1:
        print("--intermediates takes one fixture directory", file=sys.stderr)
        return 2
    bad = 0
    for d in dirs:
        try:
            ok, worst = run(d, round_values, verbose, intermediates)
        except Exception as e:  # noqa: BLE001
            print(f"FAIL {d}: {type(e).__name__}: {e}")
            bad += 1
            continue
        print(f"{'ok  ' if ok else 'FAIL'} {d} max|diff|={worst:.3g}")
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
