"""Model zoo for the spyre-mlir fixture exporter.

Every entry builds an ``nn.Module`` plus example inputs, deterministically from
a seed.  The modules are written the way a model owner would write them; the
exporter (export_model.py) turns them into torch.export ``.pt2`` archives.

Naming: the zoo name is the model (``linear_bias``); fixture directories are
``<name>_<dtype>`` (``linear_bias_fp16``).

Notes on how each model appears in a torch >= 2.9 ``torch.export.export``
graph (the default, non-decomposed "training IR"; see docs/pt2-format.md):

* ``nn.Linear``            -> ``aten.linear.default`` (kept, not decomposed)
* ``torch.addmm``          -> ``aten.addmm.default``
* ``torch.mm``             -> ``aten.mm.default``
* ``w.t()``                -> ``aten.t.default``
* ``w.permute(1, 0)``      -> ``aten.permute.default``
* ``x + y`` / ``x * y``    -> ``aten.add.Tensor`` / ``aten.mul.Tensor``
* ``F.relu`` / ``nn.ReLU`` -> ``aten.relu.default``
* ``F.gelu``               -> ``aten.gelu.default`` (``approximate`` only when
  it is not the default ``'none'``)

The matmul-shaped single-op models call ``torch.mm`` explicitly: ``x @ w``
would appear as ``aten.matmul.default`` in a torch >= 2.9 export (matmul is a
CompositeImplicitAutograd op that export keeps), which is a different op.
"""

import math
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPES = {"fp16": torch.float16, "fp32": torch.float32}


# --------------------------------------------------------------------------
# Modules
# --------------------------------------------------------------------------


class MLP(nn.Module):
    """Two-layer MLP: Linear -> GELU -> Linear (with bias)."""

    def __init__(self, d_in: int = 256, d_hidden: int = 1024, d_out: int = 256):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class LinearReLU(nn.Module):
    """Tiny Linear + ReLU, used for the worked JSON example in the docs."""

    def __init__(self, d_in: int = 4, d_out: int = 3):
        super().__init__()
        self.linear = nn.Linear(d_in, d_out)

    def forward(self, x):
        return F.relu(self.linear(x))


class SingleLinear(nn.Module):
    def __init__(self, d_in: int, d_out: int, bias: bool):
        super().__init__()
        self.linear = nn.Linear(d_in, d_out, bias=bias)

    def forward(self, x):
        return self.linear(x)


class AddMM(nn.Module):
    """out = bias + x @ weight, written with torch.addmm (weight is [K, N])."""

    def __init__(self, k: int, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(k, n) / math.sqrt(k))
        self.bias = nn.Parameter(torch.randn(n) * 0.1)

    def forward(self, x):
        return torch.addmm(self.bias, x, self.weight)


class MM(nn.Module):
    """out = x @ y for two user inputs."""

    def forward(self, x, y):
        return torch.mm(x, y)


class TransposeMM(nn.Module):
    """out = x @ weight.t() with weight stored [N, K] (the nn.Linear layout)."""

    def __init__(self, k: int, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n, k) / math.sqrt(k))

    def forward(self, x):
        return torch.mm(x, self.weight.t())


class PermuteMM(nn.Module):
    """out = x @ weight.permute(1, 0) with weight stored [N, K]."""

    def __init__(self, k: int, n: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n, k) / math.sqrt(k))

    def forward(self, x):
        return torch.mm(x, self.weight.permute(1, 0))


class Add(nn.Module):
    def forward(self, x, y):
        return x + y


class Mul(nn.Module):
    def forward(self, x, y):
        return x * y


class ReLU(nn.Module):
    def forward(self, x):
        return F.relu(x)


class GELU(nn.Module):
    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        return F.gelu(x, approximate=self.approximate)


# --------------------------------------------------------------------------
# Zoo
# --------------------------------------------------------------------------


@dataclass
class In:
    """One example input: shape, dtype ("f" = the fixture dtype, or fp16,
    fp32, bf16, int64, int32, bool), generator and forward() argument name.

    gen: normal | small (x0.5) | positive (0.25..2.25) | nonzero (|x| >= 0.25)
         | grid (multiples of 0.5, so comparisons see ties) | distinct (rows
         of distinct multiples of 1/16, so arg-reductions have no ties)
         | int:LO:HI | index:N (distinct indices < N) | bool:P | causal_bool
         (bool [L, S] with True on and below the diagonal and random
         elsewhere, so no row is fully masked) | padmask:K (int64 [B, S] ones
         with the last K positions 0)
    """
    shape: Tuple[int, ...]
    dtype: str = "f"
    gen: str = "normal"
    name: str = ""


@dataclass
class ZooEntry:
    name: str
    description: str
    make_module: Callable[[], nn.Module]
    input_shapes: Sequence[Tuple[int, ...]]
    dtypes: Sequence[str]  # dtypes the committed fixtures are generated in
    default_dtype: str = "fp32"
    # aten targets expected in a torch >= 2.9 default torch.export graph
    expected_ops: List[str] = field(default_factory=list)
    input_scale: float = 1.0
    # --- added for the op / block zoo ---
    inputs: Optional[List[In]] = None      # overrides input_shapes
    # "fp32": run a float32 copy on float32 conversions of the floating
    # inputs, round each output to its graph dtype (the fp16 convention);
    # "native": run the module as is (casts, integer ops)
    reference: str = "fp32"
    tol_kind: Optional[str] = None          # elementwise | matmul | block (default: from ops)
    notes: str = ""                         # how faithful the graph is to torch 2.9
    dir_name: Optional[str] = None          # fixed fixture directory name (no dtype suffix)
    reference_note: str = ""                # extra words for fixture.json "reference"


BOTH = ("fp16", "fp32")

ZOO: Dict[str, ZooEntry] = {}


def _add(entry: ZooEntry) -> None:
    assert entry.name not in ZOO, entry.name
    ZOO[entry.name] = entry


_add(ZooEntry("mlp", "2-layer MLP 256 -> 1024 -> 256, GELU, bias; batch 64",
              lambda: MLP(256, 1024, 256), [(64, 256)], ("fp16",), "fp16",
              ["aten.linear.default", "aten.gelu.default", "aten.linear.default"]))
_add(ZooEntry("linear_relu", "tiny Linear(4 -> 3) + relu (docs example)",
              lambda: LinearReLU(4, 3), [(2, 4)], ("fp32",), "fp32",
              ["aten.linear.default", "aten.relu.default"]))
_add(ZooEntry("linear_bias", "nn.Linear 128 -> 64 with bias, x [32, 128]",
              lambda: SingleLinear(128, 64, True), [(32, 128)], BOTH,
              expected_ops=["aten.linear.default"]))
_add(ZooEntry("linear_nobias", "nn.Linear 128 -> 64 without bias, x [32, 128]",
              lambda: SingleLinear(128, 64, False), [(32, 128)], BOTH,
              expected_ops=["aten.linear.default"]))
_add(ZooEntry("linear_odd", "nn.Linear 65 -> 33 with bias, x [63, 65] (unaligned)",
              lambda: SingleLinear(65, 33, True), [(63, 65)], BOTH,
              expected_ops=["aten.linear.default"]))
_add(ZooEntry("addmm", "torch.addmm(bias[64], x[32, 128], weight[128, 64])",
              lambda: AddMM(128, 64), [(32, 128)], BOTH,
              expected_ops=["aten.addmm.default"]))
_add(ZooEntry("mm", "torch.mm(x[32, 128], y[128, 64]), two user inputs",
              lambda: MM(), [(32, 128), (128, 64)], BOTH,
              expected_ops=["aten.mm.default"], input_scale=0.3))
_add(ZooEntry("mm_odd", "torch.mm(x[63, 65], y[65, 33]) (unaligned)",
              lambda: MM(), [(63, 65), (65, 33)], BOTH,
              expected_ops=["aten.mm.default"], input_scale=0.35))
_add(ZooEntry("mm_ksplit", "torch.mm(x[8, 8192], y[8192, 32]): too few output "
              "tiles for the cores, so k is split and the partial sums reduced "
              "over the partial-sum ring",
              lambda: MM(), [(8, 8192), (8192, 32)], BOTH,
              expected_ops=["aten.mm.default"], input_scale=0.1))
_add(ZooEntry("linear_ksplit", "nn.Linear 8192 -> 32 with bias, x [8, 8192]: a "
              "K-split whose bias only the first core of each k group reads",
              lambda: SingleLinear(8192, 32, True), [(8, 8192)], ("fp16",), "fp16",
              expected_ops=["aten.linear.default"]))
_add(ZooEntry("mm_ksplit_odd", "torch.mm(x[5, 12000], y[12000, 33]): a K-split "
              "with edges along every loop",
              lambda: MM(), [(5, 12000), (12000, 33)], ("fp16",), "fp16",
              expected_ops=["aten.mm.default"], input_scale=0.1))
_add(ZooEntry("t_mm", "torch.mm(x[32, 128], weight[64, 128].t())",
              lambda: TransposeMM(128, 64), [(32, 128)], BOTH,
              expected_ops=["aten.t.default", "aten.mm.default"]))
_add(ZooEntry("permute_mm", "torch.mm(x[32, 128], weight[64, 128].permute(1, 0))",
              lambda: PermuteMM(128, 64), [(32, 128)], BOTH,
              expected_ops=["aten.permute.default", "aten.mm.default"]))
_add(ZooEntry("add", "x[32, 128] + y[32, 128]",
              lambda: Add(), [(32, 128), (32, 128)], BOTH,
              expected_ops=["aten.add.Tensor"]))
_add(ZooEntry("add_bcast", "x[32, 128] + y[128] (broadcast)",
              lambda: Add(), [(32, 128), (128,)], BOTH,
              expected_ops=["aten.add.Tensor"]))
_add(ZooEntry("add_odd", "x[63, 65] + y[63, 65] (unaligned)",
              lambda: Add(), [(63, 65), (63, 65)], BOTH,
              expected_ops=["aten.add.Tensor"]))
_add(ZooEntry("mul", "x[32, 128] * y[32, 128]",
              lambda: Mul(), [(32, 128), (32, 128)], BOTH,
              expected_ops=["aten.mul.Tensor"]))
_add(ZooEntry("mul_bcast", "x[32, 128] * y[128] (broadcast)",
              lambda: Mul(), [(32, 128), (128,)], BOTH,
              expected_ops=["aten.mul.Tensor"]))
_add(ZooEntry("relu", "relu(x[32, 128])",
              lambda: ReLU(), [(32, 128)], BOTH,
              expected_ops=["aten.relu.default"]))
_add(ZooEntry("relu_odd", "relu(x[63, 65]) (unaligned)",
              lambda: ReLU(), [(63, 65)], BOTH,
              expected_ops=["aten.relu.default"]))
_add(ZooEntry("gelu", "gelu(x[32, 128]), approximate='none'",
              lambda: GELU("none"), [(32, 128)], BOTH,
              expected_ops=["aten.gelu.default"]))
_add(ZooEntry("gelu_tanh", "gelu(x[32, 128]), approximate='tanh'",
              lambda: GELU("tanh"), [(32, 128)], BOTH,
              expected_ops=["aten.gelu.default"]))
_add(ZooEntry("gelu_odd", "gelu(x[63, 65]), approximate='none' (unaligned)",
              lambda: GELU("none"), [(63, 65)], BOTH,
              expected_ops=["aten.gelu.default"]))


DTYPE_NAMES = {"fp16": torch.float16, "fp32": torch.float32, "bf16": torch.bfloat16,
               "int64": torch.int64, "int32": torch.int32, "bool": torch.bool}


def make_input(spec: "In", fixture_dtype: Optional[torch.dtype], gen: torch.Generator,
               scale: float = 1.0) -> torch.Tensor:
    dt = fixture_dtype if spec.dtype == "f" else DTYPE_NAMES[spec.dtype]
    shape = tuple(spec.shape)
    kind, _, arg = spec.gen.partition(":")
    if kind in ("normal", "small", "positive", "nonzero", "grid"):
        x = torch.randn(*shape, generator=gen) * scale
        if kind == "small":
            x = x * 0.5
        elif kind == "positive":
            x = torch.rand(*shape, generator=gen) * 2.0 + 0.25
        elif kind == "nonzero":
            x = torch.where(x < 0, x - 0.25, x + 0.25)
        elif kind == "grid":
            x = torch.round(x * 2.0) / 2.0
    elif kind == "distinct":
        n = shape[-1] if shape else 1
        rows = int(torch.tensor(shape[:-1]).prod().item()) if len(shape) > 1 else 1
        x = torch.stack([torch.randperm(n, generator=gen) for _ in range(rows)]).float()
        x = ((x - n / 2.0) / 16.0).reshape(shape)
    elif kind == "int":
        lo, hi = (int(v) for v in arg.split(":"))
        x = torch.randint(lo, hi, shape, generator=gen)
    elif kind == "index":
        n = int(arg)
        count = int(torch.tensor(shape).prod().item()) if shape else 1
        x = torch.randperm(n, generator=gen)[:count].reshape(shape)
    elif kind == "bool":
        x = torch.rand(*shape, generator=gen) < float(arg or 0.5)
    elif kind == "causal_bool":
        L, S = shape[-2], shape[-1]
        x = (torch.rand(*shape, generator=gen) < 0.5) | \
            torch.ones(L, S, dtype=torch.bool).tril(S - L)
    elif kind == "padmask":
        k = int(arg)
        x = torch.ones(*shape, dtype=torch.int64)
        if k:
            x[..., -k:] = 0
    else:
        raise KeyError(f"unknown input generator '{spec.gen}'")
    return x.to(dt)


def build(name: str, dtype: str, seed: int):
    """Returns (module in `dtype`, example inputs tuple in `dtype`, entry).

    Parameters are initialised in fp32 from `seed` and then cast, so the
    fp16 and fp32 fixtures of one model share the same (rounded) weights.
    Inputs come from a separate generator seeded with `seed + 1`.
    `dtype` "mixed" (casts, integer ops): the module is not converted and
    every input spec names its dtype.
    """
    if name not in ZOO:
        raise KeyError(f"unknown model '{name}'; known: {', '.join(sorted(ZOO))}")
    if dtype not in DTYPES and dtype != "mixed":
        raise KeyError(f"unknown dtype '{dtype}'; known: fp16, fp32, mixed")
    entry = ZOO[name]
    torch_dtype = DTYPES.get(dtype)
    torch.manual_seed(seed)
    module = entry.make_module()
    if torch_dtype is not None:
        module = module.to(torch_dtype)
    if hasattr(module, "post_dtype_fixup"):
        module.post_dtype_fixup()
    module = module.eval()
    gen = torch.Generator().manual_seed(seed + 1)
    if entry.inputs is not None:
        inputs = tuple(make_input(s, torch_dtype, gen, entry.input_scale) for s in entry.inputs)
        names = [s.name for s in entry.inputs]
        if all(names):
            module._spyre_arg_names = names
    else:
        inputs = tuple(
            (torch.randn(*shape, generator=gen) * entry.input_scale).to(torch_dtype)
            for shape in entry.input_shapes
        )
    return module, inputs, entry


from zoo_ops import register_op_zoo  # noqa: E402
from zoo_blocks import register_block_zoo  # noqa: E402

register_op_zoo(_add, ZooEntry, In)
register_block_zoo(_add, ZooEntry, In)
