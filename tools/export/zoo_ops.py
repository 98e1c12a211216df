"""Single-op fixtures (``op_<name>[_variant]``) for the op-coverage work.

Every entry is one op (plus, where a graph needs it, the few ops that feed
it: ``full`` + ``add``, ``transpose`` + ``contiguous``) as torch 2.9's
``torch.export.export`` records it: the training IR, where
CompositeImplicitAutograd ops stay whole (see keep_ops.py).  Each op is
exercised on shapes whose innermost dim is not a multiple of 64, and where
it broadcasts, on a broadcast case.

The op lambdas are renamed ``forward`` so that the node ``stack_trace``
points at the line of this table that defines the op.

Naming: fixture directory ``op_<name>_<dtype>`` (``op_add_alpha_fp16``);
mixed-dtype entries (casts, integer ops) are ``op_<name>`` (dtype "mixed").
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import keep_ops

A2 = (7, 67)          # 2-D, innermost 67
A3 = (2, 5, 67)       # 3-D, innermost 67
B3 = (3, 7, 9)        # 3-D, tiny
C3 = (2, 5, 71)       # 3-D, innermost 71

H = ("fp16",)
S = ("fp32",)
HS = ("fp16", "fp32")
MIXED = ("mixed",)


class OpModule(nn.Module):
    """forward(*args) = fn(*args); the exporter names the arguments after
    the In specs (as a hand-written forward(self, x, y, ...) would)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _as_forward(fn):
    fn.__code__ = fn.__code__.replace(co_name="forward")
    return fn


class EmbeddingOp(nn.Module):
    def __init__(self, num, dim):
        super().__init__()
        self.embed = nn.Embedding(num, dim)

    def forward(self, idx):
        return self.embed(idx)


class LayerNormOp(nn.Module):
    def __init__(self, shape, eps=1e-5, affine=True):
        super().__init__()
        self.norm = nn.LayerNorm(shape, eps=eps, elementwise_affine=affine)
        if affine:
            with torch.no_grad():
                self.norm.weight.add_(torch.randn(self.norm.weight.shape) * 0.1)
                self.norm.bias.add_(torch.randn(self.norm.bias.shape) * 0.1)

    def forward(self, x):
        return self.norm(x)


class NativeLayerNormOp(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(n))
        self.bias = nn.Parameter(0.1 * torch.randn(n))

    def forward(self, x):
        return torch.native_layer_norm(x, [x.shape[-1]], self.weight, self.bias, 1e-5)


class RMSNormOp(nn.Module):
    def __init__(self, n, eps, weight=True):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(n)) if weight else None

    def forward(self, x):
        return keep_ops.rms_norm(x, [x.shape[-1]], self.weight, self.eps)


class BatchNormOp(nn.Module):
    """nn.BatchNorm1d in eval mode -> aten.batch_norm.default (training IR)."""

    def __init__(self, c):
        super().__init__()
        self.bn = nn.BatchNorm1d(c)
        with torch.no_grad():
            self.bn.weight.copy_(1 + 0.1 * torch.randn(c))
            self.bn.bias.copy_(0.1 * torch.randn(c))
            self.bn.running_mean.copy_(0.2 * torch.randn(c))
            self.bn.running_var.copy_(0.5 + torch.rand(c))

    def forward(self, x):
        return self.bn(x)


class NativeBatchNormOp(nn.Module):
    """torch.ops.aten._native_batch_norm_legit_no_training.default called
    explicitly (the form ep.run_decompositions() gives eval batch norm)."""

    def __init__(self, c):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(c))
        self.bias = nn.Parameter(0.1 * torch.randn(c))
        self.register_buffer("running_mean", 0.2 * torch.randn(c))
        self.register_buffer("running_var", 0.5 + torch.rand(c))

    def forward(self, x):
        out = keep_ops.native_batch_norm_legit_no_training(
            x, self.weight, self.bias, self.running_mean, self.running_var, 0.1, 1e-5)
        return out[0]


class KVCacheUpdate(nn.Module):
    """KV-cache scatter as a model writes it: the cache is a buffer updated
    in place with index_copy_ at the new positions (training IR keeps the
    in-place aten.index_copy_.default; no mutation outputs)."""

    def __init__(self, shape):
        super().__init__()
        self.register_buffer("k_cache", 0.1 * torch.randn(*shape))

    def forward(self, k, pos):
        self.k_cache.index_copy_(2, pos, k)
        return self.k_cache


class AliasedWeights(nn.Module):
    """Parameters that share storage: an embedding tied to the lm_head (two
    FQNs, one tensor), q and k as row slices of one fused [2D, D] storage
    (storage_offset 0 and D*D), and a transposed slice (strides (1, D+2),
    storage_offset D+4).  The weights config maps several FQNs to one file."""

    def __init__(self, V=16, D=8):
        super().__init__()
        self.embed = nn.Embedding(V, D)
        self.lm_head = nn.Linear(D, V, bias=False)
        self.lm_head.weight = self.embed.weight
        qk = torch.randn(2 * D, D) / math.sqrt(D)
        self.q = nn.Parameter(qk[0:D])
        self.k = nn.Parameter(qk[D:2 * D])
        base = torch.randn(D + 1, D + 2) / math.sqrt(D)
        self.wt = nn.Parameter(base[1:, 2:].t())

    def forward(self, ids):
        h = self.embed(ids)
        h = F.linear(h, self.q) + F.linear(h, self.k)
        h = torch.matmul(h, self.wt)
        return self.lm_head(h)


class InplaceMutation(nn.Module):
    """Buffer and user-input mutation, a non-persistent buffer and a lifted
    tensor constant.  torch 2.9's training IR keeps the in-place ops
    (add_.Tensor on b_count, mul_.Tensor on x) and has no mutation outputs;
    ep.run_decompositions() would functionalize them (see
    test/Target/Import/Inputs/mutation_aten_ir.pt2)."""

    def __init__(self, n=67):
        super().__init__()
        self.register_buffer("count", torch.zeros(7, n))
        self.register_buffer("scale", torch.full((n,), 0.5), persistent=False)
        self.offset = torch.linspace(-1.0, 1.0, n)

    def forward(self, x):
        self.count.add_(x)
        x.mul_(2.0)
        return torch.max(x * self.scale + self.offset, -1).values, self.count * 1.0


class SetitemViews(nn.Module):
    """Writes through views, as older transformers mask code does
    (`causal_mask[..., :n] = ...`): slice and select views of a clone,
    written with copy_ and mul_."""

    def forward(self, x, z):
        y = x.clone()
        y[:, 2:40] = z
        y[1].mul_(3.0)
        return y * 2.0


class GatedMlp(nn.Module):
    """A gated MLP with biases on both projections: silu(gate(x)) * up(x)."""

    def __init__(self, d, h):
        super().__init__()
        self.gate = nn.Linear(d, h)
        self.up = nn.Linear(d, h)

    def forward(self, x):
        return F.silu(self.gate(x)) * self.up(x)


class MoeRouter(nn.Module):
    """The router of gpt-oss's MoE block (transformers GptOssTopKRouter):
    logits, top-k experts, softmax over the chosen logits, scattered back
    into a dense [tokens, experts] score matrix."""

    def __init__(self, hidden, experts, k):
        super().__init__()
        self.k = k
        self.linear = nn.Linear(hidden, experts)

    def forward(self, x):
        logits = self.linear(x)
        top_values, top_indices = torch.topk(logits, self.k, dim=-1)
        probs = F.softmax(top_values, dim=1, dtype=top_values.dtype)
        # in place on a fresh tensor, as transformers writes it (the training
        # IR keeps aten.scatter_.src)
        scores = torch.zeros_like(logits).scatter_(1, top_indices, probs)
        return scores, top_indices


def register_op_zoo(add, ZooEntry, In):
    def op(name, fn, inputs, dtypes=H, desc=None, reference="fp32", tol=None, notes="",
           module=None, reference_note=""):
        names = ("x", "y", "z", "w")
        ins = []
        for i, s in enumerate(inputs):
            if not s.name:
                s = In(s.shape, s.dtype, s.gen, names[i])
            ins.append(s)
        if module is None:
            f = _as_forward(fn)
            make = (lambda f=f: OpModule(f))
        else:
            make = module
        full = f"op_{name}"
        add(ZooEntry(full, desc or name, make, [], tuple(dtypes), dtypes[0],
                     inputs=ins, reference=reference if dtypes != MIXED else "native",
                     tol_kind=tol, notes=notes,
                     dir_name=full if dtypes == MIXED else None,
                     reference_note=reference_note))

    I = In
    # ---------------------------------------------------------------- matmul
    op("bmm", lambda x, y: torch.bmm(x, y), [I((2, 5, 67)), I((2, 67, 9))], HS,
       "torch.bmm(x[2,5,67], y[2,67,9])")
    op("matmul_3d", lambda x, y: torch.matmul(x, y), [I((2, 5, 67)), I((2, 67, 9))], H,
       "x[2,5,67] @ y[2,67,9] (aten.matmul kept whole)")
    op("matmul_4d_bcast", lambda x, y: x @ y, [I((2, 3, 7, 33)), I((3, 33, 9))], H,
       "x[2,3,7,33] @ y[3,33,9] (batch broadcast)")
    op("matmul_1d_2d", lambda x, y: torch.matmul(x, y), [I((67,)), I((67, 9))], H,
       "x[67] @ y[67,9] -> [9]")
    op("matmul_2d_1d", lambda x, y: torch.matmul(x, y), [I((7, 67)), I((67,))], H,
       "x[7,67] @ y[67] -> [7]")
    op("matmul_1d_1d", lambda x, y: torch.matmul(x, y), [I((67,)), I((67,))], S,
       "x[67] @ y[67] -> [] (0-d)")
    op("linear_odd_sticks", None, [I((2, 128))], H,
       "nn.Linear(128, 8224, bias=False) on x[2,128]: N = 128.5 fp16 sticks, 257 fp32 "
       "accumulator sticks (a prime), too wide for one LX tile (Granite's lm_head, "
       "vocab 49155, is of this kind)",
       module=lambda: nn.Linear(128, 8224, bias=False), tol="matmul")
    op("rotation_epilogue", lambda x, y, z, w: x * z + torch.mm(x, y) * w,
       [I((8, 256), gen="small"), I((256, 256), gen="small"), I((8, 256), gen="small"),
        I((8, 256), gen="small")], H,
       "x * z + (x @ y) * w, all [8,256] but y [256,256]: RoPE's form (x @ y is "
       "rotate_half); x * z is computed in the matmul kernel's epilogue",
       tol="matmul")
    op("rope_halves",
       lambda x, y, z: torch.cat((x.chunk(2, -1)[0] * y - x.chunk(2, -1)[1] * z,
                                  x.chunk(2, -1)[1] * y + x.chunk(2, -1)[0] * z), -1),
       [I((1, 4, 20, 64)), I((20, 32)), I((20, 32))], HS,
       "cat(a * cos - b * sin, b * cos + a * sin) with a, b = x[1,4,20,64].chunk(2, -1) "
       "(gpt-oss's RoPE on the halves, head_dim 64): rewritten to x * cat(cos, cos) + "
       "rotate_half(x) * cat(sin, sin), one matmul kernel with its epilogue",
       tol="matmul")
    op("gated_mlp_bias", None, [I((37, 256), name="x")], H,
       "silu(x @ wg^T + bg) * (x @ wu^T + bu), x [37,256], wg/wu [704,256] (nn.Linear "
       "weights): the gate projection (bias, SiLU) runs in the up projection's "
       "kernel, two accumulators and both epilogues after the products",
       module=lambda: GatedMlp(256, 704), tol="matmul")
    op("chunk_glu", lambda x, y: F.silu(x.chunk(2, -1)[0]) * x.chunk(2, -1)[1] + y[2:10],
       [I((8, 256)), I((12, 128))], H,
       "silu(a) * b + y[2:10] with a, b = x[8,256].chunk(2, -1) (a fused gate/up "
       "projection's split, as Phi-3 writes it): the windows are read in place "
       "by the consumer kernel")
    op("row_window_bcast", lambda x, y: x[2:3] * 2.0 + y,
       [I((8, 64)), I((5, 64))], H,
       "x[8,64][2:3] * 2 + y[5,64]: the one-row window is read in place, broadcast "
       "over y's rows (a constant row index in the consumer's map)")
    op("transposed_tail", lambda x, y: torch.relu(x).transpose(1, 2) * y + 1.0,
       [I((4, 48, 80)), I((4, 1, 1))], H,
       "relu(x[4,48,80]).transpose(1, 2) * y[4,1,1] + 1: the tail runs before the "
       "transpose, in relu's kernel (spyre-sink-transposes)")
    op("baddbmm", lambda x, y, z: torch.baddbmm(x, y, z, beta=0.5, alpha=2.0),
       [I((2, 5, 9)), I((2, 5, 67)), I((2, 67, 9))], H,
       "torch.baddbmm(x[2,5,9], y, z, beta=0.5, alpha=2.0)")
    op("baddbmm_bcast", lambda x, y, z: torch.baddbmm(x, y, z),
       [I((9,)), I((2, 5, 67)), I((2, 67, 9))], S,
       "torch.baddbmm(x[9], y[2,5,67], z[2,67,9]) (self broadcast, default beta/alpha)")

    # ------------------------------------------------------- binary pointwise
    op("add_alpha", lambda x, y: torch.add(x, y, alpha=2), [I(A2), I(A2)], HS,
       "torch.add(x, y, alpha=2): add.Tensor + alpha kwarg")
    op("add_alpha_bcast", lambda x, y: torch.add(x, y, alpha=0.5), [I(A3), I((5, 1))], H,
       "torch.add(x[2,5,67], y[5,1], alpha=0.5)")
    op("add_scalar", lambda x: x + 2.5, [I(A2)], H,
       "x + 2.5: add.Tensor with a float `other`")
    op("add_Scalar", lambda x: torch.ops.aten.add.Scalar(x, 2.5, 3), [I(A2)], H,
       "torch.ops.aten.add.Scalar(x, 2.5, 3) (explicit overload)")
    op("sub_alpha", lambda x, y: torch.sub(x, y, alpha=0.5), [I(A3), I((67,))], H,
       "torch.sub(x[2,5,67], y[67], alpha=0.5)")
    op("sub_scalar", lambda x: x - 1.25, [I(A2)], S, "x - 1.25: sub.Tensor with a float")
    op("sub_Scalar", lambda x: torch.ops.aten.sub.Scalar(x, 1.25, 2), [I(A2)], H,
       "torch.ops.aten.sub.Scalar(x, 1.25, 2)")
    op("rsub", lambda x: 1.0 - x, [I(A2)], H, "1.0 - x: rsub.Scalar")
    op("mul_bcast3", lambda x, y: x * y, [I(A3), I((2, 1, 67))], H, "x[2,5,67] * y[2,1,67]")
    op("mul_scalar", lambda x: x * 0.125, [I(A2)], S, "x * 0.125: mul.Tensor with a float")
    op("div", lambda x, y: x / y, [I(A2), I(A2, gen="nonzero")], H, "x / y: div.Tensor")
    op("div_bcast", lambda x, y: x / y, [I(A3), I((67,), gen="nonzero")], H, "x[2,5,67] / y[67]")
    op("div_scalar", lambda x: x / 3.0, [I(A2)], H, "x / 3.0: div.Tensor with a float")
    op("div_Scalar", lambda x: torch.ops.aten.div.Scalar(x, 3.0), [I(A2)], S,
       "torch.ops.aten.div.Scalar(x, 3.0)")
    op("div_trunc", lambda x, y: torch.div(x, y, rounding_mode="trunc"),
       [I(A2, gen="normal"), I(A2, gen="nonzero")], HS,
       "torch.div(x, y, rounding_mode='trunc'): div.Tensor_mode")
    op("div_floor", lambda x, y: torch.div(x, y, rounding_mode="floor"),
       [I(A3), I((5, 1), gen="nonzero")], H,
       "torch.div(x[2,5,67], y[5,1], rounding_mode='floor')")
    op("minimum", lambda x, y: torch.minimum(x, y), [I(A3), I((67,))], H, "torch.minimum (broadcast)")
    op("maximum", lambda x, y: torch.maximum(x, y), [I(A2), I(A2)], S, "torch.maximum")
    op("pow_tensor", lambda x, y: torch.pow(x, y), [I(A3, gen="positive"), I((67,))], H,
       "torch.pow(x[2,5,67] > 0, y[67]): pow.Tensor_Tensor")
    for tag, e in (("2", 2), ("3", 3), ("0_5", 0.5), ("m0_5", -0.5), ("1_7", 1.7)):
        gen = "normal" if isinstance(e, int) else "positive"
        op(f"pow_{tag}", (lambda e: (lambda x: x ** e))(e), [I(A2, gen=gen)],
           H, f"x ** {e}: pow.Tensor_Scalar")

    # -------------------------------------------------------- unary pointwise
    unary = [
        ("neg", lambda x: -x, "normal"), ("abs", lambda x: torch.abs(x), "normal"),
        ("exp", lambda x: torch.exp(x), "normal"), ("log", lambda x: torch.log(x), "positive"),
        ("sqrt", lambda x: torch.sqrt(x), "positive"),
        ("rsqrt", lambda x: torch.rsqrt(x), "positive"),
        ("reciprocal", lambda x: torch.reciprocal(x), "nonzero"),
        ("tanh", lambda x: torch.tanh(x), "normal"), ("sigmoid", lambda x: torch.sigmoid(x), "normal"),
        ("relu", lambda x: F.relu(x), "normal"), ("gelu", lambda x: F.gelu(x), "normal"),
        ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), "normal"),
        ("silu", lambda x: F.silu(x), "normal"), ("softplus", lambda x: F.softplus(x), "normal"),
        ("sin", lambda x: torch.sin(x), "normal"), ("cos", lambda x: torch.cos(x), "normal"),
        ("floor", lambda x: torch.floor(x * 4.0), "normal"),
        ("ceil", lambda x: torch.ceil(x), "normal"),
    ]
    for name, fn, gen in unary:
        shape = B3 if name in ("sin", "cos", "floor", "ceil") else A3
        op(name, fn, [I(shape, gen=gen)], H,
           f"{name}(x{list(shape)})")
    op("softplus_beta", lambda x: F.softplus(x, beta=2.0, threshold=5.0), [I(A2)], S,
       "F.softplus(x, beta=2.0, threshold=5.0)")
    op("clamp", lambda x: torch.clamp(x, -0.5, 0.75), [I(A3)], H, "torch.clamp(x, -0.5, 0.75)")
    op("clamp_min_only", lambda x: torch.clamp(x, min=0.0), [I(A2)], H,
       "torch.clamp(x, min=0.0): clamp.default with min only")
    op("clamp_min", lambda x: torch.clamp_min(x, -0.25), [I(A2)], H, "torch.clamp_min(x, -0.25)")
    op("clamp_max", lambda x: torch.clamp_max(x, 0.25), [I(A2)], H, "torch.clamp_max(x, 0.25)")

    # ------------------------------------------------------ select / compare
    op("where", lambda c, x, y: torch.where(c, x, y),
       [I(A3, "bool", "bool:0.5", "cond"), I(A3, name="x"), I((67,), name="y")], H,
       "torch.where(cond[2,5,67], x, y[67]): where.self")
    op("where_scalar_other", lambda c, x: torch.where(c, x, 0.0),
       [I(A2, "bool", "bool:0.5", "cond"), I(A2, name="x")], H,
       "torch.where(cond, x, 0.0): where.ScalarOther (kept whole)")
    op("where_scalar_self", lambda c, y: torch.where(c, -1.5, y),
       [I((7, 1), "bool", "bool:0.5", "cond"), I(A2, name="y")], S,
       "torch.where(cond[7,1], -1.5, y[7,67]): where.ScalarSelf")
    op("where_tensor_constant",
       lambda x, m: x + torch.where(m, torch.tensor(0.0, dtype=torch.float16), -65504.0),
       [I(A2, name="x"), I((1, 67), "bool", "bool:0.7", "mask")], H,
       "x + torch.where(mask, torch.tensor(0.0), -65504.0): a tensor made inside forward "
       "(transformers' eager_mask), lifted as the tensor constant lifted_tensor_0")
    op("masked_fill", lambda x, m: x.masked_fill(m, -10000.0),
       [I(A3, name="x"), I((1, 67), "bool", "bool:0.3", "mask")], H,
       "x.masked_fill(mask[1,67], -10000.0): masked_fill.Scalar")
    op("masked_fill_ninf", lambda x, m: x.masked_fill(m, float("-inf")),
       [I(A2, name="x"), I(A2, "bool", "bool:0.3", "mask")], S,
       "x.masked_fill(mask, -inf): the fill value serializes as \"-Infinity\"; "
       "the reference output contains -inf")
    for cmp in ("eq", "ne", "lt", "le", "gt", "ge"):
        f = getattr(torch, cmp)
        op(f"{cmp}", (lambda f: (lambda x, y: f(x, y)))(f),
           [I(A3, gen="grid"), I((5, 67), gen="grid")], H,
           f"torch.{cmp}(x[2,5,67], y[5,67]): {cmp}.Tensor (inputs on a 0.5 grid, so ties occur)")
        op(f"{cmp}_scalar", (lambda f: (lambda x: f(x, 0.5)))(f), [I(A2, gen="grid")], S,
           f"torch.{cmp}(x, 0.5): {cmp}.Scalar")
    op("logical_not", lambda x: torch.logical_not(x), [I(A2, "bool", "bool:0.5")], MIXED,
       "torch.logical_not(x: bool)")

    # ------------------------------- logical / bitwise / integer arithmetic
    # (mask building in Mistral/Llama graphs, position arithmetic)
    for name, fn in (("logical_and", torch.logical_and), ("logical_or", torch.logical_or),
                     ("logical_xor", torch.logical_xor)):
        op(name, (lambda fn: (lambda c, x: fn(c, x)))(fn),
           [I(A2, "bool", "bool:0.5", "c"), I(A2, "fp32", "grid", "x")], MIXED,
           f"torch.{name}(c: bool, x: fp32 on a 0.5 grid, so zeros occur)")
    op("bool_and_or_xor",
       lambda a, b, c: torch.bitwise_or(torch.bitwise_and(a, b), torch.bitwise_xor(a, c)),
       [I(A3, "bool", "bool:0.5", "a"), I((67,), "bool", "bool:0.5", "b"),
        I(A3, "bool", "bool:0.5", "c")], MIXED,
       "(a & b) | (a ^ c) on bools (b broadcast): bitwise_and/or/xor.Tensor (called by "
       "name: torch 2.9 records the operators as aten.__and__ & co, which torch 1.13 "
       "decomposes)")
    op("bitwise_int",
       lambda x, y: torch.bitwise_xor(torch.bitwise_and(x, y), torch.bitwise_or(x, y)),
       [I(A2, "int32", "int:-1000:1000", "x"), I(A2, "int32", "int:-1000:1000", "y")], MIXED,
       "(x & y) ^ (x | y) on int32: bitwise_and/or/xor.Tensor")
    op("bitwise_not", lambda x, m: (~x, ~m),
       [I(A2, "int64", "int:-1000:1000", "x"), I(A2, "bool", "bool:0.5", "m")], MIXED,
       "(~x: int64, ~m: bool): bitwise_not.default")
    op("remainder", lambda x, y: torch.remainder(x, y), [I(A3), I((67,), gen="nonzero")], H,
       "torch.remainder(x[2,5,67], y[67]) (sign of the divisor)")
    op("remainder_scalar", lambda x: x % 0.75, [I(A2)], S, "x % 0.75: remainder.Scalar")
    op("remainder_int", lambda x, y: x % y,
       [I(A2, "int64", "int:-1000:1000", "x"), I(A2, "int64", "int:1:9", "y")], MIXED,
       "x % y on int64: remainder.Tensor")
    op("floor_divide_int", lambda x, y: x // y,
       [I(A2, "int64", "int:-1000:1000", "x"), I((67,), "int64", "int:-9:-1", "y")], MIXED,
       "x // y on int64 (negative divisors): floor_divide.default")
    op("floor_divide", lambda x, y: torch.floor_divide(x, y),
       [I(A2), I(A2, gen="nonzero")], S, "torch.floor_divide(x, y) on fp32")

    # ---------------------------- MoE routing (gpt-oss), stacking, repeats
    op("cumsum_position_ids", lambda m: m.long().cumsum(-1) - 1,
       [I((2, 37), "int64", "padmask:5", "attention_mask")], MIXED,
       "attention_mask.long().cumsum(-1) - 1: position ids as generate() builds them")
    op("cumsum_dim0", lambda x: torch.cumsum(x, 0), [I(B3)], S, "torch.cumsum(x[3,7,9], 0)")
    op("topk", lambda x: torch.topk(x, 4, dim=-1), [I(A3, gen="distinct")], H,
       "torch.topk(x, 4, dim=-1): values and int64 indices (distinct inputs: no ties)")
    op("topk_smallest_dim1", lambda x: torch.topk(x, 3, dim=1, largest=False),
       [I(A3)], S,
       "torch.topk(x[2,5,67], 3, dim=1, largest=False) (fp32 normal inputs: no ties, "
       "whose order torch leaves unspecified)")
    op("gather", lambda x, i: torch.gather(x, 1, i),
       [I(A2, name="x"), I((7, 3), "int64", "int:0:67", "idx")], H,
       "torch.gather(x[7,67], 1, idx[7,3]) (repeats allowed)")
    op("gather_int_dim0", lambda x, i: torch.gather(x, 0, i),
       [I((5, 9), "int64", "int:-1000:1000", "x"), I((2, 4), "int64", "int:0:5", "idx")],
       MIXED, "torch.gather(x: int64[5,9], 0, idx[2,4]): index narrower than self")
    op("scatter_src", lambda x, i, y: torch.zeros_like(x).scatter(1, i, y),
       [I(A2, name="x"), I((7, 4), "int64", "index:67", "idx"), I((7, 5), name="src")], S,
       "zeros_like(x[7,67]).scatter(1, idx[7,4], src[7,5]) (src wider than idx)")
    op("scatter_value", lambda x, i: x.scatter(-1, i, -2.5),
       [I(A3, name="x"), I((2, 5, 3), "int64", "index:67", "idx")], H,
       "x.scatter(-1, idx[2,5,3], -2.5): scatter.value")
    op("scatter_add", lambda x, i, y: x.scatter_add(0, i, y),
       [I(A2, name="x"), I((3, 67), "int64", "int:0:7", "idx"), I((3, 67), name="src")], S,
       "x.scatter_add(0, idx[3,67], src) (repeated indices accumulate)")
    op("moe_router", None, [I((9, 64))], S,
       "gpt-oss router: linear(64 -> 16), topk 4, softmax of the top values, "
       "zeros_like(logits).scatter_(1, indices, probs) (in place, as transformers "
       "writes it); returns (scores, indices)",
       module=lambda: MoeRouter(64, 16, 4), tol="matmul")
    op("stack", lambda x, y: torch.stack([x, y], 1), [I(A2), I(A2)], H,
       "torch.stack([x, y], 1) -> [7,2,67]")
    op("stack_last", lambda x, y, z: torch.stack((x, y, z), -1), [I(B3), I(B3), I(B3)], S,
       "torch.stack((x, y, z), -1) -> [3,7,9,3]")
    # the functional form ep.run_decompositions() gives an in-place write
    # (slice_scatter and copy have lit cases only: torch 1.13's fake-tensor
    # slice_scatter rejects its own arguments, and make_fx decomposes copy)
    op("select_scatter", lambda x, y: torch.select_scatter(x, y, 1, -1),
       [I(A3), I((2, 67))], S,
       "torch.select_scatter(x[2,5,67], y[2,67], 1, -1): the ATen IR of x[:, -1] = y")
    op("repeat", lambda x: x.repeat(2, 1, 3), [I((5, 67))], H,
       "x[5,67].repeat(2, 1, 3) -> [2,5,201] (a leading dim added)")

    op("bf16_finfo_mask_output",
       lambda x, m: x.masked_fill(m, torch.finfo(torch.bfloat16).min),
       [I(A2, "bf16", "normal", "x"), I(A2, "bool", "bool:0.4", "m")], MIXED,
       "x.masked_fill(m, torch.finfo(bfloat16).min) returned as is: the mask value "
       "saturates in DL16 and comes back as bf16's -3.3895e38")
    op("softmax_bf16_finfo_mask",
       lambda x, m: torch.softmax(
           x + torch.zeros(2, 1, 1, 16, dtype=torch.bfloat16).masked_fill(
               torch.cat([m[:1], torch.ones_like(m[1:])]), torch.finfo(torch.bfloat16).min),
           -1),
       [I((2, 4, 4, 16), "bf16", "normal", "x"), I((2, 1, 1, 16), "bool", "bool:0.3", "m")],
       MIXED,
       "softmax(x + mask) in bf16, the mask built as transformers does from "
       "torch.finfo(bfloat16).min, batch 1 fully masked: DL16 cannot hold -3.4e38, "
       "so bf16 stores saturate to DL16's largest value and the masked rows stay a "
       "uniform 1/16 as in torch (not NaN)")

    # ----------------------------------------------------------------- casts
    casts = [("fp32", "fp16"), ("fp16", "fp32"), ("fp32", "bf16"), ("bf16", "fp32"),
             ("fp16", "bf16"), ("bf16", "fp16"), ("fp32", "int32"), ("fp16", "int64"),
             ("int64", "fp16"), ("int32", "fp32"), ("bool", "fp16"), ("fp16", "bool"),
             ("int64", "int32"), ("fp16", "fp16")]
    gens = {"int64": "int:-1000:1000", "int32": "int:-1000:1000", "bool": "bool:0.5"}
    for src, dst in casts:
        dt = {"fp16": torch.float16, "fp32": torch.float32, "bf16": torch.bfloat16,
              "int32": torch.int32, "int64": torch.int64, "bool": torch.bool}[dst]
        g = gens.get(src, "grid" if dst == "bool" else "normal")
        op(f"to_{src}_{dst}", (lambda dt: (lambda x: x.to(dt)))(dt),
           [I(A2, src, g)], MIXED,
           f"x.to({dt}) from {src}: aten._assert_tensor_metadata + aten.to.dtype"
           + (" (same dtype: a no-op to, still a node)" if src == dst else ""))
    op("half", lambda x: x.half(), [I(A2, "fp32")], MIXED, "x.half(): aten.to.dtype")
    for src, dst in (("fp32", "fp16"), ("fp16", "bf16"), ("fp32", "int64")):
        dt = {"fp16": torch.float16, "bf16": torch.bfloat16, "int64": torch.int64}[dst]
        op(f"_to_copy_{src}_{dst}",
           (lambda dt: (lambda x: torch.ops.aten._to_copy.default(x, dtype=dt)))(dt),
           [I(A2, src)], MIXED,
           f"torch.ops.aten._to_copy.default(x, dtype={dt}) (explicit; the core-ATen cast "
           "that run_decompositions() makes of aten.to)")

    # ------------------------------------------------------------ reductions
    def red(name, fn, desc, gen="normal", dtypes=H, shape=A3):
        op(name, fn, [I(shape, gen=gen)], dtypes, desc)

    red("sum_last", lambda x: x.sum(-1), "x.sum(-1): sum.dim_IntList", dtypes=HS)
    red("sum_dim1_keepdim", lambda x: x.sum(1, keepdim=True), "x.sum(1, keepdim=True)")
    red("mean_last", lambda x: x.mean(-1), "x.mean(-1): mean.dim")
    red("mean_dim1_keepdim", lambda x: x.mean(1, keepdim=True), "x.mean(1, keepdim=True)")
    red("amax_last", lambda x: x.amax(-1), "x.amax(-1)")
    red("amax_dim0_keepdim", lambda x: x.amax(0, keepdim=True), "x.amax(0, keepdim=True)",
        dtypes=S)
    red("amin_last_keepdim", lambda x: x.amin(-1, keepdim=True), "x.amin(-1, keepdim=True)")
    red("amin_dim1", lambda x: x.amin(1), "x.amin(1)", dtypes=S)
    red("max_dim_last", lambda x: torch.max(x, -1), "torch.max(x, -1): max.dim, values and "
        "indices (distinct inputs: no ties)", gen="distinct")
    red("max_dim1_keepdim", lambda x: torch.max(x, 1, keepdim=True),
        "torch.max(x, 1, keepdim=True): values and indices", gen="distinct", dtypes=S)
    red("max_dim_values", lambda x: torch.max(x, -1).values,
        "torch.max(x, -1).values: the indices output is a dead getitem (kept in the "
        "training IR)", gen="distinct")
    red("argmax_last", lambda x: torch.argmax(x, -1), "torch.argmax(x, -1) (int64 output)",
        gen="distinct")
    red("argmax_dim1_keepdim", lambda x: torch.argmax(x, 1, keepdim=True),
        "torch.argmax(x, 1, keepdim=True)", gen="distinct", dtypes=S)
    red("var_last", lambda x: torch.var(x, -1, correction=0), "torch.var(x, -1, correction=0): "
        "var.correction")
    red("var_dim1_keepdim", lambda x: torch.var(x, 1, correction=1, keepdim=True),
        "torch.var(x, 1, correction=1, keepdim=True)")
    red("var_mean_last", lambda x: torch.var_mean(x, -1, correction=0, keepdim=True),
        "torch.var_mean(x, -1, correction=0, keepdim=True): var_mean.correction (2 outputs)")
    red("var_mean_dim0", lambda x: torch.var_mean(x, 0, correction=1),
        "torch.var_mean(x, 0, correction=1)", dtypes=S)
    red("softmax_last", lambda x: F.softmax(x, dim=-1), "F.softmax(x, -1): softmax.int", dtypes=HS)
    red("softmax_dim1", lambda x: x.softmax(1), "x.softmax(1)")
    red("_softmax_last", lambda x: torch._softmax(x, -1, False),
        "torch._softmax(x, -1, False): aten._softmax", dtypes=S)
    red("_softmax_dim0", lambda x: torch._softmax(x, 0, False), "torch._softmax(x, 0, False)")
    red("log_softmax_last", lambda x: F.log_softmax(x, dim=-1), "F.log_softmax(x, -1)")
    red("log_softmax_dim1", lambda x: x.log_softmax(1), "x.log_softmax(1)")
    red("_log_softmax_last", lambda x: torch._log_softmax(x, -1, False),
        "torch._log_softmax(x, -1, False)", dtypes=S)

    # --------------------------------------------------------- normalization
    op("layer_norm", None, [I(A3)], HS, "nn.LayerNorm(67) (weight, bias): layer_norm.default",
       module=lambda: LayerNormOp(67))
    op("layer_norm_2d_noaffine", None, [I(A3)], S,
       "nn.LayerNorm([5, 67], eps=1e-6, elementwise_affine=False)",
       module=lambda: LayerNormOp([5, 67], eps=1e-6, affine=False))
    op("native_layer_norm", None, [I(C3)], S,
       "torch.native_layer_norm(x, [71], w, b, 1e-5): 3 outputs (out, mean, rstd)",
       module=lambda: NativeLayerNormOp(71))
    op("rms_norm", None, [I(A3)], HS, "F.rms_norm(x, [67], weight, eps=1e-6): aten.rms_norm",
       module=lambda: RMSNormOp(67, 1e-6), notes="torch 1.13 has no aten.rms_norm: emitted "
       "through the placeholder op with the torch 2.9 schema",
       reference_note="torch 1.13 lacks aten.rms_norm: reference = keep_ops.rms_norm_ref "
       "(torch ops, fp32 opmath, as rms_norm_symint)")
    op("rms_norm_noweight", None, [I(C3)], S,
       "F.rms_norm(x, [71]) (no weight, eps=None: finfo(float32).eps)",
       module=lambda: RMSNormOp(71, None, weight=False),
       notes="torch 1.13 has no aten.rms_norm: placeholder op with the torch 2.9 schema",
       reference_note="torch 1.13 lacks aten.rms_norm: reference = keep_ops.rms_norm_ref")
    op("batch_norm", None, [I((2, 7, 9))], H,
       "nn.BatchNorm1d(7).eval(): aten.batch_norm.default (what the training IR records)",
       module=lambda: BatchNormOp(7))
    op("native_batch_norm_legit_no_training", None, [I((2, 7, 67))], S,
       "torch.ops.aten._native_batch_norm_legit_no_training.default(x, w, b, rm, rv, 0.1, 1e-5)"
       " (3 outputs, 2nd/3rd empty)", module=lambda: NativeBatchNormOp(7),
       notes="torch 1.13 has no _native_batch_norm_legit_no_training: placeholder op with the "
       "torch 2.9 schema; the training IR records eval batch norm as aten.batch_norm (see "
       "op_batch_norm), this op is its run_decompositions() form called explicitly",
       reference_note="reference = F.batch_norm(training=False) of torch 1.13")

    # ------------------------------------------------------------- attention
    q4, kv4 = (2, 2, 9, 40), (2, 2, 9, 40)
    sdpa = keep_ops.scaled_dot_product_attention
    sdpa_note = ("torch 1.13 has no F.scaled_dot_product_attention: placeholder op with the "
                 "torch 2.9 schema")
    sdpa_ref = ("torch 1.13 lacks SDPA: reference = keep_ops.sdpa_math_ref (torch ops mirroring "
                "aten::_scaled_dot_product_attention_math, fp32 compute)")

    def att(name, fn, inputs, dtypes, desc):
        op(name, fn, inputs, dtypes, desc, tol="matmul", notes=sdpa_note, reference_note=sdpa_ref)

    att("sdpa", lambda q, k, v: sdpa(q, k, v),
        [I(q4, name="q"), I(kv4, name="k"), I(kv4, name="v")], H,
        "F.scaled_dot_product_attention(q, k, v) [2,2,9,40]")
    att("sdpa_causal", lambda q, k, v: sdpa(q, k, v, is_causal=True),
        [I(q4, name="q"), I(kv4, name="k"), I(kv4, name="v")], H, "sdpa(..., is_causal=True)")
    att("sdpa_float_mask", lambda q, k, v, m: sdpa(q, k, v, attn_mask=m),
        [I(q4, name="q"), I(kv4, name="k"), I(kv4, name="v"), I((2, 1, 9, 9), name="mask")], H,
        "sdpa(..., attn_mask=float[2,1,9,9]) (additive, broadcast over heads)")
    att("sdpa_bool_mask", lambda q, k, v, m: sdpa(q, k, v, attn_mask=m),
        [I(q4, name="q"), I(kv4, name="k"), I(kv4, name="v"),
         I((9, 9), "bool", "causal_bool", "mask")], H,
        "sdpa(..., attn_mask=bool[9,9]) (True = attend; no fully masked row)")
    att("sdpa_scale", lambda q, k, v: sdpa(q, k, v, scale=0.05),
        [I(q4, name="q"), I(kv4, name="k"), I(kv4, name="v")], S, "sdpa(..., scale=0.05)")
    def repeat_kv(x, n):  # transformers' repeat_kv
        b, h, s, d = x.shape
        return x[:, :, None, :, :].expand(b, h, n, s, d).reshape(b, h * n, s, d)

    op("eager_gqa_repeat_kv",
       lambda q, k, v: torch.matmul(
           torch.softmax(torch.matmul(q, repeat_kv(k, 2).transpose(2, 3)).float() * 0.158,
                         -1).to(q.dtype),
           repeat_kv(v, 2)),
       [I((1, 4, 5, 40), name="q"), I((1, 2, 9, 40), name="k"), I((1, 2, 9, 40), name="v")],
       H, "eager grouped-query attention with transformers' repeat_kv (expand + reshape "
       "of K and V to 4 heads): the repeated heads become matmul rows, K and V are not "
       "copied", tol="matmul")

    def eager_attention(q, k, v, mask, scaling, groups):  # transformers' eager_attention_forward
        w = torch.matmul(q, repeat_kv(k, groups).transpose(2, 3)) * scaling
        w = w + mask
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        return torch.matmul(w, repeat_kv(v, groups))

    op("eager_attention_causal",
       lambda q, k, v, b: eager_attention(
           q, k, v, torch.zeros((5, 9), dtype=q.dtype).masked_fill(~b, torch.finfo(q.dtype).min),
           0.158, 2),
       [I((2, 4, 5, 40), name="q"), I((2, 2, 9, 40), name="k"), I((2, 2, 9, 40), name="v"),
        I((5, 9), "bool", "causal_bool", "causal")],
       HS, "transformers' eager attention: repeat_kv'd K/V, scaled scores plus a causal mask "
       "of finfo.min built in the graph, fp32 softmax: one flash-attention kernel "
       "(spyre-fuse-attention)", tol="matmul")
    op("eager_attention_triu_mask",
       lambda q, k, v: eager_attention(
           q, k, v, torch.triu(torch.full((300, 300), torch.finfo(q.dtype).min,
                                          dtype=q.dtype), 1), 0.125, 1),
       [I((1, 2, 300, 64), name="q"), I((1, 2, 300, 64), name="k"),
        I((1, 2, 300, 64), name="v")],
       H, "eager attention under the causal mask of finfo.min built in the graph "
       "by triu (300 x 300: too large to fold): the mask becomes the kernel's causal "
       "flag (key tiles past the diagonal skipped, no mask read)", tol="matmul")
    op("eager_attention_decode",
       lambda q, k, v, m: eager_attention(q, k, v, m, 64 ** -0.5, 4),
       [I((1, 8, 1, 64), "bf16", name="q"), I((1, 2, 1100, 64), "bf16", name="k"),
        I((1, 2, 1100, 64), "bf16", name="v"), I((1, 1, 1, 1100), "bf16", name="mask")],
       MIXED, "one bf16 decode step of eager attention over 1100 cached keys (streamed "
       "through LX in tiles, the last one partial), 4 query heads per K/V head, an "
       "additive float mask: one flash-attention kernel", tol="matmul")

    def sinks_attention(q, k, v, mask, sinks, scaling, groups):
        # transformers' GptOss eager_attention_forward: a per-head sink logit
        # joins each row's softmax and selects no value
        w = torch.matmul(q, repeat_kv(k, groups).transpose(2, 3)) * scaling + mask
        col = sinks.reshape(1, -1, 1, 1).expand(q.shape[0], -1, q.shape[-2], -1)
        w = torch.cat([w, col], dim=-1)
        w = w - w.max(dim=-1, keepdim=True).values
        p = F.softmax(w, dim=-1, dtype=w.dtype)[..., :-1]
        return torch.matmul(p, repeat_kv(v, groups))

    op("eager_attention_sinks",
       lambda q, k, v, b, s: sinks_attention(
           q, k, v, torch.zeros((70, 70), dtype=q.dtype).masked_fill(~b, torch.finfo(q.dtype).min),
           s, 0.125, 2),
       [I((1, 4, 70, 64), name="q"), I((1, 2, 70, 64), name="k"), I((1, 2, 70, 64), name="v"),
        I((70, 70), "bool", "causal_bool", "causal"), I((4,), name="sinks")],
       HS, "gpt-oss's eager attention with sinks: repeat_kv'd K/V, scaled scores plus a "
       "causal mask of finfo.min, a per-head sink logit concatenated, the row max "
       "subtracted, softmax, the sink column dropped; 70 queries and keys (edge tiles): "
       "one flash-attention kernel whose rows start at their sink", tol="matmul")
    op("eager_attention_sinks_decode",
       lambda q, k, v, m, s: sinks_attention(q, k, v, m, s, 64 ** -0.5, 4),
       [I((1, 8, 1, 64), "bf16", name="q"), I((1, 2, 300, 64), "bf16", name="k"),
        I((1, 2, 300, 64), "bf16", name="v"), I((1, 1, 1, 300), "bf16", name="mask"),
        I((8,), "bf16", name="sinks")],
       MIXED, "one bf16 decode step of gpt-oss's eager attention with sinks over 300 "
       "cached keys, 4 query heads per K/V head: one flash-attention kernel",
       tol="matmul")
    att("sdpa_gqa", lambda q, k, v: sdpa(q, k, v, is_causal=True, enable_gqa=True),
        [I((1, 4, 9, 40), name="q"), I((1, 2, 9, 40), name="k"), I((1, 2, 9, 40), name="v")], H,
        "sdpa(q[1,4,9,40], k/v[1,2,9,40], is_causal=True, enable_gqa=True)")
    # Long enough that a core runs several query tiles of several key tiles
    # (the flash kernel may hold K and V in LX for all of them), lengths
    # that are no multiple of a tile.
    att("sdpa_gqa_long", lambda q, k, v: sdpa(q, k, v, is_causal=True, enable_gqa=True),
        [I((1, 4, 300, 64), name="q"), I((1, 2, 300, 64), name="k"),
         I((1, 2, 300, 64), name="v")], HS,
        "sdpa(q[1,4,300,64], k/v[1,2,300,64], is_causal=True, enable_gqa=True)")
    att("sdpa_gqa_long_bf16", lambda q, k, v: sdpa(q, k, v, is_causal=True, enable_gqa=True),
        [I((1, 4, 300, 64), "bf16", name="q"), I((1, 2, 300, 64), "bf16", name="k"),
         I((1, 2, 300, 64), "bf16", name="v")], MIXED,
        "sdpa(q, k, v in bf16 [1,4,300,64] / [1,2,300,64], is_causal=True, enable_gqa=True)")
    att("sdpa_long_mask", lambda q, k, v, m: sdpa(q, k, v, attn_mask=m),
        [I((1, 2, 260, 64), name="q"), I((1, 2, 300, 64), name="k"),
         I((1, 2, 300, 64), name="v"), I((1, 1, 260, 300), name="mask")], H,
        "sdpa(q[1,2,260,64], k/v[1,2,300,64], attn_mask=float[1,1,260,300])")

    # --------------------------------------------------- shape / data movement
    op("view", lambda x: x.view(2, 335), [I(A3)], H, "x[2,5,67].view(2, 335)")
    op("view_infer", lambda x: x.view(-1, 67), [I(A3)], S, "x.view(-1, 67) (-1 kept)")
    op("reshape", lambda x: x.reshape(10, -1), [I(A3)], H,
       "x.reshape(10, -1): aten.reshape kept whole (training IR)")
    op("reshape_noncontig", lambda x: x.transpose(1, 2).reshape(2, -1), [I(A3)], H,
       "x.transpose(1, 2).reshape(2, -1): reshape of a non-viewable input")
    op("_unsafe_view", lambda x: torch.ops.aten._unsafe_view(x, [10, 67]), [I(A3)], H,
       "torch.ops.aten._unsafe_view(x, [10, 67])")
    op("split_merge_heads",
       lambda x: ((x.view(2, 9, 4, 64).transpose(1, 2) * 2).transpose(1, 2)
                  .reshape(2, 9, 256) + 1),
       [I((2, 9, 256))], HS,
       "x[2,9,256].view(2,9,4,64).transpose(1,2) ... .transpose(1,2).reshape(2,9,256): "
       "attention's head split and merge; the reshapes of whole-stick rows are views "
       "(no copy kernel)")
    op("flatten", lambda x: x.flatten(1), [I(A3)], H, "x.flatten(1): flatten.using_ints")
    op("permute", lambda x: x.permute(2, 0, 1), [I(C3)], H, "x.permute(2, 0, 1)")
    op("transpose", lambda x: x.transpose(1, 2), [I(C3)], H, "x.transpose(1, 2): transpose.int")
    op("t", lambda x: x.t(), [I(A2)], H, "x.t()")
    op("transpose_one_row", lambda x, y: ((x * 2.0).t(), (y * 2.0).transpose(1, 2)),
       [I((1, 67)), I((3, 1, 9))], H,
       "((x[1,67] * 2).t(), (y[3,1,9] * 2).transpose(1, 2)): a computed one-row tile "
       "transposed to one column (gpt-oss's routing weights at decode)")

    op("unsqueeze", lambda x: x.unsqueeze(1), [I(A2)], H, "x.unsqueeze(1)")
    op("squeeze", lambda x: x.squeeze(1), [I((7, 1, 67))], H, "x[7,1,67].squeeze(1): squeeze.dim")
    op("expand", lambda x: x.expand(2, -1, -1), [I((1, 5, 67))], H, "x[1,5,67].expand(2, -1, -1)")
    op("slice", lambda x: x[..., 2:60], [I(A3)], H, "x[..., 2:60]: slice.Tensor(x, 2, 2, 60)")
    op("slice_step", lambda x: x[1:2, :, 1::2], [I(A3)], S,
       "x[1:2, :, 1::2]: slice(dim 0) + slice(dim 2, step 2, end INT64_MAX)")
    op("select", lambda x: x.select(1, 3), [I(A3)], H, "x.select(1, 3): select.int")
    op("select_neg", lambda x: x[..., -1], [I(A3)], S, "x[..., -1]: select.int(x, 2, -1)")
    op("cat", lambda x, y, z: torch.cat([x, y, z], -1),
       [I((2, 5, 9)), I((2, 5, 30)), I((2, 5, 28))], H, "torch.cat([x, y, z], -1) -> [2,5,67]")
    op("cat_dim0", lambda x, y: torch.cat((x, y)), [I((2, 67)), I((5, 67))], S,
       "torch.cat((x[2,67], y[5,67])) (dim default 0)")
    op("split", lambda x: x.split(30, -1), [I(A3)], H,
       "x.split(30, -1): split.Tensor -> 3 outputs (as_tensors)")
    op("split_with_sizes", lambda x: x.split([10, 57], -1), [I(A3)], H,
       "x.split([10, 57], -1): split_with_sizes")
    op("chunk", lambda x: x.chunk(3, 1), [I(A3)], H,
       "x.chunk(3, 1): aten.chunk kept whole (5 rows -> 2, 2, 1)")
    op("index_select", lambda x, i: torch.index_select(x, 0, i),
       [I(A2, name="x"), I((5,), "int64", "int:0:7", "idx")], H,
       "torch.index_select(x[7,67], 0, idx: int64[5])")
    op("index_select_dim1", lambda x, i: x.index_select(1, i),
       [I(A3, name="x"), I((9,), "int64", "int:0:5", "idx")], S, "x.index_select(1, idx[9]) (repeated indices)")
    op("embedding", None, [I((3, 7), "int64", "int:0:50", "idx")], H,
       "nn.Embedding(50, 67)(idx: int64[3,7])", module=lambda: EmbeddingOp(50, 67))
    op("index", lambda x, i: x[i], [I(A2, name="x"), I((5,), "int64", "int:0:7", "idx")], H,
       "x[idx]: index.Tensor(x, [idx]); a list without None serializes as as_tensors")
    op("index_dim1", lambda x, i: x[:, i], [I(A3, name="x"), I((4,), "int64", "int:0:5", "idx")],
       H, "x[:, idx]: slice.Tensor (full dim 0) + index.Tensor(slice, [None, idx]) "
       "(as_optional_tensors)")
    op("index_copy", lambda c, i, s: c.index_copy(2, i, s),
       [I((1, 2, 16, 40), name="cache"), I((3,), "int64", "index:16", "pos"),
        I((1, 2, 3, 40), name="k")], H,
       "cache.index_copy(2, pos, k): functional index_copy (KV-cache scatter)")
    op("setitem_views", None, [I((3, 67), name="x"), I((3, 38), name="z")], H,
       "y = x.clone(); y[:, 2:40] = z; y[1].mul_(3.0); return y * 2.0: writes through "
       "views (the training IR keeps slice/select views and copy_/mul_ on them)",
       module=lambda: SetitemViews())
    op("index_put", lambda c, i, s: torch.ops.aten.index_put.default(c, [None, None, i], s),
       [I((1, 2, 16, 40), name="cache"), I((3,), "int64", "index:16", "pos"),
        I((1, 2, 3, 40), name="k")], H,
       "torch.ops.aten.index_put.default(cache, [None, None, pos], k): the functional "
       "cache[:, :, pos] = k (a static cache's fallback update)")
    op("index_copy_inplace", None,
       [I((1, 2, 3, 40), name="k"), I((3,), "int64", "index:16", "pos")], H,
       "self.k_cache.index_copy_(2, pos, k) on a buffer: aten.index_copy_ stays in place in "
       "the training IR; returns the cache", module=lambda: KVCacheUpdate((1, 2, 16, 40)))
    op("full", lambda x: x + torch.full((7, 67), 1.5), [I(A2)], H,
       "x + torch.full((7, 67), 1.5): full.default(device=cpu, pin_memory=False)")
    op("zeros", lambda x: x + torch.zeros(7, 67, dtype=torch.float16), [I(A2)], H,
       "x + torch.zeros(7, 67, dtype=torch.float16)")
    op("ones", lambda x: x * torch.ones(67), [I(A3)], S, "x * torch.ones(67)")
    op("arange", lambda x: x + torch.arange(67), [I(A2)], H,
       "x + torch.arange(67): arange.default (int64) promoted by add")
    op("arange_start_step", lambda x: x * torch.arange(1, 134, 2, dtype=torch.float32), [I(A2)], S,
       "x * torch.arange(1, 134, 2, dtype=torch.float32): arange.start_step")
    op("triu", lambda x: torch.triu(x, 1), [I(A2)], H, "torch.triu(x, 1)")
    op("tril", lambda x: x.tril(), [I((9, 67))], S, "x.tril() (diagonal=0 omitted)")
    op("tril_mask", lambda x: x.masked_fill(torch.ones(9, 9, dtype=torch.bool).tril().logical_not(),
                                            -10000.0), [I((2, 9, 9))], H,
       "x.masked_fill(~ones(9, 9, bool).tril(), -1e4): a causal mask built in the graph "
       "(ones, tril, logical_not, masked_fill)")
    op("clone", lambda x: x.clone(), [I(A2)], H, "x.clone()")
    op("contiguous", lambda x: x.transpose(0, 1).contiguous(), [I(A3)], H,
       "x.transpose(0, 1).contiguous(): aten.contiguous kept whole (training IR)")
    op("alias", lambda x: torch.ops.aten.alias.default(x) * 2.0, [I(A2)], H,
       "torch.ops.aten.alias.default(x) * 2.0")
    op("detach", lambda x: x.detach() * 2.0, [I(A2)], H, "x.detach() * 2.0: detach.default")
    op("constant_pad_nd", lambda x: torch.constant_pad_nd(x, [1, 2, 0, 3], 0.5), [I(A3)], H,
       "torch.constant_pad_nd(x, [1, 2, 0, 3], 0.5)")
    op("pad", lambda x: F.pad(x, (1, 2)), [I(A3)], H,
       "F.pad(x, (1, 2)): aten.pad kept whole (mode='constant', value=None omitted)")
    op("weights_aliased", None, [I((2, 5), "int64", "int:0:16", "ids")], S,
       "tied embedding/lm_head + q/k slices of one storage + a transposed slice parameter",
       module=lambda: AliasedWeights())
    op("mutation_inplace", None, [I(A2)], S,
       "self.count.add_(x); x.mul_(2.0) (in place in the training IR), non-persistent buffer "
       "`scale`, lifted tensor constant `offset`, max.dim with a dead indices getitem",
       module=lambda: InplaceMutation())
    op("dropout_eval", lambda x: F.dropout(x, 0.1, False), [I(A2)], H,
       "F.dropout(x, 0.1, training=False): aten.dropout kept whole (export never decomposes it)")

    # ------------------------------------------ classes of the op fuzzer
    # Each class of wrong answers and refusals the real-model study and the
    # differential op fuzzer (tools/fuzz) found, kept as a fixture.
    op("expand_stick", lambda x: x.expand(1, 48, 2, 2).contiguous(), [I((1, 48, 2, 1))], S,
       "x[1,48,2,1].expand(1, 48, 2, 2): a broadcast along the stick dim from size 1 "
       "(was the first column and zeros)")
    op("expand_as_rows", lambda x, y: x.expand_as(y) + y, [I((3, 1, 67)), I((3, 5, 67))], H,
       "x[3,1,67].expand_as(y[3,5,67]) + y")
    op("meshgrid", lambda x, y: torch.stack(torch.meshgrid(x, y, indexing="ij")),
       [I((5,)), I((7,))], S, "torch.stack(torch.meshgrid(x[5], y[7], indexing='ij'))")
    op("rank6_split", lambda x: [p * 2.0 for p in x.unsqueeze(1).split(2, dim=3)],
       [I((2, 3, 5, 4, 7))], H,
       "x[2,3,5,4,7].unsqueeze(1).split(2, dim=3), each part * 2: rank-6 slices "
       "(collapsed to rank 3)")
    op("rank8_bcast", lambda x, y: x * y, [I((2, 1, 3, 1, 2, 2, 3, 5)), I((1, 2, 1, 2, 1, 2, 1, 5))],
       S, "x[2,1,3,1,2,2,3,5] * y[1,2,1,2,1,2,1,5]: rank-8 broadcasting")
    op("split_empty", lambda x: torch.split(x, [3, 0, 2], dim=1), [I((4, 5))], S,
       "torch.split(x[4,5], [3, 0, 2], dim=1): a zero-length piece")
    op("linear_empty_batch", None, [I((0, 16))], S,
       "nn.Linear(16, 8) on an empty batch x[0,16]", module=lambda: nn.Linear(16, 8))
    op("sum_empty_dim", lambda x: (x.sum(1), x.prod(1)), [I((3, 0))], S,
       "x[3,0].sum(1), x.prod(1): reductions over an empty dim (0 and 1)")
    op("index_multi", lambda x, i, j: x[i, :, j], [I((4, 5, 6)), I((2, 1), "int64", "int:-4:4"),
                                                  I((3,), "int64", "int:-6:6")], S,
       "x[i, :, j] with i[2,1], j[3] broadcast (negative entries count from the end): "
       "several index tensors, None between them")
    op("index_adjacent", lambda x, i, j: x[:, i, j], [I((2, 5, 6)), I((3, 2), "int64", "int:0:5"),
                                                      I((3, 2), "int64", "int:0:6")], H,
       "x[:, i, j]: adjacent indexed dims keep their place")
    op("conv1d_depthwise", None, [I((2, 6, 10))], H,
       "nn.Conv1d(6, 6, 4, padding=3, groups=6): mamba's depthwise causal conv1d",
       module=lambda: nn.Conv1d(6, 6, 4, padding=3, groups=6))
    op("conv2d_patch", None, [I((1, 3, 16, 16))], S,
       "nn.Conv2d(3, 16, 4, stride=4): a vision patch embedding",
       module=lambda: nn.Conv2d(3, 16, 4, stride=4), tol="matmul")
    op("conv2d_grouped", None, [I((2, 4, 9, 11))], S,
       "nn.Conv2d(4, 8, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)",
       module=lambda: nn.Conv2d(4, 8, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2),
                                groups=2), tol="matmul")
    op("sort", lambda x: torch.sort(x, dim=1), [I((3, 7, 5), gen="distinct")], S,
       "torch.sort(x, dim=1): values and indices")
    op("sort_descending_stable", lambda x: torch.sort(x, descending=True, stable=True),
       [I((4, 37), "int64", "int:0:5")], MIXED,
       "torch.sort(x, descending=True, stable=True) of int64 with ties")
    op("prod_all_any", lambda x: (x.prod(-1), (x > 0).all(1), (x > 1.5).any()),
       [I((4, 5, 6), gen="positive")], S, "x.prod(-1), (x > 0).all(1), (x > 1.5).any()")
    op("index_add", lambda x, i, s: x.index_add(1, i, s, alpha=2),
       [I((3, 6, 5)), I((4,), "int64", "int:0:6"), I((3, 4, 5))], S,
       "x.index_add(1, i, s, alpha=2) with repeated indices")
    op("masked_scatter", lambda x, m, s: x.masked_scatter(m, s),
       [I((3, 6, 5)), I((3, 6, 5), "bool", "bool:0.5"), I((100,))], S,
       "x.masked_scatter(mask, source): element by element")
    op("masked_scatter_rows", lambda x, m, s: x.masked_scatter(m, s),
       [I((2, 6, 5)), I((2, 6, 1), "bool", "bool:0.5"), I((12, 5))], H,
       "x.masked_scatter(mask[2,6,1], source): whole rows, as image features into tokens")
    op("pad_negative", lambda x: F.pad(x, (-1, 2, 1, -2)), [I((4, 5, 6))], S,
       "F.pad(x, (-1, 2, 1, -2)): negative amounts crop")
