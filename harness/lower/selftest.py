"""The tier's power: faults planted into the SASS each form lowered to, judged again; a fault is killed when the
verdict becomes fail. The faults are derived from the rules that concern the form, so that every fact a rule
checks is attacked, and from the shape of the lowering itself:

* drop RULE: a modifier run the rule demands is removed (.MULTICAST, .ZFILL, .3D, .S.G ...);
* swap RULE: that run replaced by each other member of the rule's alphabet (.MIN -> .MAX, .3D -> .2D, .S.G ->
  .G.S, .64 -> .128, .LTC64B -> .LTC256B ...); a choice among several (`Demand.one_of`: the SASS scope of a
  .relaxed.scope, at least the form's) dropped, or narrowed to a scope the rule does not allow (.STRONG.GPU ->
  .STRONG.SM for .relaxed.gpu);
* add RULE: a run the rule forbids is appended (.MULTICAST on a form without multicast::cluster, .BYPASS on .ca);
* drop operand: the cache-policy operand desc[...] removed (cache_hint), or added (no cache_hint); the
  ignore-src predicate removed;
* drop instruction: each core instruction of the lowering removed in turn (CCTL.IVALL of a bulk wait_group,
  FENCE.VIEW.ASYNC of fence.proxy.async: the early return silicon does not see);
* duplicate: the principal instruction issued twice;
* wait count: the DEPBAR.LE count of a wait_group changed;
* elide: every instruction at the line removed (ptxas dropped the instruction).
A drop or duplicate that touches only an instruction a sequence rule declares harmless (`Demand.extra`: a further
MEMBAR before the proxy fence) and still passes is an equivalent mutant: counted apart, not in the kill rate.
Two kinds are blind to the rules, to measure what the rules do not know:
* opcode swap: the principal opcode replaced by the family's sibling (UTMALDG <-> UTMASTG, UBLKCP <-> UBLKRED,
  UTMAPF <-> UBLKPF, UTMAREDG -> UTMASTG, LDGSTS -> LDG);
* foreign modifier: a modifier that occurs in the lowering of some other form, appended to this form's principal
  instruction where no rule of this form decides it; the expected verdict is `unruled` (a part of the lowering no
  rule decides, reported so that a rule gets written), which is detected but not killed.
"""
import concurrent.futures as cf
import multiprocessing
import re
import signal
import sys
from collections import Counter, defaultdict

from framework.lowering import judge as judgemod
from framework.lowering import key as keymod
from lower.records import instrs_of
from framework.toolchains.sass import Instr
from ptxcts_gen.lowering import rules_for, rules as rulesmod

MAX_SURVIVORS = 200   # the surviving mutants kept in the report, in form order

ALPHABETS = {
    "tensor.rank": rulesmod.RANKS, "tensor.load_mode": rulesmod.LOAD_MODE_TOKENS, "bulk.direction":
    rulesmod.DIRECTION_TOKENS, "reduce.operation": rulesmod.REDOPS, "reduce.type": rulesmod.RED_TYPE_TOKENS,
    "cp.async.cp_size": ("64", "128"), "cp.async.prefetch_size": rulesmod.PREFETCH_TOKENS,
}


def _with_mnemonic(i, mnemonic):
    body = f"{mnemonic} {i.operands}".strip()
    return Instr(i.addr, f"{i.guard} {body}" if i.guard else body, i.ptx_line)


def _with_operands(i, ops):
    body = f"{i.mnemonic} {', '.join(ops)}".strip()
    return Instr(i.addr, f"{i.guard} {body}" if i.guard else body, i.ptx_line)


def _replace_run(mnemonic, old, new):
    toks = mnemonic.split(".")
    want = old.split(".")
    for s in range(1, len(toks) - len(want) + 1):
        if toks[s:s + len(want)] == want:
            return ".".join(toks[:s] + (new.split(".") if new else []) + toks[s + len(want):])
    return None


SIBLING = {"UTMALDG": "UTMASTG", "UTMASTG": "UTMALDG", "UBLKCP": "UBLKRED", "UBLKRED": "UBLKCP", "UTMAPF": "UBLKPF",
           "UBLKPF": "UTMAPF", "UTMAREDG": "UTMASTG", "LDGSTS": "LDG"}


def mutants(form, instrs, foreign=(), target=None):
    """[(kind, mutated instrs)] for one form's lowering; foreign: modifiers seen in other forms' lowerings."""
    out = []
    applied = rules_for(form, target)
    core_idx = [n for n, i in enumerate(instrs) if keymod.kind(i) == "core"]

    def at(n, new):
        return instrs[:n] + [new] + instrs[n + 1:]
    for rule, d in applied:
        if d.sequence is not None:
            continue
        pidx = [n for n in core_idx if instrs[n].opcode == d.opcode]
        if not pidx:
            continue
        n = pidx[0]
        p = instrs[n]
        alphabet = ALPHABETS.get(rule.name, d.has + d.lacks)
        for run in d.has:
            m = _replace_run(p.mnemonic, run, "")
            if m:
                out.append((f"drop {rule.name}", at(n, _with_mnemonic(p, m))))
            for other in alphabet:
                if other != run:
                    m = _replace_run(p.mnemonic, run, other)
                    if m:
                        out.append((f"swap {rule.name}", at(n, _with_mnemonic(p, m))))
        for run in d.lacks:
            if not d.has:
                out.append((f"add {rule.name}", at(n, _with_mnemonic(p, f"{p.mnemonic}.{run}"))))
        if d.call:   # the hardware multicast dropped, and no software path in its place
            m = _replace_run(p.mnemonic, d.hardware, "")
            if m:
                out.append((f"drop {rule.name}", at(n, _with_mnemonic(p, m))))
        for run in d.one_of:
            # the choice the form allows (a scope at least the form's): dropped, or narrowed to a member the rule
            # does not allow (a wider one orders more and is allowed: not a fault)
            m = _replace_run(p.mnemonic, run, "")
            if m:
                out.append((f"drop {rule.name}", at(n, _with_mnemonic(p, m))))
                for other in d.lacks:
                    out.append((f"swap {rule.name}", at(n, _with_mnemonic(p, _replace_run(p.mnemonic, run, other)))))
        ops = keymod.split_operands(p)
        if d.tail == "desc" and ops:
            out.append(("drop operand", at(n, _with_operands(p, ops[:-1]))))
        elif d.tail == "nodesc":
            out.append(("add operand", at(n, _with_operands(p, ops + ["desc[UR99]"]))))
        elif d.tail == "pred" and ops:
            out.append(("drop operand", at(n, _with_operands(p, ops[:-1]))))
        elif d.tail == "plain":
            out.append(("add operand", at(n, _with_operands(p, ops + ["!P6"]))))
    for n in core_idx:
        out.append(("drop instruction", instrs[:n] + instrs[n + 1:]))
        i = instrs[n]
        m = re.search(r"(DEPBAR\.LE SB0, )0x([0-9a-f]+)", i.text)
        if m:
            k = int(m.group(2), 16)
            out.append(("wait count", at(n, Instr(i.addr, i.text.replace(m.group(0), f"{m.group(1)}{k + 1:#x}"),
                                                  i.ptx_line))))
    if core_idx:
        # the principal instruction where the form has one (not a CALL before it), else the first core one
        principal = [n for n in core_idx for _, d in applied if d.sequence is None and instrs[n].opcode == d.opcode]
        n = principal[0] if principal else core_idx[0]
        out.append(("duplicate", instrs[:n + 1] + [instrs[n]] + instrs[n + 1:]))
        p = instrs[n]
        if p.opcode in SIBLING:
            out.append(("opcode swap", at(n, _with_mnemonic(p, SIBLING[p.opcode] + p.mnemonic[len(p.opcode):]))))
        decided = {t for _, d in applied for run in d.has + d.lacks for t in run.split(".")}
        mine = set(p.mnemonic.split(".")[1:])
        for tok in [t for t in foreign if t not in mine and t not in decided][:2]:
            out.append(("foreign modifier", at(n, _with_mnemonic(p, f"{p.mnemonic}.{tok}"))))
    out.append(("elide", []))
    return out


def _only_extra(before, after, extra):
    """after differs from before only by instructions whose mnemonic is in extra (one removed or repeated)."""
    from collections import Counter as C
    diff = (C(i.text for i in before) - C(i.text for i in after)) + (C(i.text for i in after) - C(i.text for i in before))
    return bool(diff) and all(Instr(0, t, 0).mnemonic in extra for t in diff)


# What the self-test's workers attack, set before the pool forks them (inherited, never pickled): the sorted
# (key, value) pairs of raw_by and the foreign modifiers.
_ATTACK = {}


def _attack(lo, hi):
    """(per kind Counter, survivors) of the pairs lo..hi of _ATTACK["items"], in their order."""
    foreign = _ATTACK["foreign"]
    per = defaultdict(Counter)
    survivors = []
    for (fid, target), (form, raw) in _ATTACK["items"][lo:hi]:
        if "error" in raw:
            continue
        instrs = instrs_of(raw["instrs"])
        applied = rules_for(form, target)   # once per form: every mutant of it is judged by the same rules
        if judgemod.judge(form, instrs, target=target, applied=applied).cls != judgemod.PASS:
            continue
        # a per-form rotation of the foreign modifiers, so that every one of them is tried somewhere
        rot = sum(map(ord, fid + target)) % max(len(foreign), 1)
        extra = {m for _, d in applied for m in d.extra}
        for kind, mut in mutants(form, instrs, foreign[rot:] + foreign[:rot], target):
            v = judgemod.judge(form, mut, target=target, applied=applied)
            if v.cls == judgemod.PASS and kind in ("drop instruction", "duplicate") and _only_extra(instrs, mut, extra):
                # removing or repeating an instruction the rule declares harmless (a further MEMBAR before a proxy
                # fence): an equivalent mutant, not a hole
                per[kind]["equivalent"] += 1
                continue
            per[kind]["planted"] += 1
            if v.cls == judgemod.FAIL:
                per[kind]["killed"] += 1
            else:
                per[kind][v.cls] += 1
                if len(survivors) < MAX_SURVIVORS:
                    survivors.append({"form": fid, "target": target, "kind": kind, "verdict": v.cls,
                                      "sass": [i.text for i in mut]})
    return per, survivors


def _quiet_worker():
    """A self-test worker runs inside the tier's signals_deferred block (its signals held, inherited by the fork):
    a signal to the group is the tier's to act on once the documents are written, never the worker's end."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def run(raw_by, jobs=1):
    """raw_by: {(form ID, target): (form record, pool result)} of forms whose original lowering passed or not;
    only those that pass are attacked (a fault in an already failing lowering proves nothing). jobs: worker
    processes, each attacking a contiguous share of the forms in sorted order (the result is the same for any
    jobs: the counts add up, the survivors are the first MAX_SURVIVORS in that order)."""
    foreign = sorted({t for _, raw in raw_by.values() if "error" not in raw for i in instrs_of(raw["instrs"])
                      if keymod.kind(i) == "core" for t in i.mnemonic.split(".")[1:]})
    _ATTACK.update(items=sorted(raw_by.items()), foreign=foreign)
    n = len(_ATTACK["items"])
    try:
        if jobs <= 1 or n < 2:
            parts = [_attack(0, n)]
        else:
            chunks = min(n, jobs * 4)   # a few shares per worker: a slow share does not hold the others up
            bounds = [(n * k // chunks, n * (k + 1) // chunks) for k in range(chunks)]
            with cf.ProcessPoolExecutor(max_workers=min(jobs, chunks), initializer=_quiet_worker,
                                        mp_context=multiprocessing.get_context("fork")) as pool:
                parts = list(pool.map(_attack, *zip(*bounds)))
    finally:
        _ATTACK.clear()
    per = defaultdict(Counter)
    survivors = []
    for p, sv in parts:
        for kind, c in p.items():
            per[kind].update(c)
        survivors += sv[:MAX_SURVIVORS - len(survivors)]
    planted = sum(c["planted"] for c in per.values())
    killed = sum(c["killed"] for c in per.values())
    flagged = sum(c["unruled"] for c in per.values())
    equivalent = sum(c["equivalent"] for c in per.values())
    return {"planted": planted, "killed": killed, "kill_rate": 100.0 * killed / planted if planted else 0.0,
            "unruled": flagged, "equivalent": equivalent,
            "detected_rate": 100.0 * (killed + flagged) / planted if planted else 0.0,
            "kinds": {k: dict(v, kill_rate=100.0 * v["killed"] / v["planted"] if v["planted"] else 100.0)
                      for k, v in sorted(per.items())},
            "survivors": survivors}


def print_table(st, stream=sys.stderr):
    w = max([len(k) for k in st["kinds"]] + [10]) + 2
    head = f"{'fault kind':<{w}}{'planted':>9}{'killed':>9}{'kill %':>9}{'unruled':>9}{'pass':>7}"
    stream.write("\n" + head + "\n" + "-" * len(head) + "\n")
    for k, v in st["kinds"].items():
        stream.write(f"{k:<{w}}{v['planted']:>9}{v.get('killed', 0):>9}{v['kill_rate']:>9.2f}"
                     f"{v.get('unruled', 0):>9}{v.get('pass', 0):>7}\n")
    stream.write("-" * len(head) + "\n" + f"{'total':<{w}}{st['planted']:>9}{st['killed']:>9}{st['kill_rate']:>9.2f}"
                 f"{st['unruled']:>9}\n")
    stream.write(f"killed (verdict fail): {st['kill_rate']:.2f}%; detected (fail or unruled, never pass): "
                 f"{st['detected_rate']:.2f}%; {st['equivalent']} equivalent mutants (a MEMBAR a rule declares "
                 f"harmless, removed or repeated) not counted\n")
    for s in st["survivors"][:10]:
        stream.write(f"  survived: {s['kind']} {s['form']} @ {s['target']} ({s['verdict']}): {' ; '.join(s['sass'])}\n")
