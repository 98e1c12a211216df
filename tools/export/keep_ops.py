"""Placeholder ("keep") ops: how torch 1.13's make_fx is made to record the
ops that torch 2.9's ``torch.export.export`` records.

torch 2.9 exports the *training IR*: ``make_fx(pre_dispatch=True)`` with no
functionalization and no decomposition (``torch/export/_trace.py``
``_export_to_aten_ir_make_fx``).  Tracing happens at the PreDispatch key,
above autograd, so every op a Python binding dispatches is recorded as is,
including the CompositeImplicitAutograd (CIA) ones: ``linear``, ``matmul``,
``softmax.int``, ``layer_norm``, ``reshape``, ``contiguous``, ``to.dtype``,
``chunk``, ``dropout``, ``pad``, ``where.ScalarOther``, ``batch_norm`` ...
torch 1.13's ``make_fx`` traces below autograd, where the CIA kernels have
already run (``reshape`` -> ``_reshape_alias``, ``softmax`` -> ``_softmax``).

So the tracer intercepts the Python-level call of each such op (a
``TorchFunctionMode`` sees ``F.softmax``, ``Tensor.reshape`` ...) and calls
an opaque library op ``spyre_keep::<op>`` declared with the torch 2.9 schema
of the aten op.  ``make_fx`` records it as one node (the dispatcher
normalizes its arguments exactly as for the aten op: trailing defaults
dropped, kwarg-only arguments as kwargs), and the serializer renames it to
``torch.ops.aten.<op>.<overload>``.  Ops that torch 1.13 does not have at
all (``rms_norm``, ``scaled_dot_product_attention`` with ``enable_gqa``,
``_native_batch_norm_legit_no_training``) go the same way, through the
shims ``rms_norm()`` / ``scaled_dot_product_attention()`` /
``native_batch_norm_legit_no_training()`` below, whose eager path computes
the op with torch ops (the reference implementation, documented per op).

The impls registered for the keep ops only produce output metadata (they run
on meta tensors during tracing): values, shapes, dtypes, and strides/storage
offsets as the real aten op would give them (view-returning ops return a
fresh tensor with the view's strides and offset, so the TensorMeta matches).
"""

import math
from typing import Any, Callable, Dict

import torch
import torch.nn.functional as F
from torch.overrides import handle_torch_function, has_torch_function

KEEP_NS = "spyre_keep"

# keep-op "name.overload" -> (aten target, torch 2.9 schema of the aten op)
# The keep op is defined with the same schema minus alias annotations.
SCHEMAS_29: Dict[str, str] = {
    "linear": "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
    "matmul": "matmul(Tensor self, Tensor other) -> Tensor",
    "softmax.int": "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "log_softmax.int": "log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "layer_norm": ("layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
                   "Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor"),
    "rms_norm": ("rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
                 "float? eps=None) -> Tensor"),
    "scaled_dot_product_attention": (
        "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
        "Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, "
        "float? scale=None, bool enable_gqa=False) -> Tensor"),
    "dropout": "dropout(Tensor input, float p, bool train) -> Tensor",
    "pad": 'pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor',
    "reshape": "reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)",
    "contiguous": ("contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format)"
                   " -> Tensor(a)"),
    "flatten.using_ints": ("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1)"
                           " -> Tensor(a)"),
    "chunk": "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
    "to.dtype": ("to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, "
                 "bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)"),
    "to.dtype_layout": (
        "to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, "
        "MemoryFormat? memory_format=None) -> Tensor(a)"),
    "where.ScalarOther": "where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
    "where.ScalarSelf": "where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
    "where.Scalar": "where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor",
    "batch_norm": ("batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
                   "Tensor? running_var, bool training, float momentum, float eps, "
                   "bool cudnn_enabled) -> Tensor"),
    "_native_batch_norm_legit_no_training": (
        "_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, "
        "Tensor running_mean, Tensor running_var, float momentum, float eps) "
        "-> (Tensor, Tensor, Tensor)"),
}

# Ops reachable only by name, keep("<op>")(...): no Python-level
# interception, so graphs traced before are unchanged.  torch 1.13 has them
# only as CompositeImplicitAutograd decompositions or not at all; the op
# fuzzer (tools/fuzz) records them as the single nodes torch 2.9 writes.
BY_NAME_SCHEMAS_29: Dict[str, str] = {
    "__and__.Scalar": "__and__.Scalar(Tensor self, Scalar other) -> Tensor",
    "__and__.Tensor": "__and__.Tensor(Tensor self, Tensor other) -> Tensor",
    "__or__.Scalar": "__or__.Scalar(Tensor self, Scalar other) -> Tensor",
    "__or__.Tensor": "__or__.Tensor(Tensor self, Tensor other) -> Tensor",
    "__xor__.Scalar": "__xor__.Scalar(Tensor self, Scalar other) -> Tensor",
    "__xor__.Tensor": "__xor__.Tensor(Tensor self, Tensor other) -> Tensor",
    "bitwise_or.Scalar": "bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor",
    "bitwise_xor.Scalar": "bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor",
    "floor_divide.Scalar": "floor_divide.Scalar(Tensor self, Scalar other) -> Tensor",
    "positive": "positive(Tensor(a) self) -> Tensor(a)",
    "square": "square(Tensor self) -> Tensor",
    "to.device": ("to.device(Tensor(a) self, Device device, ScalarType dtype, "
                  "bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None)"
                  " -> Tensor(a)"),
    "type_as": "type_as(Tensor self, Tensor other) -> Tensor",
    "var.dim": ("var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False)"
                " -> Tensor"),
    "var_mean.dim": ("var_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, "
                     "bool keepdim=False) -> (Tensor, Tensor)"),
    "unflatten.int": "unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)",
    "squeeze.dims": "squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)",
    "copy": "copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor",
    "all.dims": "all.dims(Tensor self, int[1]? dim=None, bool keepdim=False) -> Tensor",
    "any.dims": "any.dims(Tensor self, int[1]? dim=None, bool keepdim=False) -> Tensor",
    "_safe_softmax": "_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "conv1d": ("conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, "
               "SymInt[1] padding=0, SymInt[1] dilation=1, SymInt groups=1) -> Tensor"),
    "conv2d": ("conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
               "SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor"),
    "conv1d.padding": ("conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, "
                       "SymInt[1] stride=1, str padding=\"valid\", SymInt[1] dilation=1, "
                       "SymInt groups=1) -> Tensor"),
    "conv2d.padding": ("conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, "
                       "SymInt[2] stride=1, str padding=\"valid\", SymInt[2] dilation=1, "
                       "SymInt groups=1) -> Tensor"),
    "_scaled_dot_product_flash_attention_for_cpu": (
        "_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, "
        "float dropout_p=0., bool is_causal=False, *, Tensor? attn_mask=None, "
        "float? scale=None) -> (Tensor output, Tensor logsumexp)"),
    "_scaled_dot_product_efficient_attention": (
        "_scaled_dot_product_efficient_attention(Tensor query, Tensor key, Tensor value, "
        "Tensor? attn_bias, bool compute_log_sumexp, float dropout_p=0., "
        "bool is_causal=False, *, float? scale=None) -> (Tensor output, Tensor log_sumexp, "
        "Tensor philox_seed, Tensor philox_offset)"),
}
SCHEMAS_29.update(BY_NAME_SCHEMAS_29)

# aten ops whose torch 2.9 schema differs from torch 1.13's in a way that
# matters to the serializer (argument names, kwarg-only-ness, list typing).
# Recorded by make_fx as the 1.13 op; serialized with these schemas.
SCHEMA_OVERRIDES_29: Dict[str, str] = {
    "aten::var.correction": ("var.correction(Tensor self, int[1]? dim=None, *, "
                             "Scalar? correction=None, bool keepdim=False) -> Tensor"),
    "aten::var_mean.correction": ("var_mean.correction(Tensor self, int[1]? dim=None, *, "
                                  "Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor)"),
    "aten::_assert_tensor_metadata": (
        "_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, "
        "ScalarType? dtype=None, *, Device? device=None, Layout? layout=None) -> ()"),
}


def _strip_alias(schema: str) -> str:
    import re
    return re.sub(r"\((?:[a-z](?: -> \*)?!?)\)", "", schema)


def parsed_schema(key: str):
    """torch._C.FunctionSchema for a 2.9 schema string (SCHEMAS_29 key or
    SCHEMA_OVERRIDES_29 key)."""
    s = SCHEMAS_29.get(key) or SCHEMA_OVERRIDES_29[key]
    return torch._C.parse_schema("aten::" + s)


def aten_target(keep_name: str) -> str:
    name, _, overload = keep_name.partition(".")
    return f"torch.ops.aten.{name}.{overload or 'default'}"


# ----------------------------------------------------------------------------
# Reference implementations (eager, torch ops); also the meta functions
# ----------------------------------------------------------------------------


def _fresh_view(out: torch.Tensor, base: torch.Tensor) -> torch.Tensor:
    """A tensor equal to `out` with out's sizes/strides/storage offset but not
    aliasing `base` (custom ops may not return views of their inputs)."""
    if out.numel() == 0:
        return out.clone()
    need = out.storage_offset() + sum((s - 1) * st for s, st in zip(out.shape, out.stride())) + 1
    buf = torch.empty(need, dtype=out.dtype, device=out.device)
    res = buf.as_strided(out.shape, out.stride(), out.storage_offset())
    # broadcast (stride-0) dims alias: write one element along them
    one = tuple(slice(0, 1) if st == 0 else slice(None) for st in out.stride())
    res[one].copy_(out[one])
    return res


def rms_norm_ref(input, normalized_shape, weight=None, eps=None):
    """aten::rms_norm as torch 2.9 computes it (rms_norm_symint,
    aten/src/ATen/native/layer_norm.cpp): in the input's "opmath" type
    (fp32 for fp16/bf16 inputs), eps defaulting to the opmath type's
    epsilon (rms_norm_composite: finfo(float32).eps for fp16/bf16/fp32),
    y = x * rsqrt(mean(x^2 over the normalized dims) + eps) [* weight]."""
    dims = tuple(range(-len(normalized_shape), 0))
    acc = torch.float32 if input.dtype in (torch.float16, torch.bfloat16) else input.dtype
    if eps is None:
        eps = torch.finfo(acc).eps
    x = input.to(acc)
    y = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
    if weight is not None:
        y = y * weight.to(acc)
    return y.to(input.dtype)


def sdpa_math_ref(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                  scale=None, enable_gqa=False):
    """aten::_scaled_dot_product_attention_math (torch 2.9,
    aten/src/ATen/native/transformers/attention.cpp) in torch ops: fp16/bf16
    inputs are computed in fp32; q and k are each scaled by sqrt(scale)
    (scale defaults to 1/sqrt(E)); is_causal uses ones(L, S).tril(); a bool
    mask becomes 0 / -inf; GQA repeats each KV head Hq/Hkv times
    (repeat_interleave along dim -3); softmax is _safe_softmax (rows that
    are all -inf give 0); dropout_p must be 0."""
    assert dropout_p == 0.0, "dropout not supported in the reference"
    out_dtype = query.dtype
    acc = torch.float32 if query.dtype in (torch.float16, torch.bfloat16) else query.dtype
    q, k, v = query.to(acc), key.to(acc), value.to(acc)
    E = q.shape[-1]
    s = (1.0 / math.sqrt(E)) if scale is None else scale
    neg = s < 0
    sf = math.sqrt(abs(s))
    q = q * (-sf if neg else sf)
    mask = attn_mask
    if is_causal:
        assert mask is None
        L, S = q.shape[-2], k.shape[-2]
        mask = torch.ones(L, S, dtype=torch.bool, device=q.device).tril()
    if mask is not None and mask.dtype == torch.bool:
        mask = torch.zeros(mask.shape, dtype=acc, device=q.device).masked_fill(
            mask.logical_not(), float("-inf"))
    if enable_gqa and k.shape[-3] != q.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        # = repeat_interleave(rep, dim=-3) (the meta kernel of 1.13 cannot)
        def rep_kv(t):
            lead, (hk, s_, e_) = t.shape[:-3], t.shape[-3:]
            return t.unsqueeze(-3).expand(*lead, hk, rep, s_, e_).reshape(*lead, hk * rep, s_, e_)
        k, v = rep_kv(k), rep_kv(v)
    attn = torch.matmul(q, k.transpose(-2, -1) * sf)
    if mask is not None:
        attn = attn + mask.to(acc)
    # _safe_softmax: fully masked rows -> 0 instead of NaN
    row_all_masked = (attn == float("-inf")).all(dim=-1, keepdim=True)
    attn = torch.softmax(attn, -1).masked_fill(row_all_masked, 0.0)
    return torch.matmul(attn, v).to(out_dtype)


def native_batch_norm_legit_no_training_ref(input, weight, bias, running_mean, running_var,
                                            momentum, eps):
    """torch 2.9 _native_batch_norm_legit_no_training = eval-mode batch norm
    over dim 1; the 2nd and 3rd results are empty ([0]) in eval mode."""
    out = F.batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    return out, input.new_zeros((0,)), input.new_zeros((0,))


def _impl_table() -> Dict[str, Callable]:
    def reshape(x, shape):
        return _fresh_view(x.reshape(shape), x)

    def contiguous(x, memory_format=torch.contiguous_format):
        # only called for non-contiguous inputs (see _h_contiguous)
        return x.clone(memory_format=memory_format)

    def flatten(x, start_dim=0, end_dim=-1):
        return _fresh_view(torch.flatten(x, start_dim, end_dim), x)

    def chunk(x, chunks, dim=0):
        return [_fresh_view(o, x) for o in torch.chunk(x, chunks, dim)]

    def to_dtype(x, dtype, non_blocking=False, copy=False, memory_format=None):
        if dtype == x.dtype and not copy:
            return _fresh_view(x, x)
        return x.to(dtype)

    def to_dtype_layout(x, dtype=None, layout=None, device=None, pin_memory=None,
                        non_blocking=False, copy=False, memory_format=None):
        if (dtype is None or dtype == x.dtype) and not copy:
            return _fresh_view(x, x)
        return x.to(dtype)

    def where_so(c, x, other):
        return torch.where(c, x, torch.scalar_tensor(other, dtype=x.dtype, device=x.device))

    def where_ss(c, self_, other):
        return torch.where(c, torch.scalar_tensor(self_, dtype=other.dtype, device=other.device), other)

    def where_s(c, self_, other):
        dt = torch.get_default_dtype() if isinstance(self_, float) or isinstance(other, float) \
            else torch.int64
        return torch.where(c, torch.scalar_tensor(self_, dtype=dt, device=c.device),
                           torch.scalar_tensor(other, dtype=dt, device=c.device))

    def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
        return F.layer_norm(x, normalized_shape, weight, bias, eps)

    def softmax(x, dim, dtype=None):
        return torch.softmax(x if dtype is None else x.to(dtype), dim)

    def log_softmax(x, dim, dtype=None):
        return torch.log_softmax(x if dtype is None else x.to(dtype), dim)

    def dropout(x, p, train):
        assert not train, "only eval-mode dropout is supported"
        return x.clone()

    def pad(x, pad, mode="constant", value=None):
        return F.pad(x, pad, mode, 0.0 if value is None else value)

    def batch_norm(x, w, b, rm, rv, training, momentum, eps, cudnn_enabled):
        return F.batch_norm(x, rm, rv, w, b, training, momentum, eps)

    def linear(x, w, b=None):
        return F.linear(x, w, b)

    def matmul(a, b):
        return torch.matmul(a, b)

    def same_or_cast(x, dtype, copy=False):
        return _fresh_view(x, x) if dtype == x.dtype and not copy else x.to(dtype)

    def squeeze_dims(x, dim):
        drop = {d % max(x.dim(), 1) for d in dim if x.dim() and x.shape[d] == 1}
        keep_ = [i for i in range(x.dim()) if i not in drop]
        return _fresh_view(x.as_strided([x.shape[i] for i in keep_],
                                        [x.stride(i) for i in keep_], x.storage_offset()), x)

    def count_dims(m, dim, keepdim):
        return m.sum(list(range(m.dim())) if dim is None else list(dim), keepdim=keepdim)

    def safe_softmax(x, dim, dtype=None):
        y = torch.softmax(x if dtype is None else x.to(dtype), dim)
        return y.masked_fill((x == float("-inf")).all(dim, keepdim=True), 0.0)

    def sdpa_cpu(q, k, v, dropout_p=0.0, is_causal=False, attn_mask=None, scale=None):
        # logsumexp: shape and dtype only (the Spyre registry requires it unused)
        return (sdpa_math_ref(q, k, v, attn_mask, dropout_p, is_causal, scale),
                q.new_zeros(q.shape[:-1], dtype=torch.float32))

    def sdpa_efficient(q, k, v, attn_bias, compute_log_sumexp, dropout_p=0.0,
                       is_causal=False, scale=None):
        # log_sumexp and the RNG state: shapes and dtypes only (must be unused)
        lse = q.shape[:-1] if compute_log_sumexp else q.shape[:-2] + (0,)
        return (sdpa_math_ref(q, k, v, attn_bias, dropout_p, is_causal, scale),
                q.new_zeros(lse, dtype=torch.float32),
                q.new_zeros((), dtype=torch.int64), q.new_zeros((), dtype=torch.int64))

    def bool_scalar(fn):
        # the dispatcher hands a bool Scalar over as the int 0 or 1, which
        # would promote a bool tensor to int64: read it back as a bool there
        def f(x, other):
            if x.dtype == torch.bool and other in (0, 1):
                other = bool(other)
            return fn(x, other)
        return f

    by_name = {
        "__and__.Scalar": bool_scalar(torch.bitwise_and), "__and__.Tensor": torch.bitwise_and,
        "__or__.Scalar": bool_scalar(torch.bitwise_or), "__or__.Tensor": torch.bitwise_or,
        "__xor__.Scalar": bool_scalar(torch.bitwise_xor), "__xor__.Tensor": torch.bitwise_xor,
        "bitwise_or.Scalar": bool_scalar(torch.bitwise_or),
        "bitwise_xor.Scalar": bool_scalar(torch.bitwise_xor),
        "floor_divide.Scalar": torch.floor_divide,
        "positive": lambda x: _fresh_view(x, x),
        "square": torch.square,
        "to.device": lambda x, device, dtype, non_blocking=False, copy=False,
        memory_format=None: same_or_cast(x, dtype, copy),
        "type_as": lambda x, other: same_or_cast(x, other.dtype),
        "var.dim": lambda x, dim, unbiased=True, keepdim=False: torch.var(
            x, dim, unbiased=unbiased, keepdim=keepdim) if dim is not None else
        torch.var(x, list(range(x.dim())), unbiased=unbiased, keepdim=keepdim),
        "var_mean.dim": lambda x, dim, unbiased=True, keepdim=False: torch.var_mean(
            x, list(range(x.dim())) if dim is None else dim, unbiased=unbiased,
            keepdim=keepdim),
        "unflatten.int": lambda x, dim, sizes: _fresh_view(x.unflatten(dim, sizes), x),
        "squeeze.dims": squeeze_dims,
        "copy": lambda x, src, non_blocking=False: x.clone().copy_(src),
        "all.dims": lambda x, dim=None, keepdim=False: count_dims(x == 0, dim, keepdim) == 0,
        "any.dims": lambda x, dim=None, keepdim=False: count_dims(x != 0, dim, keepdim) != 0,
        "_safe_softmax": safe_softmax,
        "conv1d": F.conv1d, "conv2d": F.conv2d,
        "conv1d.padding": F.conv1d, "conv2d.padding": F.conv2d,
        "_scaled_dot_product_flash_attention_for_cpu": sdpa_cpu,
        "_scaled_dot_product_efficient_attention": sdpa_efficient,
    }

    return {
        "linear": linear, "matmul": matmul, "softmax.int": softmax,
        "log_softmax.int": log_softmax, "layer_norm": layer_norm,
        "rms_norm": rms_norm_ref, "scaled_dot_product_attention": sdpa_math_ref,
        "dropout": dropout, "pad": pad, "reshape": reshape, "contiguous": contiguous,
        "flatten.using_ints": flatten, "chunk": chunk, "to.dtype": to_dtype,
        "to.dtype_layout": to_dtype_layout, "where.ScalarOther": where_so,
        "where.ScalarSelf": where_ss, "where.Scalar": where_s, "batch_norm": batch_norm,
        "_native_batch_norm_legit_no_training": native_batch_norm_legit_no_training_ref,
        **by_name,
    }


_LIB = None


def keep_lib():
    global _LIB
    if _LIB is None:
        lib = torch.library.Library(KEEP_NS, "DEF")
        impls = _impl_table()
        for name, schema in SCHEMAS_29.items():
            lib.define(_strip_alias(schema))
            for key in ("CPU", "Meta"):
                lib.impl(name, impls[name], key)
        _LIB = lib
    return _LIB


def keep(name: str):
    """The OpOverload torch.ops.spyre_keep.<name>.<overload>."""
    keep_lib()
    op, _, overload = name.partition(".")
    return getattr(getattr(torch.ops, KEEP_NS), op).__getattr__(overload or "default")


# ----------------------------------------------------------------------------
# Shims for functions torch 1.13 lacks (torch 2.x signatures)
# ----------------------------------------------------------------------------


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """torch.nn.functional.rms_norm (torch >= 2.4)."""
    if has_torch_function((input,)):
        return handle_torch_function(rms_norm, (input,), input, normalized_shape,
                                     weight=weight, eps=eps)
    if hasattr(F, "rms_norm"):
        return F.rms_norm(input, normalized_shape, weight, eps)
    return rms_norm_ref(input, list(normalized_shape), weight, eps)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """torch.nn.functional.scaled_dot_product_attention (torch >= 2.5 for
    enable_gqa).  Eager path: the math reference (sdpa_math_ref)."""
    if has_torch_function((query, key, value)):
        return handle_torch_function(
            scaled_dot_product_attention, (query, key, value), query, key, value,
            attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal, scale=scale,
            enable_gqa=enable_gqa)
    return sdpa_math_ref(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var,
                                        momentum, eps):
    """torch.ops.aten._native_batch_norm_legit_no_training.default (torch >= 2.1)."""
    if has_torch_function((input,)):
        return handle_torch_function(native_batch_norm_legit_no_training, (input,), input,
                                     weight, bias, running_mean, running_var, momentum, eps)
    return native_batch_norm_legit_no_training_ref(input, weight, bias, running_mean,
                                                   running_var, momentum, eps)


def tensor_and(self, other):
    """``self & other`` for two tensors (Tensor.__and__), as torch 2.9's
    pre-dispatch export records it: ``aten.__and__.Tensor``, a
    CompositeImplicitAutograd op that torch 1.13's make_fx records as its
    decomposition ``bitwise_and.Tensor``.  A shim, not a handler for
    Tensor.__and__, so that graphs traced before keep their nodes
    (transformers' masking_utils ``and_masks`` is written with ``&``)."""
    if has_torch_function((self, other)):
        return handle_torch_function(tensor_and, (self, other), self, other)
    return self & other


# builtin-style names torch 2.9 records in torch_fn for the shims
SHIM_TORCH_FN = {
    tensor_and: ("__and__", "method_descriptor"),
    rms_norm: ("rms_norm", "function"),
    scaled_dot_product_attention: ("scaled_dot_product_attention", "builtin_function_or_method"),
    # an explicit torch.ops.aten call: no torch function, so no torch_fn
    native_batch_norm_legit_no_training: None,
}


# ----------------------------------------------------------------------------
# Python-level interception: func -> handler(args, kwargs) or None (not kept)
# ----------------------------------------------------------------------------

_NO = object()


def _dim_arg(args, kwargs, i, name, default=_NO):
    if len(args) > i:
        return args[i]
    if name in kwargs:
        return kwargs[name]
    if default is _NO:
        raise TypeError(f"missing argument {name}")
    return default


def _softmax_like(keep_name):
    def h(args, kwargs):
        x = args[0]
        dim = _dim_arg(args, kwargs, 1, "dim")
        dtype = kwargs.get("dtype", args[3] if len(args) > 3 else None)
        if dtype is None and len(args) == 3 and isinstance(args[2], torch.dtype):
            dtype = args[2]  # Tensor.softmax(dim, dtype)
        if dim is None:
            raise NotImplementedError("softmax without dim")
        return keep(keep_name)(x, dim) if dtype is None else keep(keep_name)(x, dim, dtype=dtype)
    return h


def _h_layer_norm(args, kwargs):
    x = args[0]
    shape = list(_dim_arg(args, kwargs, 1, "normalized_shape"))
    w = _dim_arg(args, kwargs, 2, "weight", None)
    b = _dim_arg(args, kwargs, 3, "bias", None)
    eps = _dim_arg(args, kwargs, 4, "eps", 1e-5)
    return keep("layer_norm")(x, shape, w, b, eps, torch.backends.cudnn.enabled)


def _h_rms_norm(args, kwargs):
    x = args[0]
    shape = list(_dim_arg(args, kwargs, 1, "normalized_shape"))
    w = _dim_arg(args, kwargs, 2, "weight", None)
    eps = _dim_arg(args, kwargs, 3, "eps", None)
    return keep("rms_norm")(x, shape, w, eps)


def _h_sdpa(args, kwargs):
    names = ["query", "key", "value", "attn_mask", "dropout_p", "is_causal"]
    vals = [_dim_arg(args, kwargs, i, n, d) for i, (n, d) in
            enumerate(zip(names, [_NO, _NO, _NO, None, 0.0, False]))]
    return keep("scaled_dot_product_attention")(
        *vals, scale=kwargs.get("scale"), enable_gqa=kwargs.get("enable_gqa", False))


def _h_dropout(args, kwargs):
    x = args[0]
    p = _dim_arg(args, kwargs, 1, "p", 0.5)
    training = _dim_arg(args, kwargs, 2, "training", True)
    inplace = _dim_arg(args, kwargs, 3, "inplace", False)
    if inplace:
        raise NotImplementedError("inplace dropout")
    return keep("dropout")(x, float(p), bool(training))


def _h_pad(args, kwargs):
    x = args[0]
    pad = list(_dim_arg(args, kwargs, 1, "pad"))
    mode = _dim_arg(args, kwargs, 2, "mode", "constant")
    value = _dim_arg(args, kwargs, 3, "value", None)
    return keep("pad")(x, pad, mode, None if value is None else float(value))


def _shape_args(args, kwargs, name):
    rest = args[1:]
    if name in kwargs:
        return list(kwargs[name])
    if len(rest) == 1 and isinstance(rest[0], (list, tuple, torch.Size)):
        return list(rest[0])
    return list(rest)


def _h_reshape(args, kwargs):
    return keep("reshape")(args[0], _shape_args(args, kwargs, "shape"))


def _h_contiguous(args, kwargs):
    x = args[0]
    mf = _dim_arg(args, kwargs, 1, "memory_format", torch.contiguous_format)
    if x.is_contiguous(memory_format=mf):
        return x  # THPVariable_contiguous returns self without dispatching
    if mf is torch.contiguous_format:
        return keep("contiguous")(x)
    return keep("contiguous")(x, memory_format=mf)


def _h_flatten(args, kwargs):
    x = args[0]
    s = _dim_arg(args, kwargs, 1, "start_dim", 0)
    e = _dim_arg(args, kwargs, 2, "end_dim", -1)
    return keep("flatten.using_ints")(x, s, e)


def _h_chunk(args, kwargs):
    x = args[0]
    return tuple(keep("chunk")(x, _dim_arg(args, kwargs, 1, "chunks"),
                               _dim_arg(args, kwargs, 2, "dim", 0)))


def _to_dtype_call(x, dtype):
    return keep("to.dtype")(x, dtype)


def _h_to(args, kwargs):
    """Tensor.to(dtype) / .to(dtype=) -> to.dtype; .to(device) -> to.dtype_layout
    (THPVariable_to -> dispatch_to(self, device, ...) passes self.options())."""
    x = args[0]
    rest = list(args[1:])
    dtype = kwargs.get("dtype")
    device = kwargs.get("device")
    for a in rest:
        if isinstance(a, torch.dtype):
            dtype = a
        elif isinstance(a, (torch.device, str)):
            device = torch.device(a)
        elif isinstance(a, torch.Tensor):
            raise NotImplementedError("Tensor.to(other)")
    if device is not None:
        return keep("to.dtype_layout")(x, dtype=dtype if dtype is not None else x.dtype,
                                       layout=x.layout, device=torch.device(device))
    if dtype is None:
        return x
    return _to_dtype_call(x, dtype)


def _conv(dtype):
    def h(args, kwargs):
        return _to_dtype_call(args[0], dtype)
    return h


def _h_where(args, kwargs):
    if len(args) != 3:
        return _NO
    c, a, b = args
    ta, tb = isinstance(a, torch.Tensor), isinstance(b, torch.Tensor)
    if ta and tb:
        return _NO
    if ta:
        return keep("where.ScalarOther")(c, a, b)
    if tb:
        return keep("where.ScalarSelf")(c, a, b)
    return keep("where.Scalar")(c, a, b)


def _h_batch_norm(args, kwargs):
    # F.batch_norm(input, running_mean, running_var, weight=None, bias=None,
    #              training=False, momentum=0.1, eps=1e-5)
    x = args[0]
    rm = _dim_arg(args, kwargs, 1, "running_mean")
    rv = _dim_arg(args, kwargs, 2, "running_var")
    w = _dim_arg(args, kwargs, 3, "weight", None)
    b = _dim_arg(args, kwargs, 4, "bias", None)
    training = _dim_arg(args, kwargs, 5, "training", False)
    momentum = _dim_arg(args, kwargs, 6, "momentum", 0.1)
    eps = _dim_arg(args, kwargs, 7, "eps", 1e-5)
    return keep("batch_norm")(x, w, b, rm, rv, bool(training), float(momentum), float(eps),
                              torch.backends.cudnn.enabled)


def _h_nbn(args, kwargs):
    return tuple(keep("_native_batch_norm_legit_no_training")(*args))


def _conv_nd(name, dims):
    """F.conv1d / F.conv2d: ints become the lists torch 2.9 records; string
    padding ('same', 'valid') is the `.padding` overload."""
    def as_list(v):
        return [v] * dims if isinstance(v, int) else list(v)

    def h(args, kwargs):
        names = ["input", "weight", "bias", "stride", "padding", "dilation", "groups"]
        x, w, b, stride, padding, dilation, groups = [
            _dim_arg(args, kwargs, i, n, d) for i, (n, d) in
            enumerate(zip(names, [_NO, _NO, None, 1, 0, 1, 1]))]
        if not isinstance(padding, str):
            padding = as_list(padding)
        overload = ".padding" if isinstance(padding, str) else ""
        return keep(name + overload)(x, w, b, as_list(stride), padding,
                                     as_list(dilation), groups)
    return h


def _h_tensor_and(args, kwargs):
    return keep("__and__.Tensor")(*args)


def _h_linear(args, kwargs):
    return keep("linear")(*args, **kwargs)


def _h_matmul(args, kwargs):
    return keep("matmul")(*args, **kwargs)


def _h_rmatmul(args, kwargs):
    return keep("matmul")(args[1], args[0])


def handlers() -> Dict[Any, Callable]:
    T = torch.Tensor
    h = {
        F.linear: _h_linear, torch._C._nn.linear: _h_linear,
        F.conv1d: _conv_nd("conv1d", 1), torch.conv1d: _conv_nd("conv1d", 1),
        F.conv2d: _conv_nd("conv2d", 2), torch.conv2d: _conv_nd("conv2d", 2),
        torch.matmul: _h_matmul, T.matmul: _h_matmul, T.__matmul__: _h_matmul,
        T.__rmatmul__: _h_rmatmul,
        F.softmax: _softmax_like("softmax.int"), torch.softmax: _softmax_like("softmax.int"),
        T.softmax: _softmax_like("softmax.int"),
        F.log_softmax: _softmax_like("log_softmax.int"),
        torch.log_softmax: _softmax_like("log_softmax.int"),
        T.log_softmax: _softmax_like("log_softmax.int"),
        F.layer_norm: _h_layer_norm, torch.layer_norm: _h_layer_norm,
        rms_norm: _h_rms_norm,
        scaled_dot_product_attention: _h_sdpa,
        native_batch_norm_legit_no_training: _h_nbn,
        tensor_and: _h_tensor_and,
        F.dropout: _h_dropout,
        F.pad: _h_pad,
        T.reshape: _h_reshape, torch.reshape: _h_reshape,
        T.contiguous: _h_contiguous,
        T.flatten: _h_flatten, torch.flatten: _h_flatten,
        T.chunk: _h_chunk, torch.chunk: _h_chunk,
        T.to: _h_to,
        T.half: _conv(torch.float16), T.float: _conv(torch.float32),
        T.bfloat16: _conv(torch.bfloat16), T.int: _conv(torch.int32),
        T.long: _conv(torch.int64), T.bool: _conv(torch.bool),
        T.double: _conv(torch.float64),
        torch.where: _h_where,
        F.batch_norm: _h_batch_norm,
    }
    if hasattr(F, "scaled_dot_product_attention"):
        h[F.scaled_dot_product_attention] = _h_sdpa
    return h


NOT_HANDLED = _NO
