"""The decomposition registry as the compiler lists it, and the coverage
check of the generator table against it."""

import re
from dataclasses import dataclass
from typing import Dict, List, Tuple

import torch

from gen import REGISTRY_DTYPES
from spyre_tools import run_tool
from table import Table


@dataclass
class Entry:
    family: str
    op: str
    dtypes: Tuple[torch.dtype, ...]
    notes: str


def parse(markdown: str) -> List[Entry]:
    """`spyre-opt --spyre-list-decompositions`: '## family' headings, then
    rows '| `aten.op.overload` | f16, bf16 | notes |' ('all' = every dtype)."""
    entries, family = [], None
    for line in markdown.splitlines():
        if line.startswith("## "):
            family = line[3:].strip()
            continue
        m = re.match(r"\|\s*`(aten\.[^`]+)`\s*\|([^|]*)\|(.*)\|\s*$", line)
        if not m or family is None:
            continue
        names = [d.strip() for d in m.group(2).split(",") if d.strip()]
        dtypes = tuple(REGISTRY_DTYPES.values()) if names == ["all"] else \
            tuple(REGISTRY_DTYPES[d] for d in names)
        entries.append(Entry(family, m.group(1), dtypes, m.group(3).strip()))
    return entries


def load(spyre_opt: str) -> List[Entry]:
    run = run_tool([spyre_opt, "--spyre-list-decompositions"])
    entries = parse(run.output) if run.returncode == 0 else []
    if not entries:
        raise SystemExit(f"error: no registry entries in the output of {spyre_opt} "
                         "--spyre-list-decompositions")
    return entries


def check_coverage(entries: List[Entry], tables: Dict[str, Table]) -> List[str]:
    """Problems: a registry op without a generator (every op needs one,
    possibly an `untraceable` note), a generator for an op the registry
    lacks, or one filed under another family."""
    problems = []
    where = {op: fam for fam, t in tables.items() for op in t.gens}
    for e in entries:
        if e.op not in where:
            problems.append(f"{e.op} ({e.family}): no generator; add one to "
                            f"tools/fuzz/ops_{e.family}.py")
        elif where[e.op] != e.family:
            problems.append(f"{e.op}: registry family {e.family}, generator in "
                            f"ops_{where[e.op]}.py")
    known = {e.op for e in entries}
    for op, fam in sorted(where.items()):
        if op not in known:
            problems.append(f"{op}: generator in ops_{fam}.py but not in the registry")
    return problems
