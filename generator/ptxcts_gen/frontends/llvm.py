"""LLVM's NVPTX back-end (llvm.nvvm.* intrinsics of IntrinsicsNVVM.td, LLVM 22): the intrinsic that selects each
form, its operands and its flag arguments; the forms it cannot select, each with its reason.

Operands are kernel parameters named by role (ROLES gives each its LLVM IR type); flag arguments are constants.
The intrinsic names are checked against the list the LLVM library itself carries (harness/frontend probes it into
toolchains/<front-end>.json): a call to an llvm.nvvm.* name LLVM does not know silently becomes a call of an
external function, so an unknown name is an error of this table, never a verdict. The instruction under test is
always the intrinsic's, never inline asm (the tier judges what the back-end selects): a qualifier no intrinsic or
flag selects is Unexpressible in QUALIFIERS, with the text the library would need to print it (`absent`, checked
against the installed library by the front-end tests).
"""
from ..rules import REQUIREMENTS, load_all
from . import MappingError, Spelling, Unexpressible, Written
from .table import NO_OFFS_W_94, OVERRIDE_94, absent_94, family_table, ruled_out, spell_form, spelling_94

load_all()   # the rules' requirements (PTX ISA versions quoted in the reasons)
NAME = "llvm"
# every kernel parameter a spelling may use, with its LLVM IR type (address spaces: 1 global, 3 shared::cta,
# 7 shared::cluster, 0 generic)
ROLES = {
    "dst_cluster": "ptr addrspace(7)", "dst_cta": "ptr addrspace(3)", "src_cta": "ptr addrspace(3)",
    "mbar": "ptr addrspace(3)", "mbar_gen": "ptr", "gsrc": "ptr addrspace(1)", "gdst": "ptr addrspace(1)", "size": "i32",
    "src_size": "i32", "tmap": "ptr", "cta_mask": "i16", "policy": "i64", "byte_mask": "i16",
    **{f"c{i}": "i32" for i in range(5)}, **{f"i2c{i}": "i16" for i in range(3)},
}
# the types a flag or immediate argument may have
CONSTANT_TYPES = ("i1", "i8", "i16", "i32", "i64")

# the tensor load modes as the intrinsic names spell them ("" is the default, .tile)
_G2S_MODES = {"": "tile", "tile": "tile", "tile::gather4": "tile.gather4", "im2col": "im2col",
              "im2col::w": "im2col.w", "im2col::w::128": "im2col.w.128"}
_S2G_MODES = {"": "tile", "tile": "tile", "tile::scatter4": "tile.scatter4", "im2col_no_offs": "im2col"}
_PREFETCH_MODES = {"": "tile", "tile": "tile", "tile::gather4": "tile.gather4", "im2col": "im2col",
                   "im2col::w": "im2col.w", "im2col::w::128": "im2col.w.128"}
_REDUCE_MODES = {"": "tile", "tile": "tile", "im2col_no_offs": "im2col"}
# the bulk copy intrinsic of each direction (dst.src)
_BULK = {"shared::cta.global": "llvm.nvvm.cp.async.bulk.global.to.shared.cta",
         "shared::cluster.global": "llvm.nvvm.cp.async.bulk.global.to.shared.cluster",
         "shared::cluster.shared::cta": "llvm.nvvm.cp.async.bulk.shared.cta.to.cluster",
         "global.shared::cta": "llvm.nvvm.cp.async.bulk.shared.cta.to.global"}
_TENSOR_DIRS = {"shared::cta.global": "llvm.nvvm.cp.async.bulk.tensor.g2s.cta.<mode>.<n>d",
                "shared::cluster.global": "llvm.nvvm.cp.async.bulk.tensor.g2s.<mode>.<n>d",
                "global.shared::cta": "llvm.nvvm.cp.async.bulk.tensor.s2g.<mode>.<n>d"}
_REDOPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor")
_REDUCE_TYPES = ("b32", "u32", "s32", "b64", "u64", "s64", "f16", "bf16", "f32", "f64")
_SCOPES = ("cta", "cluster", "gpu", "sys")
_REPORTS = ("disabled", "validity::per_16bytes::80000000", "validity::per_16bytes::8000",
            "validity::per_16bytes::80", "validity::per_16bytes::8", "validity::per_element::ff")


def _later(qualifier, requirement, missing, absent):
    """A qualifier of a later PTX ISA version (its requirement names the version) LLVM 22 cannot select: no
    intrinsic or flag (missing says which were looked at), `absent` the texts its library does not contain."""
    return Unexpressible(f"LLVM 22 has no intrinsic or flag that selects {qualifier} (PTX ISA "
                         f"{REQUIREMENTS[requirement].ptx}): {missing}; its NVPTX back-end never prints "
                         f"{' / '.join(repr(a) for a in absent)}, and it writes PTX ISA 9.0 at most "
                         "(toolchains/llvm-22.json)", tuple((a, ("library",)) for a in absent))


_NO_REDUCE_BULK = Unexpressible("LLVM 22 has no llvm.nvvm.cp.reduce.async.bulk.* intrinsic (only the tensor "
                                "reductions): its NVPTX back-end never prints cp.reduce.async.bulk.global / "
                                ".shared::cluster", (("cp.reduce.async.bulk.global", ("library",)),
                                                     ("cp.reduce.async.bulk.shared::cluster", ("library",))))
_HINT_FLAG = Written("the i1 cache-hint flag argument (the i64 policy operand is passed always, printed when 1)")
_NONE = Written("nothing: the intrinsics write no such qualifier")
_CP_ASYNC_NAME = "llvm.nvvm.cp.async.{cop}.shared.global.{cp_size}[.s]"

# The decision on every (family, qualifier, value) of the model's vocabulary (table.vocabulary()): how LLVM
# writes it, or why it cannot. spell_form refuses a form carrying an Unexpressible value with that reason.
QUALIFIERS = {
    **ruled_out(),
    # cp.async: llvm.nvvm.cp.async.{ca,cg}.shared.global.{4,8,16}[.s]
    **{("cp.async", "cop", c): Written(_CP_ASYNC_NAME.replace("{cop}", c)) for c in ("ca", "cg")},
    ("cp.async", "space", "shared"): Written("the intrinsics print .shared"),
    ("cp.async", "space", "shared::cta"): Written("the intrinsics print .shared (parse rule shared_is_shared_cta)"),
    **{("cp.async", "cp_size", n): Written(_CP_ASYNC_NAME.replace("{cp_size}", str(n))) for n in (4, 8, 16)},
    ("cp.async", "src_op", ""): Written("the intrinsic without .s"),
    ("cp.async", "src_op", "src_size"): Written("the .s intrinsic and its i32 src-size operand"),
    ("cp.async", "src_op", "ignore_src"): Unexpressible("no llvm.nvvm.cp.async.* intrinsic has the ignore-src "
                                                        "predicate operand"),
    ("cp.async", "cache_hint", False): _NONE,
    ("cp.async", "cache_hint", True): Unexpressible("no llvm.nvvm.cp.async.* intrinsic takes a cache-policy "
                                                    "operand: .L2::cache_hint cannot be selected"),
    ("cp.async", "prefetch", ""): _NONE,
    **{("cp.async", "prefetch", p): Unexpressible(f"no llvm.nvvm.cp.async.* intrinsic spells the prefetch size .{p}")
       for p in ("L2::64B", "L2::128B", "L2::256B")},
    # cp.async.groups
    ("cp.async.groups", "instr", "cp.async.wait_group"): Written("llvm.nvvm.cp.async.wait.group"),
    ("cp.async.groups", "instr", "cp.async.wait_all"): Written("llvm.nvvm.cp.async.wait.all"),
    ("cp.async.groups", "instr", "cp.async.mbarrier.arrive"):
        Written("llvm.nvvm.cp.async.mbarrier.arrive.shared (a shared pointer), llvm.nvvm.cp.async.mbarrier.arrive "
                "(a generic one)"),
    ("cp.async.groups", "instr", "cp.async.mbarrier.arrive.noinc"):
        Written("llvm.nvvm.cp.async.mbarrier.arrive.noinc.shared (a shared pointer), "
                "llvm.nvvm.cp.async.mbarrier.arrive.noinc (a generic one)"),
    ("cp.async.groups", "state", "shared"): Written("the .shared intrinsics on an addrspace(3) pointer print .shared"),
    ("cp.async.groups", "state", ""): Written("the intrinsics without .shared on a generic pointer print "
                                              "cp.async.mbarrier.arrive{.noinc}.b64 [addr]"),
    ("cp.async.groups", "state", "shared::cta"): Unexpressible(
        "LLVM 22 has no intrinsic that selects cp.async.mbarrier.arrive.shared::cta (PTX ISA 7.8): its NVPTX back-end "
        "prints the state space as .shared or not at all, never 'arrive.shared::cta' / 'arrive.noinc.shared::cta'; "
        "the .shared form is the same instruction (parse rule shared_is_shared_cta)",
        (("arrive.shared::cta", ("library",)), ("arrive.noinc.shared::cta", ("library",)))),
    # cp.async.bulk
    **{("cp.async.bulk", "dir", d): Written(name) for d, name in _BULK.items()},
    ("cp.async.bulk", "multicast", False): Written("the i1 multicast flag 0 (global.to.shared.cluster)"),
    ("cp.async.bulk", "multicast", True): Written("the i1 multicast flag 1 and the i16 ctaMask operand of "
                                                  "llvm.nvvm.cp.async.bulk.global.to.shared.cluster"),
    ("cp.async.bulk", "cache_hint", False): _HINT_FLAG, ("cp.async.bulk", "cache_hint", True): _HINT_FLAG,
    ("cp.async.bulk", "cp_mask", False): _NONE,
    ("cp.async.bulk", "cp_mask", True): Written("llvm.nvvm.cp.async.bulk.shared.cta.to.global.bytemask"),
    ("cp.async.bulk", "ignore_oob", False): _NONE,
    ("cp.async.bulk", "ignore_oob", True): _later(
        ".ignore_oob", "bulk.ignore_oob", "llvm.nvvm.cp.async.bulk.global.to.shared.cta takes dst, mbar, src, size, "
        "policy and the hint flag, no ignoreBytesLeft/Right", (".ignore_oob",)),
    ("cp.async.bulk", "sem", ""): _NONE,
    ("cp.async.bulk", "sem", "weak"): _later(
        ".weak", "bulk.sem", "the llvm.nvvm.cp.async.bulk.* intrinsics have no memory-semantics argument",
        ("cp.async.bulk.weak",)),
    **{("cp.async.bulk", "sem", f"relaxed.{s}"): _later(
        f".relaxed.{s} (with .b128)", "bulk.sem", "the llvm.nvvm.cp.async.bulk.* intrinsics have no "
        "memory-semantics or scope argument", ("cp.async.bulk.relaxed",)) for s in _SCOPES},
    ("cp.async.bulk", "b128", False): _NONE,
    ("cp.async.bulk", "b128", True): _later(
        ".b128", "bulk.sem", "it comes with .relaxed.scope, which no llvm.nvvm.cp.async.bulk.* intrinsic has",
        ("cp.async.bulk.relaxed",)),
    ("cp.async.bulk", "mc_width", ""): _NONE,
    **{("cp.async.bulk", "mc_width", w): _later(
        f".multicast::cluster::{w}", f"bulk.multicast_{w}", "the multicast flag of "
        "llvm.nvvm.cp.async.bulk.global.to.shared.cluster writes .multicast::cluster with an i16 ctaMask",
        (f"multicast::cluster::{w}",)) for w in ("16b", "32b")},
    ("cp.async.bulk", "report", ""): _NONE,
    **{("cp.async.bulk", "report", f"mbarrier::report::{r}"): _later(
        f".mbarrier::report::{r}", "bulk.report", "the llvm.nvvm.cp.async.bulk.* intrinsics have no "
        "report-mechanism argument", ("mbarrier::report::",)) for r in _REPORTS},
    # cp.reduce.async.bulk: no intrinsic at all
    **{("cp.reduce.async.bulk", k, v): _NO_REDUCE_BULK
       for k, vs in (("dir", ("global.shared::cta", "shared::cluster.shared::cta")), ("redop", _REDOPS),
                     ("type", _REDUCE_TYPES), ("noftz", (False, True)), ("cache_hint", (False, True)),
                     ("sem", ("",) + tuple(f"relaxed.{s}" for s in _SCOPES)))
       for v in vs},
    # cp.async.bulk.prefetch
    ("cp.async.bulk.prefetch", "cache_hint", False): _HINT_FLAG,
    ("cp.async.bulk.prefetch", "cache_hint", True): _HINT_FLAG,
    ("cp.async.bulk.prefetch", "eviction", ""): _NONE,
    ("cp.async.bulk.prefetch", "eviction", "L2::evict_last"): _later(
        ".L2::evict_last", "bulk_prefetch.eviction_priority", "llvm.nvvm.cp.async.bulk.prefetch.L2 takes src, size, "
        "policy and the hint flag, no eviction priority", ("cp.async.bulk.prefetch.L2.global.L2::evict_last",)),
    # cp.async.bulk.tensor
    **{("cp.async.bulk.tensor", "dir", d): Written(name) for d, name in _TENSOR_DIRS.items()},
    **{("cp.async.bulk.tensor", "dim", n): Written(f"the intrinsic name's .{n}d") for n in (1, 2, 3, 4, 5)},
    **{("cp.async.bulk.tensor", "load_mode", m): Written(f"the intrinsic name's .{name} (g2s)")
       for m, name in _G2S_MODES.items()},
    **{("cp.async.bulk.tensor", "load_mode", m): Written(f"the intrinsic name's .{name} (s2g)")
       for m, name in _S2G_MODES.items() if m not in _G2S_MODES},
    ("cp.async.bulk.tensor", "multicast", False): Written("the i1 multicast flag 0 (g2s to shared::cluster)"),
    ("cp.async.bulk.tensor", "multicast", True): Written("the i1 multicast flag 1 and the i16 ctaMask operand "
                                                         "(g2s to shared::cluster)"),
    **{("cp.async.bulk.tensor", "cta_group", g): Written(f"the i32 cta_group argument {i} (g2s to shared::cluster)")
       for i, g in enumerate(("", "cta_group::1", "cta_group::2"))},
    ("cp.async.bulk.tensor", "cache_hint", False): _HINT_FLAG, ("cp.async.bulk.tensor", "cache_hint", True): _HINT_FLAG,
    ("cp.async.bulk.tensor", "mc_width", ""): _NONE,
    **{("cp.async.bulk.tensor", "mc_width", w): _later(
        f".multicast::cluster::{w}", f"tensor.multicast_{w}", "the multicast flag of "
        "llvm.nvvm.cp.async.bulk.tensor.g2s.* writes .multicast::cluster with an i16 ctaMask",
        (f"multicast::cluster::{w}",)) for w in ("16b", "32b")},
    ("cp.async.bulk.tensor", "report", ""): _NONE,
    **{("cp.async.bulk.tensor", "report", f"mbarrier::report::{r}"): _later(
        f".mbarrier::report::{r}", "tensor.report", "the llvm.nvvm.cp.async.bulk.tensor.g2s.* intrinsics have no "
        "report-mechanism argument", ("mbarrier::report::",)) for r in _REPORTS},
    # cp.reduce.async.bulk.tensor: llvm.nvvm.cp.async.bulk.tensor.reduce.<op>.<mode>.<n>d
    ("cp.reduce.async.bulk.tensor", "dir", "global.shared::cta"):
        Written("llvm.nvvm.cp.async.bulk.tensor.reduce.<op>.<mode>.<n>d"),
    **{("cp.reduce.async.bulk.tensor", "dim", n): Written(f"the intrinsic name's .{n}d") for n in (1, 2, 3, 4, 5)},
    **{("cp.reduce.async.bulk.tensor", "redop", op): Written(f"the intrinsic name's .{op}") for op in _REDOPS},
    **{("cp.reduce.async.bulk.tensor", "load_mode", m): Written(f"the intrinsic name's .{name}")
       for m, name in _REDUCE_MODES.items()},
    ("cp.reduce.async.bulk.tensor", "cache_hint", False): _HINT_FLAG,
    ("cp.reduce.async.bulk.tensor", "cache_hint", True): _HINT_FLAG,
    # cp.async.bulk.prefetch.tensor: llvm.nvvm.cp.async.bulk.tensor.prefetch.<mode>.<n>d
    **{("cp.async.bulk.prefetch.tensor", "dim", n): Written(f"the intrinsic name's .{n}d") for n in (1, 2, 3, 4, 5)},
    **{("cp.async.bulk.prefetch.tensor", "load_mode", m): Written(f"the intrinsic name's .{name}")
       for m, name in _PREFETCH_MODES.items()},
    ("cp.async.bulk.prefetch.tensor", "cache_hint", False): _HINT_FLAG,
    ("cp.async.bulk.prefetch.tensor", "cache_hint", True): _HINT_FLAG,
    ("cp.async.bulk.prefetch.tensor", "eviction", ""): _NONE,
    ("cp.async.bulk.prefetch.tensor", "eviction", "L2::evict_last"): _later(
        ".L2::evict_last", "prefetch_tensor.eviction_priority", "the llvm.nvvm.cp.async.bulk.tensor.prefetch.* "
        "intrinsics take the tensor map, coordinates, policy and the hint flag, no eviction priority",
        ("tile.L2::evict_last", "im2col.L2::evict_last")),
    # cp.async.bulk.groups
    ("cp.async.bulk.groups", "instr", "cp.async.bulk.commit_group"): Written("llvm.nvvm.cp.async.bulk.commit.group"),
    ("cp.async.bulk.groups", "instr", "cp.async.bulk.wait_group"): Written("llvm.nvvm.cp.async.bulk.wait.group"),
    ("cp.async.bulk.groups", "instr", "cp.async.bulk.wait_group.read"):
        Written("llvm.nvvm.cp.async.bulk.wait.group.read"),
    ("cp.async.bulk.groups", "instr", "cp.async.bulk.wait_group.sync_restrict::proxy::async"): _later(
        ".sync_restrict::proxy::async", "bulk.wait_group_sync_restrict", "llvm.nvvm.cp.async.bulk.wait.group{.read} "
        "take N only", ("wait_group.sync_restrict",)),
    ("cp.async.bulk.groups", "instr", "fence.proxy.async"): Written("llvm.nvvm.fence.proxy.async[.<space>]"),
    **{("cp.async.bulk.groups", "space", s): Written("llvm.nvvm.fence.proxy.async" + (f".{s.replace('::', '_')}"
                                                                                     if s else ""))
       for s in ("", "shared::cta", "shared::cluster", "global")},
}
# PTX ISA 9.4's tensor qualifiers: no intrinsic of any tensor family has an override operand or the ::w mode of
# stores and reductions (the s2g and reduce intrinsics take the tensor map, coordinates, policy and the hint flag)
_REQ = {"cp.async.bulk.tensor": "tensor", "cp.reduce.async.bulk.tensor": "reduce_tensor",
        "cp.async.bulk.prefetch.tensor": "prefetch_tensor"}
_TENSOR_OPERANDS = ("the llvm.nvvm.cp.async.bulk.tensor.* intrinsics take the tensor map, coordinates, im2col "
                    "offsets, ctaMask, policy and flags, no global address, dimension or stride to override")
for _fam, _k, _v in OVERRIDE_94:
    _q = spelling_94(_k, _v)
    QUALIFIERS[(_fam, _k, _v)] = _later(_q, f"{_REQ[_fam]}.override_{'address' if _k == 'ovr_addr' else 'attribute'}",
                                        _TENSOR_OPERANDS, (_q[1:],))
for _fam, _k, _v in NO_OFFS_W_94:
    QUALIFIERS[(_fam, _k, _v)] = _later(".im2col_no_offs::w", f"{_REQ[_fam]}.im2col_no_offs_w",
                                        "the s2g and reduce intrinsics name .tile, .tile.scatter4 and .im2col "
                                        "(.im2col_no_offs) only", ("im2col_no_offs::w",))
QUALIFIERS.update(absent_94(QUALIFIERS))


def _role(name):
    return (ROLES[name], "%" + name) if name in ROLES else (None, "%" + name)


def _const(ty, value):
    return (ty, str(int(value)))


def _coords(q):
    return [_role(f"c{i}") for i in range(q["coords"])]


def _im2col(q):
    return [_role(f"i2c{i}") for i in range(q["im2col_info"])]


def _hint(q):
    """The cache-policy operand and its flag: LLVM passes the operand always and prints it when the flag is 1."""
    return [_role("policy")], [_const("i1", q["cache_hint"])]


def _cp_async(q):
    # .L2::cache_hint, a prefetch size and ignore-src are refused in QUALIFIERS. The intrinsics print `.shared`; a
    # `.shared::cta` form is the same instruction by the chapter's
    # `.shared{::cta}` (ptxcts_gen.parse rule shared_is_shared_cta), so both spellings are asked of the one intrinsic
    sized = "src_size" in q["src_op"]
    return Spelling(f"llvm.nvvm.cp.async.{q['cop']}.shared.global.{q['cp_size']}" + (".s" if sized else ""),
                    tuple([_role("dst_cta"), _role("gsrc")] + ([_role("src_size")] if sized else [])))


def _cp_async_groups(q):
    i = q["instr"]
    if i == "cp.async.wait_group":
        return Spelling("llvm.nvvm.cp.async.wait.group", (_const("i32", q["n"]),))
    if i == "cp.async.wait_all":
        return Spelling("llvm.nvvm.cp.async.wait.all")
    if i == "cp.async.commit_group":
        return Spelling("llvm.nvvm.cp.async.commit.group")
    if i in ("cp.async.mbarrier.arrive", "cp.async.mbarrier.arrive.noinc"):
        if not q.get("state"):   # the generic-address form: the intrinsic without .shared, on a generic pointer
            return Spelling(f"llvm.nvvm.{i}", (_role("mbar_gen"),))
        return Spelling(f"llvm.nvvm.{i}.shared", (_role("mbar"),))
    raise MappingError(f"cp.async.groups: no entry for instruction {i!r}")


def _bulk(q):
    if q["size_imm"] is not None:
        return Unexpressible("the intrinsics take the size as an i32 register operand (B32): an immediate size "
                             "is moved into a register, so the immediate-size form cannot be selected")
    dst, src = q["dst"], q["src"]
    hint_op, hint_flag = _hint(q)
    if (dst, src) == ("shared::cta", "global"):
        return Spelling(_BULK["shared::cta.global"],
                        tuple([_role("dst_cta"), _role("mbar"), _role("gsrc"), _role("size")] + hint_op + hint_flag))
    if (dst, src) == ("shared::cluster", "global"):
        return Spelling("llvm.nvvm.cp.async.bulk.global.to.shared.cluster",
                        tuple([_role("dst_cluster"), _role("mbar"), _role("gsrc"), _role("size"), _role("cta_mask")]
                              + hint_op + [_const("i1", q["multicast"])] + hint_flag))
    if (dst, src) == ("shared::cluster", "shared::cta"):
        return Spelling("llvm.nvvm.cp.async.bulk.shared.cta.to.cluster",
                        (_role("dst_cluster"), _role("mbar"), _role("src_cta"), _role("size")))
    if (dst, src) == ("global", "shared::cta"):
        if q["cp_mask"]:
            return Spelling("llvm.nvvm.cp.async.bulk.shared.cta.to.global.bytemask",
                            tuple([_role("gdst"), _role("src_cta"), _role("size")] + hint_op + hint_flag
                                  + [_role("byte_mask")]))
        return Spelling("llvm.nvvm.cp.async.bulk.shared.cta.to.global",
                        tuple([_role("gdst"), _role("src_cta"), _role("size")] + hint_op + hint_flag))
    raise MappingError(f"cp.async.bulk: no entry for direction {dst}.{src}")


def _reduce_bulk(q):
    return _NO_REDUCE_BULK   # every qualifier value of the family is refused in QUALIFIERS with this reason


def _bulk_prefetch(q):
    if q["size_imm"] is not None:
        return Unexpressible("the intrinsic takes the size as an i32 register operand: the immediate-size form "
                             "cannot be selected")
    hint_op, hint_flag = _hint(q)
    return Spelling("llvm.nvvm.cp.async.bulk.prefetch.L2", tuple([_role("gsrc"), _role("size")] + hint_op + hint_flag))


def _tensor(q):
    dim, mode = q["dim"], q["load_mode"]
    hint_op, hint_flag = _hint(q)
    if q["src"] == "global":
        name = _G2S_MODES.get(mode)
        if name is None:
            raise MappingError(f"cp.async.bulk.tensor: no intrinsic name for load mode {mode!r}")
        if q["dst"] == "shared::cta":
            if q["cta_group"]:
                return Unexpressible("llvm.nvvm.cp.async.bulk.tensor.g2s.cta.* has no cta_group flag: a "
                                     "shared::cta destination with .cta_group cannot be selected")
            return Spelling(f"llvm.nvvm.cp.async.bulk.tensor.g2s.cta.{name}.{dim}d",
                            tuple([_role("dst_cta"), _role("mbar"), _role("tmap")] + _coords(q) + _im2col(q)
                                  + hint_op + hint_flag))
        group = {"": 0, "cta_group::1": 1, "cta_group::2": 2}[q["cta_group"]]
        return Spelling(f"llvm.nvvm.cp.async.bulk.tensor.g2s.{name}.{dim}d",
                        tuple([_role("dst_cluster"), _role("mbar"), _role("tmap")] + _coords(q) + _im2col(q)
                              + [_role("cta_mask")] + hint_op + [_const("i1", q["multicast"])] + hint_flag
                              + [_const("i32", group)]))
    name = _S2G_MODES.get(mode)
    if name is None:
        raise MappingError(f"cp.async.bulk.tensor: no store intrinsic name for load mode {mode!r}")
    return Spelling(f"llvm.nvvm.cp.async.bulk.tensor.s2g.{name}.{dim}d",
                    tuple([_role("src_cta"), _role("tmap")] + _coords(q) + hint_op + hint_flag))


def _reduce_tensor(q):
    name = _REDUCE_MODES.get(q["load_mode"])
    if name is None:
        return Unexpressible(f"no llvm.nvvm.cp.async.bulk.tensor.reduce.* intrinsic has the load mode "
                             f".{q['load_mode']} (LLVM spells .tile and .im2col_no_offs)")
    hint_op, hint_flag = _hint(q)
    return Spelling(f"llvm.nvvm.cp.async.bulk.tensor.reduce.{q['redop']}.{name}.{q['dim']}d",
                    tuple([_role("src_cta"), _role("tmap")] + _coords(q) + hint_op + hint_flag))


def _prefetch_tensor(q):
    name = _PREFETCH_MODES.get(q["load_mode"])
    if name is None:
        raise MappingError(f"cp.async.bulk.prefetch.tensor: no intrinsic name for load mode {q['load_mode']!r}")
    hint_op, hint_flag = _hint(q)
    return Spelling(f"llvm.nvvm.cp.async.bulk.tensor.prefetch.{name}.{q['dim']}d",
                    tuple([_role("tmap")] + _coords(q) + _im2col(q) + hint_op + hint_flag))


def _bulk_groups(q):
    i = q["instr"]
    if i == "cp.async.bulk.commit_group":
        return Spelling("llvm.nvvm.cp.async.bulk.commit.group")
    if i in ("cp.async.bulk.wait_group", "cp.async.bulk.wait_group.read"):
        return Spelling("llvm.nvvm." + i.replace("wait_group", "wait.group"), (_const("i32", q["n"]),))
    if i == "fence.proxy.async":
        return Spelling("llvm.nvvm.fence.proxy.async" + ("." + q["space"].replace("::", "_") if q["space"] else ""))
    raise MappingError(f"cp.async.bulk.groups: no entry for instruction {i!r}")


# family -> the function that spells one form's qualifiers (table.FAMILY_FUNCTIONS)
FAMILIES = family_table(globals())


def spell(form, known=None):
    """The Spelling of a form (model.Form), or Unexpressible with the reason. known: the intrinsic names the
    library carries; a spelling naming one outside it raises MappingError."""
    return spell_form(form, FAMILIES, QUALIFIERS, "LLVM intrinsic", "LLVM",
                      lambda form_id, s: check(form_id, s, known))


def check(form_id, s, known=None):
    """MappingError unless s is well formed: an llvm.nvvm.* callee the library knows, operands of known roles with
    their role's type, constants of a constant type."""
    if not s.callee.startswith("llvm.nvvm."):
        raise MappingError(f"{form_id}: callee {s.callee!r} is not an llvm.nvvm.* intrinsic")
    if known is not None and s.callee not in known:
        raise MappingError(f"{form_id}: {s.callee} is not an intrinsic LLVM knows (the library's list does not "
                           "have it; a call to it would silently become an external function call)")
    for ty, value in s.args:
        if value.startswith("%"):
            role = value[1:]
            if role not in ROLES or ROLES[role] != ty:
                raise MappingError(f"{form_id}: {s.callee}: operand {value} of type {ty}: "
                                   + (f"role {role!r} is unknown" if role not in ROLES
                                      else f"role {role!r} has type {ROLES[role]}"))
        else:
            if ty not in CONSTANT_TYPES:
                raise MappingError(f"{form_id}: {s.callee}: constant {value} has type {ty!r}, not one of "
                                   f"{', '.join(CONSTANT_TYPES)}")
            try:
                int(value)
            except ValueError:
                raise MappingError(f"{form_id}: {s.callee}: constant {value!r} is not an integer") from None
