"""Generators of the attention family: scaled_dot_product_attention and
the fused kernels ep.run_decompositions() leaves in ATen IR.  q, k, v in
[-1, 1], batch and head dims (grouped-query heads), odd and zero lengths,
boolean and additive masks (fully masked rows included), is_causal, scale.
"""

from gen import BOOL, MAX_NUMEL
from table import Table

T = Table("attention")


def _rope(b, d, x, rows, e):
    """x rotated as Llama's apply_rotary_pos_emb writes it: x * cos +
    rotate_half(x) * sin, tables [rows, E] (or one row) in [-1, 1]."""
    shape = (b.choice((rows, rows, 1)), e)
    cos, sin = b.operand(shape, d, "unit"), b.operand(shape, d, "unit")
    half = e // 2
    return (f"({x} * {cos} + torch.cat((-{x}[..., {half}:], "
            f"{x}[..., :{half}]), dim=-1) * {sin})")


def _qkv(b, gqa=False, rope=False):
    """Texts of q [.., Hq, L, E], k [.., Hkv, S, E], v [.., Hkv, S, Ev]
    and (number of lead dims, L, S); Hq a multiple of Hkv when `gqa`; with
    `rope` (and E even) q, and sometimes k, rotated first."""
    d = b.dtype()
    lead = b.shape(lo=0, hi=2, max_numel=4, long_ok=False)
    hkv = b.choice((1, 2, 3))
    hq = hkv * b.choice((2, 3, 4)) if gqa else hkv
    sizes = [b.choice((1, 2, 5, 16, 33, 64, 0, 7, 100)) for _ in range(4)]
    while max(hq * sizes[0] * sizes[2], hkv * sizes[1] * max(sizes[2], sizes[3])) > MAX_NUMEL:
        sizes = [max(s // 2, 1) for s in sizes]
    L, S, E, Ev = sizes
    E = max(E, 1)
    q = b.operand(lead + (hq, L, E), d, "unit")
    k = b.operand(lead + (hkv, S, E), d, "unit")
    v = b.operand(lead + (hkv, S, Ev), d, "unit")
    if rope and E % 2 == 0:
        q = _rope(b, d, q, L, E)
        if b.chance(0.5):
            k = _rope(b, d, k, S, E)
    return d, q, k, v, (len(lead), L, S)


def _mask(b, d, dims, additive_only=False):
    """A bool or additive mask broadcasting to the scores [.., H, L, S]."""
    lead, L, S = dims
    shape = b.choice([(L, S), (1, S), (L, 1), (1,) * (lead + 1) + (L, S)])
    if not additive_only and b.chance(0.5):
        return b.operand(shape, BOOL)
    return b.operand(shape, d, "unit")


@T.add("aten.scaled_dot_product_attention.default", tol="matmul")
def sdpa(b, op):
    """F.scaled_dot_product_attention(q, k, v, attn_mask, 0.0, is_causal,
    scale=, enable_gqa=): bool/additive masks or is_causal, scale None or
    given, grouped-query heads, the rope on the query (folded into the
    kernel by spyre-fold-rope) and on the key."""
    gqa = b.chance(0.3)
    d, q, k, v, dims = _qkv(b, gqa, rope=b.chance(0.4))
    causal = b.chance(0.3)
    mask = "None" if causal or b.chance(0.4) else _mask(b, d, dims)
    scale = b.choice((None, None, 0.5, 0.125))
    return (f"sdpa({q}, {k}, {v}, {mask}, 0.0, {causal}, scale={scale}"
            f"{', enable_gqa=True' if gqa else ''})")


@T.add("aten._scaled_dot_product_flash_attention_for_cpu.default", tol="matmul")
def sdpa_cpu(b, op):
    """_scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, is_causal,
    attn_mask=, scale=)[0] (keep op; the logsumexp output unused)."""
    d, q, k, v, dims = _qkv(b)
    causal = b.chance(0.3)
    mask = "None" if causal or b.chance(0.4) else _mask(b, d, dims, additive_only=True)
    scale = b.choice((None, 0.5))
    return (f"keep('_scaled_dot_product_flash_attention_for_cpu')({q}, {k}, {v}, 0.0, "
            f"{causal}, attn_mask={mask}, scale={scale})[0]")


@T.add("aten._scaled_dot_product_efficient_attention.default", tol="matmul")
def sdpa_efficient(b, op):
    """_scaled_dot_product_efficient_attention(q, k, v, attn_bias,
    compute_log_sumexp, 0.0, is_causal, scale=)[0] (keep op; the other
    outputs unused)."""
    d, q, k, v, dims = _qkv(b)
    causal = b.chance(0.3)
    bias = "None" if causal or b.chance(0.4) else _mask(b, d, dims, additive_only=True)
    return (f"keep('_scaled_dot_product_efficient_attention')({q}, {k}, {v}, {bias}, "
            f"{b.chance(0.5)}, 0.0, {causal}, scale={b.choice((None, 0.25))})[0]")


for _op in ("aten._scaled_dot_product_flash_attention.default",
            "aten._scaled_dot_product_cudnn_attention.default"):
    T.untraceable(_op, "SymInt outputs (max_q, max_k), which the torch 1.13 exporter "
                       "cannot serialize")
