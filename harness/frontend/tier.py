"""The front-end tier over the compile cases of the manifest: spell, compile in isolation, parse, assemble, judge.

Cases are grouped by (target, PTX version): the valid cases of a group are one module (one kernel per form),
compiled in one forked child; when that child dies, every kernel of the batch is compiled again alone, so a crash
or refusal is charged to its own case only. Cases invalid for their target or PTX version are expected to be
refused (LLVM exits on them), so each is compiled alone from the start. The PTX of every module is assembled by
the paired ptxas; a module it rejects is assembled again kernel by kernel to find which case it rejects.
"""
import concurrent.futures as cf
import re
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field

from framework import boundary
from framework.toolchains import ptxas as ptxas_call
from ptxcts_gen.frontends import MappingError

from . import judge
from .judge import Assembly


@dataclass
class Stats:
    batches: int = 0
    batch_failures: int = 0
    interrupted: bool = False
    alone: int = 0
    ptxas_calls: int = 0
    seconds: dict = field(default_factory=lambda: defaultdict(float))


def refusal(outcome):
    """The front-end's own error line when it exited with one (LLVM ERROR ..., a verifier error)."""
    for ln in outcome.stderr.splitlines():
        if ln.startswith("LLVM ERROR"):
            return ln.strip()
    if outcome.status == "exception":
        return str(outcome.value)
    return None


def emissions_from(outcome, entries, extract, alone):
    """{entry: Emission} from one compile outcome of a module holding `entries`."""
    if outcome.ok:
        found = extract(outcome.value)   # an entry's own Emission: a refusal the child recorded for it alone
        return {e: found[e] if isinstance(found.get(e), judge.Emission) else
                judge.Emission(judge.EMITTED, found.get(e, []), alone=alone) for e in entries}
    if outcome.status == "timeout":
        return {e: judge.Emission(judge.TIMED_OUT, message="no answer in the time limit", alone=alone)
                for e in entries}
    why = refusal(outcome)
    if why:   # the front-end's own diagnostic: LLVM refuses with `LLVM ERROR: ...` and then aborts
        return {e: judge.Emission(judge.REFUSED, message=why, alone=alone) for e in entries}
    tail = " | ".join(ln.strip() for ln in outcome.stderr.strip().splitlines()[-3:])
    return {e: judge.Emission(judge.CRASHED, message=f"{outcome.status}: {tail}", alone=alone) for e in entries}


def split_module(ptx_text):
    """{entry: (the module's header, that entry's text)} of a PTX module of kernels."""
    starts = [(m.group(1), m.start()) for m in re.finditer(r"^\.visible \.entry (\w+)\(", ptx_text, re.M)]
    if not starts:
        return {}
    head = ptx_text[:starts[0][1]]
    out = {}
    for n, (entry, at) in enumerate(starts):
        end = starts[n + 1][1] if n + 1 < len(starts) else len(ptx_text)
        out[entry] = (head, ptx_text[at:end])
    return out


def _ptxas_message(call):
    if call.timed_out:
        return "ptxas timed out"
    if call.signal:
        return f"ptxas died ({call.signal})"
    errs = [d.message for d in call.diags if d.rejects] or [ln for ln in call.output.splitlines() if ln.strip()]
    return "; ".join(errs[:2])[:400] or f"ptxas exited {call.returncode}"


def run_cases(groups, build_module, pool, extract, tc, jobs, progress, stats):
    """Compile and assemble every group. groups: [(key, target, ptx, [(entry, case list)], batch: bool)].
    build_module(target, ptx, [entries]) -> the argument of the pool's function (which returns PTX text);
    pool: an isolate.Zygote. Returns {(key, entry): (Emission, Assembly or None)}."""
    emitted = {}      # (key, entry) -> Emission
    ptx_of = {}       # (key, entry) -> (module key, target, ptx text) the entry's emission came from
    weight = {}       # (key, entry) -> cases it stands for
    first = []
    for key, target, ptx, kernels, batch in groups:
        for e, cs in kernels:
            weight[(key, e)] = len(cs)
        if batch and len(kernels) > 1:
            first.append((key, target, ptx, [e for e, _ in kernels], False))
        else:
            first.extend((key, target, ptx, [e], True) for e, _ in kernels)
    retry = []

    def runner(jobs_list):
        def done(i, outcome):
            key, target, ptx, entries, alone = jobs_list[i]
            if not outcome.ok and not alone:
                stats.batch_failures += 1
                retry.extend((key, target, ptx, [e], True) for e in entries)
                return
            for e, em in emissions_from(outcome, entries, extract, alone).items():
                emitted[(key, e)] = em
                if outcome.ok:
                    ptx_of[(key, e)] = (target, outcome.value)
            progress.advance(sum(weight[(key, e)] for e in entries))
        pool.run_many([build_module(t, p, es) for _, t, p, es, _ in jobs_list], done=done)

    t0 = time.monotonic()
    stats.batches += sum(1 for j in first if not j[4])
    stats.alone += sum(1 for j in first if j[4])
    try:
        runner(first)
        if retry:
            again = list(retry)
            retry.clear()
            stats.alone += len(again)
            runner(again)
    except KeyboardInterrupt:   # keep what was compiled: it is assembled and judged, the rest recorded skipped
        stats.interrupted = True
        sys.stderr.write("\nfrontend: interrupted: judging what was compiled, the rest is recorded skipped\n")
    # what was compiled is assembled whole: a signal now waits until the caller has judged and written it
    # (run.py's signals_deferred block, which follows this at once); it cannot cost what was compiled
    boundary.hold_signals()
    stats.seconds["frontend"] += time.monotonic() - t0
    # assemble what came back: per group, every kernel in one module (the header of the group's modules),
    # ptxas's diagnostics charged to the kernel whose lines they name
    t1 = time.monotonic()
    merged, split_cache = {}, {}
    for (key, e), (target, text) in ptx_of.items():
        m = merged.setdefault(key, {"target": target, "head": None, "chunks": {}})
        if id(text) not in split_cache:   # a batch's entries share one text: split it once
            split_cache[id(text)] = split_module(text)
        parts = split_cache[id(text)]
        if e in parts:
            head, chunk = parts[e]
            m["head"] = m["head"] or head
            m["chunks"][e] = chunk
    with tempfile.TemporaryDirectory(prefix="ptxcts-fe-ptxas-") as wd:
        assembled = assemble_groups(merged, tc, jobs, stats, wd)
    stats.seconds["ptxas"] += time.monotonic() - t1
    out = {}
    for k, em in emitted.items():
        out[k] = (em, assembled.get(k) if k in ptx_of else None)
    return out


def assemble_groups(merged, tc, jobs, stats, workdir):
    """{(group key, entry): Assembly}: each group's kernels in one module; a kernel is rejected when ptxas names a
    line of it; what a fatal error kept ptxas from reading (and any module whose errors name no line) is assembled
    again without the kernels already judged."""
    def one(item):
        key, m = item
        arch = tc.arch(m["target"])
        todo = dict(m["chunks"])
        res, calls, n = {}, 0, 0
        while todo:
            entries = list(todo)
            text, spans, line = m["head"], [], m["head"].count("\n") + 1
            for e in entries:
                spans.append((line, line + todo[e].count("\n"), e))
                text += todo[e]
                line += todo[e].count("\n")
            n += 1
            call = ptxas_call.assemble(tc.ptxas, arch, text, workdir, re.sub(r"[^A-Za-z0-9_]", "_", key) + f"_{n}")
            calls += 1
            if call.accepted:
                res.update({(key, e): Assembly(True) for e in entries})
                break
            errs = [d for d in call.diags if d.rejects and d.line is not None]
            fatal = min((d.line for d in errs if d.severity == "fatal"), default=None)
            hit = {}
            for d in errs:
                for lo, hi, e in spans:
                    if lo <= d.line < hi:
                        hit.setdefault(e, []).append(d.message)
            if not hit:   # nothing charged to a kernel: judge each alone
                if len(entries) == 1:
                    res[(key, entries[0])] = Assembly(False, _ptxas_message(call))
                    break
                for e in entries:
                    c2 = ptxas_call.assemble(tc.ptxas, arch, m["head"] + todo[e], workdir, f"{key}_{e}".replace(".", "_"))
                    calls += 1
                    res[(key, e)] = Assembly(c2.accepted, "" if c2.accepted else _ptxas_message(c2))
                break
            for lo, hi, e in spans:
                if e in hit:
                    res[(key, e)] = Assembly(False, "; ".join(dict.fromkeys(hit[e]))[:400])
                    del todo[e]
                elif fatal is None or hi <= fatal:
                    res[(key, e)] = Assembly(True)
                    del todo[e]
        return res, calls

    out = {}
    with cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        for res, calls in ex.map(one, [(k, m) for k, m in merged.items() if m["head"] is not None]):
            stats.ptxas_calls += calls
            out.update(res)
    return out


def check_spellings(spellings, verify):
    """MappingError naming the first form whose spelling the front-end's verifier rejects. spellings: {form id:
    Spelling}; verify(list of (entry, Spelling)) raises on a bad one (all at once first, then one by one)."""
    items = [(f"k{n}", s) for n, s in enumerate(spellings.values())]
    try:
        verify(items)
        return
    except Exception:
        pass
    for (fid, s), item in zip(spellings.items(), items):
        try:
            verify([item])
        except Exception as e:
            raise MappingError(f"{fid}: the mapping's call `{s.callee}({', '.join(t + ' ' + v for t, v in s.args)})` "
                               f"is malformed: the front-end rejects it: {str(e).strip().splitlines()[0]}") from None
