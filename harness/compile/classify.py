"""From what the compiler (ptxas, nvJitLink or the driver's JIT) did to the result class of docs/ARCHITECTURE.md
section 3."""
from framework.documents import expectations
from compile import judge
from ptxcts_gen.targets import CHAPTER_PTX

PASS, FAIL, DIVERGENCE, NOT_SUPPORTED, COMPILE_ERROR, CRASH, TIMEOUT, SKIPPED, BEYOND = (
    "pass", "fail", "spec_divergence", "not_supported", "compile_error", "crash", "timeout", "skipped",
    "beyond_chapter")
CLASSES = (PASS, FAIL, COMPILE_ERROR, DIVERGENCE, BEYOND, NOT_SUPPORTED, CRASH, TIMEOUT, SKIPPED)
# Rules about the `.target` line itself (the target does not exist at that PTX version, or was renamed): for a
# case breaking only these, a refused `.target` line is the rejection the case expects. For every other case it
# says nothing about the instruction under test.
TARGET_LINE_RULES = frozenset({"target.not_at_ptx", "target.renamed"})


def _ptx_key(v):
    major, minor = v.split(".")
    return (int(major), int(minor))


def _first(messages, diags):
    if messages:
        return messages[0] + (f" (+{len(messages) - 1} more)" if len(messages) > 1 else "")
    return "; ".join(d["message"] for d in diags) or "no diagnostic"


def classify(case, outcome: judge.Outcome, findings, chapter_ptx=CHAPTER_PTX, compiler="ptxas"):
    """(class, message, harness_error) for one case. compiler names the load path in messages; chapter_ptx is
    the PTX ISA version of the modelled chapter (an invalid case accepted above it is beyond_chapter)."""
    msgs = outcome.messages
    if outcome.verdict == judge.HEADER_REFUSED:
        if not case.valid and set(case.rules) <= TARGET_LINE_RULES:
            return PASS, "rejected (the .target line): " + _first(msgs, outcome.diags), False
        return NOT_SUPPORTED, (f"{compiler} refused the module's .version/.target line, which says nothing about "
                               f"the instruction under test: {_first(msgs, outcome.diags)}"), False
    if outcome.verdict == judge.CRASH:
        return CRASH, outcome.note, False
    if outcome.verdict == judge.TIMEOUT:
        return TIMEOUT, outcome.note, False
    if outcome.verdict == judge.ERROR:
        return FAIL, "harness error: " + outcome.note, True
    warnings = [d["message"] for d in outcome.diags if d["severity"] == "warning"]
    if case.valid:
        if outcome.verdict == judge.ACCEPTED:
            return PASS, ("accepted with warning: " + "; ".join(warnings)) if warnings else "accepted", False
        f, why_not = expectations.lookup(findings, case.id, "rejects", msgs)
        if f is not None:
            f.applied.append(case.id)
            return DIVERGENCE, f.text(), False
        where = ""
        if outcome.frame_errors:
            d = outcome.frame_errors[0]
            where = f" (in the kernel frame, entry line {d['entry_line']}: `{d['text']}`)"
        extra = ("; " + "; ".join(why_not)) if why_not else ""
        return COMPILE_ERROR, f"valid case rejected by {compiler}{where}: {_first(msgs, outcome.diags)}{extra}", False
    # invalid case
    if outcome.verdict == judge.REJECTED:
        if outcome.frame_errors:
            d = outcome.frame_errors[0]
            loc = (f"entry line {d['entry_line']} `{d['text']}`" if d["entry_line"] is not None
                   else "the entry as a whole")
            return FAIL, (f"harness error: ptxas rejected a line that is not the instruction under test "
                          f"({loc}): {d['message']}"), True
        return PASS, "rejected: " + _first(msgs, outcome.diags), False
    f, why_not = expectations.lookup(findings, case.id, "accepts", msgs, case.rules)
    if f is not None:
        f.applied.append(case.id)
        return DIVERGENCE, f.text(), False
    extra = ("; " + "; ".join(why_not)) if why_not else ""
    rules = ",".join(case.rules)
    if _ptx_key(case.ptx) > _ptx_key(chapter_ptx):
        return BEYOND, (f"accepted by {compiler} at PTX ISA {case.ptx}, newer than the modelled chapter (PTX ISA "
                        f"{chapter_ptx}), whose rules it breaks: {rules}"), False
    return FAIL, f"invalid case (rules: {rules}) accepted by {compiler}" + (
        " with warning: " + "; ".join(warnings) if warnings else "") + extra, False
