"""From what ptxas did to the result class of docs/ARCHITECTURE.md section 3."""
from compile import expectations, judge

PASS, FAIL, DIVERGENCE, NOT_SUPPORTED, COMPILE_ERROR, CRASH, TIMEOUT, SKIPPED = (
    "pass", "fail", "spec_divergence", "not_supported", "compile_error", "crash", "timeout", "skipped")
CLASSES = (PASS, FAIL, COMPILE_ERROR, DIVERGENCE, NOT_SUPPORTED, CRASH, TIMEOUT, SKIPPED)


def _first(messages, diags):
    if messages:
        return messages[0] + (f" (+{len(messages) - 1} more)" if len(messages) > 1 else "")
    return "; ".join(d["message"] for d in diags) or "no diagnostic"


def classify(case, outcome: judge.Outcome, findings):
    """(class, message, harness_error) for one case."""
    msgs = outcome.messages
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
        return COMPILE_ERROR, f"valid case rejected by ptxas{where}: {_first(msgs, outcome.diags)}{extra}", False
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
    return FAIL, f"invalid case (rules: {rules}) accepted by ptxas" + (
        " with warning: " + "; ".join(warnings) if warnings else "") + extra, False
