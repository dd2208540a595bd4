"""`./ptxcts toolchains drift TOOLCHAIN`: what a toolchain's ptxas accepts of the asynchronous copies that the ISA
model does not know, per family, target and PTX version.

Candidates. Per family, seed spellings are a few of the model's valid forms (a greedy cover of every qualifier of
its valid forms). The token pool is the model's whole qualifier vocabulary (every family's, model.vocabulary_forms)
plus the modifier-shaped strings of the ptxas binary itself, and the model's tokens extended by one `::component`
seen in either. One cheap probe per family keeps the tokens ptxas does not call "Unknown modifier" for that instruction;
each kept token is then inserted at every position of every seed and put in place of each of its qualifiers,
and every pair of a seed's qualifiers is swapped. A candidate whose qualifiers the model spells takes the model's operands, any other the seed's; a
candidate ptxas answers "Arguments mismatch" is tried again with one extra operand of each register width at
every position (a qualifier that brings an operand is found too).

Assembly. One module per (target, PTX version) holds every candidate of the run, one line each, and an unknown
modifier as its last line: ptxas then reports every line's errors and generates no code (a line ptxas cannot
parse at all, or one that kills it, is found and set aside). A candidate without an error on its line is
accepted. Targets: those of the toolchain from sm_90 to sm_121 (sm_107 included), each at the newest PTX version
the toolchain takes it at; every candidate goes to the 'a' target of each SM number, the others get those it did
not refuse outright; the spellings the model does not know are then assembled at every older version to give
their minimum.

Verdict per accepted spelling (model.case_rules at that target and version): `modelled` (a form of the model,
valid there), `model_rejects` (the model spells it and calls it invalid there: the compile tier's business, listed
with the rules), `ignored_by_ptxas` (unknown tokens that ptxas takes even on cp.async.bulk.commit_group, which has
no qualifier: it ignores them), `reordered` (the model's qualifiers in an order its syntax does not write), `listed` (unknown to
the model, but reviewed in results/expectations/drift.toml for this toolchain, with the reason), `unknown`.
Exit 0 when nothing is unknown, 1 when something is, 2 for a usage error (a toolchain path that does not exist or
is not a ptxas).
"""
import argparse
import collections
import fnmatch
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
import concurrent.futures as cf

from ptxcts_gen import isa
from ptxcts_gen.model import case_rules, family_forms, vocabulary_forms
from ptxcts_gen.targets import BY_NAME, ptx_key

from framework import paths
from framework.documents import atomic_write
from framework.pool import usable_cpus
from framework.progress import Progress
from framework.toolchains import ToolchainError, resolve
from framework.toolchains.errors import MALFORMED
SENTINEL = "cp.async.bulk.ptxcts_drift_end [%w_dst], [%g_src], %size, [%mbar];"
_ERR = re.compile(r"line (\d+); error\s*:\s*(.*)")
_UNKNOWN = re.compile(r"Unknown modifier '(\.[^']+)'")
_TOKEN_SHAPE = re.compile(r"^\.[a-z][a-z0-9_]*(::[a-z0-9_]+)*$")
# register widths of the operand names the model's instructions use (anything else is .b32)
_B64 = ("%g_src", "%g_dst", "%policy", "%tmap", "%ovr")
_B16 = ("%cta_mask", "%byte_mask", "%i2c0", "%i2c1", "%i2c2", "%h0", "%h1")
# the extra operand tried where ptxas answers "Arguments mismatch": one register of each width, and a vector
_EXTRA_OPERANDS = ("%x32", "%x64", "%h0", "{%x32}")


# ---- the model's side ----

def split(instr):
    """'cp.async.bulk.a.b [x], y;' -> ('cp.async.bulk', ('a', 'b'), ['[x]', 'y']) by the family's opcode."""
    head, _, ops = instr.rstrip(";").partition(" ")
    opcode = next(o for o in _OPCODES if head == o or head.startswith(o + "."))
    quals = tuple(head[len(opcode) + 1:].split(".")) if head != opcode else ()
    return opcode, _qual_tokens(quals), _operands(ops)


# the opcodes, longest first (cp.async.bulk.prefetch.tensor before cp.async.bulk)
_OPCODES = ("cp.async.bulk.prefetch.tensor", "cp.reduce.async.bulk.tensor", "cp.async.bulk.tensor",
            "cp.async.bulk.prefetch", "cp.reduce.async.bulk", "cp.async.bulk.commit_group",
            "cp.async.bulk.wait_group", "cp.async.mbarrier.arrive", "cp.async.wait_group", "cp.async.wait_all",
            "cp.async.commit_group", "fence.proxy.async", "cp.async.bulk", "cp.async")


def _qual_tokens(parts):
    """Dot-separated parts -> qualifier tokens: a scope after .relaxed and the parts of a `a::b` stay whole."""
    return tuple("." + p for p in parts if p)


def _operands(text):
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def spell(opcode, quals, operands):
    return opcode + "".join(quals) + (" " + ", ".join(operands) if operands else "") + ";"


class Model:
    """The model's spellings per family: qualifier tuple -> its forms (model.vocabulary_forms), and seeds."""

    def __init__(self, families=None, forget=()):
        self.forget = tuple(forget)
        self.families = {}
        for mod in isa.families():
            if families and mod.FAMILY not in families:
                continue
            spellings = collections.defaultdict(list)
            for f in vocabulary_forms(mod):
                opcode, quals, ops = split(f.instr)
                if any(t in quals for t in self.forget):
                    continue
                spellings[(opcode, quals)].append((f, ops))
            seeds = self._seeds(family_forms(mod))
            self.families[mod.FAMILY] = {"spellings": spellings, "seeds": seeds}

    def _seeds(self, forms):
        """The plainest valid form of each opcode, then a greedy cover of the qualifier tokens of the family's other
        valid forms."""
        valid = [split(f.instr) for f in forms if f.valid]
        valid = [v for v in valid if not any(t in v[1] for t in self.forget)]
        need = {(o, t) for o, qs, _ in valid for t in qs}
        seeds = []
        for o in dict.fromkeys(v[0] for v in valid):     # first the plainest valid form of each opcode
            base = min((v for v in valid if v[0] == o), key=lambda v: (len(v[1]), v[1]))
            seeds.append(base)
            need -= {(o, t) for t in base[1]}
        while need:
            best = max(valid, key=lambda v: (len({(v[0], t) for t in v[1]} & need), -len(v[1]), v[1]))
            gain = {(best[0], t) for t in best[1]}
            if not gain & need:
                break
            need -= gain
            seeds.append(best)
        return seeds

    def vocabulary(self):
        return sorted({t for fam in self.families.values() for (_, qs) in fam["spellings"] for t in qs})

    def verdict(self, family, opcode, quals, target, ptx):
        """(verdict, rules): modelled / model_rejects / reordered / unknown for an accepted spelling."""
        fam = self.families[family]
        hits = fam["spellings"].get((opcode, quals))
        if hits:
            t = BY_NAME.get(target)
            if t is None:
                return "unknown", ()
            ruled = [sorted(case_rules(f, t, ptx)) for f, _ in hits]
            if any(not r for r in ruled):
                return "modelled", ()
            return "model_rejects", tuple(min(ruled, key=len))
        key = (opcode, tuple(sorted(quals)))
        if key in self._sorted(family):
            return "reordered", ()
        return "unknown", ()

    def _sorted(self, family):
        fam = self.families[family]
        if "sorted" not in fam:
            fam["sorted"] = {(o, tuple(sorted(q))) for (o, q) in fam["spellings"]}
        return fam["sorted"]

    def operands(self, family, opcode, quals, fallback):
        hits = self.families[family]["spellings"].get((opcode, quals))
        return hits[0][1] if hits else fallback


# ---- the toolchain's side ----

def ptxas_tokens(ptxas):
    """Modifier-shaped strings of the ptxas binary (`.name` or `.a::b...`)."""
    try:
        with open(ptxas, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ToolchainError(f"{ptxas}: cannot read it: {e.strerror}") from None
    out = set()
    for m in re.finditer(rb"\.[a-z][a-z0-9_:]{1,60}", data):
        s = m.group().decode()
        if _TOKEN_SHAPE.match(s):
            out.add(s)
    return out


def token_pool(model, ptxas):
    """The model's vocabulary, ptxas's modifier strings, and every token of the model's vocabulary extended by one
    more `::component` seen in either (e.g. `.multicast::cluster` + `::16b`, `.im2col_no_offs` + `::w`)."""
    base = set(model.vocabulary()) | ptxas_tokens(ptxas) | set(model.forget)   # a forgotten one stays a candidate
    comps = {c for t in base for c in t.split("::")[1:]}
    ext = {t + "::" + c for t in model.vocabulary() for c in comps}
    return sorted(base | ext)


def _decls(lines):
    regs = set(re.findall(r"%[A-Za-z_][A-Za-z0-9_]*", "\n".join(lines)))
    b64 = sorted(r for r in regs if r in _B64 or r.startswith("%x64"))
    b16 = sorted(r for r in regs if r in _B16 or r.startswith("%h"))
    b32 = sorted(regs - set(b64) - set(b16))
    out = []
    for width, names in (("b64", b64), ("b32", b32), ("b16", b16)):
        if names:
            out.append(f"\t.reg .{width} {', '.join(names)};")
    return out


def module(target, ptx, lines):
    """The module text and the line number of each candidate (1-based)."""
    body = list(lines) + [SENTINEL]
    head = [f".version {ptx}", f".target {target}", ".address_size 64", ".visible .entry ptxcts_drift()", "{"]
    head += _decls(body)
    first = len(head) + 1
    text = "\n".join(head + ["\t" + ln for ln in body] + ["}"]) + "\n"
    return text, {first + i: i for i in range(len(lines))}


_FATAL = re.compile(r"line (\d+); fatal\s*:\s*(.*)")


def _assemble_once(ptxas, arch, target, ptx, lines, workdir):
    text, where = module(target, ptx, lines)
    path = os.path.join(workdir, f"drift-{target}-{ptx}-{len(lines)}-{abs(hash(text)) % 10**8}.ptx")
    with open(path, "w") as f:
        f.write(text)
    try:
        r = subprocess.run([ptxas, f"-arch={arch}", path, "-o", os.devnull], capture_output=True, text=True,
                           timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ToolchainError(f"{ptxas}: {type(e).__name__}: {e}") from None
    finally:
        os.remove(path)
    return r, where


def assemble(ptxas, arch, target, ptx, lines, workdir):
    """{candidate index: [error messages]} over the candidate lines; an index without errors was accepted. A line
    ptxas cannot parse at all ("fatal : Parsing error", e.g. a directive name as a qualifier) ends its parse: that
    line gets the message, the lines before it keep their errors, and the lines after it are assembled again."""
    errs = collections.defaultdict(list)
    todo = list(range(len(lines)))
    while todo:
        r, where = _assemble_once(ptxas, arch, target, ptx, [lines[i] for i in todo], workdir)
        out = r.stdout + r.stderr
        if r.returncode < 0:
            # ptxas died on a signal: halve until the line that kills it is alone (each such line is reported)
            if len(todo) == 1:
                errs[todo[0]].append(f"crash: ptxas killed by signal {-r.returncode}")
                break
            half = len(todo) // 2
            for part in (todo[:half], todo[half:]):
                sub = assemble(ptxas, arch, target, ptx, [lines[i] for i in part], workdir)
                for k, v in sub.items():
                    errs[part[k]].extend(v)
            break
        fatal = [(int(m.group(1)), m.group(2).strip()) for m in _FATAL.finditer(out) if int(m.group(1)) in where]
        stop = fatal[0][0] if fatal else None
        for m in _ERR.finditer(out):
            ln = int(m.group(1))
            if ln in where and (stop is None or ln < stop):
                errs[todo[where[ln]]].append(m.group(2).strip())
        if stop is None:
            if not any(int(m.group(1)) > max(where, default=0) for m in _ERR.finditer(out)):
                raise ToolchainError(f"{ptxas}: the end-of-module line drew no error at {target} / PTX {ptx} (exit "
                                     f"{r.returncode}): not a ptxas this detector understands\n{out[-400:]}")
            break
        k = where[stop]
        errs[todo[k]].append("fatal: " + fatal[0][1])
        todo = todo[k + 1:]
    return errs


# ---- candidates ----

def _refused(errors, control=()):
    """ptxas refuses the one qualifier a probe adds to a seed: an error the seed alone (control) does not draw that
    says the modifier is unknown, illegal (not for an arch: that one exists elsewhere), or not of this instruction."""
    for e in errors:
        if e in control:
            continue
        if ("Unknown modifier" in e or ("Illegal" in e and "for arch" not in e)
                or "Unexpected instruction types" in e or "not allowed for instruction" in e):
            return True
    return False


def family_tokens(model, family, pool, ptxas, arch, target, ptx, workdir):
    """The tokens worth trying on this family: its own vocabulary, and every other pool token that ptxas does not
    refuse on the family's first seed at the end, at the front, or at the end with one extra operand (ptxas calls a
    qualifier whose operand is missing "Illegal" too)."""
    opcode, quals, ops = model.families[family]["seeds"][0]
    own = {t for (_, qs) in model.families[family]["spellings"] for t in qs}
    others = [t for t in pool if t not in own and t not in quals]
    probes = []
    for t in others:
        probes.append((t, spell(opcode, quals + (t,), ops)))
        probes.append((t, spell(opcode, (t,) + quals, ops)))
        for x in _EXTRA_OPERANDS:
            probes.append((t, spell(opcode, quals + (t,), ops + [x])))
    probes.append((None, spell(opcode, quals, ops)))    # the control: the seed alone
    errs = assemble(ptxas, arch, target, ptx, [ln for _, ln in probes], workdir)
    control = set(errs.get(len(probes) - 1, ()))
    kept = set()
    for i, (t, ln) in enumerate(probes[:-1]):
        e = [x for x in errs.get(i, ()) if x not in control]
        if any(x.startswith("fatal:") for x in e):
            continue
        extra_operand = ln.count(",") > spell(opcode, quals, ops).count(",")
        if (not e) if extra_operand else not _refused(e):
            kept.add(t)
    return sorted(own) + sorted(kept)


CONTROL = "cp.async.bulk.commit_group"   # an instruction without qualifiers: a token it takes, ptxas ignores


def inert_tokens(pool, ptxas, arch, target, ptx, workdir):
    """The tokens ptxas takes even on cp.async.bulk.commit_group, which has no qualifier: it ignores them wherever
    they are written. A spelling that differs from the model's only by such tokens is `ignored_by_ptxas` (a
    leniency of the toolchain, reported per token, not a qualifier the model lacks)."""
    errs = assemble(ptxas, arch, target, ptx, [f"{CONTROL}{t};" for t in pool], workdir)
    return {t for i, t in enumerate(pool) if not errs.get(i)}


def parsable_pool(pool, model, ptxas, arch, target, ptx, workdir):
    """The pool without the tokens ptxas cannot parse as a qualifier at all (directive names and the like), found
    once on the first family's first seed."""
    family = next(f for f in model.families if model.families[f]["seeds"])
    opcode, quals, ops = model.families[family]["seeds"][0]
    errs = assemble(ptxas, arch, target, ptx, [spell(opcode, quals + (t,), ops) for t in pool], workdir)
    return [t for i, t in enumerate(pool) if not any(x.startswith("fatal:") for x in errs.get(i, ()))]


def candidates(model, family, tokens):
    """(opcode, quals, operands) per candidate: each token at every position of every seed and in place of each of
    its qualifiers, and every pair of a seed's qualifiers swapped; deduplicated, in a stable order."""
    out = {}
    for opcode, quals, ops in model.families[family]["seeds"]:
        out.setdefault((opcode, quals), ops)     # the seed itself: accepted and known, or the run says why not
        for t in tokens:
            if t in quals:
                continue
            for i in range(len(quals) + 1):
                q = quals[:i] + (t,) + quals[i:]
                out.setdefault((opcode, q), model.operands(family, opcode, q, ops))
            for i in range(len(quals)):           # a new value of an axis: in place of each qualifier
                q = quals[:i] + (t,) + quals[i + 1:]
                out.setdefault((opcode, q), model.operands(family, opcode, q, ops))
        for i, j in itertools.combinations(range(len(quals)), 2):
            q = list(quals)
            q[i], q[j] = q[j], q[i]
            q = tuple(q)
            out.setdefault((opcode, q), model.operands(family, opcode, q, ops))
    return [(o, q, ops) for (o, q), ops in out.items()]


def operand_variants(ops):
    """One extra operand of each width at every position."""
    for i in range(len(ops) + 1):
        for x in _EXTRA_OPERANDS:
            yield ops[:i] + [x] + ops[i:]


# ---- the reviewed list ----

def load_reviewed(path=None):
    """[{id, spellings (globs), unless (globs), toolchains (globs), targets and verdicts (optional), reason}] of
    results/expectations/drift.toml (or `path`)."""
    path = path or os.path.join(paths.root(), "results", "expectations", "drift.toml")
    if not os.path.exists(path):
        return []
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ToolchainError(f"{path}: {e}", MALFORMED) from None
    out = []
    for i, e in enumerate(doc.get("listed", [])):
        for k in ("id", "spellings", "toolchains", "reason"):
            if k not in e:
                raise ToolchainError(f"{path}: [[listed]] #{i + 1} has no '{k}'", MALFORMED)
        out.append(e)
    return out


def reviewed_for(entries, toolchain, spelling, target, verdict):
    for e in entries:
        if not any(fnmatch.fnmatchcase(toolchain, g) for g in e["toolchains"]):
            continue
        if e.get("verdicts") and verdict not in e["verdicts"]:
            continue
        if e.get("targets") and not any(fnmatch.fnmatchcase(target, g) for g in e["targets"]):
            continue
        if any(fnmatch.fnmatchcase(spelling, g) for g in e.get("unless", ())):
            continue
        if any(fnmatch.fnmatchcase(spelling, g) for g in e["spellings"]):
            return e
    return None


# ---- the run ----

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
    newest_target = tgts[-1]
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
        live = set(range(len(cands)))

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


VERDICTS = ("modelled", "model_rejects", "ignored_by_ptxas", "reordered_listed", "listed", "reordered", "unknown")


def summary(report, out=sys.stdout):
    """Per family and per target: accepted spellings by verdict; then every unknown one with its minimum PTX."""
    def table(title, key):
        rows = collections.defaultdict(collections.Counter)
        for r in report["spellings"]:
            rows[key(r)][r["verdict"]] += 1
        w = max([len(title)] + [len(k) for k in rows]) + 2
        out.write(f"{title:<{w}}" + "".join(f"{v:>17}" for v in VERDICTS) + "\n")
        tot = collections.Counter()
        for k in sorted(rows, key=lambda k: (BY_NAME[k].sm, k) if k in BY_NAME else (0, k)):
            tot.update(rows[k])
            out.write(f"{k:<{w}}" + "".join(f"{rows[k][v]:>17}" for v in VERDICTS) + "\n")
        out.write(f"{'total':<{w}}" + "".join(f"{tot[v]:>17}" for v in VERDICTS) + "\n\n")
    out.write(f"drift of toolchain {report['toolchain']} (ptxas {report['ptxas_version']}): {report['candidates']} "
              f"candidates over {len(report['targets'])} targets in {report['seconds']} s; accepted (target, PTX) "
              "pairs by verdict\n")
    if report.get("ignored_tokens"):
        out.write(f"tokens ptxas takes even on {CONTROL} (ignored wherever written): "
                  f"{' '.join(report['ignored_tokens'])}\n")
    table("family", lambda r: r["family"])
    table("target", lambda r: r["target"])
    unknown = collections.defaultdict(list)
    for r in report["spellings"]:
        if r["verdict"] in ("unknown", "reordered"):
            unknown[(r["family"], r["spelling"])].append(f"{r['target']} (PTX {r['min_ptx']}+)")
    if unknown:
        out.write(f"accepted by {report['toolchain']}, unknown to the model and not reviewed "
                  f"(results/expectations/drift.toml): {len(unknown)} spellings\n")
        for (family, s), where in sorted(unknown.items()):
            out.write(f"  {family}: {s}  at {', '.join(where)}\n")
    else:
        out.write("unknown to the model: none\n")
    return 1 if unknown else 0


def add_parser(sub):
    s = sub.add_parser("drift", help="what a toolchain accepts of the chapter's instructions that the ISA model does "
                       "not know (candidate spellings from the model's vocabulary and the ptxas binary)")
    s.add_argument("toolchain", metavar="NAME|PATH")
    s.add_argument("--family", action="append", metavar="FAMILY", help="only this family (repeatable)")
    s.add_argument("--target", action="append", metavar="TARGET", help="only this target (repeatable)")
    s.add_argument("--forget", action="append", default=[], metavar=".QUALIFIER",
                   help="judge as if the model did not know this qualifier (what the detector says when a release "
                        "adds it)")
    s.add_argument("--max-candidates", type=int, metavar="N", help="at most N candidates per family (a quick look)")
    s.add_argument("--jobs", type=int, metavar="N", help="ptxas processes at once (default: the usable cores)")
    s.add_argument("--json", metavar="FILE", help="also write the whole report (every accepted spelling) here")
    return s


def cmd_drift(a):
    known = {m.FAMILY for m in isa.families()}
    for f in a.family or ():
        if f not in known:
            raise ToolchainError(f"--family {f}: not a family of the model ({', '.join(sorted(known))})")
    for t in a.target or ():
        if t not in BY_NAME:
            raise ToolchainError(f"--target {t}: not a target of the ISA model")
    for q in a.forget:
        if not q.startswith("."):
            raise ToolchainError(f"--forget {q}: a qualifier as spelled in PTX, with its leading dot (.ignore_oob)")
    if a.max_candidates is not None and a.max_candidates < 1:
        raise ToolchainError(f"--max-candidates {a.max_candidates}: at least 1")
    if a.json and not os.path.isdir(os.path.dirname(os.path.abspath(a.json))):
        raise ToolchainError(f"--json {a.json}: its folder does not exist")
    tc = resolve(a.toolchain)
    report = run(tc, a.family, a.target, a.forget, a.jobs, max_candidates=a.max_candidates)
    if a.json:
        atomic_write(a.json, json.dumps(report, indent=1, sort_keys=True) + "\n")
    return summary(report)
