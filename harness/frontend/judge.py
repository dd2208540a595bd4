"""The verdict on one case from what the front-end wrote and what the paired ptxas said of it.

Valid case (the manifest expects it accepted at its target and PTX version):
  pass      the front-end wrote one instruction of this chapter, it parses (ptxcts_gen.parse) to the case's form,
            and the paired ptxas assembles the module
  fail      the front-end refused it (LLVM ERROR ...), wrote another form (a miscompile), wrote no instruction of
            this chapter or several, or wrote PTX the paired ptxas rejects
  crash     the front-end died (a signal) or ran past the time limit (timeout)
Invalid case (it breaks only target / PTX version requirements, so the front-end can be asked for it):
  pass      the front-end refused it
  fail      it wrote PTX that the paired ptxas rejects ("the front-end emitted invalid PTX"), or both accepted it
            and no reviewed ptxas finding (results/expectations/ptxas.toml) covers the case
  spec_divergence / beyond_chapter   both accepted it, and a reviewed ptxas finding covers it / its PTX version
            is newer than the modelled chapter (as the compile tier classes the same acceptance)
"""
from dataclasses import dataclass, field
from typing import List, Optional

from framework.documents import expectations
from ptxcts_gen.targets import CHAPTER_PTX, ptx_key

from .findings import reviewed as _reviewed

# what the front-end did with one kernel
EMITTED, REFUSED, CRASHED, TIMED_OUT = "emitted", "refused", "crashed", "timeout"


@dataclass
class Emission:
    """The front-end's answer for one kernel: its instructions of this chapter, or its refusal / crash text."""
    status: str
    instructions: List[str] = field(default_factory=list)
    message: str = ""
    alone: bool = False          # compiled in a module of its own (after its batch failed)


@dataclass
class Assembly:
    accepted: bool
    message: str = ""


def judge(case, form_id, emission: Emission, assembly: Optional[Assembly], index, findings, frontend, ptxas_name,
          valid_at=None, fe_findings=()):
    """(class, message, details) of one case. valid_at(form ID, target, ptx): whether a form is valid there (for an
    invalid case written in an equivalent spelling that is valid at its target and PTX version). findings: the
    reviewed ptxas findings; fe_findings: the reviewed front-end findings (harness/frontend/findings.py), which
    turn a covered fail of an invalid case into spec_divergence."""
    details = {"expect": case.expect, "rules": list(case.rules), "frontend_status": emission.status}
    if emission.alone:
        details["alone"] = True
    if emission.status == CRASHED:
        return "crash", f"{frontend} died compiling the case: {emission.message}", details
    if emission.status == TIMED_OUT:
        return "timeout", f"{frontend} ran past the time limit: {emission.message}", details
    if emission.status == REFUSED:
        details["refusal"] = emission.message
        if case.valid:
            reviewed = _reviewed(fe_findings, frontend, case.id, "refuses_valid")
            if reviewed:
                return "spec_divergence", f"{frontend} refused a valid case: {emission.message}: {reviewed}", details
            return "fail", f"{frontend} refused a valid case: {emission.message}", details
        return "pass", f"refused: {emission.message}", details
    details["emitted"] = emission.instructions
    if len(emission.instructions) != 1:
        what = "no instruction of this chapter" if not emission.instructions else \
            f"{len(emission.instructions)} instructions of this chapter"
        return "fail", f"{frontend} wrote {what} for the case's one instruction", details
    text = emission.instructions[0]
    same, parsed = index.same_form(form_id, text)
    literal = index.parse_literal(text)
    rules = index.rules_between(form_id, text)
    details["parsed_forms"] = list(parsed.forms)
    if rules:
        details["normalisations"] = list(rules)
    if assembly is not None:
        details["ptxas"] = "accepted" if assembly.accepted else "rejected"
        if not assembly.accepted:
            details["ptxas_message"] = assembly.message
    if case.valid:
        if not same:
            where = (f"form {', '.join(parsed.forms)}" if parsed.forms else
                     f"no form of the model (key {parsed.key.text()})")
            return "fail", f"miscompile: {frontend} wrote `{text}`, which is {where}, not {form_id}", details
        if assembly is not None and not assembly.accepted:
            # the module is rejected for a line the front-end wrote beside the instruction (an mbarrier of a later
            # PTX version): a reviewed emits_invalid_ptx finding covers a valid case too
            reviewed = _reviewed(fe_findings, frontend, case.id, "emits_invalid_ptx")
            if reviewed:
                return "spec_divergence", f"{ptxas_name} rejects the PTX {frontend} wrote: {reviewed}", details
            return "fail", f"{ptxas_name} rejects the PTX {frontend} wrote (`{text}`): {assembly.message}", details
        return "pass", "same form" + (f" (by {', '.join(rules)})" if rules else "") + \
            f"; {ptxas_name} assembles it", details
    # invalid case: the front-end should have refused it, or written a spelling that is valid where this one is not
    legal = [f for f in literal.forms if valid_at and valid_at(f, case.target, case.ptx)]
    if legal and (assembly is None or assembly.accepted):
        return "pass", (f"wrote `{text}`, which is form {legal[0]}, valid at {case.target} / PTX {case.ptx}: the "
                        f"same instruction in a spelling valid there (by {', '.join(parsed.rules) or 'qualifier_order'})"), \
            details
    if assembly is not None and not assembly.accepted:
        reviewed = _reviewed(fe_findings, frontend, case.id, "emits_invalid_ptx")
        if reviewed:
            return "spec_divergence", f"{frontend} wrote `{text}`, which {ptxas_name} rejects: {reviewed}", details
        return "fail", (f"the front-end emitted invalid PTX: {frontend} wrote `{text}` for a case invalid at "
                        f"{case.target} / PTX {case.ptx} (rules {','.join(case.rules)}), and {ptxas_name} rejects "
                        f"it: {assembly.message}"), details
    f, _ = expectations.lookup(findings, case.id, "accepts", [], case.rules)
    if f is not None:
        return "spec_divergence", f"{frontend} and {ptxas_name} both accept it: {f.text()}", details
    if ptx_key(case.ptx) > ptx_key(CHAPTER_PTX):
        return "beyond_chapter", (f"{frontend} and {ptxas_name} accept it at PTX ISA {case.ptx}, newer than the "
                                  f"modelled chapter ({CHAPTER_PTX})"), details
    reviewed = _reviewed(fe_findings, frontend, case.id, "both_accept")
    if reviewed:
        return "spec_divergence", f"{frontend} and {ptxas_name} both accept it: {reviewed}", details
    return "fail", (f"{frontend} wrote `{text}` for a case invalid at {case.target} / PTX {case.ptx} (rules "
                    f"{','.join(case.rules)}) and {ptxas_name} accepts it"), details

