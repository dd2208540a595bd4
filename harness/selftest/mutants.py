"""The mutants of ./ptxcts selftest-model (model_mutation.py): universalmutator's mutants of one file of
harness/refmodel/src, cached per source hash and tool version, each with its changed hunk and its mutation operator,
and the deterministic, stratified sampling order by seed."""
import difflib
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
from framework import paths

ROOT = paths.root()
MODEL_SRC = os.path.join(ROOT, "harness", "refmodel", "src")

RULE_FILES = ["universal.rules", "cpp.rules", "c_like.rules"]  # the order `mutate X.cpp cpp` loads them in

# Mutation operator of a rule, by the rule's left-hand side (and right-hand side where one lhs has several kinds).
ARITH = {r"\+", r"-([^>])", r"\*", r"([^\*/])/([^\*/])", "%", r"\+=", "-=", "--", r"\+\+"}
RELATIONAL = {"!=", "==", ">=", "<=", "<", r"([^-])>"}


def operator_of(rule):
    lhs, _, rhs = rule.partition(" ==> ")
    lhs, rhs = lhs.strip(), rhs.strip()
    if lhs == r"-([^>])" and rhs == r"\1":
        return "minus_delete"
    if lhs in ARITH:
        return "arithmetic"
    if lhs in RELATIONAL:
        return "relational"
    if lhs == r"(\D)(\d+)(\D)":
        return "constant"
    if lhs.startswith("if"):
        return "condition"
    if lhs in ("&&", r"\|\|", "!") or "(0==1)" in rhs or "(1==1)" in rhs:
        return "logical"
    if lhs in (r"([^&])&([^&])", r"([^|])\|([^|])"):
        return "bitwise"
    if "break;" in rhs or "continue;" in rhs:
        return "jump_insert"
    if lhs.startswith("while") or lhs == "else":
        return "control"
    if "/*" in rhs:
        return "statement_delete"
    if lhs.startswith("([,"):
        return "swap_args"
    if lhs.startswith('"'):
        return "string"
    return "library"  # min/max, begin/end, <algorithm> names, at(0)


def rules_text():
    """Rule text by universalmutator's cumulative rule line number (what --showRules prints as file:N)."""
    import universalmutator
    static = os.path.join(os.path.dirname(universalmutator.__file__), "static")
    by_no, n = {}, 0
    for name in RULE_FILES:
        with open(os.path.join(static, name)) as f:
            for line in f:
                n += 1
                by_no[f"builtin:{name}:{n}"] = line.rstrip("\r\n")
    return by_no


def sha(data):
    return hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()


def describe(orig_lines, mut_lines):
    """(first changed line, original text, mutated text): the changed hunk, lines joined with ' \\n '."""
    sm = difflib.SequenceMatcher(a=orig_lines, b=mut_lines, autojunk=False)
    hunks = [op for op in sm.get_opcodes() if op[0] != "equal"]
    if not hunks:
        return None
    i1, i2, j1, j2 = hunks[0][1], hunks[-1][2], hunks[0][3], hunks[-1][4]
    while i1 > 0 and j1 > 0 and not "".join(orig_lines[i1:i2]).strip():  # an inserted line: name its anchor
        i1, j1 = i1 - 1, j1 - 1
    before = " \\n ".join(l.strip() for l in orig_lines[i1:i2])
    after = " \\n ".join(l.strip() for l in mut_lines[j1:j2])
    return i1 + 1, before, after


def generate(name, build_dir, version):
    """Every mutant of harness/refmodel/src/<name>, cached per source hash and tool version."""
    path = os.path.join(MODEL_SRC, name)
    with open(path) as f:
        text = f.read()
    cache = os.path.join(build_dir, "mutants", f"{name}-{sha(text)[:12]}-um{version}")
    index = os.path.join(cache, "index.json")
    if os.path.exists(index):
        with open(index) as f:
            return json.load(f)
    tmp = cache + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "m"))
    with open(os.path.join(tmp, name), "w") as f:
        f.write(text)
    p = subprocess.run(["mutate", name, "cpp", "--noCheck", "--showRules", "--mutantDir", "m"], cwd=tmp,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise SystemExit(f"selftest-model: mutate {name} failed (exit {p.returncode}):\n{p.stdout[-2000:]}")
    rules = rules_text()
    orig_lines = text.splitlines()
    mutants, seen = [], {}
    for m in re.finditer(r"PROCESSING MUTANT: (\d+):.*?\(FROM: ([^)]*)\)\.\.\.VALID \[written to ([^\]]+)\]",
                         p.stdout, re.S):
        mpath = os.path.join(tmp, m.group(3))
        with open(mpath) as f:
            mtext = f.read()
        d = describe(orig_lines, mtext.splitlines())
        if d is None:
            continue
        line, before, after = d
        rule = rules.get(m.group(2), m.group(2))
        base = f"{name}: {before} ==> {after}"
        seen[base] = seen.get(base, 0) + 1
        signature = base if seen[base] == 1 else f"{base} #{seen[base]}"
        mutants.append({"file": name, "line": line, "operator": operator_of(rule), "rule": rule,
                        "signature": signature, "path": os.path.relpath(mpath, tmp)})
    with open(os.path.join(tmp, "index.json"), "w") as f:
        json.dump(mutants, f, indent=1)
    shutil.rmtree(cache, ignore_errors=True)
    os.rename(tmp, cache)
    return mutants


def sample_order(mutants, seed):
    """A deterministic order whose every prefix is stratified: mutant k of a stratum of n (file, operator), shuffled
    by seed, sorts at (k + u) / n with u in [0, 1) drawn per stratum, so a prefix of length N holds about
    N * n / total mutants of each stratum."""
    strata = {}
    for m in mutants:
        strata.setdefault((m["file"], m["operator"]), []).append(m)
    keyed = []
    for (fname, op), ms in sorted(strata.items()):
        rnd = random.Random(f"{seed}:{fname}:{op}")
        ms = sorted(ms, key=lambda m: m["signature"])
        rnd.shuffle(ms)
        u = rnd.random()
        for k, m in enumerate(ms):
            keyed.append(((k + u) / len(ms), m["signature"], m))
    keyed.sort(key=lambda t: (t[0], t[1]))
    return [m for _, _, m in keyed]
