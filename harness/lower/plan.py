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

# Forms per module: ptxas's cost grows faster than linearly past ~128 entries (the compile tier measured 32-128
# entries flat per entry), and nvdisasm's start is most of its cost (13.5 here: ~0.22 s of a 6-entry module's
# 0.23 s, of a 64-entry one's 0.33 s). 64 measured 44 s against 59 s for 32 on 495 sm_100a forms here.
DEFAULT_MODULE_SIZE = 128


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
