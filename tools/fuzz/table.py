"""The generator table: registry op -> generator, one module per family.

Each ``ops_<family>.py`` fills a ``Table`` with ``@T.add(op, ...)``; a
generator is ``fn(b: Builder, op: str) -> str`` (the call's Python text) and
its docstring says which arguments and cases it exercises (``op_fuzz.py
--list`` prints them).  ``untraceable(op, why)`` records a registry op the
exporter cannot write with torch 1.13: it is reported, never silently
skipped.
"""

import importlib
from dataclasses import dataclass
from typing import Callable, Dict, Optional, Sequence

from gen import Builder, Call

FAMILIES = ("attention", "matmul", "normalization", "pointwise", "reduction", "shape")
TOLERANCE_CLASSES = ("elementwise", "reduction", "matmul")


@dataclass
class Gen:
    op: str
    fn: Optional[Callable]
    tol: str = "elementwise"
    shape_only: bool = False          # outputs whose contents are undefined
    dtypes: Optional[Sequence] = None  # narrower than the registry's (PyTorch rejects the rest)
    untraceable: str = ""             # why the exporter cannot write the op

    @property
    def doc(self) -> str:
        if self.untraceable:
            return "NOT EXERCISED: " + self.untraceable
        return " ".join((self.fn.__doc__ or "").split())


class Table:
    def __init__(self, family: str):
        self.family = family
        self.gens: Dict[str, Gen] = {}

    def add(self, *ops: str, tol: str = "elementwise", shape_only: bool = False,
            dtypes: Optional[Sequence] = None):
        assert tol in TOLERANCE_CLASSES, tol

        def deco(fn):
            for op in ops:
                assert op not in self.gens, op
                self.gens[op] = Gen(op, fn, tol, shape_only, dtypes)
            return fn
        return deco

    def untraceable(self, op: str, why: str) -> None:
        self.gens[op] = Gen(op, None, untraceable=why)


def load_tables() -> Dict[str, Table]:
    return {f: importlib.import_module(f"ops_{f}").T for f in FAMILIES}


def generate(g: Gen, registry_dtypes, seed: int, index: int):
    """The call number `index` of op `g.op` for `seed` (the same call
    whatever else runs)."""
    dtypes = [d for d in registry_dtypes if g.dtypes is None or d in g.dtypes]
    b = Builder(f"{seed}:{g.op}:{index}", dtypes)
    src = g.fn(b, g.op)
    return Call(g.op, index, src, b.inputs, g.tol, g.shape_only, b.kinds)
