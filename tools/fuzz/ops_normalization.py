"""Generators of the normalization family: layer_norm, native_layer_norm,
rms_norm, batch_norm and its ATen-IR form.  Inputs in [-4, 4] (no
near-constant rows, where a normalization divides rounding noise), positive
running variances."""

import math

from table import Table

T = Table("normalization")


def _normalized(b):
    """x's shape and the trailing dims normalized over (1 to 3 of them,
    at least 8 elements: over one element the mean is the element, and
    over two or three random ones a row is now and then nearly constant
    (1.7299 and 1.7290), where the normalization divides fp32 rounding
    noise and two correct implementations differ by 1e-4)."""
    shape = b.shape(lo=1)
    k = b.randint(1, min(3, len(shape)))
    if math.prod(shape[len(shape) - k:]) < 8:
        shape = shape[:-1] + (b.randint(8, 70),)
    return shape, list(shape[len(shape) - k:])


@T.add("aten.layer_norm.default", tol="reduction")
def layer_norm(b, op):
    """F.layer_norm(x, trailing dims, weight, bias, eps): affine or not
    (weight and bias independently None), eps in {1e-5, 1e-3, 0.1}."""
    d = b.dtype()
    shape, norm = _normalized(b)
    x = b.operand(shape, d, expand=False)
    w = b.operand(norm, d, "pos") if b.chance(0.6) else "None"
    bias = b.operand(norm, d) if b.chance(0.6) else "None"
    eps = b.choice((1e-5, 1e-3, 0.1))
    return f"F.layer_norm({x}, {norm}, {w}, {bias}, {eps})"


@T.add("aten.native_layer_norm.default", tol="reduction")
def native_layer_norm(b, op):
    """torch.native_layer_norm(x, trailing dims, weight, bias, eps): the
    output, mean and rstd."""
    d = b.dtype()
    shape, norm = _normalized(b)
    # Of an empty input, torch 1.13's meta function gives the statistics
    # the input's shape and its CPU kernel [..., 1]: the export and the
    # reference would disagree, so the batch dims are not empty here.
    shape = tuple(max(s, 1) for s in shape)
    norm = list(shape[len(shape) - len(norm):])
    x = b.operand(shape, d, expand=False)
    w = b.operand(norm, d, "pos") if b.chance(0.7) else "None"
    bias = b.operand(norm, d) if b.chance(0.7) else "None"
    return f"torch.native_layer_norm({x}, {norm}, {w}, {bias}, {b.choice((1e-5, 1e-3))})"


@T.add("aten.rms_norm.default", tol="reduction")
def rms_norm(b, op):
    """rms_norm(x, trailing dims, weight or None, eps or None (fp32's
    epsilon, PyTorch's opmath type, also for fp16 and bf16))."""
    d = b.dtype()
    shape, norm = _normalized(b)
    x = b.operand(shape, d)
    w = b.operand(norm, d, "pos") if b.chance(0.7) else "None"
    eps = b.choice((None, 1e-6, 1e-5, 0.01))
    return f"rms_norm({x}, {norm}, {w}, {eps})"


def _bn_operands(b):
    """x[N, C, ...] (rank 2 to 5) and per-channel weight, bias, running
    mean and (positive) running variance."""
    d = b.dtype()
    shape = b.shape(lo=2, hi=5)
    shape = (shape[0], max(shape[1], 1)) + shape[2:]  # PyTorch rejects 0 channels
    c = (shape[1],)
    x = b.operand(shape, d)
    w = b.operand(c, d, "pos") if b.chance(0.7) else "None"
    bias = b.operand(c, d) if b.chance(0.7) else "None"
    return x, w, bias, b.operand(c, d), b.operand(c, d, "pos")


@T.add("aten.batch_norm.default", tol="reduction")
def batch_norm(b, op):
    """F.batch_norm(x, running_mean, running_var, weight, bias,
    training=False, momentum, eps) over dim 1 of a rank 2-5 input."""
    x, w, bias, rm, rv = _bn_operands(b)
    eps = b.choice((1e-5, 1e-3))
    return f"F.batch_norm({x}, {rm}, {rv}, {w}, {bias}, False, 0.1, {eps})"


@T.add("aten._native_batch_norm_legit_no_training.default", tol="reduction")
def native_batch_norm_legit_no_training(b, op):
    """aten._native_batch_norm_legit_no_training(x, weight, bias,
    running_mean, running_var, momentum, eps): the output and the two empty
    saved statistics."""
    x, w, bias, rm, rv = _bn_operands(b)
    return f"native_batch_norm_legit_no_training({x}, {w}, {bias}, {rm}, {rv}, 0.1, 1e-5)"
