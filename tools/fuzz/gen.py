"""Random material for op generators: dtypes, shapes, values, operands.

A generator gets a ``Builder`` seeded from (seed, op, call index) and
returns the body of the call as Python text over the operands it asked for
(``a0``, ``a1`` ..., or in-graph views of them such as ``a0.transpose(0, 2)``).
The builder keeps the input tensors; the text is what runs under the
exporter and what a reproducer shows.
"""

import math
import random
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

import numpy as np
import torch

F16, BF16, F32 = torch.float16, torch.bfloat16, torch.float32
I32, I64, BOOL = torch.int32, torch.int64, torch.bool
FLOATS = (F16, BF16, F32)
INTS = (I32, I64)
REGISTRY_DTYPES = {"f16": F16, "bf16": BF16, "f32": F32, "i32": I32, "i64": I64, "bool": BOOL}
# significand bits a float input may carry: fp16/bf16 data live on the device
# as DLFloat16 (9 fraction bits), so inputs are drawn exactly representable
# there and the comparison measures the computation, not the input rounding
FRACTION_BITS = {F16: 9, BF16: 7, F32: 23}

MAX_NUMEL = 1 << 14        # typical operand size (throughput)
LONG_NUMEL = 1 << 18       # cap for shapes with one long (>= 65536) dim
RANK_WEIGHTS = (4, 12, 24, 24, 16, 10, 10)   # ranks 0..6


@dataclass
class Call:
    """One generated call: `src` is the body of forward(a0, a1, ...)."""
    op: str
    index: int
    src: str
    inputs: List[torch.Tensor]
    tol: str                      # elementwise | reduction | matmul
    shape_only: bool = False      # outputs with undefined contents (empty)
    kinds: List[str] = field(default_factory=list)   # how each input was drawn

    @property
    def label(self) -> str:
        """Unique within a run; the file name the call's code is compiled
        under, so compiler diagnostics point at the call."""
        return f"{self.op[len('aten.'):]}-{self.index}"

    def text(self) -> str:
        args = ", ".join(f"a{i}" for i in range(len(self.inputs)))
        return f"def forward({args}):\n    return {self.src}\n"


def round_significand(x: np.ndarray, bits: int) -> np.ndarray:
    """x in float32 with `bits` fraction bits (round to nearest even)."""
    u = np.array(x, dtype=np.float32).view(np.uint32)
    drop = 23 - bits
    if drop > 0:
        u += np.uint32((1 << (drop - 1)) - 1) + ((u >> np.uint32(drop)) & np.uint32(1))
        u &= np.uint32(~((1 << drop) - 1) & 0xFFFFFFFF)
    return u.view(np.float32)


class Builder:
    def __init__(self, seed_text: str, dtypes: Sequence[torch.dtype]):
        self.rng = random.Random(seed_text)
        self.np = np.random.default_rng(self.rng.getrandbits(63))
        self.allowed = tuple(dtypes)
        self.inputs: List[torch.Tensor] = []
        self.kinds: List[str] = []

    # --- plain randomness -------------------------------------------------
    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def choice(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def randint(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def dtype(self, among: Optional[Sequence[torch.dtype]] = None) -> torch.dtype:
        """A dtype the registry lists for the op (restricted to `among`)."""
        ok = [d for d in self.allowed if among is None or d in among]
        return self.choice(ok)

    def dim(self, rank: int) -> int:
        """A dim of a rank-`rank` tensor, negative half the time."""
        d = self.randint(0, max(rank, 1) - 1)
        return d - max(rank, 1) if self.chance(0.5) else d

    # --- shapes -----------------------------------------------------------
    def size(self) -> int:
        r = self.rng.random()
        if r < 0.03:
            return 0
        if r < 0.20:
            return 1
        if r < 0.55:
            return self.randint(2, 9)
        if r < 0.85:
            return self.randint(10, 130)
        if r < 0.93:
            return self.choice((16, 32, 64, 128, 192))
        return self.randint(131, 700)

    def rank(self, lo: int = 0, hi: int = 6) -> int:
        ranks = list(range(lo, hi + 1))
        return self.rng.choices(ranks, weights=[RANK_WEIGHTS[r] for r in ranks])[0]

    def shape(self, rank: Optional[int] = None, lo: int = 0, hi: int = 6,
              max_numel: int = MAX_NUMEL, long_ok: bool = True,
              nonzero: bool = False) -> Tuple[int, ...]:
        """Random sizes; now and then one long (>= 65536) dim with small
        others. `nonzero`: no 0 sizes (ops whose PyTorch contract forbids
        them)."""
        r = self.rank(lo, hi) if rank is None else rank
        s = [self.size() for _ in range(r)]
        if nonzero:
            s = [max(v, 1) for v in s]
        if r and long_ok and self.chance(0.02):
            d = self.randint(0, r - 1)
            s = [min(v, 2) if not nonzero or v else 1 for v in s]
            s[d] = self.randint(65536, 70000)
            while math.prod(max(v, 1) for v in s) > LONG_NUMEL:
                s[self.choice([i for i in range(r) if i != d] or [d])] = 1
            return tuple(s)
        # bounded with 0s counted as 1s: callers may turn a 0 into a 1
        while math.prod(max(v, 1) for v in s) > max_numel:
            i = max(range(r), key=lambda k: s[k])
            s[i] = max(1, s[i] // 2)
        return tuple(s)

    def bcast_shapes(self, n: int, **kw) -> Tuple[Tuple[int, ...], List[Tuple[int, ...]]]:
        """A result shape and `n` operand shapes broadcasting to it (some
        operands of lower rank, some dims 1)."""
        out = self.shape(**kw)
        shapes = []
        for _ in range(n):
            s = list(out)
            if self.chance(0.3):
                s = s[self.randint(0, len(s)):]
            if self.chance(0.3):
                for i in range(len(s)):
                    if self.chance(0.4):
                        s[i] = 1
            shapes.append(tuple(s))
        return out, shapes

    # --- values -----------------------------------------------------------
    def values(self, shape, dtype: torch.dtype, kind: str = "normal",
               dim: Optional[int] = None) -> torch.Tensor:
        """Data for one operand.

        normal: floats in [-4, 4], ints in [-20, 20]; unit: [-1, 1];
        pos: [0.25, 8] (ints [1, 20]); nonzero: |x| in [0.25, 4];
        grid: multiples of 0.5 in [-3, 3] (ties for comparisons, rounding);
        small: [-2, 2] (exp, pow); index:N: ints in [0, N);
        distinct: no ties along `dim` (None: over the whole tensor), so
        arg-reductions and topk have one answer."""
        shape = tuple(shape)
        base, _, arg = kind.partition(":")
        if dtype == BOOL:
            return torch.from_numpy(np.asarray(self.np.random(shape) < 0.5))
        if base == "distinct":
            v = self._distinct(shape, dtype, dim)
        elif base == "index":
            v = self.np.integers(0, max(int(arg), 1), shape)
        elif dtype in INTS:
            lo, hi = {"pos": (1, 20), "nonzero": (1, 20), "grid": (-3, 3),
                      "unit": (-1, 1), "small": (-2, 2)}.get(base, (-20, 20))
            v = self.np.integers(lo, hi + 1, shape)
            if base == "nonzero":
                v = v * self.np.choice([-1, 1], shape)
        else:
            if base == "grid":
                v = self.np.integers(-6, 7, shape) * 0.5
            elif base == "pos":
                v = self.np.uniform(0.25, 8, shape)
            elif base == "nonzero":
                v = self.np.uniform(0.25, 4, shape) * self.np.choice([-1, 1], shape)
            else:
                lim = {"unit": 1.0, "small": 2.0}.get(base, 4.0)
                v = self.np.uniform(-lim, lim, shape)
            v = round_significand(v, FRACTION_BITS[dtype])
        t = torch.from_numpy(np.asarray(v, dtype=np.float64 if dtype in FLOATS else np.int64))
        return t.reshape(shape).to(dtype)

    def _distinct(self, shape, dtype, dim):
        """Rows along `dim` of distinct values: a permutation of values the
        dtype represents exactly, or, for rows longer than it has of them, a
        [-1, 1] background with 64 distinct values above and below it."""
        if dim is None or not shape:
            flat = self._distinct_rows(1, math.prod(shape), dtype)
            return flat.reshape(shape)
        d = dim % len(shape)
        moved = [s for i, s in enumerate(shape) if i != d] + [shape[d]]
        rows = self._distinct_rows(math.prod(moved[:-1]), shape[d], dtype).reshape(moved)
        return np.moveaxis(rows, -1, d)

    def _distinct_rows(self, rows, n, dtype):
        pool = _distinct_pool(n, dtype)
        if pool is not None:
            return np.stack([pool[self.np.permutation(n)] for _ in range(rows)]) if rows \
                else np.zeros((0, n))
        out = round_significand(self.np.uniform(-1, 1, (rows, n)), FRACTION_BITS[dtype])
        k = min(64, n // 2)
        for r in range(rows):
            pos = self.np.permutation(n)[:2 * k]
            out[r, pos[:k]] = 2 + self.np.permutation(k)
            out[r, pos[k:]] = -2 - self.np.permutation(k)
        return out

    # --- operands ---------------------------------------------------------
    def input(self, t: torch.Tensor, kind: str) -> str:
        self.inputs.append(t)
        self.kinds.append(kind)
        return f"a{len(self.inputs) - 1}"

    def operand(self, shape, dtype: torch.dtype, kind: str = "normal",
                dim: Optional[int] = None, view: Optional[bool] = None,
                values: Optional[torch.Tensor] = None, expand: bool = True) -> str:
        """Registers an input with `shape` (as the op sees it) and returns
        its text; a quarter of the time (or when `view`) the op sees an
        in-graph view of a differently shaped input: transposed, permuted,
        sliced (with a start, sometimes a step), expanded (unless not
        `expand`) or selected.  `values`: the data, when the generator
        computed it."""
        shape = tuple(shape)
        vals = self.values(shape, dtype, kind, dim) if values is None else values
        if view is False or (view is None and not self.chance(0.25)):
            return self.input(vals, kind)
        makers = [self._sliced]
        if len(shape) >= 2:
            makers.append(self._transposed)
        if len(shape) >= 3:
            makers.append(self._permuted)
        if len(shape) <= 5:
            makers.append(self._selected)
        # expanding repeats one element: only for independently drawn values
        if expand and values is None and \
                kind in ("normal", "unit", "pos", "nonzero", "grid", "small") and \
                any(s > 1 for s in shape):
            makers.append(self._expanded)
        return self.choice(makers)(vals, kind)

    def _transposed(self, v, kind):
        r = v.dim()
        i, j = self.rng.sample(range(r), 2)
        name = self.input(v.transpose(i, j).contiguous(), kind)
        return f"{name}.transpose({self._neg(i, r)}, {self._neg(j, r)})"

    def _permuted(self, v, kind):
        r = v.dim()
        p = list(range(r))
        self.rng.shuffle(p)
        inv = [p.index(k) for k in range(r)]
        name = self.input(v.permute(inv).contiguous(), kind)
        return f"{name}.permute({', '.join(str(self._neg(k, r)) for k in p)})"

    def _sliced(self, v, kind):
        if v.dim() == 0:
            name = self.input(v.reshape(1), kind)
            return f"{name}[0]"
        d = self.randint(0, v.dim() - 1)
        n = v.shape[d]
        start, step = self.randint(0, 3), self.choice((1, 1, 2, 3))
        big = list(v.shape)
        big[d] = start + max(n - 1, 0) * step + 1 + self.randint(0, 2) if n else start + 2
        base = self.values(big, v.dtype, "normal" if kind.startswith(("distinct", "index"))
                           else kind)
        idx = [slice(None)] * v.dim()
        idx[d] = slice(start, start + n * step, step)
        base[tuple(idx)] = v
        name = self.input(base, kind)
        stop = start + n * step
        sl = f"{start}:{stop}" + (f":{step}" if step != 1 else "")
        return f"{name}[{', '.join([':'] * d + [sl])}]"

    def _selected(self, v, kind):
        d = self.randint(0, v.dim())
        k = self.randint(2, 4)
        i = self.randint(0, k - 1)
        parts = [self.values(v.shape, v.dtype, "normal" if kind.startswith(("distinct", "index"))
                             else kind) for _ in range(k)]
        parts[i] = v
        name = self.input(torch.stack(parts, d), kind)
        return f"{name}.select({self._neg(d, v.dim() + 1)}, {i})"

    def _expanded(self, v, kind):
        shape = list(v.shape)
        small = [1 if (s > 1 and self.chance(0.5)) else s for s in shape]
        if small == shape:
            small[self.choice([i for i, s in enumerate(shape) if s > 1])] = 1
        lead = 0
        while lead < len(small) - 1 and small[lead] == 1 and self.chance(0.5):
            lead += 1
        idx = tuple(slice(0, 1) if a != b else slice(None) for a, b in zip(small, shape))
        name = self.input(v[idx].contiguous().reshape(small[lead:]), kind)
        return f"{name}.expand({', '.join(map(str, shape))}{',' if len(shape) == 1 else ''})"

    def _neg(self, d: int, rank: int) -> int:
        return d - rank if self.chance(0.3) else d

    def eval(self, text: str) -> torch.Tensor:
        """The value of `text` over the inputs registered so far."""
        env = {f"a{i}": t for i, t in enumerate(self.inputs)}
        return eval(text, {"torch": torch}, env)

    def scalar(self, dtype: torch.dtype, kind: str = "normal"):
        """A Python number of the kind an op's Scalar argument takes."""
        t = self.values((), dtype, kind)
        return bool(t.item()) if dtype == BOOL else t.item()

    def operands(self, dtypes: Sequence[torch.dtype], kinds: Sequence[str],
                 **shape_kw) -> List[str]:
        """Operands of broadcast-compatible shapes, one per dtype/kind."""
        _, shapes = self.bcast_shapes(len(dtypes), **shape_kw)
        return [self.operand(s, d, k) for s, d, k in zip(shapes, dtypes, kinds)]


# binades of distinct values a float dtype offers within DLFloat16's range
# (fp16: 2^-2 .. 2^14; bf16 and f32 capped at DL16's 2^29)
_POOL_BINADES = {F16: 16, BF16: 31, F32: 31}


def _distinct_pool(n: int, dtype: torch.dtype) -> Optional[np.ndarray]:
    """n distinct values exact in `dtype` and in DL16, smallest magnitudes
    first, alternating in sign; None when the dtype has too few."""
    if dtype in INTS:
        return np.arange(n) - n // 2
    bits = min(FRACTION_BITS[dtype], 9)
    per = 1 << bits
    if n > 2 * per * _POOL_BINADES[dtype]:
        return None
    k = np.arange(n) // 2
    v = (per + k % per) * 2.0 ** (k // per - bits - 2)
    v[1::2] *= -1
    return v


def lit(v) -> str:
    """Python source of a scalar argument."""
    if isinstance(v, float) and math.isinf(v):
        return "float('inf')" if v > 0 else "float('-inf')"
    if isinstance(v, torch.dtype):
        return str(v)
    return repr(v)


def factor_shape(rng: random.Random, numel: int, rank: int) -> Tuple[int, ...]:
    """A random shape of `rank` dims holding `numel` elements (a 0 among
    them when numel is 0)."""
    if rank == 0:
        assert numel == 1
        return ()
    dims = [1] * rank
    if numel == 0:
        dims = [rng.randint(1, 4) for _ in range(rank)]
        dims[rng.randrange(rank)] = 0
        return tuple(dims)
    n, p = numel, 2
    while n > 1:
        while n % p == 0:
            dims[rng.randrange(rank)] *= p
            n //= p
        p += 1 if p == 2 else 2
        if p * p > n and n > 1:
            dims[rng.randrange(rank)] *= n
            n = 1
    return tuple(dims)
