"""Generators of the shape family: views and reshapes, data movement
(cat, stack, split, slice, pad, repeat, expand), indexing (index, gather,
scatter, embedding, index_copy/put/select), factories and fills.

Every dtype; views of views (the operand itself is often an in-graph view);
negative dims and indices; 0-size and long dims; indices drawn in range (and
distinct where PyTorch leaves the order of duplicates unspecified).
"""

import math

import torch

from gen import BOOL, F16, F32, FLOATS, I32, I64, factor_shape, lit
from table import Table

T = Table("shape")
NO_BOOL = (F16, torch.bfloat16, F32, I32, I64)


def _x(b, **kw):
    """A random-shaped operand of a registry dtype: (text, shape, dtype)."""
    d = b.dtype(kw.pop("among", None))
    shape = b.shape(**kw)
    return b.operand(shape, d), shape, d


def _shape_text(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


# ------------------------------------------------------------ views
@T.add("aten.view.default", "aten.view_copy.default", "aten._unsafe_view.default",
       "aten.reshape.default")
def view_like(b, op):
    """x.view(shape) / torch.view_copy / aten._unsafe_view on contiguous x,
    x.reshape(shape) on any x (views too): target ranks 0-6, a -1 entry
    now and then, innermost dim kept or not."""
    name = op.split(".")[1]
    d = b.dtype()
    shape = b.shape()
    x = b.operand(shape, d, view=None if name == "reshape" else False)
    n = math.prod(shape)
    target = list(factor_shape(b.rng, n, b.rank(lo=0 if n == 1 else 1)))
    if n and target and b.chance(0.3):
        target[b.randint(0, len(target) - 1)] = -1
    t = _shape_text(target)
    # The shape as one tuple argument: x.view(()) for rank 0 (x.view() is
    # no call PyTorch accepts).
    return {"view": f"{x}.view({t})", "view_copy": f"torch.view_copy({x}, {t})",
            "_unsafe_view": f"torch.ops.aten._unsafe_view.default({x}, {t})",
            "reshape": f"{x}.reshape({t})"}[name]


T.untraceable("aten.reshape_copy.default",
              "no PyTorch operator has this name (torch.export never writes it)")


@T.add("aten.flatten.using_ints")
def flatten(b, op):
    """torch.flatten(x, start, end) with negative and equal start/end."""
    x, shape, _ = _x(b)
    r = max(len(shape), 1)
    s = b.randint(0, r - 1)
    e = b.randint(s, r - 1)
    return f"torch.flatten({x}, {b._neg(s, r)}, {b._neg(e, r)})"


@T.add("aten.unflatten.int")
def unflatten(b, op):
    """unflatten(x, dim, sizes) (keep op) with sizes of 1 to 3 dims, one
    maybe -1."""
    x, shape, _ = _x(b, lo=1)
    dim = b.dim(len(shape))
    sizes = list(factor_shape(b.rng, shape[dim], b.randint(1, 3)))
    if shape[dim] and b.chance(0.3):
        sizes[b.randint(0, len(sizes) - 1)] = -1
    return f"keep('unflatten.int')({x}, {dim}, {sizes})"


@T.add("aten.squeeze.default", "aten.squeeze.dim", "aten.squeeze.dims")
def squeeze(b, op):
    """x.squeeze(), x.squeeze(d) (d of size 1 or not), squeeze.dims (keep
    op) on shapes with several 1s."""
    d = b.dtype()
    shape = tuple(1 if b.chance(0.4) else s for s in b.shape())
    x = b.operand(shape, d)
    if op.endswith("default"):
        return f"{x}.squeeze()"
    r = max(len(shape), 1)
    if op.endswith(".dim"):
        return f"{x}.squeeze({b.dim(r)})"
    dims = sorted(b.rng.sample(range(r), b.randint(1, r))) if shape else [0]
    return f"keep('squeeze.dims')({x}, {[b._neg(k, r) for k in dims]})"


@T.add("aten.unsqueeze.default")
def unsqueeze(b, op):
    """x.unsqueeze(d) for d in [-rank-1, rank]."""
    x, shape, _ = _x(b, hi=5)
    r = len(shape) + 1
    return f"{x}.unsqueeze({b.dim(r)})"


@T.add("aten.permute.default")
def permute(b, op):
    """x.permute(p), negative entries, the innermost dim moved or kept."""
    x, shape, _ = _x(b)
    p = list(range(len(shape)))
    b.rng.shuffle(p)
    return f"{x}.permute({[b._neg(k, len(p)) for k in p]})"


@T.add("aten.transpose.int")
def transpose(b, op):
    """x.transpose(i, j), i == j included."""
    x, shape, _ = _x(b)
    r = max(len(shape), 1)
    return f"{x}.transpose({b.dim(r)}, {b.dim(r)})"


@T.add("aten.t.default")
def t(b, op):
    """x.t() on ranks 0-2."""
    x, _, _ = _x(b, hi=2)
    return f"{x}.t()"


@T.add("aten.expand.default", "aten.expand_copy.default")
def expand(b, op):
    """x.expand(shape) / torch.expand_copy: size-1 dims broadcast (the
    innermost one too), new leading dims, -1 entries."""
    d = b.dtype()
    out = b.shape(lo=1)
    src = [1 if b.chance(0.5) else s for s in out]
    src = src[b.randint(0, len(src)):] if b.chance(0.3) else src
    x = b.operand(src, d)
    lead = len(out) - len(src)
    target = [-1 if i >= lead and src[i - lead] == s and b.chance(0.3) else s
              for i, s in enumerate(out)]
    if op.endswith("copy.default"):
        return f"torch.expand_copy({x}, {target})"
    return f"{x}.expand({', '.join(map(str, target))})"


@T.add("aten.select.int")
def select(b, op):
    """x.select(d, i) / x[..., i] with negative d and i."""
    x, shape, _ = _x(b, lo=1, nonzero=True)
    dim = b.dim(len(shape))
    n = shape[dim]
    i = b.randint(-n, n - 1)
    if b.chance(0.5) and dim >= 0:
        return f"{x}[{', '.join([':'] * dim + [str(i)])}]"
    return f"{x}.select({dim}, {i})"


@T.add("aten.slice.Tensor")
def slice_(b, op):
    """x[..., start:end:step] with negative, omitted and out-of-range
    bounds, steps 1-4."""
    x, shape, _ = _x(b, lo=1)
    dim = b.randint(0, len(shape) - 1)
    n = shape[dim]
    start = b.choice(("", str(b.randint(-n - 2, n + 2))))
    end = b.choice(("", str(b.randint(-n - 2, n + 2))))
    step = b.choice(("", ":2", ":3", ":4", ":1"))
    return f"{x}[{', '.join([':'] * dim + [f'{start}:{end}{step}'])}]"


# ------------------------------------------------------- joining, splitting
@T.add("aten.cat.default")
def cat(b, op):
    """torch.cat of 1-4 tensors along a (negative) dim, pieces of 0 size
    too, sometimes of mixed dtypes (promoted)."""
    d = b.dtype()
    shape = list(b.shape(lo=1))
    dim = b.dim(len(shape))
    parts = []
    for _ in range(b.randint(1, 4)):
        s = list(shape)
        s[dim] = b.choice((0, 1, 2, 3, 7, 64, 65, shape[dim]))
        parts.append(b.operand(s, d if b.chance(0.85) else b.dtype()))
    return f"torch.cat([{', '.join(parts)}], {dim})"


@T.add("aten.stack.default")
def stack(b, op):
    """torch.stack of 1-4 same-shape tensors at dim in [-rank-1, rank]."""
    d = b.dtype()
    shape = b.shape(hi=5)
    parts = [b.operand(shape, d) for _ in range(b.randint(1, 4))]
    return f"torch.stack([{', '.join(parts)}], {b.dim(len(shape) + 1)})"


@T.add("aten.split.Tensor", "aten.split_with_sizes.default", "aten.chunk.default",
       "aten.unbind.int")
def split(b, op):
    """torch.split(x, size | sizes, dim), torch.chunk(x, n, dim),
    x.unbind(dim): uneven last pieces, 0-size pieces."""
    name = op.split(".")[1]
    d = b.dtype()
    shape = list(b.shape(lo=1))
    dim = b.dim(len(shape))
    if name == "unbind":  # one output per slice
        shape[dim] = min(shape[dim], 12)
    x = b.operand(shape, d)
    n = shape[dim]
    if name == "unbind":
        return f"{x}.unbind({dim})"
    if name == "chunk":
        return f"torch.chunk({x}, {b.randint(1, 6)}, {dim})"
    if name == "split":
        return f"torch.split({x}, {max(1, n // b.randint(1, 5))}, {dim})"
    cuts = sorted(b.randint(0, n) for _ in range(b.randint(0, 3)))
    sizes = [hi - lo for lo, hi in zip([0] + cuts, cuts + [n])]
    return f"torch.split({x}, {sizes}, {dim})"


@T.add("aten.repeat.default")
def repeat(b, op):
    """x.repeat(counts) with as many or more counts than dims (new leading
    dims), counts 1-3 and rarely 0."""
    x, shape, _ = _x(b, hi=4, max_numel=2048)
    counts = [b.choice((1, 1, 2, 3, 0 if b.chance(0.1) else 1))
              for _ in range(len(shape) + b.randint(0, 2))] or [2]
    return f"{x}.repeat({_shape_text(counts)[1:-1]})"


@T.add("aten.constant_pad_nd.default", "aten.pad.default")
def pad(b, op):
    """torch.constant_pad_nd(x, pad, value) / F.pad(x, pad, value=v) with
    pads on the last 1-3 dims, 0 pads, now and then negative ones
    (cropping; every dim at least 3, so that a -1 on both sides leaves one
    element: torch 1.13 refuses an empty result)."""
    d = b.dtype()
    shape = tuple(max(s, 3) for s in b.shape(lo=1))
    x = b.operand(shape, d)
    k = b.randint(1, min(3, len(shape)))
    pads = [b.choice((0, 1, 2, 5, 64, -1 if b.chance(0.1) else 3)) for _ in range(2 * k)]
    # Pads of 64 around long rows could ask PyTorch for gigabytes (a
    # generator error at seed 1308): keep the result near operand sizes.
    padded = list(shape)
    for i in range(k):
        padded[-1 - i] += pads[2 * i] + pads[2 * i + 1]
    if math.prod(padded) > 64 * math.prod(shape):
        pads = [min(p, 1) for p in pads]
    v = b.scalar(d)
    if op.startswith("aten.pad"):
        return f"F.pad({x}, {pads}, value={lit(v)})"
    return f"torch.constant_pad_nd({x}, {pads}, {lit(v)})"


@T.add("aten.tril.default", "aten.triu.default")
def tril_triu(b, op):
    """torch.tril/triu(x, diagonal) on ranks 2-6, diagonals beyond the
    matrix too."""
    fn = op.split(".")[1]
    x, shape, _ = _x(b, lo=2)
    diag = b.randint(-shape[-2] - 1, shape[-1] + 1)
    return f"torch.{fn}({x}, {diag})"


# --------------------------------------------------------------- indexing
def _index(b, n, shape, dtype=I64, distinct=False):
    """An index operand of `dtype` with values in [0, n), distinct when
    asked (and possible)."""
    d = dtype
    count = math.prod(shape)
    if distinct:
        v = torch.from_numpy(b.np.permutation(max(n, count))[:count] % max(n, 1))
    else:
        v = torch.from_numpy(b.np.integers(0, max(n, 1), count))
    return b.operand(shape, d, "index", values=v.reshape(shape).to(d))


@T.add("aten.index.Tensor")
def index(b, op):
    """x[idx], x[:, idx], x[idx2d], and x[i, j] with several index tensors
    (broadcasting); int64 indices (torch 1.13 rejects int32 ones)."""
    x, shape, _ = _x(b, lo=1)
    dim = b.randint(0, min(2, len(shape) - 1))
    n = shape[dim]
    if n == 0:  # only an empty index is in range
        return f"{x}[{', '.join([':'] * dim + [_index(b, 1, (0,))])}]"
    ishape = b.shape(lo=1, hi=2, max_numel=64, long_ok=False)
    idx = [_index(b, n, ishape)]
    if len(shape) > dim + 1 and shape[dim + 1] and b.chance(0.25):
        idx.append(_index(b, shape[dim + 1], ishape[-1:]))
    return f"{x}[{', '.join([':'] * dim + idx)}]"


@T.add("aten.index_select.default")
def index_select(b, op):
    """torch.index_select(x, dim, idx) with a 1-D index, repeats allowed."""
    x, shape, _ = _x(b, lo=1, nonzero=True)
    dim = b.dim(len(shape))
    idx = _index(b, shape[dim], (b.choice((0, 1, 3, 7, 64, 100)),), b.choice((I32, I64)))
    return f"torch.index_select({x}, {dim}, {idx})"


@T.add("aten.embedding.default")
def embedding(b, op):
    """F.embedding(idx, table[V, D]) with idx of rank 0-3."""
    d = b.dtype()
    v, dim = b.choice((1, 5, 33, 100, 1000)), b.size() or 1
    table = b.operand((v, dim), d)
    idx = _index(b, v, b.shape(hi=3, max_numel=256, long_ok=False), b.choice((I32, I64)))
    return f"F.embedding({idx}, {table})"


@T.add("aten.gather.default")
def gather(b, op):
    """torch.gather(x, dim, idx) with idx no larger than x in the other
    dims and up to 64 (rarely more) along dim, repeats allowed."""
    x, shape, _ = _x(b, lo=1, nonzero=True)
    dim = b.dim(len(shape))
    ishape = [b.randint(1, s) for s in shape]
    ishape[dim] = b.choice((1, 2, 5, 64, 65)) if b.chance(0.9) else b.randint(1, 200)
    return f"torch.gather({x}, {dim}, {_index(b, shape[dim], ishape, I64)})"


def _scatter_index(b, shape, dim, span):
    """An i64 index for scatter into `shape` along dim: distinct positions
    along dim per slice (later-wins order is unspecified in PyTorch); the
    same size as self in the other dims when `span`."""
    ishape = [s if span else b.randint(1, s) for s in shape]
    k = ishape[dim] = b.randint(1, min(shape[dim], 64))
    n = shape[dim]
    moved = [s for i, s in enumerate(ishape) if i != dim % len(shape)]
    rows = math.prod(moved)
    v = torch.stack([torch.from_numpy(b.np.permutation(n)[:k]) for _ in range(rows)]) \
        if rows else torch.zeros((0, k), dtype=torch.int64)
    v = v.reshape(moved + [k]).movedim(-1, dim % len(shape))
    return b.operand(ishape, I64, "index", values=v), ishape


@T.add("aten.scatter.src", "aten.scatter.value", "aten.scatter_add.default")
def scatter(b, op):
    """x.scatter(dim, idx, src | value), x.scatter_add(dim, idx, src):
    distinct indices per slice (scatter_add: repeats too, they
    accumulate), an index spanning self in the other dims or (rarely)
    smaller, src larger than idx."""
    d = b.dtype()
    shape = b.shape(lo=1, nonzero=True, max_numel=4096)
    dim = b.dim(len(shape))
    x = b.operand(shape, d)
    idx, ishape = _scatter_index(b, shape, dim, span=b.chance(0.85))
    if op.endswith("value"):
        return f"{x}.scatter({dim}, {idx}, {lit(b.scalar(d))})"
    src = b.operand([s + b.choice((0, 0, 1)) for s in ishape], d)
    if op.startswith("aten.scatter_add"):
        if b.chance(0.3):
            idx = _index(b, shape[dim], ishape, I64)
        return f"{x}.scatter_add({dim}, {idx}, {src})"
    return f"{x}.scatter({dim}, {idx}, {src})"


@T.add("aten.index_copy.default")
def index_copy(b, op):
    """torch.index_copy(x, dim, idx, src) with distinct 1-D indices (the
    innermost dim too, which the registry does not support)."""
    d = b.dtype()
    shape = b.shape(lo=1, nonzero=True)
    dim = b.dim(len(shape))
    k = b.randint(1, min(shape[dim], 8))
    src = list(shape)
    src[dim] = k
    return (f"torch.index_copy({b.operand(shape, d)}, {dim}, "
            f"{_index(b, shape[dim], (k,), I64, distinct=True)}, {b.operand(src, d)})")


@T.add("aten.index_put.default")
def index_put(b, op):
    """aten.index_put(x, [None, .., idx], v, accumulate) with one distinct 1-D index
    at some position, v broadcasting; now and then accumulate=True or two
    index tensors (not supported by the registry)."""
    d = b.dtype()
    shape = b.shape(lo=1, nonzero=True)
    dim = b.randint(0, len(shape) - 1)
    k = b.randint(1, min(shape[dim], 8))
    idx = [_index(b, shape[dim], (k,), I64, distinct=True)]
    vshape = list(shape[:dim]) + [k] + list(shape[dim + 1:])
    if dim + 1 < len(shape) and b.chance(0.1):
        idx.append(_index(b, shape[dim + 1], (k,), I64))
        vshape = list(shape[:dim]) + [k] + list(shape[dim + 2:])
    if b.chance(0.3):
        vshape = vshape[b.randint(0, len(vshape)):]
    acc = b.chance(0.1) and d != BOOL
    x = b.operand(shape, d)
    # by name: torch 1.13's Python binding takes no None index
    return (f"torch.ops.aten.index_put.default({x}, [{'None, ' * dim}{', '.join(idx)}], "
            f"{b.operand(vshape, d)}, {acc})")


@T.add("aten.select_scatter.default")
def select_scatter(b, op):
    """torch.select_scatter(x, src, dim, i) with negative dim and i."""
    d = b.dtype()
    shape = b.shape(lo=1, nonzero=True)
    dim = b.dim(len(shape))
    n = shape[dim]
    src = [s for i, s in enumerate(shape) if i != dim % len(shape)]
    return (f"torch.select_scatter({b.operand(shape, d)}, {b.operand(src, d)}, {dim}, "
            f"{b.randint(-n, n - 1)})")


@T.add("aten.slice_scatter.default")
def slice_scatter(b, op):
    """torch.slice_scatter(x, src, dim, start, end, step): windows with
    unit and (rarely) larger steps."""
    d = b.dtype()
    shape = b.shape(lo=1)
    dim = b.dim(len(shape))
    n = shape[dim]
    start = b.randint(0, n)
    end = b.randint(start, n)
    step = 1 if b.chance(0.8) else b.choice((2, 3))
    src = list(shape)
    src[dim] = len(range(start, end, step))
    return (f"torch.slice_scatter({b.operand(shape, d)}, {b.operand(src, d)}, {dim}, "
            f"{start}, {end}, {step})")


@T.add("aten.copy.default")
def copy(b, op):
    """copy(x, src) (keep op): src broadcast to x's shape and cast to its
    dtype."""
    x, shape, _ = _x(b)
    src = shape[b.randint(0, len(shape)):] if b.chance(0.3) else shape
    return f"keep('copy')({x}, {b.operand(src, b.dtype())})"


# ------------------------------------------------- factories and fills
@T.add("aten.full.default", "aten.zeros.default", "aten.ones.default",
       "aten.empty.memory_format")
def factory(b, op):
    """torch.full(shape, v, dtype=) / zeros / ones / empty with every
    dtype, shapes of rank 0-6 (empty: only the shape is compared)."""
    name = op.split(".")[1]
    d = b.dtype()
    shape = _shape_text(b.shape())
    if name == "full":
        return f"torch.full({shape}, {lit(b.scalar(d))}, dtype={lit(d)})"
    return f"torch.{name}({shape}, dtype={lit(d)})"


T.gens["aten.empty.memory_format"].shape_only = True


@T.add("aten.zeros_like.default", "aten.ones_like.default", "aten.full_like.default",
       "aten.empty_like.default")
def factory_like(b, op):
    """torch.zeros_like / ones_like / full_like(x, v) / empty_like of any
    operand, sometimes with another dtype."""
    name = op.split(".")[1]
    x, _, d = _x(b)
    dt = f", dtype={lit(b.dtype())}" if b.chance(0.3) else ""
    if name == "full_like":
        return f"torch.full_like({x}, {lit(b.scalar(F32 if d in FLOATS else d, 'grid'))}{dt})"
    return f"torch.{name}({x}{dt})"


T.gens["aten.empty_like.default"].shape_only = True


@T.add("aten.new_zeros.default", "aten.new_ones.default", "aten.new_full.default",
       "aten.new_empty.default")
def factory_new(b, op):
    """x.new_zeros / new_ones / new_full(shape, v) / new_empty(shape),
    dtype from x or given."""
    name = op.split(".")[1]
    x, _, d = _x(b, hi=3)
    shape = _shape_text(b.shape())
    dt = f", dtype={lit(b.dtype())}" if b.chance(0.3) else ""
    if name == "new_full":
        return f"{x}.new_full({shape}, {lit(b.scalar(d, 'grid'))}{dt})"
    return f"{x}.{name}({shape}{dt})"


T.gens["aten.new_empty.default"].shape_only = True


@T.add("aten.fill.Scalar", "aten.zero.default")
def fill(b, op):
    """torch.fill(x, v) / aten.zero(x) (the functional forms)."""
    x, _, d = _x(b)
    if op.startswith("aten.zero"):
        return f"torch.ops.aten.zero.default({x})"
    return f"torch.fill({x}, {lit(b.scalar(d))})"


@T.add("aten.scalar_tensor.default")
def scalar_tensor(b, op):
    """torch.scalar_tensor(v, dtype=)."""
    d = b.dtype()
    return f"torch.scalar_tensor({lit(b.scalar(d))}, dtype={lit(d)})"


@T.add("aten.arange.default", "aten.arange.start", "aten.arange.start_step",
       dtypes=NO_BOOL)
def arange(b, op):
    """torch.arange(end | start, end | start, end, step, dtype=) with
    negative and fractional (float dtypes) bounds and steps, empty
    ranges."""
    d = b.dtype()
    step = b.choice((1, 2, 3, -1, -2))
    if d in FLOATS and b.chance(0.4):
        step = b.choice((0.5, 0.25, -0.5, 1.5))
    start = b.randint(-20, 20)
    end = start + step * b.randint(0, 200)
    if op.endswith("default"):
        return f"torch.arange({abs(end)}, dtype={lit(d)})"
    if op.endswith("start"):
        return f"torch.arange({start}, {start + abs(end - start)}, dtype={lit(d)})"
    return f"torch.arange({start}, {end}, {step}, dtype={lit(d)})"


@T.add("aten._assert_tensor_metadata.default")
def assert_metadata(b, op):
    """x.to(dtype): the exporter puts aten._assert_tensor_metadata before
    every aten.to node."""
    x, _, _ = _x(b)
    return f"{x}.to({lit(b.dtype())})"


@T.add("aten.index_add.default", tol="reduction")
def index_add(b, op):
    """torch.index_add(x, dim, idx, src[, alpha=]) with a 1-D index whose
    repeats accumulate, along any dim."""
    d = b.dtype()
    shape = b.shape(lo=1, nonzero=True)
    dim = b.dim(len(shape))
    k = b.choice((1, 2, 3, 8, 20))
    src = list(shape)
    src[dim] = k
    alpha = "" if d == BOOL or b.chance(0.6) else \
        f", alpha={lit(b.scalar(d, 'grid') if d in FLOATS else 2)}"
    return (f"torch.index_add({b.operand(shape, d)}, {dim}, "
            f"{_index(b, shape[dim], (k,))}, {b.operand(src, d)}{alpha})")


@T.add("aten.masked_scatter.default")
def masked_scatter(b, op):
    """x.masked_scatter(mask, source): a bool mask broadcasting to x (along
    the last dim too), a source of x's shape or 1-D with a few elements
    more."""
    d = b.dtype()
    out, (_, ms) = b.bcast_shapes(2)
    src = out if b.chance(0.5) else (math.prod(out) + b.randint(0, 5),)
    return (f"{b.operand(out, d)}.masked_scatter({b.operand(ms, BOOL)}, "
            f"{b.operand(src, d)})")
