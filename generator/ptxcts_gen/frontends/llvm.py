"""LLVM's NVPTX back-end (llvm.nvvm.* intrinsics of IntrinsicsNVVM.td, LLVM 22): the intrinsic that selects each
form, its operands and its flag arguments; the forms it cannot select, each with its reason.

Operands are kernel parameters named by role (ROLES gives each its LLVM IR type); flag arguments are constants.
The intrinsic names are checked against the list the LLVM library itself carries (harness/frontend probes it into
toolchains/<front-end>.json): a call to an llvm.nvvm.* name LLVM does not know silently becomes a call of an
external function, so an unknown name is an error of this table, never a verdict.
"""
from . import MappingError, Spelling, Unexpressible
from .table import family_table, spell_form

NAME = "llvm"
# every kernel parameter a spelling may use, with its LLVM IR type (address spaces: 1 global, 3 shared::cta,
# 7 shared::cluster, 0 generic)
ROLES = {
    "dst_cluster": "ptr addrspace(7)", "dst_cta": "ptr addrspace(3)", "src_cta": "ptr addrspace(3)",
    "mbar": "ptr addrspace(3)", "gsrc": "ptr addrspace(1)", "gdst": "ptr addrspace(1)", "size": "i32",
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
    if q["cache_hint"]:
        return Unexpressible("no llvm.nvvm.cp.async.* intrinsic takes a cache-policy operand: .L2::cache_hint "
                             "cannot be selected")
    if q["prefetch"]:
        return Unexpressible(f"no llvm.nvvm.cp.async.* intrinsic spells the prefetch size .{q['prefetch']}")
    if "ignore_src" in q["src_op"]:
        return Unexpressible("no llvm.nvvm.cp.async.* intrinsic has the ignore-src predicate operand")
    # the intrinsics print `.shared`; a `.shared::cta` form is the same instruction by the chapter's
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
        return Spelling(f"llvm.nvvm.{i}.shared", (_role("mbar"),))
    raise MappingError(f"cp.async.groups: no entry for instruction {i!r}")


def _bulk(q):
    if q["size_imm"] is not None:
        return Unexpressible("the intrinsics take the size as an i32 register operand (B32): an immediate size "
                             "is moved into a register, so the immediate-size form cannot be selected")
    dst, src = q["dst"], q["src"]
    hint_op, hint_flag = _hint(q)
    if (dst, src) == ("shared::cta", "global"):
        return Spelling("llvm.nvvm.cp.async.bulk.global.to.shared.cta",
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
    return Unexpressible("LLVM 22 has no llvm.nvvm.cp.reduce.async.bulk.* intrinsic (only the tensor reductions)")


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
    return spell_form(form, FAMILIES, "LLVM intrinsic", "LLVM", lambda form_id, s: check(form_id, s, known))


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
