"""Result records of the lowering tier (schema ptxcts-results version 2, tier `lower`, load path `sass`) and the
summary tables that close a run."""
import sys
from collections import Counter, defaultdict

from framework.lowering import judge as judgemod
from framework.toolchains.sass import Instr
from framework.documents.schema import compile_case_id, target_sort_key

LOAD_PATH = "sass"
COLUMNS = ("forms", "located", "pass", "fail", "unruled", "not_supported", "compile_error", "skipped")


FINDINGS = ("fail", "compile_error")


def replay(case, toolchain):
    """The command that lowers this one form at this target again."""
    return (f"./ptxcts lower --toolchain '{toolchain}' --form '{case.form}' --target {case.target} "
            f"--family {case.family}")


def record(form, case, cls, message="", details=None, toolchain=None):
    r = {"id": compile_case_id(case.form, case.target, case.ptx), "family": case.family, "form": case.form,
         "target": case.target, "ptx": case.ptx, "load_path": LOAD_PATH, "class": cls}
    if message:
        r["message"] = message
    if cls in FINDINGS and toolchain:
        r["replay"] = replay(case, toolchain)
    if details:
        r["details"] = details
    return r


def instrs_of(raw):
    return [Instr(a, t, n) for a, t, n in raw]


def judged(form, case, raw, toolchain):
    """The record of a form whose SASS was read: raw is pool.lower_cases' entry."""
    if "error" in raw:
        return record(form, case, "compile_error", raw["error"].splitlines()[0][:300],
                      {"error": raw["error"]}, toolchain), None
    instrs = instrs_of(raw["instrs"])
    around = raw.get("around")
    if around is not None:
        around = dict(around, before=instrs_of(around["before"]), after=instrs_of(around["after"]))
    v = judgemod.judge(form, instrs, raw.get("line", ""), case.target, around=around)
    details = {"key": v.key, "frame": v.frame, "rules": v.rules, "located": bool(instrs),
               "ptx_line": raw.get("line", "")}
    if v.cls != judgemod.PASS:
        # the SASS shown with the verdict: every instruction at the line, as nvdisasm printed it
        details["sass"] = [i.text for i in instrs]
        details["failed" if v.cls == judgemod.FAIL else "unexplained"] = v.failed or v.unexplained
    msg = v.message
    if v.cls == judgemod.FAIL and instrs:
        msg += " | SASS: " + " ; ".join(i.text for i in instrs if i.opcode in _core_opcodes())
    return record(form, case, v.cls, msg, details, toolchain), v


def _core_opcodes():
    from framework.lowering.key import CORE_OPCODES
    return CORE_OPCODES


def summary(records, wall_s, stream=sys.stderr):
    rows = defaultdict(Counter)
    for r in records:
        row = rows[r["target"]]
        row["forms"] += 1
        row[r["class"]] += 1
        if r.get("details", {}).get("located"):
            row["located"] += 1
    width = max([8] + [len(t) for t in rows]) + 2
    head = f"{'target':<{width}}" + "".join(f"{c:>{max(len(c), 6) + 2}}" for c in COLUMNS)
    stream.write("\n" + head + "\n" + "-" * len(head) + "\n")
    total = Counter()
    for t in sorted(rows, key=target_sort_key):
        total.update(rows[t])
        stream.write(f"{t:<{width}}" + "".join(f"{rows[t][c]:>{max(len(c), 6) + 2}}" for c in COLUMNS) + "\n")
    stream.write("-" * len(head) + "\n" + f"{'total':<{width}}"
                 + "".join(f"{total[c]:>{max(len(c), 6) + 2}}" for c in COLUMNS) + "\n")
    stream.write(f"wall {wall_s:.1f} s\n")
    return total
