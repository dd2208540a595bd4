"""CUDA C++ with CCCL's cuda::ptx (CCCL 3.5, compiled by NVRTC): the function that writes each form, its tag
arguments (state spaces, reduction operation, cta_group) and operands; the forms it has no function for.

Each cuda::ptx function is a fixed inline-asm string, so what is under test is CCCL's spelling of the form and
NVRTC's handling of the asm: the PTX NVRTC writes is parsed back to a form (ptxcts_gen.parse) like LLVM's.
Arguments are (C++ type, value): "%role" names a kernel parameter (ROLES gives its C++ type), "&coords" the
tensorCoords array the kernel builds from c0..c{n-1}, anything else is a C++ expression (a tag such as
cuda::ptx::space_cluster, or a template argument such as cuda::ptx::n32_t<1>()).
"""
from . import MappingError, Spelling, Unexpressible
from .table import family_table, spell_form

NAME = "cccl"
ROLES = {"dst": "void*", "src": "const void*", "size": "uint32_t", "mbar": "uint64_t*", "tmap": "const void*",
         "cta_mask": "uint16_t", "policy": "uint64_t", "byte_mask": "uint16_t",
         **{f"c{i}": "int32_t" for i in range(5)}}
SPACE = {"global": "cuda::ptx::space_global", "shared::cta": "cuda::ptx::space_shared",
         "shared::cluster": "cuda::ptx::space_cluster"}
OPS = {"add": "cuda::ptx::op_add", "min": "cuda::ptx::op_min", "max": "cuda::ptx::op_max", "inc": "cuda::ptx::op_inc",
       "dec": "cuda::ptx::op_dec", "and": "cuda::ptx::op_and_op", "or": "cuda::ptx::op_or_op",
       "xor": "cuda::ptx::op_xor_op"}
# the C++ element type whose pointer selects each .type of cp_reduce_async_bulk
ELEMENT = {"b32": "uint32_t", "u32": "uint32_t", "s32": "int32_t", "b64": "uint64_t", "u64": "uint64_t",
           "s64": "int64_t", "f32": "float", "f64": "double"}
# the cuda::ptx headers the kernels include (not <cuda/ptx>: it pulls in cuda_fp16.h, which the wheels lack)
HEADERS = ("cp_async_bulk", "cp_async_bulk_tensor", "cp_reduce_async_bulk", "cp_reduce_async_bulk_tensor",
           "cp_async_bulk_prefetch", "cp_async_bulk_prefetch_tensor", "cp_async_bulk_commit_group",
           "cp_async_bulk_wait_group", "fence")


def _r(name):
    return (ROLES[name], "%" + name)


def _tag(expr):
    return ("tag", expr)


def _coords(n):
    return ("const int32_t (&)[%d]" % n, "&coords")


def _no_hint(q, fn):
    if q.get("cache_hint"):
        return Unexpressible(f"cuda::ptx::{fn} has no overload with .L2::cache_hint")
    return None


def _bulk(q):
    if q["size_imm"] is not None:
        return Unexpressible("cuda::ptx::cp_async_bulk takes the size as `const uint32_t&` (an \"r\" operand): the "
                             "immediate-size form cannot be written")
    why = _no_hint(q, "cp_async_bulk")
    if why:
        return why
    d, s = q["dst"], q["src"]
    head = [_tag(SPACE[d]), _tag(SPACE[s])]
    if (d, s) == ("global", "shared::cta"):
        if q["cp_mask"]:
            return Spelling("cuda::ptx::cp_async_bulk_cp_mask",
                            tuple(head + [_r("dst"), _r("src"), _r("size"), _r("byte_mask")]))
        return Spelling("cuda::ptx::cp_async_bulk", tuple(head + [_r("dst"), _r("src"), _r("size")]))
    args = head + [_r("dst"), _r("src"), _r("size"), _r("mbar")]
    if q["multicast"]:
        args.append(_r("cta_mask"))
    return Spelling("cuda::ptx::cp_async_bulk", tuple(args))


def _reduce_bulk(q):
    if q["size_imm"] is not None:
        return Unexpressible("cuda::ptx::cp_reduce_async_bulk takes the size as a register operand")
    why = _no_hint(q, "cp_reduce_async_bulk")
    if why:
        return why
    if q["type"] not in ELEMENT:
        return Unexpressible(f"the .{q['type']} overloads of cuda::ptx::cp_reduce_async_bulk take __half / "
                             "__nv_bfloat16 pointers, whose headers (cuda_fp16.h, cuda_bf16.h) the NVRTC and CCCL "
                             "wheels do not carry")
    el = ELEMENT[q["type"]]
    args = [_tag(SPACE[q["dst"]]), _tag(SPACE[q["src"]]), _tag(OPS[q["redop"]]), (el + "*", "%dst"),
            ("const " + el + "*", "%src"), _r("size")]
    if q["dst"] == "shared::cluster":
        args.append(_r("mbar"))
    return Spelling("cuda::ptx::cp_reduce_async_bulk", tuple(args))


def _bulk_prefetch(q):
    if q["size_imm"] is not None:
        return Unexpressible("cuda::ptx::cp_async_bulk_prefetch takes the size as a register operand")
    if not q["cache_hint"]:
        return Unexpressible("cuda::ptx::cp_async_bulk_prefetch always writes .L2::cache_hint (its cache_policy "
                             "has a default): the form without it cannot be written")
    return Spelling("cuda::ptx::cp_async_bulk_prefetch", (_r("src"), _r("size"), _r("policy")))


def _tensor(q):
    mode = q["load_mode"] or "tile"
    why = _no_hint(q, "cp_async_bulk_tensor")
    if why:
        return why
    if mode not in ("tile", "tile::gather4", "tile::scatter4"):
        return Unexpressible(f"cuda::ptx has no cp_async_bulk_tensor overload for .{mode}")
    fn = {"tile": "cp_async_bulk_tensor", "tile::gather4": "cp_async_bulk_tensor_tile_gather4",
          "tile::scatter4": "cp_async_bulk_tensor_tile_scatter4"}[mode]
    head = [_tag(SPACE[q["dst"]]), _tag(SPACE[q["src"]])]
    if q["dst"] == "global":
        return Spelling("cuda::ptx::" + fn, tuple(head + [_r("tmap"), _coords(q["coords"]), _r("src")]))
    if mode == "tile::gather4" and q["dst"] == "shared::cluster" and not q["multicast"]:
        return Unexpressible("cuda::ptx::cp_async_bulk_tensor_tile_gather4 writes a .shared::cluster destination "
                             "only with .multicast::cluster")
    if q["cta_group"]:
        if q["dst"] == "shared::cluster" and not q["multicast"]:
            return Unexpressible("cuda::ptx::cp_async_bulk_tensor has .cta_group only with a .shared::cta "
                                 "destination or with .multicast::cluster")
        head.append(_tag("cuda::ptx::cta_group_" + q["cta_group"][-1]))
    args = head + [_r("dst"), _r("tmap"), _coords(q["coords"]), _r("mbar")]
    if q["multicast"]:
        args.append(_r("cta_mask"))
    return Spelling("cuda::ptx::" + fn, tuple(args))


def _reduce_tensor(q):
    why = _no_hint(q, "cp_reduce_async_bulk_tensor")
    if why:
        return why
    if (q["load_mode"] or "tile") != "tile":
        return Unexpressible(f"cuda::ptx::cp_reduce_async_bulk_tensor has no .{q['load_mode']} overload")
    return Spelling("cuda::ptx::cp_reduce_async_bulk_tensor",
                    (_tag(SPACE["global"]), _tag(SPACE["shared::cta"]), _tag(OPS[q["redop"]]), _r("tmap"),
                     _coords(q["coords"]), _r("src")))


def _prefetch_tensor(q):
    mode = q["load_mode"] or "tile"
    if not q["cache_hint"]:
        return Unexpressible("cuda::ptx::cp_async_bulk_prefetch_tensor always writes .L2::cache_hint")
    fn = {"tile": "cp_async_bulk_prefetch_tensor", "tile::gather4": "cp_async_bulk_prefetch_tensor_tile_gather4"}.get(mode)
    if fn is None:
        return Unexpressible(f"cuda::ptx has no cp_async_bulk_prefetch_tensor overload for .{mode}")
    return Spelling("cuda::ptx::" + fn, (_tag(SPACE["global"]), _r("tmap"), _coords(q["coords"]), _r("policy")))


def _bulk_groups(q):
    i = q["instr"]
    if i == "cp.async.bulk.commit_group":
        return Spelling("cuda::ptx::cp_async_bulk_commit_group")
    if i in ("cp.async.bulk.wait_group", "cp.async.bulk.wait_group.read"):
        fn = "cp_async_bulk_wait_group" + ("_read" if i.endswith(".read") else "")
        return Spelling("cuda::ptx::" + fn, (("tag", f"cuda::ptx::n32_t<{int(q['n'])}>()"),))
    if i == "fence.proxy.async":
        if not q["space"]:
            return Spelling("cuda::ptx::fence_proxy_async")
        return Spelling("cuda::ptx::fence_proxy_async", (_tag(SPACE[q["space"]]),))
    raise MappingError(f"cp.async.bulk.groups: no entry for instruction {i!r}")


def _cp_async(q):
    return Unexpressible("cuda::ptx has no cp.async (non-bulk) function")


def _cp_async_groups(q):
    if q["instr"].startswith("cp.async.mbarrier.arrive"):
        return Unexpressible("cuda::ptx::cp_async_mbarrier_arrive{_noinc} writes the generic-address form "
                             "`cp.async.mbarrier.arrive{.noinc}.b64 [addr]`; the model has the `.shared.b64` forms "
                             "only, and the syntax of the generic one (9.7.13.15) is not in the chapter at hand")
    return Unexpressible(f"cuda::ptx has no function for {q['instr']}")


# family -> the function that spells one form's qualifiers (table.FAMILY_FUNCTIONS)
FAMILIES = family_table(globals())


def spell(form, known=None):
    return spell_form(form, FAMILIES, "cuda::ptx", "CCCL", check)


def check(form_id, s):
    if not s.callee.startswith("cuda::ptx::"):
        raise MappingError(f"{form_id}: callee {s.callee!r} is not a cuda::ptx function")
    for ty, value in s.args:
        if value.startswith("%"):
            role = value[1:]
            if role not in ROLES:
                raise MappingError(f"{form_id}: {s.callee}: operand {value}: role {role!r} is unknown")
        elif value != "&coords" and not value.startswith("cuda::ptx::"):
            raise MappingError(f"{form_id}: {s.callee}: argument {value!r} is neither a role, the coordinates nor "
                               "a cuda::ptx tag")
