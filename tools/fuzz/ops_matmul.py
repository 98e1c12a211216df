"""Generators of the matmul family: mm, bmm, addmm, baddbmm, linear,
matmul.  Values in [-1, 1] (sums of K products stay well inside fp16),
odd and zero M/K/N, transposed (weight-style) operands, broadcast biases
and batch dims."""

from gen import MAX_NUMEL
from table import Table

T = Table("matmul")


def _mkn(b):
    """M, K, N with each operand at most MAX_NUMEL elements."""
    m, k, n = b.size(), b.size(), b.size()
    while m * k > MAX_NUMEL or k * n > MAX_NUMEL or m * n > MAX_NUMEL:
        m, k, n = max(m // 2, 1), max(k // 2, 1), max(n // 2, 1)
    return m, k, n


def _bias_shape(b, full):
    """A shape broadcasting to `full`: [N], [1, N], [M, 1], the full
    shape or a scalar."""
    return b.choice([full[-1:], (1,) + full[-1:], full[:-1] + (1,), full, ()])


def _batched(b, batch, rank, tail):
    """`tail` behind the last rank - 2 dims of `batch`, some of them 1."""
    lead = batch[max(len(batch) - (rank - 2), 0):] if rank > 2 else ()
    return tuple(s if b.chance(0.7) else 1 for s in lead) + tail


@T.add("aten.mm.default", tol="matmul")
def mm(b, op):
    """torch.mm(a[M,K], b[K,N]) (b often a transposed view: x @ w.t())."""
    d = b.dtype()
    m, k, n = _mkn(b)
    return f"torch.mm({b.operand((m, k), d, 'unit')}, {b.operand((k, n), d, 'unit')})"


@T.add("aten.bmm.default", tol="matmul")
def bmm(b, op):
    """torch.bmm(a[B,M,K], b[B,K,N])."""
    d = b.dtype()
    m, k, n = _mkn(b)
    bt = b.choice((0, 1, 2, 3, 5, 8))
    return f"torch.bmm({b.operand((bt, m, k), d, 'unit')}, {b.operand((bt, k, n), d, 'unit')})"


@T.add("aten.addmm.default", tol="matmul")
def addmm(b, op):
    """torch.addmm(bias, a, b, beta=, alpha=) with a broadcasting bias,
    beta in {1, 0, 0.5} (0 ignores bias), alpha in {1, 2}."""
    d = b.dtype()
    m, k, n = _mkn(b)
    bias = b.operand(_bias_shape(b, (m, n)), d, "unit")
    beta, alpha = b.choice((1, 1, 0, 0.5)), b.choice((1, 1, 2))
    extra = (f", beta={beta}" if beta != 1 else "") + (f", alpha={alpha}" if alpha != 1 else "")
    return (f"torch.addmm({bias}, {b.operand((m, k), d, 'unit')}, "
            f"{b.operand((k, n), d, 'unit')}{extra})")


@T.add("aten.baddbmm.default", tol="matmul")
def baddbmm(b, op):
    """torch.baddbmm(bias, a[B,M,K], b[B,K,N], beta=, alpha=) with a bias
    broadcasting to [B,M,N]. Not beta=0: torch 1.13's CPU baddbmm then
    reads memory it never wrote (NaN and wrong values now and then, the
    same in two evaluations; seeds 1203 and 2026 reported them as
    mismatches, ours equal to NumPy's), so PyTorch gives no reference."""
    d = b.dtype()
    m, k, n = _mkn(b)
    bt = b.choice((1, 2, 3, 4))
    bias = b.operand(b.choice([(bt, m, n), (1, m, n), (m, n), (n,), (bt, 1, n)]), d, "unit")
    beta, alpha = b.choice((1, 0.5)), b.choice((1, 2, -1))
    return (f"torch.baddbmm({bias}, {b.operand((bt, m, k), d, 'unit')}, "
            f"{b.operand((bt, k, n), d, 'unit')}, beta={beta}, alpha={alpha})")


@T.add("aten.linear.default", tol="matmul")
def linear(b, op):
    """F.linear(x[..., K], w[N, K], bias[N] or None), x of rank 1 to 5."""
    d = b.dtype()
    _, k, n = _mkn(b)
    lead = b.shape(lo=0, hi=4, max_numel=max(MAX_NUMEL // max(k, n, 1), 1), long_ok=False)
    x = b.operand(lead + (k,), d, "unit")
    w = b.operand((n, k), d, "unit")
    bias = b.operand((n,), d, "unit") if b.chance(0.6) else "None"
    return f"F.linear({x}, {w}, {bias})"


@T.add("aten.matmul.default", tol="matmul")
def matmul(b, op):
    """torch.matmul / a @ b for every rank pair: 1-D x 1-D (a dot),
    1-D x N-D and N-D x 1-D (promoted), batched with broadcast batch dims
    (ranks up to 6)."""
    d = b.dtype()
    m, k, n = _mkn(b)
    ra, rb = b.choice((1, 2, 2, 3, 3, 4, 5, 6)), b.choice((1, 2, 2, 3, 3, 4, 5, 6))
    batch = b.shape(lo=0, hi=4, max_numel=max(MAX_NUMEL // max(m * k, k * n, 1), 1),
                    long_ok=False)
    sa = (k,) if ra == 1 else _batched(b, batch, ra, (m, k))
    sb = (k,) if rb == 1 else _batched(b, batch, rb, (k, n))
    x, y = b.operand(sa, d, "unit"), b.operand(sb, d, "unit")
    return f"{x} @ {y}" if b.chance(0.4) else f"torch.matmul({x}, {y})"


def _conv_operands(b, nd, batched=None, int_padding=True):
    """Input [N, Cin, *spatial] (or unbatched), weight [Cout, Cin/groups,
    *kernel], bias or None, and stride/padding/dilation/groups with at
    least one output position (without padding unless `int_padding`);
    groups 1, a divisor, or depthwise."""
    d = b.dtype()
    groups = b.choice((1, 1, 1, 2, 3, 0))  # 0: depthwise
    cin = b.choice((1, 2, 3, 4, 6, 8, 16, 33, 64))
    if groups == 0:
        groups = cin
    else:
        cin = max(cin // groups, 1) * groups
    cout = groups * b.choice((1, 2, 3, 5)) if groups > 1 else b.choice((1, 2, 5, 16, 64, 65))
    kernel = [b.choice((1, 2, 3, 5)) for _ in range(nd)]
    stride = [b.choice((1, 1, 2, 3)) for _ in range(nd)]
    dilation = [b.choice((1, 1, 2)) for _ in range(nd)]
    padding = [b.choice((0, 0, 1, 2)) if int_padding else 0 for _ in range(nd)]
    spatial = [max(dl * (k - 1) + 1 - 2 * p, 1) + b.randint(0, 40 if nd == 1 else 12)
               for k, dl, p in zip(kernel, dilation, padding)]
    if batched is None:
        batched = b.chance(0.8)
    batch = (b.choice((1, 2, 3)),) if batched else ()
    x = b.operand(batch + (cin,) + tuple(spatial), d, "unit")
    w = b.operand((cout, cin // groups) + tuple(kernel), d, "unit")
    bias = b.operand((cout,), d, "unit") if b.chance(0.6) else "None"
    return x, w, bias, stride, padding, dilation, groups


@T.add("aten.conv1d.default", "aten.conv2d.default", tol="matmul")
def conv(b, op):
    """conv1d/conv2d(x, w, bias, stride, padding, dilation, groups) (keep
    ops: torch 1.13 records aten.convolution): batched or not, strides,
    paddings, dilations, grouped and depthwise."""
    nd = 1 if "conv1d" in op else 2
    x, w, bias, stride, padding, dilation, groups = _conv_operands(b, nd)
    return (f"keep('conv{nd}d')({x}, {w}, {bias}, {stride}, {padding}, {dilation}, "
            f"{groups})")


@T.add("aten.conv1d.padding", "aten.conv2d.padding", tol="matmul")
def conv_padding(b, op):
    """conv1d/conv2d(x, w, bias, stride, 'same' | 'valid', dilation,
    groups) (keep ops; 'same' needs stride 1)."""
    nd = 1 if "conv1d" in op else 2
    x, w, bias, stride, _, dilation, groups = _conv_operands(b, nd, int_padding=False)
    mode = b.choice(("same", "valid"))
    if mode == "same":
        stride = [1] * nd
    return (f"keep('conv{nd}d.padding')({x}, {w}, {bias}, {stride}, {mode!r}, {dilation}, "
            f"{groups})")


@T.add("aten.convolution.default", tol="matmul")
def convolution(b, op):
    """aten.convolution(x, w, bias, stride, padding, dilation, False, 0s,
    groups) by name, 1-D and 2-D, batched inputs."""
    nd = b.choice((1, 2))
    x, w, bias, stride, padding, dilation, groups = _conv_operands(b, nd, batched=True)
    return (f"torch.ops.aten.convolution.default({x}, {w}, {bias}, {stride}, {padding}, "
            f"{dilation}, False, {[0] * nd}, {groups})")
