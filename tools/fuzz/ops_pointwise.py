"""Generators of the pointwise family: unary and binary arithmetic,
comparisons, logical and bitwise ops, selects, casts, identities.

Operands broadcast against each other, are often in-graph views, and come in
every dtype the registry lists; value ranges keep each op in its domain
(positive for log/sqrt/rsqrt, quotients away from integers for floor
division) so that a 1e-2 fp16 comparison is meaningful.
"""

import numpy as np
import torch

from gen import (BF16, BOOL, F16, F32, FLOATS, FRACTION_BITS, I32, I64, INTS, lit,
                 round_significand)
from table import Table

T = Table("pointwise")
ALL = (F16, BF16, F32, I32, I64, BOOL)

# unary float ops: value kind of the input
UNARY = {
    "abs": "normal", "ceil": "grid", "cos": "normal", "erf": "normal", "exp": "normal",
    "floor": "grid", "log": "pos", "neg": "normal", "reciprocal": "nonzero", "relu": "normal",
    "round": "grid", "rsqrt": "pos", "sigmoid": "normal", "sign": "grid", "silu": "normal",
    "sin": "normal", "sqrt": "pos", "tanh": "normal",
}


@T.add(*[f"aten.{n}.default" for n in UNARY])
def unary(b, op):
    """torch.<op>(x) or x.<op>() (F.silu) on any shape; ceil/floor/round/
    sign on a 0.5 grid (ties, exact zeros), log/sqrt/rsqrt on positive
    values, reciprocal away from 0."""
    name = op.split(".")[1]
    kind = UNARY[name]
    if kind == "grid" and b.chance(0.5):
        kind = "normal"
    x = b.operand(b.shape(), b.dtype(), kind)
    fn = "F.silu" if name == "silu" else f"torch.{name}"
    return f"{fn}({x})" if b.chance(0.5) or name == "silu" else f"{x}.{name}()"


@T.add("aten.square.default")
def square(b, op):
    """square(x) (a keep op: torch 1.13 decomposes it to pow)."""
    return f"keep('square')({b.operand(b.shape(), b.dtype())})"


def _floats_maybe_mixed(b, n):
    """n float dtypes, usually equal, sometimes mixed (type promotion)."""
    d = b.dtype()
    return [d if b.chance(0.8) else b.dtype() for _ in range(n)]


@T.add("aten.add.Tensor", "aten.sub.Tensor")
def add_sub(b, op):
    """x +/- y with broadcasting, mixed float dtypes, alpha in {2, -1, 0.5},
    or a Python scalar other (a splat)."""
    fn = op.split(".")[1]
    d = _floats_maybe_mixed(b, 2)
    x, y = b.operands(d, ["normal", "normal"])
    if b.chance(0.2):
        y = lit(b.scalar(d[0]))
    alpha = b.choice((None, None, 2, -1, 0.5))
    return f"torch.{fn}({x}, {y}" + (f", alpha={alpha})" if alpha is not None else ")")


@T.add("aten.rsub.Tensor")
def rsub_tensor(b, op):
    """torch.rsub(x, y, alpha=...) = y - alpha * x, broadcasting."""
    d = _floats_maybe_mixed(b, 2)
    x, y = b.operands(d, ["normal", "normal"])
    alpha = b.choice((None, 2, -0.5))
    return f"torch.rsub({x}, {y}" + (f", alpha={alpha})" if alpha is not None else ")")


@T.add("aten.add.Scalar", "aten.sub.Scalar", "aten.rsub.Scalar", "aten.mul.Scalar",
       "aten.div.Scalar")
def arith_scalar(b, op):
    """torch.ops.aten.<op>.Scalar(x, s[, alpha]) with a scalar s exact in
    x's dtype (nonzero for div)."""
    fn = op.split(".")[1]
    d = b.dtype()
    x = b.operand(b.shape(), d)
    s = b.scalar(d, "nonzero" if fn == "div" else "normal")
    alpha = ", alpha=2" if fn in ("add", "sub", "rsub") and b.chance(0.3) else ""
    return f"torch.ops.aten.{fn}.Scalar({x}, {lit(s)}{alpha})"


@T.add("aten.mul.Tensor", "aten.maximum.default", "aten.minimum.default")
def mul_max_min(b, op):
    """x * y, torch.maximum(x, y), torch.minimum(x, y): broadcasting,
    mixed float dtypes; mul also with a Python scalar other; max/min on a
    grid (ties)."""
    fn = op.split(".")[1]
    d = _floats_maybe_mixed(b, 2)
    kind = "normal" if fn == "mul" else b.choice(("normal", "grid"))
    x, y = b.operands(d, [kind, kind])
    if fn == "mul":
        if b.chance(0.2):
            y = lit(b.scalar(d[0]))
        return f"{x} * {y}" if b.chance(0.5) else f"torch.mul({x}, {y})"
    if d[0] != d[1]:
        y = f"{y}.to({d[0]})"
    return f"torch.{fn}({x}, {y})"


@T.add("aten.div.Tensor")
def div(b, op):
    """x / y (true division), broadcasting, y away from 0, or a scalar."""
    d = _floats_maybe_mixed(b, 2)
    x, y = b.operands(d, ["normal", "nonzero"])
    if b.chance(0.2):
        y = lit(b.scalar(d[0], "nonzero"))
    return f"{x} / {y}" if b.chance(0.5) else f"torch.div({x}, {y})"


def _quotient_operands(b, d, scalar):
    """x, y for floor/trunc division and remainder.  Integers: any sign,
    y != 0.  Floats: x = y * q with |y| in [0.25, 2] of 9 significant bits
    and q either k + f (|k| <= 3, f in [0.15, 0.85] on a 1/256 grid: every
    step is exact in f32 and the quotient stays far from an integer after
    fp16 rounding) or, for power-of-two y, a multiple of 0.5 (exact integral
    quotients).  |x| < 8 bounds the cancellation in x - floor(x / y) * y by
    DLFloat16's rounding of x (2^-10 |x|)."""
    if d in INTS:
        if scalar:
            return b.operand(b.shape(), d), lit(b.scalar(d, "nonzero"))
        x, y = b.operands([d, d], ["normal", "nonzero"])
        return x, y
    out, (_, ys) = b.bcast_shapes(2)
    ys = () if scalar else ys
    sign = b.values(ys, I64, "nonzero").sign().double()
    if b.chance(0.3):
        yv = sign * 2.0 ** (b.values(ys, I64, "small").double().clamp(max=1))
        q = b.values(out, F32, "grid").double()
    else:
        mag = torch.from_numpy(round_significand(b.np.uniform(0.25, 2, ys), 9)).double()
        frac = torch.from_numpy(np.asarray(b.np.integers(38, 218, out) / 256.0))
        q = torch.from_numpy(np.asarray(b.np.integers(-3, 4, out))).double() + frac
        yv = sign * mag
    xv = torch.from_numpy(round_significand((q * yv).numpy(), FRACTION_BITS[d]))
    x = b.operand(out, d, values=xv.to(d))
    y = lit(float(yv)) if scalar else b.operand(ys, d, values=yv.to(d))
    return x, y


@T.add("aten.div.Tensor_mode", "aten.div.Scalar_mode", dtypes=FLOATS)
def div_mode(b, op):
    """torch.div(x, y, rounding_mode='floor'|'trunc') with y a tensor
    (broadcasting) or a scalar (Scalar_mode); quotients away from integer
    boundaries."""
    scalar = op.endswith("Scalar_mode")
    d = b.dtype()
    x, y = _quotient_operands(b, d, scalar)
    mode = b.choice(("floor", "trunc"))
    if scalar:
        return f"torch.ops.aten.div.Scalar_mode({x}, {y}, rounding_mode={mode!r})"
    return f"torch.div({x}, {y}, rounding_mode={mode!r})"


@T.add("aten.floor_divide.default", "aten.floor_divide.Scalar", "aten.remainder.Tensor",
       "aten.remainder.Scalar")
def floor_div_rem(b, op):
    """x // y, x % y (Tensor or Scalar y) on floats and integers of both
    signs; y != 0 (PyTorch raises on integer division by 0)."""
    fn, ov = op.split(".")[1:]
    scalar = ov == "Scalar"
    d = b.dtype()
    x, y = _quotient_operands(b, d, scalar)
    if fn == "floor_divide" and scalar:
        return f"keep('floor_divide.Scalar')({x}, {y})"
    sym = "//" if fn == "floor_divide" else "%"
    if scalar:
        return f"torch.remainder({x}, {y})" if b.chance(0.5) else f"{x} % {y}"
    return f"{x} {sym} {y}" if b.chance(0.5) else f"torch.{fn}({x}, {y})"


@T.add("aten.pow.Tensor_Tensor")
def pow_tt(b, op):
    """torch.pow(x, e): positive base, exponent in [-2, 2], broadcasting."""
    d = _floats_maybe_mixed(b, 2)
    x, e = b.operands(d, ["pos", "small"])
    return f"torch.pow({x}, {e})"


@T.add("aten.pow.Tensor_Scalar")
def pow_ts(b, op):
    """x ** e for e in {0, +-0.5, +-1, 2, 3, 3.0, -2, 4, 1.7, 2.5, 7}:
    integer exponents on signed bases, others on positive ones."""
    e = b.choice((0, 0.5, -0.5, -1, 1, 2, 3, -2, 4, 1.7, 2.5, 7, 3.0))
    kind = "pos" if not float(e).is_integer() else "nonzero" if e < 0 else \
        "small" if e > 4 else "normal"
    x = b.operand(b.shape(), b.dtype(), kind)
    return f"{x} ** {lit(e)}" if b.chance(0.5) else f"torch.pow({x}, {lit(e)})"


@T.add("aten.pow.Scalar")
def pow_scalar(b, op):
    """torch.pow(base, e) with a positive scalar base and a tensor exponent
    in [-2, 2]."""
    base = b.choice((2.0, 0.5, 3.0, 1.5, 10.0))
    return f"torch.pow({base}, {b.operand(b.shape(), b.dtype(), 'small')})"


@T.add("aten.clamp.default")
def clamp(b, op):
    """torch.clamp(x, min=, max=) with either bound None, or both (min may
    exceed max: PyTorch gives max)."""
    d = b.dtype()
    x = b.operand(b.shape(), d)
    lo, hi = b.scalar(d, "grid"), b.scalar(d, "grid")
    which = b.choice(("both", "min", "max"))
    args = {"both": f"min={lit(lo)}, max={lit(hi)}", "min": f"min={lit(lo)}",
            "max": f"max={lit(hi)}"}[which]
    return f"torch.clamp({x}, {args})"


@T.add("aten.clamp.Tensor")
def clamp_tensor(b, op):
    """torch.clamp(x, min=t, max=u) with broadcasting tensor bounds (one
    may be None)."""
    d = b.dtype()
    x, lo, hi = b.operands([d, d, d], ["normal", "grid", "grid"])
    which = b.choice(("both", "min", "max"))
    args = {"both": f"min={lo}, max={hi}", "min": f"min={lo}", "max": f"max={hi}"}[which]
    return f"torch.clamp({x}, {args})"


@T.add("aten.clamp_min.default", "aten.clamp_max.default")
def clamp_one(b, op):
    """torch.clamp_min(x, s) / torch.clamp_max(x, s)."""
    fn = op.split(".")[1]
    d = b.dtype()
    return f"torch.{fn}({b.operand(b.shape(), d)}, {lit(b.scalar(d, 'grid'))})"


@T.add("aten.gelu.default")
def gelu(b, op):
    """F.gelu(x, approximate='none'|'tanh')."""
    x = b.operand(b.shape(), b.dtype())
    a = b.choice(("none", "tanh"))
    return f"F.gelu({x})" if a == "none" and b.chance(0.5) else f"F.gelu({x}, approximate={a!r})"


@T.add("aten.softplus.default")
def softplus(b, op):
    """F.softplus(x, beta, threshold) with beta in {1, 2, 0.5} and
    threshold in {20, 1, 3} (the linear region is reached)."""
    x = b.operand(b.shape(), b.dtype())
    beta, thr = b.choice((1, 2, 0.5)), b.choice((20, 1, 3))
    return f"F.softplus({x}, beta={beta}, threshold={thr})"


# ----------------------------------------------------------- comparisons
@T.add(*[f"aten.{c}.Tensor" for c in ("eq", "ne", "lt", "le", "gt", "ge")])
def compare_tensor(b, op):
    """x <op> y on a grid (ties), every dtype, broadcasting, sometimes
    mixed dtypes (promoted)."""
    fn = op.split(".")[1]
    d = b.dtype()
    d2 = d if b.chance(0.8) else b.dtype()
    x, y = b.operands([d, d2], ["grid", "grid"])
    sym = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}[fn]
    return f"{x} {sym} {y}" if b.chance(0.5) else f"torch.{fn}({x}, {y})"


@T.add(*[f"aten.{c}.Scalar" for c in ("eq", "ne", "lt", "le", "gt", "ge")])
def compare_scalar(b, op):
    """x <op> s with s on the grid of x's values (ties), every dtype."""
    fn = op.split(".")[1]
    d = b.dtype()
    x = b.operand(b.shape(), d, "grid")
    s = b.scalar(d, "grid")
    return f"torch.{fn}({x}, {lit(s)})" if b.chance(0.5) else f"{x}.{fn}({lit(s)})"


# ---------------------------------------------------------- logical ops
@T.add("aten.logical_and.default", "aten.logical_or.default", "aten.logical_xor.default")
def logical_binary(b, op):
    """torch.logical_<op>(x, y): operands of any (mixed) dtype with zeros,
    broadcasting."""
    fn = op.split(".")[1]
    x, y = b.operands([b.dtype(), b.dtype()], ["grid", "grid"])
    return f"torch.{fn}({x}, {y})"


@T.add("aten.logical_not.default")
def logical_not(b, op):
    """torch.logical_not(x), any dtype, with zeros."""
    return f"torch.logical_not({b.operand(b.shape(), b.dtype(), 'grid')})"


@T.add("aten.bitwise_and.Tensor", "aten.bitwise_or.Tensor", "aten.bitwise_xor.Tensor")
def bitwise_tensor(b, op):
    """torch.bitwise_<op>(x, y) on i32/i64 (negative values too) and bool,
    broadcasting."""
    fn = op.split(".")[1]
    d = b.dtype()
    x, y = b.operands([d, d], ["normal", "normal"])
    return f"torch.{fn}({x}, {y})"


@T.add("aten.bitwise_or.Scalar", "aten.bitwise_xor.Scalar")
@T.add("aten.bitwise_and.Scalar", dtypes=INTS)
def bitwise_scalar(b, op):
    """bitwise_<op>(x, s) with an int (or bool) scalar; or/xor through keep
    ops (torch 1.13 decomposes them); and not on bools (torch 1.13's fake
    tensors type bool & True as int64)."""
    fn = op.split(".")[1]
    d = b.dtype()
    x = b.operand(b.shape(), d)
    s = lit(b.scalar(d))
    return f"torch.bitwise_and({x}, {s})" if fn == "bitwise_and" else \
        f"keep({op[5:]!r})({x}, {s})"


@T.add(*[f"aten.__{o}__.{k}" for o in ("and", "or", "xor") for k in ("Scalar", "Tensor")])
def dunder_bitwise(b, op):
    """x & y, x | y, x ^ y as torch 2.9 records the operators (keep ops),
    Tensor (broadcasting) or Scalar other."""
    d = b.dtype()
    if op.endswith("Scalar"):
        x, y = b.operand(b.shape(), d), lit(b.scalar(d))
    else:
        x, y = b.operands([d, d], ["normal", "normal"])
    return f"keep({op[5:]!r})({x}, {y})"


@T.add("aten.bitwise_not.default")
def bitwise_not(b, op):
    """~x on i32/i64/bool."""
    x = b.operand(b.shape(), b.dtype())
    return f"~{x}" if b.chance(0.5) else f"torch.bitwise_not({x})"


# ------------------------------------------------------- select, fill
@T.add("aten.masked_fill.Scalar")
def masked_fill_scalar(b, op):
    """x.masked_fill(mask, v): a broadcasting bool mask, v of x's kind
    (sometimes -inf for floats)."""
    d = b.dtype()
    out, (_, ms) = b.bcast_shapes(2)
    x = b.operand(out, d)
    m = b.operand(ms, BOOL)
    v = float("-inf") if d in FLOATS and b.chance(0.15) else b.scalar(d)
    return f"{x}.masked_fill({m}, {lit(v)})"


@T.add("aten.masked_fill.Tensor")
def masked_fill_tensor(b, op):
    """x.masked_fill(mask, v) with v a 0-d tensor of x's dtype."""
    d = b.dtype()
    out, (_, ms) = b.bcast_shapes(2)
    x = b.operand(out, d)
    m = b.operand(ms, BOOL)
    v = b.operand((), d, view=False)
    return f"{x}.masked_fill({m}, {v})"


@T.add("aten.where.self")
def where_self(b, op):
    """torch.where(c, x, y): bool c, x and y broadcasting, sometimes of
    mixed dtypes."""
    d = b.dtype()
    d2 = d if b.chance(0.8) else b.dtype()
    c, x, y = b.operands([BOOL, d, d2], ["normal", "normal", "normal"])
    return f"torch.where({c}, {x}, {y})"


@T.add("aten.where.ScalarOther", "aten.where.ScalarSelf")
def where_scalar_one(b, op):
    """torch.where(c, x, s) / torch.where(c, s, y): one scalar side of the
    tensor's kind."""
    d = b.dtype()
    c, x = b.operands([BOOL, d], ["normal", "normal"])
    s = lit(b.scalar(d))
    return f"torch.where({c}, {x}, {s})" if op.endswith("Other") else \
        f"torch.where({c}, {s}, {x})"


@T.add("aten.where.Scalar", dtypes=(F32, I64))
def where_scalars(b, op):
    """torch.where(c, s, t) with two scalars: float ones (default dtype
    f32) or int ones (i64)."""
    d = b.dtype()
    c = b.operand(b.shape(), BOOL)
    return f"torch.where({c}, {lit(b.scalar(d))}, {lit(b.scalar(d))})"


# ------------------------------------------------------------------ casts
def _cast_pair(b):
    """Source dtype (from the registry) and a target dtype; float sources
    on a grid when the target is integral or bool (truncation, zeros)."""
    src, dst = b.dtype(), b.choice(ALL)
    kind = "grid" if dst in INTS + (BOOL,) and b.chance(0.5) else "normal"
    return src, dst, b.operand(b.shape(), src, kind)


@T.add("aten.to.dtype")
def to_dtype(b, op):
    """x.to(dtype) and the x.half()/.float()/.bfloat16()/.int()/.long()/
    .bool() spellings, every pair of dtypes (an aten._assert_tensor_metadata
    node comes with it)."""
    src, dst, x = _cast_pair(b)
    short = {F16: "half", F32: "float", BF16: "bfloat16", I32: "int", I64: "long", BOOL: "bool"}
    return f"{x}.{short[dst]}()" if b.chance(0.4) else f"{x}.to({lit(dst)})"


@T.add("aten.to.dtype_layout")
def to_dtype_layout(b, op):
    """x.to(device='cpu', dtype=...) (to.dtype_layout)."""
    src, dst, x = _cast_pair(b)
    return f"{x}.to(device='cpu', dtype={lit(dst)})"


@T.add("aten.to.device")
def to_device(b, op):
    """to.device(x, cpu, dtype) (keep op: torch 1.13 decomposes it)."""
    src, dst, x = _cast_pair(b)
    return f"keep('to.device')({x}, torch.device('cpu'), {lit(dst)})"


@T.add("aten._to_copy.default")
def to_copy(b, op):
    """torch.ops.aten._to_copy.default(x, dtype=...) (the ATen-IR cast)."""
    src, dst, x = _cast_pair(b)
    return f"torch.ops.aten._to_copy.default({x}, dtype={lit(dst)})"


@T.add("aten.type_as.default")
def type_as(b, op):
    """x.type_as(y) (keep op), y of any dtype and shape."""
    src, dst, x = _cast_pair(b)
    y = b.operand(b.shape(hi=2), dst)
    return f"keep('type_as')({x}, {y})"


T.untraceable("aten._to_dim_order_copy.default",
              "an ExecuTorch op (dim_order_ops), not an aten op torch.export writes")


# ------------------------------------------------------------- identities
@T.add("aten.clone.default", "aten.alias.default", "aten.alias_copy.default",
       "aten.detach.default", "aten.positive.default")
def identity(b, op):
    """x.clone(), x.detach(), aten.alias by name, torch.alias_copy,
    positive (keep op; PyTorch rejects bool), on every dtype and often on
    views."""
    name = op.split(".")[1]
    d = b.dtype(tuple(x for x in ALL if x != BOOL) if name == "positive" else None)
    x = b.operand(b.shape(), d)
    return {"clone": f"{x}.clone()", "detach": f"{x}.detach()",
            "alias": f"torch.ops.aten.alias.default({x})", "alias_copy": f"torch.alias_copy({x})",
            "positive": f"keep('positive')({x})"}[name]


@T.add("aten.lift_fresh_copy.default")
def lift_fresh_copy(b, op):
    """torch.tensor(values, dtype=) made inside forward: export lifts the
    constant and copies it (torch 1.13's make_fx recurses forever on an
    explicit aten.lift_fresh_copy call)."""
    d = b.dtype()
    v = b.values(b.shape(hi=3, max_numel=64, long_ok=False), d)
    return f"torch.tensor({v.float().tolist() if d in FLOATS else v.tolist()}, dtype={lit(d)})"


@T.add("aten.contiguous.default")
def contiguous(b, op):
    """x.contiguous() on a non-contiguous in-graph view (a contiguous x
    records no node)."""
    shape = tuple(max(s, 2) for s in b.shape(lo=2))
    x = b.operand(shape, b.dtype(), view=True)
    if b.eval(x).is_contiguous():
        x = f"{x}.transpose(0, -1)"
    return f"{x}.contiguous()"


@T.add("aten.dropout.default")
def dropout(b, op):
    """F.dropout(x, p, training=False) (identity in inference), any dtype."""
    x = b.operand(b.shape(), b.dtype())
    return f"F.dropout({x}, {b.choice((0.0, 0.1, 0.5))}, training=False)"
