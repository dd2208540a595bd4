"""The target table and the PTX ISA versions this toolchain knows, plus the version-selection strategy.

Target minimum PTX versions are the ones the installed ptxas (CUDA 13.0) accepts, as measured on the project
machine; the family/rename facts are the chapter's (sm_101a/sm_101f renamed sm_110a/sm_110f from PTX ISA 9.0).
"""
from dataclasses import dataclass

# PTX ISA versions the installed ptxas knows, 7.0 upwards (7.9 and 8.9 do not exist: ptxas says "Unsupported").
PTX_VERSIONS = ("7.0", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6", "7.7", "7.8",
                "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0")
NEWEST_PTX = PTX_VERSIONS[-1]


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
    min_ptx: str       # lowest PTX ISA version the target exists at (ptxas 13.0, measured)
    family: str        # family key: targets sharing it run each other's 'f' code (same major, minor >= )
    max_ptx: str = ""  # last PTX ISA version the name exists at ('' = still current)
    rename: str = ""   # the name it was renamed to (from the PTX version after max_ptx)
    ptxas_arch: str = ""  # -arch to assemble it with when ptxas no longer lists the name

    @property
    def arch(self):
        return self.ptxas_arch or self.name

    def exists_at(self, ptx):
        if ptx_key(ptx) < ptx_key(self.min_ptx):
            return False
        return not self.max_ptx or ptx_key(ptx) <= ptx_key(self.max_ptx)


def _t(name, min_ptx, family, **kw):
    body = name[3:]
    variant = body[-1] if body[-1] in "af" else ""
    sm = int(body[:-1] if variant else body)
    return Target(name, sm, variant, min_ptx, family, **kw)


# Every target `ptxas --help` lists (CUDA 13.0), plus the historic sm_101a/sm_101f names.
TARGETS = (
    _t("sm_75", "6.3", "sm_7x"),
    _t("sm_80", "7.0", "sm_8x"),
    _t("sm_86", "7.1", "sm_8x"),
    _t("sm_87", "7.4", "sm_8x"),
    _t("sm_88", "7.3", "sm_8x"),
    _t("sm_89", "7.8", "sm_8x"),
    _t("sm_90", "7.8", "sm_9x"),
    _t("sm_90a", "8.0", "sm_9x"),
    _t("sm_100", "8.6", "sm_10x"),
    _t("sm_100a", "8.6", "sm_10x"),
    _t("sm_100f", "8.8", "sm_10x"),
    _t("sm_101a", "8.6", "sm_101", max_ptx="8.8", rename="sm_110a", ptxas_arch="sm_110a"),
    _t("sm_101f", "8.8", "sm_101", max_ptx="8.8", rename="sm_110f", ptxas_arch="sm_110f"),
    _t("sm_103", "8.8", "sm_10x"),
    _t("sm_103a", "8.8", "sm_10x"),
    _t("sm_103f", "8.8", "sm_10x"),
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
    "Version selection (per form and target): let m = max(the form's minimum PTX ISA version at that target, the "
    "target's minimum PTX version). Cases are generated at the known PTX version just below m, at m, and at the "
    "newest known version (9.0); a version at which the target itself does not exist is not generated (target "
    "rule, not a form rule) except for the explicit target/version boundary set. Targets per form: every target "
    "the form applies to, plus the near misses: the targets of the next lower SM number below the lowest "
    "applicable one, the other variants of each applicable SM number, and, for family/arch-specific forms, the "
    "targets of the next SM number above the highest applicable one; near misses get m and 9.0. Boundary set: "
    "for one representative valid form per family, every target at the known PTX version just below the "
    "target's minimum (rule target.not_at_ptx) and the historic sm_101a/sm_101f at 9.0 (rule target.renamed). "
    "Invalid forms (form rules) follow the same target/version selection as valid ones.")

FAMILY_RULE = ("sm_XYa code runs only on exactly compute capability X.Y; sm_XYf code runs on the same major "
               "with equal or higher minor; a feature stated for 'sm_XYf or higher in the same family' is "
               "available on the a and f targets of that family with SM number >= XY.")


def targets_document():
    return {
        "targets": [
            {"name": t.name, "sm": t.sm, "variant": t.variant, "min_ptx": t.min_ptx,
             "max_ptx": t.max_ptx or None, "family": t.family, "rename": t.rename or None,
             "ptxas_arch": t.arch}
            for t in sorted(TARGETS, key=target_order)],
        "ptx_versions": list(PTX_VERSIONS),
        "newest_ptx": NEWEST_PTX,
        "family_rule": FAMILY_RULE,
        "strategy": STRATEGY,
        "min_ptx_source": "measured with the installed ptxas (CUDA 13.0, V13.0.88)",
    }
