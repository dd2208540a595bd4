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


def run(tc, families=None, only_targets=None, forget=(), jobs=None, log=sys.stderr, max_candidates=None):
    t0 = time.monotonic()
    model = Model(families, forget)
    tgts = targets_of(tc, only_targets)
    if not tgts:
        raise ToolchainError(f"toolchain {tc.name} knows none of the targets asked for ({', '.join(only_targets or ['sm_90..sm_121'])})")
    pool = token_pool(model, tc.ptxas)
    probe_at = max(tgts, key=lambda x: (ptx_key(x[2][-1]), BY_NAME[x[0]].variant == "f", BY_NAME[x[0]].sm))
    jobs = jobs or usable_cpus()
    report = {"toolchain": tc.name, "ptxas": tc.ptxas, "ptxas_version": tc.description.get("ptxas_version"),
              "targets": [t for t, _, _ in tgts], "families": {}, "spellings": []}
    with tempfile.TemporaryDirectory(prefix="ptxcts-drift-") as work:
        pool = parsable_pool(pool, model, tc.ptxas, probe_at[1], probe_at[0], probe_at[2][-1], work)
        inert = inert_tokens(pool, tc.ptxas, probe_at[1], probe_at[0], probe_at[2][-1], work)
        report["ignored_tokens"] = sorted(inert)
        cands = []
        for family in model.families:
            if not model.families[family]["seeds"]:
                continue
            toks = family_tokens(model, family, pool, tc.ptxas, probe_at[1], probe_at[0], probe_at[2][-1], work)
            toks = [t for t in toks if t not in inert]   # ignored everywhere: listed once (summary), not tried
            fc = candidates(model, family, toks)
            if max_candidates:
                fc = fc[:max_candidates]
            report["families"][family] = {"tokens": len(toks), "candidates": len(fc)}
            log.write(f"drift: {family}: {len(toks)} tokens to try, {len(fc)} candidates\n")
            cands += [(family,) + c for c in fc]
        log.write(f"drift: {tc.name}: {len(pool)} tokens in the pool, {len(cands)} candidates x {len(tgts)} targets\n")
        accepted = collections.defaultdict(set)     # candidate index -> {(target, ptx)}
        mismatched = collections.defaultdict(set)

        # stage 1: every candidate on the arch-specific ('a') target of each SM number, whose features include
        # those of the plain and 'f' targets of that number; stage 2: on the other targets, only the candidates
        # stage 1 did not refuse outright
        first = [t for t in tgts if BY_NAME[t[0]].variant == "a"] or tgts
        rest = [t for t in tgts if t not in first]

        def one(tgt, subset):
            name, arch, versions = tgt
            idx = sorted(subset)
            errs = assemble(tc.ptxas, arch, name, versions[-1], [spell(*cands[i][1:]) for i in idx], work)
            return tgt, {idx[k]: v for k, v in errs.items()}, idx

        progress = Progress(len(tgts), stream=log, label="drift", unit="targets")
        for stage, subset in ((first, set(range(len(cands)))), (rest, None)):
            if subset is None:
                subset = {i for i in range(len(cands)) if accepted[i] or mismatched[i]}
            with cf.ThreadPoolExecutor(jobs) as ex:
                for (name, arch, versions), errs, idx in ex.map(lambda t: one(t, subset), stage):
                    for i in idx:
                        e = errs.get(i)
                        if not e:
                            accepted[i].add((name, versions[-1]))
                        elif any("Arguments mismatch" in x for x in e) and not any(_UNKNOWN.search(x) for x in e):
                            mismatched[i].add((name, arch, versions[-1]))
                    progress.advance(1)
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
            for (name, arch, v), ks in by_target.items():
                errs = assemble(tc.ptxas, arch, name, v, [spell(*extra[k][0][1:]) for k in ks], work)
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
        for name, rs in need_min.items():
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
