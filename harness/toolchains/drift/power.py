"""`./ptxcts toolchains drift NAME --power`: the drift detector's own power, measured as the self-test measures the
run tier. Each qualifier of the model is hidden in turn (spelling.Model.hiding: a test double of the vocabulary that
never heard of it, its token not put back into the candidate pool) and drift runs on the families that use it; the
spellings with it that the detector sees knowing the model (the run with the whole vocabulary: verdict modelled or
model_rejects) must come back as spellings the model does not know (unknown, reordered, or listed in
results/expectations/drift.toml). Per qualifier: the spellings expected, those rediscovered, the rate, and for one
not wholly rediscovered the reason (power_reason)."""
import io
import sys
import time

from .candidates import CONTROL, candidates
from .ptxas import token_pool
from .run import run
from .spelling import Model, split

SEEN = ("modelled", "model_rejects")                          # what the detector sees of the model's spellings
NEW = ("unknown", "reordered", "listed", "reordered_listed")  # what it reports as not the model's


def _uses(report, token):
    """{(family, spelling)} of the report's accepted rows whose qualifiers include token."""
    return {(r["family"], r["spelling"]) for r in report["spellings"] if token in split(r["spelling"])[1]}


def power_reason(token, hidden, ptxas, expected, found, report=None):
    """Why the detector did not rediscover every spelling with `token` (None when it did): the token is not in the
    candidate pool, or a missed spelling is no candidate (more than one edit from every seed of the hidden model:
    candidates.candidates inserts, replaces or swaps one token), or it is a candidate ptxas did not accept as
    written (the seed's operands, or one extra register: not the operands its qualifier brings)."""
    if not expected:
        return "no spelling with it is seen even knowing the model (the candidates at these targets grow none)"
    if found >= expected:
        return None
    if token not in token_pool(hidden, ptxas):
        return ("not in the candidate pool once hidden: in no other family's vocabulary, not among the ptxas "
                "binary's modifier strings, and not one ::component away from a known token")
    report = report or {"ignored_tokens": (), "families": {}}
    if token in report["ignored_tokens"]:
        return (f"ptxas takes it even on {CONTROL}, which has no qualifier (an inert token, candidates.inert_tokens): the "
                "detector reports such a token once as ignored by ptxas, never as a qualifier the model lacks")
    missed = expected - found
    dropped = sorted({f for f, _ in missed if token not in report["families"].get(f, {}).get("kept", (token,))})
    if dropped:
        return (f"in the candidate pool, but the family probe (candidates.family_tokens) drops it for "
                f"{', '.join(dropped)}: ptxas refuses it beside the first seed's qualifiers, at their end and "
                "front, and with one extra register operand (a second value of an axis the seed has, a qualifier "
                "that needs another one or more than one operand), so no candidate has it")
    cands = {(family, opcode, quals) for family in {f for f, _ in missed}
             for opcode, quals, _ in candidates(hidden, family, [token])}
    far = {m for m in missed if (m[0],) + split(m[1])[:2] not in cands}
    parts = []
    if far:
        parts.append(f"{len(far)} missed spelling(s) are more than one edit (insert, replace, swap) from every seed "
                     f"of the hidden model, e.g. {sorted(far)[0][1]}")
    if missed - far:
        parts.append(f"{len(missed - far)} are candidates ptxas did not accept as written (the seed's operands or one "
                     f"extra register, not the operands the qualifier brings), e.g. {sorted(missed - far)[0][1]}")
    return "in the candidate pool, but " + "; ".join(parts)


def run_power(tc, families, targets, tokens, jobs, log=sys.stderr):
    """{'toolchain', 'targets', 'qualifiers': [{qualifier, families, expected, rediscovered, rate, reason,
    seconds}], 'expected', 'rediscovered', 'rate', 'seconds'}."""
    t0 = time.monotonic()
    base = Model(families)
    full = run(tc, families, targets, jobs=jobs, log=log, model=base)
    seen = {(r["family"], r["spelling"]) for r in full["spellings"] if r["verdict"] in SEEN}
    vocabulary = base.vocabulary()
    for t in tokens or ():
        if t not in vocabulary:
            from framework.toolchains import ToolchainError
            raise ToolchainError(f"--qualifier {t}: not a qualifier of the model's vocabulary (of the families asked "
                                 f"for): {' '.join(vocabulary)}")
    rows = []
    todo = list(tokens or vocabulary)
    for n, token in enumerate(todo, 1):
        t1 = time.monotonic()
        fams = [f for f, fam in base.families.items() if any(token in q for _, q in fam["spellings"])]
        expected = _uses({"spellings": [r for r in full["spellings"] if (r["family"], r["spelling"]) in seen]}, token)
        hidden = base.hiding([token], fams)
        if any(fam["seeds"] for fam in hidden.families.values()):
            report = run(tc, fams, targets, jobs=jobs, log=_Quiet(), model=hidden)
            found = {(r["family"], r["spelling"]) for r in report["spellings"]
                     if r["verdict"] in NEW and token in split(r["spelling"])[1]}
            rediscovered = expected & found
            reason = power_reason(token, hidden, tc.ptxas, expected, rediscovered, report)
        else:
            found = rediscovered = set()
            reason = ("every valid spelling of its families has it: once hidden, no seed is left to grow candidates "
                      "from (a family that is new as a whole is the candidates' blind spot)") if expected else \
                power_reason(token, hidden, tc.ptxas, expected, found)
        rows.append({"qualifier": token, "families": fams, "expected": len(expected),
                     "rediscovered": len(rediscovered), "also_new": len(found - expected),
                     "rate": round(len(rediscovered) / len(expected), 4) if expected else None,
                     "reason": reason, "seconds": round(time.monotonic() - t1, 1)})
        log.write(f"drift --power: {n}/{len(todo)} {token}: {len(rediscovered)} of {len(expected)} rediscovered "
                  f"({time.monotonic() - t0:.0f} s elapsed, about "
                  f"{(time.monotonic() - t0) / n * (len(todo) - n):.0f} s left)\n")
    exp = sum(r["expected"] for r in rows)
    red = sum(r["rediscovered"] for r in rows)
    return {"toolchain": tc.name, "ptxas_version": tc.description.get("ptxas_version"), "targets": full["targets"],
            "qualifiers": rows, "expected": exp, "rediscovered": red, "rate": round(red / exp, 4) if exp else None,
            "seconds": round(time.monotonic() - t0, 1)}


class _Quiet(io.StringIO):
    """The inner runs' progress, dropped: one line per qualifier is shown instead."""

    def write(self, _):
        return 0


def summary_power(report, out=sys.stdout):
    """One line per qualifier, the totals, each reason; exit 0 when every expected spelling is rediscovered, else 1."""
    out.write(f"drift power on toolchain {report['toolchain']} (ptxas {report['ptxas_version']}), targets "
              f"{', '.join(report['targets'])}: each qualifier hidden in turn\n")
    w = max([9] + [len(r["qualifier"]) for r in report["qualifiers"]]) + 2
    out.write(f"{'qualifier':<{w}}{'expected':>10}{'rediscovered':>14}{'rate':>8}{'seconds':>9}\n")
    for r in report["qualifiers"]:
        rate = "-" if r["rate"] is None else f"{100 * r['rate']:.1f}%"
        out.write(f"{r['qualifier']:<{w}}{r['expected']:>10}{r['rediscovered']:>14}{rate:>8}{r['seconds']:>9}\n")
    total = "-" if report["rate"] is None else f"{100 * report['rate']:.1f}%"
    found = sum(1 for r in report["qualifiers"] if r["rediscovered"])
    out.write(f"{'total':<{w}}{report['expected']:>10}{report['rediscovered']:>14}{total:>8}{report['seconds']:>9}\n")
    out.write(f"qualifiers rediscovered at least once: {found} of {len(report['qualifiers'])}\n")
    missed = [r for r in report["qualifiers"] if r["reason"]]
    for r in missed:
        out.write(f"  {r['qualifier']}: {r['reason']}\n")
    return 1 if any(r["rediscovered"] < r["expected"] for r in report["qualifiers"]) else 0
