"""The target table and the PTX ISA versions of the ISA model, plus the version-selection strategy.

Facts of the PTX ISA, not of any toolchain: which target names exist, the PTX ISA version that introduced each
(the PTX ISA's release notes and `.target` directive; cross-checked against LLVM's NVPTX processor table), the
family each belongs to, and the renames the chapter states (sm_101* renamed sm_110* from PTX ISA 9.0). What a
given ptxas accepts is a toolchain fact: toolchains/<name>.json, probed by harness/toolchains.

The table only grows: a target or PTX version is added with the generation (`added`) it came in, and every
choice that depends on the table (near-miss targets, the versions each form is generated at) is made once per
generation and united, so adding a target or a version never removes or renames a case of an older one.
"""
import functools
from dataclasses import dataclass

# The PTX ISA version of the chapter the model follows (shared/spec/000_*.txt: its newest notes are PTX ISA 9.0).
# A case at a newer version is "beyond the modelled chapter": the rules are still applied, but a toolchain that
# accepts what they reject there gets its own class (beyond_chapter), never fail.
CHAPTER_PTX = "9.0"

# PTX ISA versions of the model, 7.0 upwards (7.9 and 8.9 do not exist). Each generation adds versions at the end.
PTX_GENERATIONS = (
    ("9.0", ("7.0", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6", "7.7", "7.8",
             "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0")),
    ("9.5", ("9.1", "9.2", "9.3", "9.4", "9.5")),
)
PTX_VERSIONS = tuple(v for _, vs in PTX_GENERATIONS for v in vs)
GENERATIONS = tuple(g for g, _ in PTX_GENERATIONS)
NEWEST_PTX = PTX_VERSIONS[-1]
# The versions every (form, target) pair is generated at besides its own minimum and the version below it: the
# newest version of each generation. Fixed per generation, so "newest" never moves a case.
ANCHOR_PTX = GENERATIONS


@functools.lru_cache(maxsize=None)   # asked ~10 million times by one gen, of some 30 distinct versions
def ptx_key(v):
    major, minor = v.split(".")
    return (int(major), int(minor))


def ptx_tag(v):
    """'8.6' -> 'ptx86' (the compile case ID suffix)."""
    return "ptx" + v.replace(".", "")


@dataclass(frozen=True)
class Target:
    name: str          # as written in .target
    sm: int            # 90 for sm_90a
    variant: str       # '' | 'a' | 'f'
    min_ptx: str       # the PTX ISA version that introduced the target
    family: str        # family key: targets sharing it run each other's 'f' code (same major, minor >= )
    max_ptx: str = ""  # last PTX ISA version the name exists at ('' = still current)
    rename: str = ""   # the name it was renamed to (from the PTX version after max_ptx)
    added: str = GENERATIONS[0]  # the generation of the table the target came in (see PTX_GENERATIONS)

    def exists_at(self, ptx):
        if ptx_key(ptx) < ptx_key(self.min_ptx):
            return False
        return not self.max_ptx or ptx_key(ptx) <= ptx_key(self.max_ptx)


def _t(name, min_ptx, family, **kw):
    body = name[3:]
    variant = body[-1] if body[-1] in "af" else ""
    sm = int(body[:-1] if variant else body)
    return Target(name, sm, variant, min_ptx, family, **kw)


# Every target of the PTX ISA from sm_75 (the chapter's oldest target is sm_80), with the PTX ISA version that
# introduced it; sm_88 arrived with PTX ISA 9.0 (ptxas 13.0 took `.target sm_88` from 7.3, 13.2 refuses it below
# 9.0: toolchain facts, in toolchains/<name>.json). Generation 9.5 adds sm_101 (PTX 8.6, renamed sm_110 with 9.0)
# and the sm_107 family (PTX ISA 9.4).
TARGETS = (
    _t("sm_75", "6.3", "sm_7x"),
    _t("sm_80", "7.0", "sm_8x"),
    _t("sm_86", "7.1", "sm_8x"),
    _t("sm_87", "7.4", "sm_8x"),
    _t("sm_88", "9.0", "sm_8x"),
    _t("sm_89", "7.8", "sm_8x"),
    _t("sm_90", "7.8", "sm_9x"),
    _t("sm_90a", "8.0", "sm_9x"),
    _t("sm_100", "8.6", "sm_10x"),
    _t("sm_100a", "8.6", "sm_10x"),
    _t("sm_100f", "8.8", "sm_10x"),
    _t("sm_101", "8.6", "sm_101", max_ptx="8.8", rename="sm_110", added="9.5"),
    _t("sm_101a", "8.6", "sm_101", max_ptx="8.8", rename="sm_110a"),
    _t("sm_101f", "8.8", "sm_101", max_ptx="8.8", rename="sm_110f"),
    _t("sm_103", "8.8", "sm_10x"),
    _t("sm_103a", "8.8", "sm_10x"),
    _t("sm_103f", "8.8", "sm_10x"),
    _t("sm_107", "9.4", "sm_10x", added="9.5"),
    _t("sm_107a", "9.4", "sm_10x", added="9.5"),
    _t("sm_107f", "9.4", "sm_10x", added="9.5"),
    _t("sm_110", "9.0", "sm_11x"),
    _t("sm_110a", "9.0", "sm_11x"),
    _t("sm_110f", "9.0", "sm_11x"),
    _t("sm_120", "8.7", "sm_12x"),
    _t("sm_120a", "8.7", "sm_12x"),
    _t("sm_120f", "8.8", "sm_12x"),
    _t("sm_121", "8.8", "sm_12x"),
    _t("sm_121a", "8.8", "sm_12x"),
    _t("sm_121f", "8.8", "sm_12x"),
)
BY_NAME = {t.name: t for t in TARGETS}


def target_order(t):
    return (t.sm, {"": 0, "f": 1, "a": 2}[t.variant], t.name)


STRATEGY = (
    "Version selection (per form and target, made once per generation of the table and united over "
    "generations): let m = max(the form's minimum PTX ISA version at that target, the target's minimum PTX "
    "version). Cases are generated at the known PTX version just below m, at m, and at the newest version of "
    f"each generation the target exists at (anchors: {', '.join(ANCHOR_PTX)}); a version at which the target "
    "itself does not exist is not generated (target rule, not a form rule) except for the explicit target/version boundary set. "
    "Targets per form: every target the form applies to, plus the near misses: the targets of the next lower SM "
    "number below the lowest applicable one, the other variants of each applicable SM number, and, for "
    "family/arch-specific forms, the targets of the next SM number above each applicable run; near misses get m "
    "and the anchors. Boundary set: for one representative valid form per family, every target at the known PTX "
    "version just below the target's minimum (rule target.not_at_ptx), every renamed target at the version its "
    "new name starts (rule target.renamed), and the form at every known PTX version from its minimum on its "
    "lowest applicable target. Invalid forms (form rules) follow the same target/version selection as valid "
    "ones. Cases above the chapter's PTX ISA version (chapter_ptx) apply the chapter's rules; a toolchain that "
    "accepts what they reject there is classed beyond_chapter.")

FAMILY_RULE = ("sm_XYa code runs only on exactly compute capability X.Y; sm_XYf code runs on the same major "
               "with equal or higher minor; a feature stated for 'sm_XYf or higher in the same family' is "
               "available on the a and f targets of that family with SM number >= XY.")


def targets_document():
    return {
        "targets": [
            {"name": t.name, "sm": t.sm, "variant": t.variant, "min_ptx": t.min_ptx,
             "max_ptx": t.max_ptx or None, "family": t.family, "rename": t.rename or None,
             "added": t.added}
            for t in sorted(TARGETS, key=target_order)],
        "ptx_versions": list(PTX_VERSIONS),
        "generations": {g: list(vs) for g, vs in PTX_GENERATIONS},
        "newest_ptx": NEWEST_PTX,
        "chapter_ptx": CHAPTER_PTX,
        "family_rule": FAMILY_RULE,
        "strategy": STRATEGY,
        "min_ptx_source": ("the PTX ISA version that introduced each target (PTX ISA release notes, `.target` "
                           "directive; cross-checked with LLVM's NVPTX processor table); what each ptxas "
                           "accepts is in toolchains/<name>.json"),
    }
