"""One drift run: the candidates assembled on every target of the toolchain, the accepted ones judged by the
model, the unknown ones taken down to their minimum PTX version and looked up in the reviewed list."""
import collections
import re
import sys
import tempfile
import time
import concurrent.futures as cf

from ptxcts_gen.targets import BY_NAME, ptx_key

from framework.pool import usable_cpus
from framework.progress import Progress
from framework.toolchains import ToolchainError

from .candidates import candidates, family_tokens, inert_tokens, operand_variants, parsable_pool
from .ptxas import assemble, token_pool
from .reviewed import load_reviewed, reviewed_for
from .spelling import Model, spell

_UNKNOWN = re.compile(r"Unknown modifier '(\.[^']+)'")
# words of a ptxas message that can depend on the target or the PTX version (or are no verdict on the line)
_TARGET_BOUND = re.compile(r"target|arch|sm_\d|PTX ISA|\.version|requires|not supported|Feature|Unsupported|"
                           r"crash|fatal|Arguments mismatch")


def refused_everywhere(errors):
    """ptxas refused the line for reasons no target or PTX version changes: every message is about the line's own
    shape (state spaces, repeated or conflicting modifiers, a modifier unknown to or illegal for the instruction,
    operand types), none names a target, an architecture, a feature or a version. Such a line is refused at every
    target; anything else is tried at each."""
    return bool(errors) and not any(_TARGET_BOUND.search(e) for e in errors)


def targets_of(tc, only=None):
    """The toolchain's targets from sm_90 to sm_121 (every variant, sm_107 included), each with its -arch and the
    PTX versions it is accepted at."""
    out = []
    for name, row in tc.description["targets"].items():
        t = BY_NAME.get(name)
        if t is None or not 90 <= t.sm <= 121 or t.max_ptx:
            continue
        if only and name not in only:
            continue
        out.append((name, row["arch"], list(row["ptx"])))
    return sorted(out, key=lambda x: (BY_NAME[x[0]].sm, x[0]))


def run(tc, families=None, only_targets=None, forget=(), jobs=None, log=sys.stderr, max_candidates=None, model=None):
    """The drift report; `model` (a spelling.Model of `families`) stands in for the ISA model when given."""
    t0 = time.monotonic()
    model = model or Model(families, forget)
    tgts = targets_of(tc, only_targets)
    if not tgts:
        raise ToolchainError(f"toolchain {tc.name} knows none of the targets asked for ({', '.join(only_targets or ['sm_90..sm_121'])})")
    pool = token_pool(model, tc.ptxas)
    probe_at = max(tgts, key=lambda x: (ptx_key(x[2][-1]), BY_NAME[x[0]].variant == "f", BY_NAME[x[0]].sm))
    jobs = jobs or usable_cpus()
    report = {"toolchain": tc.name, "ptxas": tc.ptxas, "ptxas_version": tc.description.get("ptxas_version"),
              "targets": [t for t, _, _ in tgts], "families": {}, "spellings": []}
    with tempfile.TemporaryDirectory(prefix="ptxcts-drift-") as work, cf.ThreadPoolExecutor(jobs) as ex:
        at = (tc.ptxas, probe_at[1], probe_at[0], probe_at[2][-1], work)
        pool = parsable_pool(pool, model, *at)
        inert = inert_tokens(pool, *at)
        report["ignored_tokens"] = sorted(inert)
        cands = []
        # the families' probes side by side (one ptxas each), their candidates in the families' order
        fams = [f for f in model.families if model.families[f]["seeds"]]
        for family, toks in zip(fams, ex.map(lambda f: family_tokens(model, f, pool, *at), fams)):
            toks = [t for t in toks if t not in inert]   # ignored everywhere: listed once (summary), not tried
            fc = candidates(model, family, toks)
            if max_candidates:
                fc = fc[:max_candidates]
            report["families"][family] = {"tokens": len(toks), "candidates": len(fc), "kept": toks}
            log.write(f"drift: {family}: {len(toks)} tokens to try, {len(fc)} candidates\n")
            cands += [(family,) + c for c in fc]
        log.write(f"drift: {tc.name}: {len(pool)} tokens in the pool, {len(cands)} candidates x {len(tgts)} targets\n")
        accepted = collections.defaultdict(set)     # candidate index -> {(target, ptx)}
        mismatched = collections.defaultdict(set)

        # stage 1: every candidate on the arch-specific ('a') target of each SM number, whose features include
        # those of the plain and 'f' targets of that number; stage 2: on the other targets, only the candidates
        # stage 1 did not refuse outright. Stage 1 goes in waves: the first 'a' target alone (its candidates in
        # `jobs` parts side by side), then `jobs` targets at a time; a candidate a wave refused for a reason no
        # target changes (refused_everywhere), or that killed ptxas, is settled and not tried at the later 'a'
        # targets (measured with ptxas 13.5: of 29,273 candidates, the 15,223 settled at sm_90a are refused at all
        # seven 'a' targets, and the same 770 kill ptxas at each); a crash is reported as a finding of the toolchain.
        first = [t for t in tgts if BY_NAME[t[0]].variant == "a"] or tgts
        rest = [t for t in tgts if t not in first]
        crashed = {}                                 # candidate index -> the target it killed ptxas at
        settled = set()

        def one(tgt, idx):
            name, arch, versions = tgt
            errs = assemble(tc.ptxas, arch, name, versions[-1], [spell(*cands[i][1:]) for i in idx], work)
            return tgt, {idx[k]: v for k, v in errs.items()}, idx

        def absorb(results, done=1):
            for (name, arch, versions), errs, idx in results:
                for i in idx:
                    e = errs.get(i)
                    if not e:
                        accepted[i].add((name, versions[-1]))
                    elif any(x.startswith("crash:") for x in e):
                        crashed.setdefault(i, name)
                        settled.add(i)
                    elif refused_everywhere(e):
                        settled.add(i)
                    elif any("Arguments mismatch" in x for x in e) and not any(_UNKNOWN.search(x) for x in e):
                        mismatched[i].add((name, arch, versions[-1]))
                progress.advance(done)

        progress = Progress(len(tgts), stream=log, label="drift", unit="targets")
        every = list(range(len(cands)))
        parts = [every[k * len(every) // jobs:(k + 1) * len(every) // jobs] for k in range(jobs)]
        absorb(ex.map(lambda p: one(first[0], p), parts), done=0)
        progress.advance(1)
        for k in range(1, len(first), jobs):
            open_ = [i for i in every if i not in settled]
            absorb(ex.map(lambda t: one(t, open_), first[k:k + jobs]))
        absorb(ex.map(lambda t: one(t, [i for i in every if accepted[i] or mismatched[i]]), rest))
        report["crashes"] = [{"family": cands[i][0], "spelling": spell(*cands[i][1:]), "target": t}
                             for i, t in sorted(crashed.items())]
        # a qualifier that brings an operand: the mismatched candidates with one more operand
        # (an operand belongs to the qualifier, not to its place: one candidate per seed and added token, the one
        # with the token last, and none for a token ptxas ignores anyway)
        extra = []
        seeds = {(f, o, q) for f in model.families for o, q, _ in model.families[f]["seeds"]}
        for i, where in mismatched.items():
            family, o, q, ops = cands[i]
            if (family, o, q[:-1]) not in seeds or q[-1] in inert:
                continue
            for ops2 in operand_variants(ops):
                extra.append(((family, o, q, ops2), where))
        if extra:
            log.write(f"drift: {len(extra)} operand variants of {len(mismatched)} candidates ptxas answered "
                      "'Arguments mismatch'\n")
            by_target = collections.defaultdict(list)
            for k, (c, where) in enumerate(extra):
                for name, arch, v in where:
                    by_target[(name, arch, v)].append(k)
            def assemble_extra(item):
                (name, arch, v), ks = item
                return name, v, ks, assemble(tc.ptxas, arch, name, v, [spell(*extra[k][0][1:]) for k in ks], work)
            for name, v, ks, errs in ex.map(assemble_extra, by_target.items()):
                for n, k in enumerate(ks):
                    if not errs.get(n):
                        c = extra[k][0]
                        idx = len(cands)
                        cands.append(c)
                        accepted[idx].add((name, v))
        # verdicts; the minimum PTX version of what the model does not know
        versions_of = {n: vs for n, _, vs in tgts}
        arch_of = {n: a for n, a, _ in tgts}
        reviewed = load_reviewed()
        rows = []
        for i, where in accepted.items():
            family, o, q, ops = cands[i]
            for name, v in sorted(where):
                verdict, rules = model.verdict(family, o, q, name, v)
                if verdict == "unknown" and any(t in inert for t in q):
                    verdict = "ignored_by_ptxas"
                rows.append({"family": family, "spelling": spell(o, q, ops), "qualifiers": "".join(q),
                             "target": name, "ptx": v, "verdict": verdict, "rules": list(rules), "index": i})
        need_min = collections.defaultdict(list)
        for r in rows:
            if r["verdict"] in ("unknown", "reordered"):
                need_min[r["target"]].append(r)
        def lowest_versions(item):
            """{row id: the lowest PTX version of the target that accepts the row's spelling}, going down from the
            newest one versions at a time while any row is still accepted."""
            name, rs = item
            lowest = {id(r): r["ptx"] for r in rs}
            for v in reversed(versions_of[name][:-1]):
                if not rs:
                    break
                errs = assemble(tc.ptxas, arch_of[name], name, v, [r["spelling"] for r in rs], work)
                still = []
                for n, r in enumerate(rs):
                    if not errs.get(n):
                        lowest[id(r)] = v
                        still.append(r)
                rs = still
            return lowest
        for name, lowest in zip(need_min, ex.map(lowest_versions, need_min.items())):
            for r in need_min[name]:
                r["min_ptx"] = lowest[id(r)]
        for r in rows:
            r.pop("index")
            if r["verdict"] in ("unknown", "reordered"):
                e = reviewed_for(reviewed, tc.name, r["spelling"], r["target"], r["verdict"])
                if e:
                    r["listed"] = e["id"]
                    r["reason"] = e["reason"]
                    if r["verdict"] == "unknown":
                        r["verdict"] = "listed"
                    else:
                        r["verdict"] = "reordered_listed"
        report["spellings"] = sorted(rows, key=lambda r: (r["family"], r["spelling"], BY_NAME[r["target"]].sm,
                                                            r["target"]))
    report["seconds"] = round(time.monotonic() - t0, 1)
    report["candidates"] = len(cands)
    return report
