"""The CUTLASS Python DSL ("CuTe DSL", nvidia-cutlass-dsl 4.8.1), whose device code libNVVM compiles: the DSL
primitive that writes each form, its arguments, and the forms it has none for.

The DSL's copy layer has two levels. Its atoms (cute.nvgpu.cpasync CopyG2SOp, CopyBulk*Op, make_tiled_tma_atom /
make_im2col_tma_atom) build whole tiled copies and fix most qualifiers for the user (the TMA atoms add
`.L2::cache_hint`, shared/docs/FACTS.md; CopyG2SOp writes the src-size operand always, measured); its primitives
(`cutlass.experimental.primitives.nvvm_wrapper`, one function per instruction, each an NVVM dialect op that
libNVVM lowers, except cp_reduce_async_bulk_global_shared_cta, which is inline PTX, and the group functions of
`cutlass.cute.arch`) state one instruction with its qualifiers as arguments. The mapping spells each form through
a primitive, so a qualifier is written only when the form has it; every form the primitives cannot state gets its
reason.

A Spelling's callee is the primitive (`P.` is the nvvm_wrapper module, `cute.arch.` the DSL's arch module); its
args are (keyword, value): keyword "" for a positional argument; value "%role" names a value the kernel prepares
(ROLES: its Python expression in the kernel body), anything else is a Python expression of the DSL (an enum member
such as P.LoadCacheModifier.CG, a constant). QUALIFIERS decides every qualifier value of the model.
"""
from . import MappingError, Spelling, Unexpressible, Written
from .table import NO_OFFS_W_94, OVERRIDE_94, absent_94, family_table, ruled_out, spell_form, spelling_94

NAME = "cute-dsl"
# the values a kernel prepares (harness/frontend/cute_dsl/backend.py writes them at the top of every kernel): the
# fake tensor g's global pointer, a shared-memory array, its shared::cluster and generic casts, an mbarrier, and
# 32-bit / 16-bit / 64-bit values loaded from g (so that libNVVM cannot fold them into immediates)
ROLES = {
    "gmem": "g.iterator", "smem": "s", "dsmem": "dsm", "tmap": "tm", "mbar": "mb",
    "mbar_gen": "_cast(mb, cutlass.AddressSpace.generic)", "size": "sz",
    "src_size": "sz", "policy": "pol", "cta_mask": "mask", "byte_mask": "bmask",
    **{f"c{n}": f"c[:{n}]" for n in range(1, 6)}, **{f"o{n}": f"o[:{n}]" for n in range(0, 4)},
}
P = "cutlass.experimental.primitives.nvvm_wrapper"
_NONE = Written("nothing: the primitive writes no such qualifier unless asked")


def _no(what, fn):
    where = fn if fn.startswith("cute.arch.") else f"{fn} ({P})"
    return Unexpressible(f"{where} has no argument that writes {what}")


_NO_BULK_SEM = "cp_async_bulk_shared_cluster_global / cp_async_bulk_global_shared_cta"
_BULK_CTA = Unexpressible(
    "no primitive writes `cp.async.bulk.shared::cta.global`: cp_async_bulk_shared_cluster_global casts a "
    ".shared::cta destination to .shared::cluster (the NVVM op's is_cta_only flag is not an argument of it)")
_TENSOR_MODES = {"": "TMALoadMode.TILE", "tile": "TMALoadMode.TILE", "im2col": "TMALoadMode.IM2COL",
                 "im2col::w": "TMALoadMode.IM2COL_W", "im2col::w::128": "TMALoadMode.IM2COL_W_128",
                 "tile::gather4": "TMALoadMode.TILE_GATHER4"}
_STORE_MODES = {"": "TMAStoreMode.TILE", "tile": "TMAStoreMode.TILE", "im2col_no_offs": "TMAStoreMode.IM2COL",
                "tile::scatter4": "TMAStoreMode.TILE_SCATTER4"}
_REDOPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor")
_REPORTS = ("mbarrier::report::disabled", "mbarrier::report::validity::per_16bytes::8",
            "mbarrier::report::validity::per_16bytes::80", "mbarrier::report::validity::per_16bytes::8000",
            "mbarrier::report::validity::per_16bytes::80000000", "mbarrier::report::validity::per_element::ff")
_SCOPES = ("cta", "cluster", "gpu", "sys")

# The decision on every (family, qualifier, value) of the model's vocabulary (table.vocabulary()).
QUALIFIERS = {
    **ruled_out(),
    # cp.async: P.cp_async_shared_global(dst, src, size, modifier, cp_size=)
    ("cp.async", "cop", "ca"): Written("P.cp_async_shared_global(..., P.LoadCacheModifier.CA)"),
    ("cp.async", "cop", "cg"): Written("P.cp_async_shared_global(..., P.LoadCacheModifier.CG)"),
    ("cp.async", "space", "shared"): Written("P.cp_async_shared_global writes `.shared`"),
    ("cp.async", "space", "shared::cta"): Written(
        "P.cp_async_shared_global writes `.shared`, the same state space (parse rule shared_is_shared_cta)"),
    **{("cp.async", "cp_size", n): Written(f"the size argument {n}") for n in (4, 8, 16)},
    ("cp.async", "src_op", ""): Written("P.cp_async_shared_global without cp_size"),
    ("cp.async", "src_op", "src_size"): Written("cp_size= a 32-bit register value"),
    ("cp.async", "src_op", "ignore_src"): _no("the ignore-src predicate", "cp_async_shared_global"),
    ("cp.async", "cache_hint", False): _NONE,
    ("cp.async", "cache_hint", True): _no(".L2::cache_hint", "cp_async_shared_global"),
    ("cp.async", "prefetch", ""): _NONE,
    **{("cp.async", "prefetch", p): _no(f".{p}", "cp_async_shared_global") for p in ("L2::64B", "L2::128B",
                                                                                       "L2::256B")},
    # cp.async.groups
    ("cp.async.groups", "instr", "cp.async.wait_group"): Written("cute.arch.cp_async_wait_group(N)"),
    ("cp.async.groups", "instr", "cp.async.wait_all"): Unexpressible(
        "the DSL has no wait_all function: cute.arch.cp_async_wait_group(0) writes `cp.async.wait_group 0`"),
    ("cp.async.groups", "instr", "cp.async.mbarrier.arrive"): Written("P.cp_async_mbarrier_arrive(mbar)"),
    ("cp.async.groups", "instr", "cp.async.mbarrier.arrive.noinc"):
        Written("P.cp_async_mbarrier_arrive(mbar, noinc=True)"),
    # cp.async.bulk
    ("cp.async.bulk", "dir", "shared::cta.global"): _BULK_CTA,
    ("cp.async.bulk", "dir", "shared::cluster.global"): Written("P.cp_async_bulk_shared_cluster_global"),
    ("cp.async.bulk", "dir", "shared::cluster.shared::cta"): Written(
        "P.cp_async_bulk_shared_cluster_shared_cta (its destination cast to shared::cluster by the kernel: the "
        "primitive does not cast it, and the NVVM verifier refuses a shared::cta pointer)"),
    ("cp.async.bulk", "dir", "global.shared::cta"): Written("P.cp_async_bulk_global_shared_cta"),
    ("cp.async.bulk", "multicast", False): _NONE,
    ("cp.async.bulk", "multicast", True): Written("multicast_mask= an Int16"),
    ("cp.async.bulk", "cache_hint", False): _NONE,
    ("cp.async.bulk", "cache_hint", True): Written("l2_cache_hint= an Int64 (not on shared::cluster.shared::cta)"),
    ("cp.async.bulk", "cp_mask", False): _NONE,
    ("cp.async.bulk", "cp_mask", True): Written("byte_mask= an Int16 of P.cp_async_bulk_global_shared_cta"),
    ("cp.async.bulk", "ignore_oob", False): _NONE,
    ("cp.async.bulk", "ignore_oob", True): _no(".ignore_oob", _NO_BULK_SEM),
    ("cp.async.bulk", "sem", ""): _NONE,
    ("cp.async.bulk", "sem", "weak"): _no(".weak", _NO_BULK_SEM),
    **{("cp.async.bulk", "sem", f"relaxed.{s}"): _no(f".relaxed.{s}", _NO_BULK_SEM) for s in _SCOPES},
    ("cp.async.bulk", "b128", False): _NONE,
    ("cp.async.bulk", "b128", True): _no(".b128", _NO_BULK_SEM),
    ("cp.async.bulk", "mc_width", ""): _NONE,
    **{("cp.async.bulk", "mc_width", w): _no(f".multicast::cluster::{w}", _NO_BULK_SEM) for w in ("16b", "32b")},
    ("cp.async.bulk", "report", ""): _NONE,
    **{("cp.async.bulk", "report", r): _no(f".{r}", _NO_BULK_SEM) for r in _REPORTS},
    # cp.reduce.async.bulk: P.cp_reduce_async_bulk_global_shared_cta (inline PTX: no NVVM op for it)
    ("cp.reduce.async.bulk", "dir", "global.shared::cta"): Written(
        "P.cp_reduce_async_bulk_global_shared_cta (the DSL writes it as inline PTX: there is no NVVM dialect op)"),
    ("cp.reduce.async.bulk", "dir", "shared::cluster.shared::cta"): Unexpressible(
        f"no primitive of {P} writes cp.reduce.async.bulk.shared::cluster.shared::cta (only "
        "cp_reduce_async_bulk_global_shared_cta)"),
    **{("cp.reduce.async.bulk", "redop", op): Written(f"op=P.CpReduceOp.{op.upper()}") for op in _REDOPS},
    **{("cp.reduce.async.bulk", "type", t): Written(f"type=P.CpReduceType.{t.upper()}")
       for t in ("b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64", "f16", "bf16")},
    ("cp.reduce.async.bulk", "noftz", False): _NONE,
    ("cp.reduce.async.bulk", "noftz", True): Written("noftz=True"),
    ("cp.reduce.async.bulk", "cache_hint", False): _NONE,
    ("cp.reduce.async.bulk", "cache_hint", True): Written("l2_cache_hint= an Int64"),
    ("cp.reduce.async.bulk", "sem", ""): _NONE,
    **{("cp.reduce.async.bulk", "sem", f"relaxed.{s}"): _no(f".relaxed.{s}", "cp_reduce_async_bulk_global_shared_cta")
       for s in _SCOPES},
    # cp.async.bulk.prefetch
    ("cp.async.bulk.prefetch", "cache_hint", False): Written("P.cp_async_bulk_prefetch(src, size)"),
    ("cp.async.bulk.prefetch", "cache_hint", True): Written("l2_cache_hint= an Int64"),
    ("cp.async.bulk.prefetch", "eviction", ""): _NONE,
    ("cp.async.bulk.prefetch", "eviction", "L2::evict_last"): _no(".L2::evict_last", "cp_async_bulk_prefetch"),
    # cp.async.bulk.tensor
    ("cp.async.bulk.tensor", "dir", "shared::cta.global"): Written("P.cp_async_bulk_tensor_shared_cta_global"),
    ("cp.async.bulk.tensor", "dir", "shared::cluster.global"):
        Written("P.cp_async_bulk_tensor_shared_cluster_global"),
    ("cp.async.bulk.tensor", "dir", "global.shared::cta"): Written("P.cp_async_bulk_tensor_global_shared_cta"),
    **{("cp.async.bulk.tensor", "dim", n): Written(f"a list of {n} Int32 coordinates (for .tile::gather4 / "
                                                                "::scatter4 2, the op adding the others)")
       for n in (1, 2, 3, 4, 5)},
    **{("cp.async.bulk.tensor", "load_mode", m): Written(
        f"mode=P.{_TENSOR_MODES.get(m) or _STORE_MODES[m]}" + (" (writes .tile)" if m == "" else ""))
       for m in ("", "tile", "im2col", "im2col::w", "im2col::w::128", "tile::gather4", "tile::scatter4",
                 "im2col_no_offs")},
    ("cp.async.bulk.tensor", "multicast", False): _NONE,
    ("cp.async.bulk.tensor", "multicast", True): Written("multicast_mask= an Int16"),
    ("cp.async.bulk.tensor", "cta_group", ""): _NONE,
    **{("cp.async.bulk.tensor", "cta_group", g): Written(f"group=P.CTAGroup.CTA_{g[-1]} (shared::cluster.global "
                                                         "only)") for g in ("cta_group::1", "cta_group::2")},
    ("cp.async.bulk.tensor", "cache_hint", False): _NONE,
    ("cp.async.bulk.tensor", "cache_hint", True): Written("l2_cache_hint= an Int64"),
    ("cp.async.bulk.tensor", "mc_width", ""): _NONE,
    **{("cp.async.bulk.tensor", "mc_width", w): _no(f".multicast::cluster::{w}",
                                                    "cp_async_bulk_tensor_shared_cluster_global")
       for w in ("16b", "32b")},
    ("cp.async.bulk.tensor", "report", ""): _NONE,
    **{("cp.async.bulk.tensor", "report", r): _no(f".{r}", "cp_async_bulk_tensor_shared_{cluster,cta}_global")
       for r in _REPORTS},
    # cp.reduce.async.bulk.tensor: P.cp_async_bulk_tensor_reduce
    ("cp.reduce.async.bulk.tensor", "dir", "global.shared::cta"): Written("P.cp_async_bulk_tensor_reduce"),
    **{("cp.reduce.async.bulk.tensor", "dim", n): Written(f"a list of {n} Int32 coordinates")
       for n in (1, 2, 3, 4, 5)},
    **{("cp.reduce.async.bulk.tensor", "redop", op): Written(f"P.TMARedux.{op.upper()}") for op in _REDOPS},
    ("cp.reduce.async.bulk.tensor", "load_mode", ""): Written("mode=P.TMAStoreMode.TILE (writes .tile)"),
    ("cp.reduce.async.bulk.tensor", "load_mode", "tile"): Written("mode=P.TMAStoreMode.TILE"),
    ("cp.reduce.async.bulk.tensor", "load_mode", "im2col_no_offs"): Written("mode=P.TMAStoreMode.IM2COL"),
    ("cp.reduce.async.bulk.tensor", "cache_hint", False): _NONE,
    ("cp.reduce.async.bulk.tensor", "cache_hint", True): Written("l2_cache_hint= an Int64"),
    # cp.async.bulk.prefetch.tensor: P.cp_async_bulk_tensor_prefetch
    **{("cp.async.bulk.prefetch.tensor", "dim", n): Written(f"a list of {n} Int32 coordinates (2 for .tile::gather4)")
       for n in (1, 2, 3, 4, 5)},
    **{("cp.async.bulk.prefetch.tensor", "load_mode", m): Written(
        f"mode=P.{_TENSOR_MODES[m]}" + (" (writes .tile)" if m == "" else ""))
       for m in ("", "tile", "im2col", "im2col::w", "im2col::w::128", "tile::gather4")},
    ("cp.async.bulk.prefetch.tensor", "cache_hint", False): _NONE,
    ("cp.async.bulk.prefetch.tensor", "cache_hint", True): Written("l2_cache_hint= an Int64"),
    ("cp.async.bulk.prefetch.tensor", "eviction", ""): _NONE,
    ("cp.async.bulk.prefetch.tensor", "eviction", "L2::evict_last"):
        _no(".L2::evict_last", "cp_async_bulk_tensor_prefetch"),
    # cp.async.bulk.groups
    ("cp.async.bulk.groups", "instr", "cp.async.bulk.commit_group"):
        Written("cute.arch.cp_async_bulk_commit_group()"),
    ("cp.async.bulk.groups", "instr", "cp.async.bulk.wait_group"): Written("cute.arch.cp_async_bulk_wait_group(N)"),
    ("cp.async.bulk.groups", "instr", "cp.async.bulk.wait_group.read"):
        Written("cute.arch.cp_async_bulk_wait_group(N, read=True)"),
    ("cp.async.bulk.groups", "instr", "cp.async.bulk.wait_group.sync_restrict::proxy::async"):
        _no(".sync_restrict::proxy::async", "cute.arch.cp_async_bulk_wait_group"),
    ("cp.async.bulk.groups", "instr", "fence.proxy.async"): Written("P.fence_proxy(P.Proxy.ASYNC...)"),
    ("cp.async.bulk.groups", "space", ""): Written("P.fence_proxy(P.Proxy.ASYNC)"),
    ("cp.async.bulk.groups", "space", "global"): Written("P.fence_proxy(P.Proxy.ASYNC_GLOBAL)"),
    **{("cp.async.bulk.groups", "space", s): Written(
        f"P.fence_proxy(P.Proxy.ASYNC_SHARED, space=P.SharedSpace.{s.replace('::', '_')})")
       for s in ("shared::cta", "shared::cluster")},
}
QUALIFIERS[("cp.async.groups", "state", "shared")] = Written("P.cp_async_mbarrier_arrive on the shared-memory "
                                                             "mbarrier: .shared.b64")
QUALIFIERS[("cp.async.groups", "state", "")] = Written("P.cp_async_mbarrier_arrive on the mbarrier's generic address "
                                                       "(an addrspacecast of the shared one): .b64 [addr]")
QUALIFIERS[("cp.async.groups", "state", "shared::cta")] = Unexpressible(
    "P.cp_async_mbarrier_arrive writes the state space as .shared (a shared pointer) or none (a generic one), never "
    ".shared::cta (the same instruction as .shared, parse rule shared_is_shared_cta)")
# PTX ISA 9.4's tensor qualifiers: no primitive of nvvm_wrapper or cute.arch has an override operand or the ::w mode
# of stores and reductions (measured on CuTe DSL 4.8.1: their files never contain 'override::global_address',
# 'override::global_dim' or 'im2col_no_offs::w'). The DSL's NVVM dialect has the override operations
# (nvvm.cp.async.bulk.tensor.*.override, _nvvm_ops_gen.py), beneath the primitives this mapping spells through.
_FN94 = {"cp.async.bulk.tensor": "cp_async_bulk_tensor_*", "cp.reduce.async.bulk.tensor":
         "cp_reduce_async_bulk_tensor_*", "cp.async.bulk.prefetch.tensor": "cp_async_bulk_prefetch_tensor_*"}
for _fam, _k, _v in OVERRIDE_94:
    _what = spelling_94(_k, _v)
    QUALIFIERS[(_fam, _k, _v)] = Unexpressible(
        f"{_FN94[_fam]} ({P}) has no argument that writes {_what}: only the NVVM dialect's "
        "nvvm.cp.async.bulk.tensor.*.override operations take the override operands, and no primitive calls them")
for _fam, _k, _v in NO_OFFS_W_94:
    QUALIFIERS[(_fam, _k, _v)] = _no(".im2col_no_offs::w", _FN94[_fam])
QUALIFIERS.update(absent_94(QUALIFIERS))


def _r(role, kw=""):
    return (kw, "%" + role)


def _lit(expr, kw=""):
    return (kw, expr)


def _hint(q, args):
    if q.get("cache_hint"):
        args.append(_r("policy", "l2_cache_hint"))
    return args


_IMM_SIZE = Unexpressible(
    "the primitives take the size as an i32 value and libNVVM writes a constant size into a register (measured: "
    "P.cp_async_bulk_prefetch(src, 256) writes `cp.async.bulk.prefetch.L2.global [%rd1], %r1`): the immediate-size "
    "form cannot be written")


def _size(q):
    return _r("size")


def _cp_async(q):
    args = [_r("smem"), _r("gmem"), _lit(str(q["cp_size"])), _lit(f"P.LoadCacheModifier.{q['cop'].upper()}")]
    if q["src_op"] == "src_size":
        args.append(_r("src_size", "cp_size"))
    return Spelling("P.cp_async_shared_global", tuple(args))


def _cp_async_groups(q):
    i = q["instr"]
    if i == "cp.async.wait_group":
        return Spelling("cute.arch.cp_async_wait_group", (_lit(str(int(q["n"]))),))
    # the generic-address form: the mbarrier's generic address (an addrspacecast of the shared one)
    mbar = _r("mbar_gen" if not q.get("state") else "mbar")
    if i == "cp.async.mbarrier.arrive":
        return Spelling("P.cp_async_mbarrier_arrive", (mbar,))
    if i == "cp.async.mbarrier.arrive.noinc":
        return Spelling("P.cp_async_mbarrier_arrive", (mbar, _lit("True", "noinc")))
    raise MappingError(f"cp.async.groups: no entry for instruction {i!r}")


def _bulk(q):
    if q["size_imm"] is not None:
        return _IMM_SIZE
    d = q["dir"]
    if d == "global.shared::cta":
        args = _hint(q, [_r("gmem"), _r("smem"), _size(q)])
        if q["cp_mask"]:
            args.append(_r("byte_mask", "byte_mask"))
        return Spelling("P.cp_async_bulk_global_shared_cta", tuple(args))
    if d == "shared::cluster.shared::cta":
        if q["cache_hint"]:
            return _no(".L2::cache_hint on shared::cluster.shared::cta", "cp_async_bulk_shared_cluster_shared_cta")
        return Spelling("P.cp_async_bulk_shared_cluster_shared_cta", (_r("dsmem"), _r("smem"), _r("mbar"), _size(q)))
    args = [_r("smem"), _r("gmem"), _r("mbar"), _size(q)]
    if q["multicast"]:
        args.append(_r("cta_mask", "multicast_mask"))
    return Spelling("P.cp_async_bulk_shared_cluster_global", tuple(_hint(q, args)))


def _reduce_bulk(q):
    if q["size_imm"] is not None:
        return _IMM_SIZE
    args = [_r("gmem"), _r("smem"), _size(q), _lit(f"P.CpReduceOp.{q['redop'].upper()}", "op"),
            _lit(f"P.CpReduceType.{q['type'].upper()}", "type")]
    if q["noftz"]:
        args.append(_lit("True", "noftz"))
    return Spelling("P.cp_reduce_async_bulk_global_shared_cta", tuple(_hint(q, args)))


def _bulk_prefetch(q):
    if q["size_imm"] is not None:
        return _IMM_SIZE
    return Spelling("P.cp_async_bulk_prefetch", tuple(_hint(q, [_r("gmem"), _size(q)])))


def _tensor(q):
    mode, d, coords = q["load_mode"], q["dir"], _coords(q)
    if d == "global.shared::cta":
        args = [_r("tmap"), _r("smem"), coords]
        if mode:
            args.append(_lit(f"P.{_STORE_MODES[mode]}", "mode"))
        return Spelling("P.cp_async_bulk_tensor_global_shared_cta", tuple(_hint(q, args)))
    offs = _r(f"o{q['im2col_info']}")
    if d == "shared::cta.global":
        if q["multicast"] or q["cta_group"]:
            return _no(".multicast::cluster / .cta_group with a .shared::cta destination",
                       "cp_async_bulk_tensor_shared_cta_global")
        args = [_r("smem"), _r("tmap"), coords, _r("mbar"), offs]
        if mode:
            args.append(_lit(f"P.{_TENSOR_MODES[mode]}", "mode"))
        return Spelling("P.cp_async_bulk_tensor_shared_cta_global", tuple(_hint(q, args)))
    args = [_r("smem"), _r("tmap"), coords, _r("mbar"), offs]
    if q["multicast"]:
        args.append(_r("cta_mask", "multicast_mask"))
    _hint(q, args)
    if mode:
        args.append(_lit(f"P.{_TENSOR_MODES[mode]}", "mode"))
    if q["cta_group"]:
        args.append(_lit(f"P.CTAGroup.CTA_{q['cta_group'][-1]}", "group"))
    return Spelling("P.cp_async_bulk_tensor_shared_cluster_global", tuple(args))


def _coords(q):
    """The coordinate list: the form's count; 2 for .tile::gather4 / .tile::scatter4, whose other three (the row
    indices after the first) the NVVM op adds itself (the primitives refuse another count)."""
    return _r("c2" if q["load_mode"] in ("tile::gather4", "tile::scatter4") else f"c{q['coords']}")


def _reduce_tensor(q):
    args = [_r("tmap"), _r("smem"), _lit(f"P.TMARedux.{q['redop'].upper()}"), _r(f"c{q['coords']}")]
    if q["load_mode"]:
        args.append(_lit(f"P.{_STORE_MODES[q['load_mode']]}", "mode"))
    return Spelling("P.cp_async_bulk_tensor_reduce", tuple(_hint(q, args)))


def _prefetch_tensor(q):
    args = [_r("tmap"), _coords(q), _r(f"o{q['im2col_info']}")]
    if q["load_mode"]:
        args.append(_lit(f"P.{_TENSOR_MODES[q['load_mode']]}", "mode"))
    return Spelling("P.cp_async_bulk_tensor_prefetch", tuple(_hint(q, args)))


def _bulk_groups(q):
    i = q["instr"]
    if i == "cp.async.bulk.commit_group":
        return Spelling("cute.arch.cp_async_bulk_commit_group")
    if i == "cp.async.bulk.wait_group":
        return Spelling("cute.arch.cp_async_bulk_wait_group", (_lit(str(int(q["n"]))),))
    if i == "cp.async.bulk.wait_group.read":
        return Spelling("cute.arch.cp_async_bulk_wait_group", (_lit(str(int(q["n"]))), _lit("True", "read")))
    if i == "fence.proxy.async":
        s = q["space"]
        if not s:
            return Spelling("P.fence_proxy", (_lit("P.Proxy.ASYNC"),))
        if s == "global":
            return Spelling("P.fence_proxy", (_lit("P.Proxy.ASYNC_GLOBAL"),))
        return Spelling("P.fence_proxy", (_lit("P.Proxy.ASYNC_SHARED"),
                                          _lit(f"P.SharedSpace.{s.replace('::', '_')}", "space")))
    raise MappingError(f"cp.async.bulk.groups: no entry for instruction {i!r}")


# family -> the function that spells one form's qualifiers (table.FAMILY_FUNCTIONS)
FAMILIES = family_table(globals())


def spell(form, known=None):
    return spell_form(form, FAMILIES, QUALIFIERS, "CuTe DSL primitive", "CuTe DSL", check)


def check(form_id, s):
    if not s.callee.startswith(("P.", "cute.arch.")):
        raise MappingError(f"{form_id}: callee {s.callee!r} is neither a primitive of {P} (P.) nor of cute.arch")
    for kw, value in s.args:
        if value.startswith("%") and value[1:] not in ROLES:
            raise MappingError(f"{form_id}: {s.callee}: operand {value}: role {value[1:]!r} is unknown")


def call_text(s):
    """The Python call of a spelling, its roles replaced by the kernel's expressions."""
    def val(v):
        return ROLES[v[1:]] if v.startswith("%") else v
    return f"{s.callee}({', '.join((kw + '=' if kw else '') + val(v) for kw, v in s.args)})"
