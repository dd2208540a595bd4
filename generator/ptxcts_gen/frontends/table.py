"""What the mapping modules (cccl, llvm) share: the families each spells, the model's qualifier vocabulary each
decides on, and spelling one form through its tables.

A mapping module defines one function per family, named as FAMILY_FUNCTIONS says (each takes the form's
qualifiers and returns a Spelling or an Unexpressible); family_table gathers them into the module's FAMILIES.
It also defines QUALIFIERS, its decision for every (family, qualifier, value) of vocabulary(): Written (how it
writes the value) or Unexpressible (why it cannot). spell_form asks QUALIFIERS first, so a value the front-end
cannot write is refused with its own reason whatever the family's function would do.
"""
import functools

from . import MappingError, Spelling, Unexpressible, Written, rule_invalid_reason

# family -> the name of the function that spells one form's qualifiers, in every mapping module
FAMILY_FUNCTIONS = {
    "cp.async": "_cp_async", "cp.async.groups": "_cp_async_groups", "cp.async.bulk": "_bulk",
    "cp.reduce.async.bulk": "_reduce_bulk", "cp.async.bulk.prefetch": "_bulk_prefetch",
    "cp.async.bulk.tensor": "_tensor", "cp.reduce.async.bulk.tensor": "_reduce_tensor",
    "cp.async.bulk.prefetch.tensor": "_prefetch_tensor", "cp.async.bulk.groups": "_bulk_groups",
}

# the keys of a form's qualifier dict (isa/<family>.py DEFAULTS) that are not qualifiers of the instruction: the
# state spaces and completion mechanism derived from `dir`, operands and their shapes (cache policy, byte mask,
# immediate size, [mbar], coordinate and im2colInfo counts, wait_group's N) and the run tier's kernel flows
NOT_QUALIFIERS = frozenset({"dst", "src", "completion", "policy", "byte_mask", "size_imm", "mbar_operand", "coords",
                            "im2col_info", "n", "n_operand", "flow"})

# the qualifier values only forms breaking a form rule of the chapter carry (model.vocabulary_forms: no valid form
# has them), with the rule: no front-end is asked for them (rule_invalid_reason), so every mapping gives this
# reason (ruled_out())
RULED_OUT = {
    ("cp.async", "cp_size", 2): "cp_async.cp_size_values", ("cp.async", "cp_size", 32): "cp_async.cp_size_values",
    ("cp.async", "prefetch", "L2::512B"): "cp_async.prefetch_size_values",
    ("cp.async", "space", "shared::cluster"): "cp_async.dst_shared_cta",
    ("cp.async", "src_op", "src_size+ignore_src"): "cp_async.src_size_or_ignore_src",
    ("cp.async.bulk", "dir", "global.global"): "bulk.direction",
    ("cp.reduce.async.bulk", "dir", "shared::cluster.global"): "reduce_bulk.direction",
    ("cp.reduce.async.bulk", "type", "b4x16"): "reduce_bulk.no_packed_types",
    ("cp.reduce.async.bulk", "type", "b6x16_p32"): "reduce_bulk.no_packed_types",
    ("cp.async.bulk.tensor", "dir", "shared::cluster.shared::cta"): "tensor.direction",
    ("cp.reduce.async.bulk.tensor", "dir", "shared::cluster.global"): "reduce_tensor.direction",
    ("cp.reduce.async.bulk.tensor", "load_mode", "im2col"): "reduce_tensor.load_mode",
    ("cp.reduce.async.bulk.tensor", "load_mode", "im2col::w"): "reduce_tensor.load_mode",
    ("cp.reduce.async.bulk.tensor", "load_mode", "tile::gather4"): "reduce_tensor.load_mode",
    ("cp.reduce.async.bulk.tensor", "load_mode", "tile::scatter4"): "reduce_tensor.load_mode",
    ("cp.async.bulk.prefetch.tensor", "load_mode", "im2col_no_offs"): "prefetch_tensor.load_mode",
    ("cp.async.bulk.prefetch.tensor", "load_mode", "tile::scatter4"): "prefetch_tensor.load_mode",
    ("cp.async.bulk.groups", "instr", "cp.async.bulk.wait_group.read.sync_restrict::proxy::async"):
        "bulk.wait_group_sync_restrict_not_read",
}


def family_table(namespace):
    """{family: function} from a mapping module's globals(), one function per entry of FAMILY_FUNCTIONS."""
    return {family: namespace[fn] for family, fn in FAMILY_FUNCTIONS.items()}


def ruled_out():
    """The decisions of RULED_OUT, the same in every mapping."""
    return {k: Unexpressible(f"no valid form of the model has it: every form with it breaks the chapter's rule "
                             f"{rule}, which no front-end call can state") for k, rule in RULED_OUT.items()}


def qualifiers_of(family, quals):
    """The (family, qualifier, value) triples of one form's qualifier dict, in its key order."""
    return [(family, k, v) for k, v in quals.items() if k not in NOT_QUALIFIERS]


@functools.lru_cache(maxsize=None)
def vocabulary():
    """Every (family, qualifier, value) of the model's vocabulary (model.vocabulary_forms: every combination of
    the families' axes, extension axes and explicit forms), the qualifiers each mapping's QUALIFIERS decides."""
    from .. import isa
    from ..model import vocabulary_forms
    out = set()
    for mod in isa.families():
        for f in vocabulary_forms(mod):
            out.update(qualifiers_of(mod.FAMILY, f.quals))
    return frozenset(out)


def spell_form(form, families, qualifiers, frontend, mapping, check):
    """The Spelling of a form by the tables, or Unexpressible with the reason: first the rules' verdict
    (rule_invalid_reason, naming frontend), then the decision on each of its qualifier values (qualifiers: the
    mapping's QUALIFIERS; the first Unexpressible one is the reason), then the family's function;
    check(form_id, spelling) raises MappingError on a malformed spelling. A family outside the table, or a
    qualifier value without a decision, is a MappingError naming mapping."""
    why = rule_invalid_reason(form, frontend)
    if why:
        return why
    for key in qualifiers_of(form.family, form.quals):
        d = qualifiers.get(key)
        if d is None:
            raise MappingError(f"{form.id}: the {mapping} mapping has no decision for qualifier {key[1]} = "
                               f"{key[2]!r} of {key[0]} (its QUALIFIERS)")
        if isinstance(d, Unexpressible):
            return d
        if not isinstance(d, Written):
            raise MappingError(f"{form.id}: the {mapping} mapping's decision for {key[1]} = {key[2]!r} is neither "
                               "Written nor Unexpressible")
    fn = families.get(form.family)
    if fn is None:
        raise MappingError(f"{form.id}: the {mapping} mapping has no entry for family {form.family!r}")
    s = fn(form.quals)
    if isinstance(s, Spelling):
        check(form.id, s)
    return s


# The qualifier values of the PTX ISA 9.4 forms modelled last (docs/EXTENDING.md, "PTX ISA 9.x"): the override
# qualifiers, .im2col_no_offs::w and the state space of cp.async.mbarrier.arrive. Each mapping decides every present
# value itself (QUALIFIERS); their absence is written as before, which absent_94 states once for all of them.
TENSOR_FAMILIES = ("cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor", "cp.async.bulk.prefetch.tensor")
# the present values of the PTX ISA 9.4 tensor qualifiers: (family, qualifier, value)
OVERRIDE_94 = tuple((fam, k, v) for fam in TENSOR_FAMILIES
                    for k, v in (("ovr_addr", True), ("ovr_attr", "global_dim"), ("ovr_attr", "global_dim_stride")))
NO_OFFS_W_94 = tuple((fam, "load_mode", "im2col_no_offs::w")
                     for fam in ("cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor"))


def spelling_94(k, v):
    """The PTX spelling of one present value of OVERRIDE_94 or NO_OFFS_W_94 (qualifier k, value v)."""
    if k == "ovr_addr":
        return ".override::global_address"
    return f".override::{v}" if k == "ovr_attr" else f".{v}"


def absent_94(qualifiers):
    """The decisions on the absent PTX ISA 9.4 tensor qualifiers that `qualifiers` (a mapping's QUALIFIERS) lacks:
    Written (nothing), or, in a family the mapping refuses whole (every decision Unexpressible), its reason."""
    def absent(fam, text):
        # the family's own decisions (not those of RULED_OUT, which every mapping shares)
        ds = [d for key, d in qualifiers.items() if key[0] == fam and key not in RULED_OUT]
        if ds and all(isinstance(d, Unexpressible) for d in ds):
            return ds[0]
        return Written(text)
    out = {}
    for fam in TENSOR_FAMILIES:
        out[(fam, "ovr_addr", False)] = absent(fam, "nothing: no .override::global_address")
        out[(fam, "ovr_attr", "")] = absent(fam, "nothing: no .override::global_dim{_stride}")
    return {k: v for k, v in out.items() if k not in qualifiers}
