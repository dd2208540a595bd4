"""What the mapping modules (cccl, llvm) share: the families each spells, and spelling one form through its table.

A mapping module defines one function per family, named as FAMILY_FUNCTIONS says (each takes the form's
qualifiers and returns a Spelling or an Unexpressible); family_table gathers them into the module's FAMILIES.
"""
from ..targets import CHAPTER_PTX, ptx_key
from . import MappingError, Spelling, Unexpressible, rule_invalid_reason

# family -> the name of the function that spells one form's qualifiers, in every mapping module
FAMILY_FUNCTIONS = {
    "cp.async": "_cp_async", "cp.async.groups": "_cp_async_groups", "cp.async.bulk": "_bulk",
    "cp.reduce.async.bulk": "_reduce_bulk", "cp.async.bulk.prefetch": "_bulk_prefetch",
    "cp.async.bulk.tensor": "_tensor", "cp.reduce.async.bulk.tensor": "_reduce_tensor",
    "cp.async.bulk.prefetch.tensor": "_prefetch_tensor", "cp.async.bulk.groups": "_bulk_groups",
}


def family_table(namespace):
    """{family: function} from a mapping module's globals(), one function per entry of FAMILY_FUNCTIONS."""
    return {family: namespace[fn] for family, fn in FAMILY_FUNCTIONS.items()}


def spell_form(form, families, frontend, mapping, check):
    """The Spelling of a form by the table families, or Unexpressible with the reason: first the rules' verdict
    (rule_invalid_reason, naming frontend), then a form of a PTX ISA version after the chapter's (not mapped yet),
    then the family's function; check(form_id, spelling) raises
    MappingError on a malformed spelling. A family outside the table is a MappingError naming mapping."""
    why = rule_invalid_reason(form, frontend)
    if why:
        return why
    if ptx_key(form.min_ptx) > ptx_key(CHAPTER_PTX):
        # the qualifiers of a later PTX ISA version (the model's extension axes): the family functions spell the
        # chapter's qualifiers and would drop these silently, so the form is not asked of the front-end
        return Unexpressible(f"the {mapping} mapping spells the forms of the modelled chapter (PTX ISA {CHAPTER_PTX}); "
                             f"this form needs PTX ISA {form.min_ptx}, whose qualifiers it does not map yet")
    fn = families.get(form.family)
    if fn is None:
        raise MappingError(f"{form.id}: the {mapping} mapping has no entry for family {form.family!r}")
    s = fn(form.quals)
    if isinstance(s, Spelling):
        check(form.id, s)
    return s
