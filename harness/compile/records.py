"""The compile tier's result records: one per (case, compiler), with the case's class, its replay command naming
the toolchain and the compiler, and the details the judge found (results.json, written by harness/results)."""
from compile import classify as cls
from compile import judge
from ptxcts_gen.targets import CHAPTER_PTX


def result(c, load_path, tc, klass, message, duration_ms=0.0, details=None):
    """One case's result record, with its replay command naming the toolchain and the compiler."""
    return {"id": c.id, "family": c.family, "form": c.form, "target": c.target, "ptx": c.ptx, "load_path": load_path,
            "class": klass, "duration_ms": duration_ms, "message": message,
            "replay": f"./ptxcts compile --toolchain {tc.name} --verdicts {load_path} --case '{c.id}'",
            "details": dict({"expect": c.expect, "rules": list(c.rules)}, **(details or {}))}


def record(c, load_path, tc, unsupported, outcomes, arch_note, findings, compiler):
    if c.id in unsupported:
        return result(c, load_path, tc, cls.NOT_SUPPORTED, unsupported[c.id])
    o = outcomes.get(c.id)
    if o is None or not o.verdict:   # cannot happen; if it does, it is reported, not dropped
        o = judge.Outcome(c.id, judge.ERROR, note="the judge returned no verdict for this case")
    klass, msg, harness_err = cls.classify(c, o, findings, CHAPTER_PTX, compiler)
    details = {"ptxas": o.verdict, "diagnostics": o.diags, "ptxas_calls": o.calls, "module_cases": o.module_cases}
    if harness_err:
        details["harness_error"] = True
    if arch_note.get(c.id):
        details["arch"] = arch_note[c.id]
    if o.note:
        details["note"] = o.note
    return result(c, load_path, tc, klass, msg, round(o.seconds * 1000, 3), details)


COMPILER_NAMES = {"ptxas": "ptxas", "nvjitlink": "nvJitLink", "driver": "the driver's JIT"}
