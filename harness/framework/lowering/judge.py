"""Judging one form's lowering by the rules of ptxcts_gen.lowering: pass, fail (a rule contradicted, or the
instruction not found at its line) or unruled (nothing contradicted, but a part of the lowering no rule
decides: a modifier, or a core instruction no rule expects)."""
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

from framework.lowering import key as keymod
from framework.toolchains.sass import Instr
from ptxcts_gen.lowering import KNOWN_MODIFIERS, MEANINGFUL_ELSEWHERE, SOFTWARE_CALL, rules_for

PASS, FAIL, UNRULED = "pass", "fail", "unruled"


@dataclass
class Verdict:
    cls: str
    key: str
    frame: str
    rules: List[str]
    failed: List[str] = field(default_factory=list)       # "rule: why"
    unexplained: List[str] = field(default_factory=list)

    @property
    def message(self):
        if self.cls == FAIL:
            return "; ".join(self.failed)
        if self.cls == UNRULED:
            return "no rule decides: " + ", ".join(self.unexplained)
        return ""


def _runs(mnemonic: str) -> List[str]:
    return mnemonic.split(".")[1:]


def _has_run(tokens: List[str], run: str) -> bool:
    if "." not in run:   # most runs are one modifier
        return run in tokens
    want = run.split(".")
    n = len(want)
    return any(tokens[i:i + n] == want for i in range(len(tokens) - n + 1))


def _run_positions(tokens: List[str], run: str):
    want = run.split(".")
    n = len(want)
    for i in range(len(tokens) - n + 1):
        if tokens[i:i + n] == want:
            return set(range(i, i + n))
    return set()


def _is_pred(op: str) -> bool:
    return op.lstrip("!") in ("PT", "UPT") or keymod._PRED.fullmatch(op.lstrip("!")) is not None


def _matches(expected: str, i: Instr) -> bool:
    """A sequence entry: the mnemonic alone, or the mnemonic and the abstracted operands."""
    return expected == i.mnemonic if " " not in expected else expected == keymod.core_text(i)


def _sequence_holds(d, core) -> bool:
    """The core instructions are the demanded sequence: exactly, or with instructions of d.extra added."""
    if not d.extra:
        return len(core) == len(d.sequence) and all(_matches(e, i) for e, i in zip(d.sequence, core))
    want = list(d.sequence)
    for i in core:
        if want and _matches(want[0], i):
            want.pop(0)
        elif i.mnemonic not in d.extra:
            return False
    return not want


def _place(d, core, around) -> Optional[str]:
    """Why the instruction's SASS (core) is not between the generic write of the line before it and the
    async-proxy operation of the line after it (a Demand's `between`), or None."""
    writes = [i for i in around["before"] if i.opcode in d.between[0]]
    ops = [i for i in around["after"] if i.opcode in d.between[1]]
    before, after = around.get("lines") or ("", "")
    if not writes:
        return f"no generic write ({'/'.join(d.between[0])}) at the line before it ({before or 'none in the kernel'})"
    if not ops:
        return (f"no async-proxy operation ({'/'.join(d.between[1])}) at the line after it "
                f"({after or 'none in the kernel'})")
    lo, hi = min(i.addr for i in core), max(i.addr for i in core)
    w = max(writes, key=lambda i: i.addr)
    o = min(ops, key=lambda i: i.addr)
    if w.addr > lo:
        return (f"{w.mnemonic} of the generic write before it ({before}) at 0x{w.addr:04x} comes after its "
                f"{core[0].mnemonic} at 0x{lo:04x}: moved above the write it orders")
    if o.addr < hi:
        return (f"{o.mnemonic} of the operation after it ({after}) at 0x{o.addr:04x} comes before its "
                f"{core[-1].mnemonic} at 0x{hi:04x}: moved past the operation it orders the write before")
    return None


def judge(form: dict, instrs: Sequence[Instr], line_text: str = "", target=None, applied=None,
          around=None) -> Verdict:
    """The verdict on the instructions at a form's test line; target: the target it was assembled for (rules
    that depend on the target's hardware read it; None: every hardware feature the form names). applied: the
    form's rules_for(form, target), when the caller judges many lowerings of one form (the self-test's mutants).
    around: the SASS of the lines a Demand's `between` speaks of ({"before": [Instr], "after": [Instr], "lines":
    [PTX, PTX]}, the lowering tier's record); None: the place is not judged (a lowering recorded without it)."""
    applied = rules_for(form, target) if applied is None else applied
    key, frame = keymod.reduce(instrs)
    v = Verdict(PASS, key, frame, [r.name for r, _ in applied])
    core = [i for i in instrs if keymod.kind(i) == "core"]
    if not instrs:
        v.cls = FAIL
        v.failed.append("not located: nvdisasm attributes no SASS instruction to the instruction's PTX line"
                        + (f" ({line_text})" if line_text else ""))
        return v
    explained = set()                 # (index of core instruction, token index) decided by some rule
    whole = set()                     # indexes of core instructions a rule accounts for
    entire = set()                    # ... with every modifier (a CALL of a software path)
    for rule, d in applied:
        if d.between and around is not None and core:
            why = _place(d, core, around)
            if why:
                v.failed.append(f"{rule.name}: {why}")
        if d.sequence is not None:
            got = tuple(keymod.core_text(i) for i in core)
            if not _sequence_holds(d, core):
                v.failed.append(f"{rule.name}: expected {' ; '.join(d.sequence)}, found {' ; '.join(got) or 'nothing'}")
            whole.update(range(len(core)))
            continue
        idx = [n for n, i in enumerate(core) if i.opcode == d.opcode]
        if d.count is not None and len(idx) != d.count:
            v.failed.append(f"{rule.name}: expected {d.count} {d.opcode}, found {len(idx)}")
            continue
        if not idx:
            v.failed.append(f"{rule.name}: no {d.opcode}")
            continue
        n = idx[0]
        p = core[n]
        toks = _runs(p.mnemonic)
        for run in d.has:
            if not _has_run(toks, run):
                v.failed.append(f"{rule.name}: {p.mnemonic} lacks .{run}")
            else:
                explained.update((n, t) for t in _run_positions(toks, run))
        for run in d.lacks:
            if _has_run(toks, run):
                v.failed.append(f"{rule.name}: {p.mnemonic} has .{run}")
        if d.one_of:
            found = [run for run in d.one_of if _has_run(toks, run)]
            if len(found) != 1:
                v.failed.append(f"{rule.name}: {p.mnemonic} has " + (" and ".join(f".{r}" for r in found) or "none")
                                + f" of {' / '.join('.' + r for r in d.one_of)}, expected one")
            for run in found:
                explained.update((n, t) for t in _run_positions(toks, run))
        if d.call:
            if _has_run(toks, d.hardware):
                explained.update((n, t) for t in _run_positions(toks, d.hardware))
            else:
                calls = [k for k, i in enumerate(core) if i.opcode == "CALL"]
                if not calls:
                    v.failed.append(f"{rule.name}: {p.mnemonic} without .{d.hardware} and no CALL (software path): "
                                    f"the multicast is dropped")
                elif [core[k].mnemonic for k in calls] != [SOFTWARE_CALL]:
                    v.failed.append(f"{rule.name}: the software path is one {SOFTWARE_CALL}, found "
                                    f"{' ; '.join(core[k].mnemonic for k in calls)}")
                whole.update(calls)
                entire.update(calls)
        ops = keymod.split_operands(p)
        last = ops[-1] if ops else ""
        if d.tail == "desc" and not last.startswith("desc["):
            v.failed.append(f"{rule.name}: {p.mnemonic}: no cache-policy operand desc[...] last")
        elif d.tail == "nodesc" and any(o.startswith("desc[") for o in ops):
            v.failed.append(f"{rule.name}: {p.mnemonic}: a cache-policy operand desc[...] without .L2::cache_hint")
        elif d.tail == "pred" and not _is_pred(last):
            v.failed.append(f"{rule.name}: {p.mnemonic}: no ignore-src predicate operand last")
        elif d.tail == "plain" and _is_pred(last):
            v.failed.append(f"{rule.name}: {p.mnemonic}: a predicate operand {last} without ignore-src")
        whole.add(n)
    if v.failed:
        v.cls = FAIL
        return v
    seq_rule = any(d.sequence is not None for _, d in applied)
    for n, i in enumerate(core):
        if n not in whole:
            v.unexplained.append(f"instruction {i.mnemonic}")
        elif not seq_rule and n not in entire:
            toks = _runs(i.mnemonic)
            v.unexplained += [f"{i.mnemonic}: .{tok}" for t, tok in enumerate(toks) if (n, t) not in explained]
    # a modifier with a meaning elsewhere, decided by no rule of this form: a contradiction, not a gap
    known = [u for u in v.unexplained if ": ." in u and u.rsplit(": .", 1)[1] in KNOWN_MODIFIERS]
    if known:
        v.failed += [f"{MEANINGFUL_ELSEWHERE.name}: {u.replace(': .', ' has .')}, which no rule of this form demands"
                     for u in known]
        v.rules.append(MEANINGFUL_ELSEWHERE.name)
        v.cls = FAIL
        return v
    if not applied:
        v.unexplained.insert(0, f"family {form['family']} (no lowering rule concerns it)")
    if v.unexplained:
        v.cls = UNRULED
    return v
