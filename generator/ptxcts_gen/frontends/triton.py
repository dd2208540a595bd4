"""The Triton language (Triton 3.9: `triton.language` and Gluon, `triton.experimental.gluon`): the kernel that
makes Triton write each form, and the forms it cannot write, each with its reason.

A Spelling here names a kernel template of harness/frontend/triton/backend.py (`callee`) and its parameters
(`args`: (name, value) pairs: the TMA block rank, the reduction, the cache policy, ...). The backend writes the
kernel into a file (Triton's front-end reads the source through `inspect`), compiles it with `triton.compile`
for the case's target and PTX version, and the tier judges the one instruction of the case's family in its PTX.
Triton decides the instruction itself (its layouts, vector width, state spaces): a qualifier value no Gluon or
`tl` argument selects is Unexpressible in QUALIFIERS, measured on Triton 3.9.0 where the reason says so.
"""
from ..rules import load_all
from . import MappingError, Spelling, Unexpressible, Written
from .table import NO_OFFS_W_94, OVERRIDE_94, absent_94, family_table, ruled_out, spell_form, spelling_94

load_all()
NAME = "triton"

_REDOPS_WRITTEN = ("add", "min", "max", "and", "or", "xor")   # tma.async_atomic_<op>
_SCOPES = ("cta", "cluster", "gpu", "sys")
_REPORTS = ("disabled", "validity::per_16bytes::80000000", "validity::per_16bytes::8000",
            "validity::per_16bytes::80", "validity::per_16bytes::8", "validity::per_element::ff")
_NONE = Written("nothing: the kernel's call writes no such qualifier")
_NO_BULK = Unexpressible("Triton 3.9 has no non-tensor bulk copy: neither `tl` nor Gluon "
                         "(hopper/blackwell tma, ampere async_copy) has a call that writes cp.async.bulk without "
                         ".tensor (its copies go through tensor descriptors)")
_NO_REDUCE_BULK = Unexpressible("Triton 3.9 has no non-tensor bulk reduction: its reductions are "
                                "tma.async_atomic_<op> and descriptor.atomic_<op> on tensor descriptors")
_NO_BULK_PREFETCH = Unexpressible("Triton 3.9 has no bulk L2 prefetch call (Gluon's prefetch is AMD's tdm.prefetch)")
_NO_TENSOR_PREFETCH = Unexpressible("Triton 3.9's NVIDIA tma module has no tensor prefetch (no call writes "
                                    "cp.async.bulk.prefetch.tensor)")
_PTX9X = "Triton 3.9 writes no PTX ISA 9.x qualifier of this chapter: no Gluon or tl argument selects {q}"


def _later(q):
    return Unexpressible(_PTX9X.format(q=q))


QUALIFIERS = {
    **ruled_out(),
    # cp.async: ampere.async_copy.async_load(smem, ptrs, mask, cache_policy=CachePolicy(...))
    ("cp.async", "cop", "ca"): Written("CachePolicy(cache_modifier='ca')"),
    ("cp.async", "cop", "cg"): Written("CachePolicy(cache_modifier='cg') (16-byte copies)"),
    ("cp.async", "space", "shared"): Written("Triton prints .shared"),
    ("cp.async", "space", "shared::cta"): Written("Triton prints .shared (parse rule shared_is_shared_cta)"),
    **{("cp.async", "cp_size", n): Written(f"a BlockedLayout of {n // 4} fp32 per thread on a 16-byte-aligned "
                                           "pointer (Triton vectorises to the copy size)") for n in (4, 8, 16)},
    ("cp.async", "src_op", "src_size"): Written("a mask (offs < n): Triton writes the src-size register operand"),
    ("cp.async", "src_op", ""): Unexpressible(
        "async_copy.async_load always writes the src-size operand: unmasked, it repeats the copy size as an "
        "immediate (`cp.async.cg.shared.global [..], [..], 0x10, 0x10;`, measured on Triton 3.9.0), a spelling the "
        "model's form without src-size does not have"),
    ("cp.async", "src_op", "ignore_src"): Unexpressible("no Triton call writes the ignore-src predicate operand"),
    ("cp.async", "cache_hint", False): _NONE,
    ("cp.async", "cache_hint", True): Unexpressible(
        "Triton 3.9 drops an L2 eviction policy given to async_copy.async_load (CachePolicy(l2=...)): no "
        "createpolicy and no .L2::cache_hint in its PTX (measured)"),
    ("cp.async", "prefetch", ""): _NONE,
    **{("cp.async", "prefetch", p): Written(f"CachePolicy(l2_prefetch_size={p[4:-1]})")
       for p in ("L2::64B", "L2::128B", "L2::256B")},
    # cp.async.groups
    ("cp.async.groups", "instr", "cp.async.wait_group"): Written("async_copy.wait_group(N)"),
    ("cp.async.groups", "instr", "cp.async.wait_all"): Unexpressible(
        "Triton writes async_copy.wait_group(0) as cp.async.wait_group 0; no call writes cp.async.wait_all"),
    ("cp.async.groups", "instr", "cp.async.mbarrier.arrive"): Written("async_copy.mbarrier_arrive(bar)"),
    ("cp.async.groups", "instr", "cp.async.mbarrier.arrive.noinc"):
        Written("async_copy.mbarrier_arrive(bar, increment_count=False)"),
    # cp.async.bulk, cp.reduce.async.bulk, cp.async.bulk.prefetch: no call at all
    **{("cp.async.bulk", k, v): _NO_BULK
       for k, vs in (("dir", ("global.shared::cta", "shared::cluster.global", "shared::cluster.shared::cta",
                              "shared::cta.global")), ("multicast", (False, True)), ("cache_hint", (False, True)),
                     ("cp_mask", (False, True)), ("ignore_oob", (False, True)),
                     ("sem", ("", "weak") + tuple(f"relaxed.{s}" for s in _SCOPES)), ("b128", (False, True)),
                     ("mc_width", ("", "16b", "32b")),
                     ("report", ("",) + tuple(f"mbarrier::report::{r}" for r in _REPORTS)))
       for v in vs},
    **{("cp.reduce.async.bulk", k, v): _NO_REDUCE_BULK
       for k, vs in (("dir", ("global.shared::cta", "shared::cluster.shared::cta")),
                     ("redop", ("add", "and", "dec", "inc", "max", "min", "or", "xor")),
                     ("type", ("b32", "u32", "s32", "b64", "u64", "s64", "f16", "bf16", "f32", "f64")),
                     ("noftz", (False, True)), ("cache_hint", (False, True)),
                     ("sem", ("",) + tuple(f"relaxed.{s}" for s in _SCOPES)))
       for v in vs},
    **{("cp.async.bulk.prefetch", k, v): _NO_BULK_PREFETCH
       for k, vs in (("cache_hint", (False, True)), ("eviction", ("", "L2::evict_last"))) for v in vs},
    # cp.async.bulk.tensor: hopper.tma.async_load / async_load_im2col / async_store, blackwell.tma.async_gather /
    # async_scatter
    ("cp.async.bulk.tensor", "dir", "shared::cta.global"): Written("tma.async_load(desc, coords, bar, smem)"),
    ("cp.async.bulk.tensor", "dir", "shared::cluster.global"):
        Written("tma.async_load(..., multicast=True) in a cluster of 2 CTAs (num_ctas=2)"),
    ("cp.async.bulk.tensor", "dir", "global.shared::cta"): Written("tma.async_store(desc, coords, smem)"),
    **{("cp.async.bulk.tensor", "dim", n): Written(f"a tensor descriptor of rank {n}") for n in (1, 2, 3, 4, 5)},
    ("cp.async.bulk.tensor", "load_mode", ""): Written("Triton writes no load mode (.tile by default)"),
    ("cp.async.bulk.tensor", "load_mode", "tile"): Written("Triton writes no load mode (parse rule "
                                                           "load_mode_default_tile)"),
    ("cp.async.bulk.tensor", "load_mode", "im2col"): Written("tma.async_load_im2col on a tensordesc_im2col"),
    ("cp.async.bulk.tensor", "load_mode", "tile::gather4"): Written("blackwell.tma.async_gather (8 rows: two "
                                                                    "gather4 copies of one form)"),
    ("cp.async.bulk.tensor", "load_mode", "tile::scatter4"): Written("blackwell.tma.async_scatter"),
    ("cp.async.bulk.tensor", "load_mode", "im2col::w"): _later(".im2col::w"),
    ("cp.async.bulk.tensor", "load_mode", "im2col::w::128"): _later(".im2col::w::128"),
    ("cp.async.bulk.tensor", "load_mode", "im2col_no_offs"): Unexpressible(
        "tma.async_store takes a tiled descriptor only: no call stores in .im2col_no_offs mode"),
    ("cp.async.bulk.tensor", "multicast", False): _NONE,
    ("cp.async.bulk.tensor", "multicast", True): Written("tma.async_load(..., multicast=True), num_ctas=2"),
    ("cp.async.bulk.tensor", "cta_group", ""): _NONE,
    **{("cp.async.bulk.tensor", "cta_group", g): Unexpressible(
        f"tma.async_load has no CTA-group argument: no call writes .{g}") for g in ("cta_group::1", "cta_group::2")},
    ("cp.async.bulk.tensor", "cache_hint", False): _NONE,
    ("cp.async.bulk.tensor", "cache_hint", True): Written("cache_policy=CachePolicy(l2=FractionalEvictionPolicy("
                                                          "'evict_last', 1.0))"),
    ("cp.async.bulk.tensor", "mc_width", ""): _NONE,
    **{("cp.async.bulk.tensor", "mc_width", w): _later(f".multicast::cluster::{w}") for w in ("16b", "32b")},
    ("cp.async.bulk.tensor", "report", ""): _NONE,
    **{("cp.async.bulk.tensor", "report", f"mbarrier::report::{r}"): _later(f".mbarrier::report::{r}")
       for r in _REPORTS},
    # cp.reduce.async.bulk.tensor: hopper.tma.async_atomic_<op>
    ("cp.reduce.async.bulk.tensor", "dir", "global.shared::cta"): Written("tma.async_atomic_<op>(desc, coords, smem)"),
    **{("cp.reduce.async.bulk.tensor", "dim", n): Written(f"a tensor descriptor of rank {n}") for n in (1, 2, 3, 4, 5)},
    **{("cp.reduce.async.bulk.tensor", "redop", op): Written(f"tma.async_atomic_{op}") for op in _REDOPS_WRITTEN},
    **{("cp.reduce.async.bulk.tensor", "redop", op): Unexpressible(
        f"Triton has no tma.async_atomic_{op} (its reductions: {', '.join(_REDOPS_WRITTEN)})")
       for op in ("inc", "dec")},
    ("cp.reduce.async.bulk.tensor", "load_mode", ""): Written("Triton writes no load mode"),
    ("cp.reduce.async.bulk.tensor", "load_mode", "tile"): Written("Triton writes no load mode (parse rule "
                                                                  "load_mode_default_tile)"),
    ("cp.reduce.async.bulk.tensor", "load_mode", "im2col_no_offs"): Unexpressible(
        "tma.async_atomic_<op> takes a tiled descriptor only: no .im2col_no_offs reduction"),
    ("cp.reduce.async.bulk.tensor", "cache_hint", False): _NONE,
    ("cp.reduce.async.bulk.tensor", "cache_hint", True): Unexpressible(
        "tma.async_atomic_<op> takes no cache policy: no .L2::cache_hint on a reduction"),
    # cp.async.bulk.prefetch.tensor
    **{("cp.async.bulk.prefetch.tensor", k, v): _NO_TENSOR_PREFETCH
       for k, vs in (("dim", (1, 2, 3, 4, 5)), ("cache_hint", (False, True)), ("eviction", ("", "L2::evict_last")),
                     ("load_mode", ("", "tile", "im2col", "im2col::w", "im2col::w::128", "tile::gather4")))
       for v in vs},
    # cp.async.bulk.groups
    ("cp.async.bulk.groups", "instr", "cp.async.bulk.commit_group"): Written("tma.async_store (Triton commits it)"),
    ("cp.async.bulk.groups", "instr", "cp.async.bulk.wait_group.read"): Written("tma.store_wait(N)"),
    ("cp.async.bulk.groups", "instr", "cp.async.bulk.wait_group"): Written("tma.store_wait(N, read_only=False)"),
    ("cp.async.bulk.groups", "instr", "cp.async.bulk.wait_group.sync_restrict::proxy::async"):
        _later(".sync_restrict::proxy::async"),
    ("cp.async.bulk.groups", "instr", "fence.proxy.async"): Written("hopper.fence_async_shared()"),
    ("cp.async.bulk.groups", "space", ""): _NONE,
    ("cp.async.bulk.groups", "space", "shared::cta"): Written("hopper.fence_async_shared()"),
    ("cp.async.bulk.groups", "space", "shared::cluster"): Written("hopper.fence_async_shared(cluster=True)"),
    ("cp.async.bulk.groups", "space", "global"): Unexpressible("fence_async_shared fences shared memory only: no "
                                                               "call writes fence.proxy.async.global"),
}
# cp.async.mbarrier.arrive's state space: Gluon's mbarrier is a shared-memory descriptor, lowered as an addrspace(3)
# pointer, so the arrive is always the .shared.b64 form (libtriton.so carries the generic one only as LLVM's)
QUALIFIERS[("cp.async.groups", "state", "shared")] = Written("async_copy.mbarrier_arrive on the shared-memory "
                                                             "mbarrier: .shared.b64")
QUALIFIERS[("cp.async.groups", "state", "")] = Unexpressible(
    "async_copy.mbarrier_arrive takes an mbarrier allocated in shared memory (a shared-memory descriptor, lowered to "
    "an addrspace(3) pointer): no Gluon call passes a generic address, so the arrive is always .shared.b64")
QUALIFIERS[("cp.async.groups", "state", "shared::cta")] = Unexpressible(
    "Triton 3.9's LLVM prints cp.async.mbarrier.arrive{.noinc}.shared.b64, never .shared::cta (libtriton.so has no "
    "'arrive.shared::cta'; the .shared form is the same instruction, parse rule shared_is_shared_cta)")
# PTX ISA 9.4's tensor qualifiers: libtriton.so contains none of 'override::global_address', 'override::global_dim',
# 'im2col_no_offs::w' (measured on Triton 3.9.0), and no Gluon tma call takes an override operand
for _key in OVERRIDE_94 + NO_OFFS_W_94:
    QUALIFIERS[_key] = _NO_TENSOR_PREFETCH if _key[0] == "cp.async.bulk.prefetch.tensor" else _later(
        spelling_94(*_key[1:]))
QUALIFIERS.update(absent_94(QUALIFIERS))


# What the Triton this mapping was measured on (3.9.0) writes where Triton releases differ and the Gluon calls do not
# say; the engine measures the loaded Triton the same way (harness/frontend/triton/backend.py lowering) and, where
# it differs, spells those forms as that Triton writes them (TritonEngine.spell, each reason naming the measurement)
MEASURED_LOWERING = {"triton": "3.9.0", "tma_load_space": "shared::cta", "cp_async_ca16": "ca"}


def _cp_async(q):
    if q["cop"] == "cg" and q["cp_size"] != 16:
        return Unexpressible("cp.async.cg copies 16 bytes only (the chapter); Triton writes .ca below 16 bytes")
    return Spelling("cp_async", (("cp_size", str(q["cp_size"])), ("cop", q["cop"]),
                                 ("prefetch", q["prefetch"][4:-1] if q["prefetch"] else "")))


def _cp_async_groups(q):
    i = q["instr"]
    if i == "cp.async.wait_group":
        return Spelling("cp_async_wait_group", (("n", str(q["n"])),))
    if i in ("cp.async.mbarrier.arrive", "cp.async.mbarrier.arrive.noinc"):
        return Spelling("cp_async_mbarrier_arrive", (("noinc", str(int(i.endswith("noinc")))),))
    raise MappingError(f"cp.async.groups: no entry for instruction {i!r}")


def _bulk(q):
    return _NO_BULK


def _reduce_bulk(q):
    return _NO_REDUCE_BULK


def _bulk_prefetch(q):
    return _NO_BULK_PREFETCH


def _tensor(q):
    dim, mode, hint = q["dim"], q["load_mode"], str(int(q["cache_hint"]))
    if q["src"] == "global":
        if mode == "tile::gather4":
            if q["dst"] != "shared::cta" or q["multicast"]:
                return Unexpressible("blackwell.tma.async_gather writes its 8 rows into .shared::cta (measured); "
                                     "a gather4 into .shared::cluster is not written")
            return Spelling("tma_gather", (("hint", hint),))
        if q["dst"] == "shared::cluster" and not q["multicast"]:
            return Unexpressible("Triton 3.9 writes a TMA load without multicast into .shared::cta (measured at "
                                 "PTX 8.0 and 8.6): a .shared::cluster destination without .multicast::cluster is not "
                                 "written")
        if mode == "im2col":
            if dim < 3:
                raise MappingError(f"cp.async.bulk.tensor: an im2col form of rank {dim}")
            return Spelling("tma_load_im2col", (("dim", str(dim)), ("multicast", str(int(q["multicast"]))),
                                                ("hint", hint)))
        return Spelling("tma_load", (("dim", str(dim)), ("multicast", str(int(q["multicast"]))), ("hint", hint)))
    if mode == "tile::scatter4":
        return Spelling("tma_scatter", (("hint", hint),))
    return Spelling("tma_store", (("dim", str(dim)), ("hint", hint)))


def _reduce_tensor(q):
    return Spelling("tma_reduce", (("dim", str(q["dim"])), ("redop", q["redop"])))


def _prefetch_tensor(q):
    return _NO_TENSOR_PREFETCH


def _bulk_groups(q):
    i = q["instr"]
    if i == "cp.async.bulk.commit_group":
        return Spelling("bulk_commit_group")
    if i in ("cp.async.bulk.wait_group", "cp.async.bulk.wait_group.read"):
        return Spelling("bulk_wait_group", (("n", str(q["n"])), ("read", str(int(i.endswith(".read"))))))
    if i == "fence.proxy.async":
        if not q["space"]:
            return Unexpressible("fence_async_shared always names the state space: no call writes "
                                 "fence.proxy.async without one")
        return Spelling("fence_proxy_async", (("cluster", str(int(q["space"] == "shared::cluster"))),))
    raise MappingError(f"cp.async.bulk.groups: no entry for instruction {i!r}")


FAMILIES = family_table(globals())

# the opcode words the instruction under test starts with, per family (the other instructions of a kernel, its
# commit and wait around a copy, are not the case's): read by harness/frontend/triton/engine.py
UNDER_TEST = {
    "cp.async": ("cp.async.ca.", "cp.async.cg."),
    "cp.async.bulk.tensor": ("cp.async.bulk.tensor.",),
    "cp.reduce.async.bulk.tensor": ("cp.reduce.async.bulk.tensor.",),
}


def under_test(form):
    """The prefixes of the instruction under test in the PTX of form's kernel."""
    if form.family in UNDER_TEST:
        return UNDER_TEST[form.family]
    return (form.quals["instr"],)


TEMPLATES = ("cp_async", "cp_async_wait_group", "cp_async_mbarrier_arrive", "tma_load", "tma_load_im2col",
             "tma_gather", "tma_store", "tma_scatter", "tma_reduce", "bulk_commit_group", "bulk_wait_group",
             "fence_proxy_async")


def spell(form):
    return spell_form(form, FAMILIES, QUALIFIERS, "Triton kernel", "Triton", check)


def check(form_id, s):
    if s.callee not in TEMPLATES:
        raise MappingError(f"{form_id}: {s.callee!r} is not a kernel template of the Triton back-end "
                           f"({', '.join(TEMPLATES)})")
    for k, v in s.args:
        if not isinstance(k, str) or not isinstance(v, str):
            raise MappingError(f"{form_id}: {s.callee}: parameter {k!r} = {v!r} is not a (name, text) pair")
