"""What the lowering tier lowers: every valid form at every target the toolchain assembles, once.

A form is lowered at a target when the manifest has an accepted case of it there (cases/<family>.tsv); of its
PTX ISA versions, the newest the toolchain takes for that target (the lowering does not depend on the PTX version:
sm_90a at PTX 8.6 and 9.0 gave the same SASS for all 522 forms). Forms at a target the toolchain cannot assemble
are not_supported, with the toolchain's reason. Work is cut into modules per (target, PTX version), of every
family (a form's SASS is its own entry's: the entries beside it do not change it), at most module_size forms each.
"""
from collections import defaultdict
from dataclasses import dataclass
from typing import List, Optional

from framework.manifest import Case, select

# Forms per module: each module costs a ptxas and an nvdisasm start, and nvdisasm's start is most of its cost
# (13.5 here: ~0.48 s CPU for a module of one empty kernel, ~0.70 s for 128 entries). CPU of ptxas + nvdisasm over
# the first 512 forms of one (target, PTX) group, modules of 128 / 256 / 512: 13.5 at sm_100a 9.7 / 7.3 / 7.6 s,
# 13.0 at sm_90a 7.3 / 6.8 s (the compile tier measured ptxas's cost per entry growing past ~128-256 entries).
DEFAULT_MODULE_SIZE = 256


@dataclass
class Item:
    case: Case                 # the accepted case the form is lowered as (its target and PTX version)
    arch: Optional[str]        # ptxas -arch, None when not supported
    reason: str = ""           # why not supported


def _ptx_key(v):
    return tuple(int(x) for x in v.split("."))


def plan(manifest, tc, families=(), targets=(), form_globs=()):
    """[Item] in manifest order of family, form, target."""
    by = defaultdict(list)
    for c in select(manifest.cases, targets=targets, families=families, form_globs=form_globs, valid_only=True):
        by[(c.form, c.target)].append(c)
    items = []
    for (form, target), cs in by.items():
        cs.sort(key=lambda c: _ptx_key(c.ptx))
        ok = [c for c in cs if tc.why_not(c.target, c.ptx) is None]
        if ok:
            items.append(Item(ok[-1], tc.arch(target)))
        else:
            items.append(Item(cs[-1], None, tc.why_not(target, cs[-1].ptx)))
    items.sort(key=lambda it: (it.case.family, it.case.form, it.case.target))
    return items


def modules(items: List[Item], module_size=DEFAULT_MODULE_SIZE):
    """[(arch, target, ptx, [Case])]: the supported items cut into modules, biggest first."""
    groups = defaultdict(list)
    for it in items:
        if it.arch:
            groups[(it.arch, it.case.target, it.case.ptx)].append(it.case)
    jobs = []
    for (arch, target, ptx), cs in sorted(groups.items()):
        for i in range(0, len(cs), module_size):
            jobs.append((arch, target, ptx, cs[i:i + module_size]))
    jobs.sort(key=lambda j: -len(j[3]))
    return jobs
