"""./ptxcts gen | cases | modules (python3 -m ptxcts_gen <verb>)."""
import csv
import errno
import json
import os
import sys
import time

from . import faults, linemap
from .model import UndecidedCombination
from .arguments import ArgumentParser
from .targets import BY_NAME, PTX_VERSIONS, ptx_key, target_order


def _err(msg):
    sys.stderr.write(f"ptxcts_gen: {msg}\n")
    return 2


class ManifestError(Exception):
    """A malformed manifest file (exit 3); the message names the file, the line and the rule it breaks."""


# ---- gen -----------------------------------------------------------------------------------------------

def cmd_gen(args):
    from . import manifest
    t0 = time.time()

    def progress(i, n, fam, nf, nc):
        el = time.time() - t0
        left = el / i * (n - i)
        sys.stderr.write(f"[{i}/{n}] {fam}: {nf} forms, {nc} cases  ({el:.1f}s, ~{left:.0f}s left)\n")

    files, per_family = manifest.build(None if args.quiet else progress)
    if args.check:
        bad = manifest.stale(files)
        for b in bad:
            print(b)
        if bad:
            print(f"generated/ is stale ({len(bad)} files); run ./ptxcts gen")
            return 1
        print(f"generated/ is up to date ({len(files)} files, {time.time() - t0:.1f}s)")
        return 0
    changed, removed = manifest.write(files)
    size = sum(len(t.encode()) for t in files.values())
    nforms = sum(len(v[0]) for v in per_family.values())
    ncases = sum(len(v[1]) for v in per_family.values())
    if not args.quiet:
        print(f"{'family':32s} {'forms valid':>11s} {'invalid':>8s} {'cases accept':>13s} {'reject':>8s}")
        for fam, (ff, cases) in sorted(per_family.items()):
            nv = sum(1 for f in ff if f.valid)
            na = sum(1 for c in cases if not c.rules)
            print(f"{fam:32s} {nv:11d} {len(ff) - nv:8d} {na:13d} {len(cases) - na:8d}")
    print(f"generated/: {len(files)} files ({changed} written, {removed} removed), {nforms} forms, {ncases} cases, "
          f"{size / 1e6:.2f} MB, {time.time() - t0:.1f}s")
    return 0


# ---- cases ---------------------------------------------------------------------------------------------

CASE_COLUMNS = ["case_id", "form", "target", "ptx", "expect", "rules"]


def _read_cases(root, known_rules=None):
    """Every row of root/manifest/cases/*.tsv, checked: FileNotFoundError when the folder is missing,
    ManifestError naming file:line and the rule for a malformed row, an empty file or a manifest without cases."""
    cdir = os.path.join(root, "manifest", "cases")
    if not os.path.isdir(cdir):
        raise FileNotFoundError(f"{cdir} does not exist; run ./ptxcts gen first")
    names = sorted(n for n in os.listdir(cdir) if n.endswith(".tsv"))
    if not names:
        raise ManifestError(f"{cdir}: no case (no <family>.tsv file); run ./ptxcts gen")
    for name in names:
        fam, path = name[:-4], os.path.join(cdir, name)
        with open(path, "rb") as fh:
            raw = fh.read()
        try:
            lines = raw.decode("utf-8").split("\n")
        except UnicodeDecodeError as e:
            line = raw.count(b"\n", 0, e.start) + 1
            raise ManifestError(f"{path}:{line}: not UTF-8 text (byte {e.start}: {e.reason})") from None
        if lines and lines[-1] == "":
            lines.pop()
        if not lines:
            raise ManifestError(f"{path}: empty (a family file has the header row and one row per case)")
        if lines[0].split("\t") != CASE_COLUMNS:
            raise ManifestError(f"{path}:1: header {lines[0]!r}: expected the columns {' '.join(CASE_COLUMNS)}")
        if len(lines) == 1:
            raise ManifestError(f"{path}: no case rows below the header")
        seen = {}
        for no, line in enumerate(lines[1:], 2):
            cols = line.split("\t")
            where = f"{path}:{no}"
            if cols[0] in seen:
                raise ManifestError(f"{where}: case {cols[0]!r} repeats the row at line {seen[cols[0]]} (each case "
                                    "once)")
            seen[cols[0]] = no
            if len(cols) != len(CASE_COLUMNS):
                raise ManifestError(f"{where}: expected {len(CASE_COLUMNS)} tab-separated fields "
                                    f"({' '.join(CASE_COLUMNS)}), found {len(cols)}: {line[:80]!r}")
            row = dict(zip(CASE_COLUMNS, cols))
            cid = row["case_id"]
            if row["expect"] not in ("accept", "reject"):
                raise ManifestError(f"{where}: case {cid}: expect {row['expect']!r} is not accept or reject")
            if row["target"] not in BY_NAME:
                raise ManifestError(f"{where}: case {cid}: target {row['target']!r} is not a target of the ISA model")
            if row["ptx"] not in PTX_VERSIONS:
                raise ManifestError(f"{where}: case {cid}: PTX ISA version {row['ptx']!r} is not known "
                                    f"({', '.join(PTX_VERSIONS)})")
            want = f"{row['form']}@{row['target']}.ptx{row['ptx'].replace('.', '')}"
            if cid != want:
                raise ManifestError(f"{where}: case ID {cid!r} does not match its form, target and PTX version "
                                    f"({want!r})")
            row["family"] = fam
            row["rules"] = [r for r in row["rules"].split(",") if r]
            if (row["expect"] == "reject") != bool(row["rules"]):
                raise ManifestError(f"{where}: case {cid}: expect {row['expect']} with rules "
                                    f"{','.join(row['rules']) or '(none)'}: a reject case names its rules, "
                                    f"an accept case none")
            unknown = [r for r in row["rules"] if known_rules is not None and r not in known_rules]
            if unknown:
                raise ManifestError(f"{where}: case {cid}: unknown rule {unknown[0]!r} (./ptxcts cases --rules)")
            yield row


def cmd_cases(args):
    from .rules import RULES, describe, load_all
    from .manifest import GENERATED
    load_all()
    if args.rule:
        for name in args.rule:
            if name not in RULES:
                close = [r for r in sorted(RULES) if name in r]
                return _err(f"--rule {name}: no such rule" + (f" (did you mean: {', '.join(close[:8])})" if close else
                                                               "; ./ptxcts cases --rules lists them"))
            print(describe(name))
            print()
    if args.rules:
        for name in sorted(RULES):
            r = RULES[name]
            print(f"{name:48s} {r.kind:10s} {r.section}")
        return 0
    if args.target and args.target not in BY_NAME:
        return _err(f"--target {args.target}: unknown target (known: {', '.join(sorted(BY_NAME))})")
    if args.ptx and args.ptx not in PTX_VERSIONS:
        return _err(f"--ptx {args.ptx}: unknown PTX ISA version (known: {', '.join(PTX_VERSIONS)})")
    if args.root and not os.path.isdir(args.root):
        return _err(f"--root {args.root}: no such folder (a generated/ folder: manifest/cases/*.tsv)")
    try:
        rows = list(_read_cases(args.root or GENERATED, RULES))
    except FileNotFoundError as e:
        return _err(str(e))
    fams = sorted({r["family"] for r in rows})
    if args.family and args.family not in fams:
        return _err(f"--family {args.family}: unknown family (known: {', '.join(fams)})")
    sel = []
    for r in rows:
        if args.family and r["family"] != args.family:
            continue
        if args.target and r["target"] != args.target:
            continue
        if args.ptx and r["ptx"] != args.ptx:
            continue
        if args.valid and r["expect"] != "accept":
            continue
        if args.invalid and r["expect"] != "reject":
            continue
        if args.rule and not set(args.rule) & set(r["rules"]):
            continue
        if args.form and args.form not in r["form"]:
            continue
        sel.append(r)
    if args.count:
        _count_table(sel, _read_forms(args.root or GENERATED, sel))
        if not sel:
            sys.stderr.write("0 cases\n")
        return 0
    for r in sel:
        print("\t".join([r["case_id"], r["expect"], ",".join(r["rules"])]) if not args.ids else r["case_id"])
    if not args.ids:
        sys.stderr.write(f"{len(sel)} cases\n")
    return 0


def _read_forms(root, rows=()):
    """forms.jsonl as {form ID: record}; ManifestError naming file:line for a malformed line, and naming a form
    the cases use that it lacks."""
    path = os.path.join(root, "manifest", "forms.jsonl")
    try:
        with open(path) as fh:
            lines = fh.read().splitlines()
    except OSError as e:
        raise ManifestError(f"{path}: cannot read the forms of the manifest: {e.strerror}") from None
    forms = {}
    for no, line in enumerate(lines, 1):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise ManifestError(f"{path}:{no}: not valid JSON: {e.msg} (column {e.colno})") from None
        if not isinstance(rec, dict) or not isinstance(rec.get("form"), str) \
                or not isinstance(rec.get("invalid_by"), list):
            raise ManifestError(f"{path}:{no}: a form record is an object with 'form' (string) and 'invalid_by' "
                                f"(list)")
        forms[rec["form"]] = rec
    for r in rows:
        if r["form"] not in forms:
            raise ManifestError(f"{path}: no record of form {r['form']} (named by case {r['case_id']})")
    return forms


def _count_table(rows, forms):
    """Per family: forms valid/invalid (forms.jsonl invalid_by) among the selected cases' forms, cases
    accept/reject; then cases per target."""
    fam, fam_forms, tgt = {}, {}, {}
    for r in rows:
        a = fam.setdefault(r["family"], [0, 0])
        a[0 if r["expect"] == "accept" else 1] += 1
        fam_forms.setdefault(r["family"], set()).add(r["form"])
        b = tgt.setdefault(r["target"], [0, 0])
        b[0 if r["expect"] == "accept" else 1] += 1
    print(f"{'family':32s} {'forms valid':>11s} {'invalid':>8s} {'cases accept':>13s} {'reject':>8s} {'total':>8s}")
    tot = [0, 0, 0, 0]
    for f in sorted(fam):
        nv = sum(1 for x in fam_forms[f] if not forms[x]["invalid_by"])
        ni = len(fam_forms[f]) - nv
        a, b = fam[f]
        tot = [tot[0] + nv, tot[1] + ni, tot[2] + a, tot[3] + b]
        print(f"{f:32s} {nv:11d} {ni:8d} {a:13d} {b:8d} {a + b:8d}")
    print(f"{'total':32s} {tot[0]:11d} {tot[1]:8d} {tot[2]:13d} {tot[3]:8d} {tot[2] + tot[3]:8d}")
    print()
    print(f"{'target':10s} {'accept':>8s} {'reject':>8s} {'total':>8s}")
    for t in sorted(tgt, key=lambda n: target_order(BY_NAME[n])):
        a, b = tgt[t]
        print(f"{t:10s} {a:8d} {b:8d} {a + b:8d}")


# ---- modules -------------------------------------------------------------------------------------------

def planted_fault():
    """(kind, allowed form IDs or None, {}) from PTXCTS_PLANT_FAULT / PTXCTS_PLANT_FAULT_FORMS (the self-test);
    (None, None, {}) when unset; (exit code, None, {}) when they are wrong."""
    kind = os.environ.get("PTXCTS_PLANT_FAULT")
    if not kind:
        return None, None, {}
    if kind not in faults.KINDS:
        return _err(f"PTXCTS_PLANT_FAULT={kind}: unknown fault kind (known: {', '.join(faults.KINDS)})"), None, {}
    path = os.environ.get("PTXCTS_PLANT_FAULT_FORMS")
    if not path:
        return kind, None, {}
    try:
        with open(path) as fh:
            return kind, {ln.strip() for ln in fh if ln.strip()}, {}
    except OSError as e:
        return _err(f"PTXCTS_PLANT_FAULT_FORMS={path}: {e.strerror}"), None, {}


def module_selection(args):
    """The forms `modules` writes, from its options: (target, forms, {form ID: the rules that reject it at the
    target and version}), or the exit status when an option is refused (the error printed). The front-end tier's
    `modules --frontend` (frontend.modules) selects through this too."""
    from . import load_forms
    from .model import _requirement_violations
    from .rules import RULES
    if args.target not in BY_NAME:
        return _err(f"--target {args.target}: unknown target (known: {', '.join(sorted(BY_NAME))})")
    if args.ptx not in PTX_VERSIONS:
        return _err(f"--ptx {args.ptx}: unknown PTX ISA version (known: {', '.join(PTX_VERSIONS)})")
    if not 0 <= args.max_entries <= 1_000_000:
        return _err(f"--max-entries {args.max_entries}: must be 0 (one module per family) or more")
    newer = getattr(args, "newer_than", None)
    if newer is not None and newer not in PTX_VERSIONS:
        return _err(f"--newer-than {newer}: unknown PTX ISA version (known: {', '.join(PTX_VERSIONS)})")
    t = BY_NAME[args.target]
    forms = load_forms()
    fams = sorted({f.family for f in forms})
    for fam in args.family or []:
        if fam not in fams:
            return _err(f"--family {fam}: unknown family (known: {', '.join(fams)})")
    if args.family:
        forms = [f for f in forms if f.family in args.family]
    if getattr(args, "curated", False):
        forms = [f for f in forms if not f.at_boundaries]
    if args.form:
        forms = [f for f in forms if args.form in f.id]
        if not forms:
            return _err(f"--form {args.form}: no form ID contains it" + (f" (in --family {', '.join(args.family)})"
                                                                          if args.family else ""))
    renamed = t.rename and ptx_key(args.ptx) > ptx_key(t.max_ptx)
    tgt_rules = [] if t.exists_at(args.ptx) else (["target.renamed"] if renamed else ["target.not_at_ptx"])
    if newer is not None:   # the run tier's second module set: the forms that need a later version than NEWER
        forms = [f for f in forms if ptx_key(f.valid_from or f.min_ptx) > ptx_key(newer)]
    info = {}
    for f in forms:
        # a rule a later version lifts for the form (Rule.lifted: .add.noftz.f32 from PTX 9.4) no longer holds there
        held = {r for r in f.invalid_by if RULES[r].applies(f.quals, args.ptx)}
        rules = sorted(held | set(_requirement_violations(f, t, args.ptx)) | set(tgt_rules))
        info[f.id] = rules
    if args.valid_only:
        forms = [f for f in forms if not info[f.id]]
    return t, forms, info


def cmd_modules(args):
    from .render import module_text
    if args.frontend:   # whole kernels written by a compiler front-end: the front-end tier's (harness/frontend)
        return _err(f"--frontend {args.frontend}: the front-end tier writes these modules; run ./ptxcts modules "
                    f"--frontend {args.frontend} ... (python3 -m frontend.modules)")
    chosen = module_selection(args)
    if isinstance(chosen, int):
        return chosen
    t, forms, info = chosen
    fault, fault_forms, all_planted = planted_fault()
    if isinstance(fault, int):
        return fault
    rc = make_out(args.out)
    if rc:
        return rc
    index = {"target": t.name, "ptx": args.ptx, "modules": {}, "module_headers": {},
             "entries": {}}
    by_fam = {}
    for f in forms:
        by_fam.setdefault(f.family, []).append(f)
    for fam, ff in sorted(by_fam.items()):
        chunks = [ff] if not args.max_entries else [ff[i:i + args.max_entries]
                                                   for i in range(0, len(ff), args.max_entries)]
        for ci, chunk in enumerate(chunks):
            name = f"{fam}.ptx" if len(chunks) == 1 else f"{fam}.{ci:03d}.ptx"
            text = module_text(t.name, args.ptx, chunk, family=fam)
            if fault:   # the self-test's planted fault (generator/ptxcts_gen/faults.py)
                text, planted = faults.plant(fault, text, chunk, fault_forms)
                all_planted.update(planted)
            write_file(os.path.join(args.out, name), text)
            index["modules"][name] = [f.entry for f in chunk]
            lines = text.split("\n")
            mapped = linemap.entries(lines)
            index["module_headers"][name] = linemap.header(lines, mapped)
            by_entry = {f.entry: f for f in chunk}
            for e in mapped:
                f = by_entry[e.kernel]
                index["entries"][e.kernel] = dict({"form": f.id, "family": f.family, "module": name,
                                                   "expect": "reject" if info[f.id] else "accept",
                                                   "rules": info[f.id]}, **linemap.index_entry(e))
    write_file(os.path.join(args.out, "index.json"), json.dumps(index, indent=1, sort_keys=True) + "\n")
    if fault:
        write_file(os.path.join(args.out, "faults.json"),
               json.dumps({"kind": fault, "planted": all_planted}, indent=1, sort_keys=True) + "\n")
    print(f"{len(index['modules'])} modules, {len(index['entries'])} entries for {t.name} PTX {args.ptx} "
          f"in {args.out}")
    return 0


def make_out(out):
    """None when the --out folder exists or was made; else the exit status, the error named."""
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        why = {errno.EEXIST: "exists and is not a folder",
               errno.ENOTDIR: "a part of this path is a file, not a folder"}.get(e.errno, e.strerror)
        return _err(f"--out {out}: cannot create the folder: {why}")
    return None


def write_file(path, text):
    """Write a file of the modules folder whole or not at all (a temporary file, then renamed); an error names
    the file (a full disk's says nothing of where)."""
    try:
        with open(path + ".tmp", "w") as fh:
            fh.write(text)
        os.replace(path + ".tmp", path)
    except OSError as e:
        try:
            os.unlink(path + ".tmp")
        except OSError:
            pass
        raise OSError(e.errno, e.strerror, e.filename or path) from e


def parse(argv=None):
    """The options of `gen`, `cases` or `modules` (argv: the verb first); a usage error exits 2 (argparse)."""
    p = ArgumentParser(prog="ptxcts_gen", description=__doc__)
    sub = p.add_subparsers(dest="verb", required=True)
    g = sub.add_parser("gen", help="generate generated/ (byte-deterministic)")
    g.add_argument("--check", action="store_true", help="exit 1 naming stale files instead of writing")
    g.add_argument("--quiet", action="store_true")
    c = sub.add_parser("cases", help="list, filter and count compile cases of the manifest")
    c.add_argument("--family")
    c.add_argument("--target")
    c.add_argument("--ptx")
    v = c.add_mutually_exclusive_group()
    v.add_argument("--valid", action="store_true", help="only cases expected to assemble (expect=accept)")
    v.add_argument("--invalid", action="store_true", help="only cases expected to be rejected")
    c.add_argument("--rule", action="append", help="print the rule and its sentence; list the cases breaking it")
    c.add_argument("--form", help="form ID substring")
    out = c.add_mutually_exclusive_group()   # what is printed: one of these, or the case table
    out.add_argument("--rules", action="store_true", help="list every rule")
    out.add_argument("--count", action="store_true", help="counts per family (valid/invalid) and per target")
    out.add_argument("--ids", action="store_true", help="print case IDs only")
    c.add_argument("--root", help="generated/ folder to read (default: the repository's)")
    m = sub.add_parser("modules", help="write PTX modules (one per family) and index.json for a target/version")
    m.add_argument("--target", required=True)
    m.add_argument("--ptx", required=True)
    m.add_argument("--family", action="append")
    m.add_argument("--form", help="form ID substring")
    m.add_argument("--valid-only", action="store_true", help="only forms expected to assemble at target/ptx")
    m.add_argument("--max-entries", type=int, default=0, help="split a family's module every N entries")
    m.add_argument("--newer-than", metavar="PTX", help="only the forms that need a later PTX ISA version than this "
                   "(their minimum, or the version a lifted rule makes them valid from): the run tier's modules of "
                   "the forms beyond the version its toolchain renders the chapter at")
    m.add_argument("--curated", action="store_true", help="only the curated forms, not the combinations the whole "
                   "product adds (forms.jsonl \"cases\": \"boundaries\"): the self-tests' plants go into curated forms")
    m.add_argument("--out", required=True)
    m.add_argument("--frontend", metavar="NAME", help="the kernels written whole by this compiler front-end "
                   "(llvm-22: LLVM IR templates/llvm/, compiled by its NVPTX back-end) instead of the hand-written "
                   "PTX; index.json lists the forms not written, with their reasons")
    m.add_argument("-j", "--jobs", type=int, default=0, help="--frontend: parallel compiles (default: cpus)")
    m.add_argument("--quiet", action="store_true", help="--frontend: no progress lines")
    args = p.parse_args(argv)
    for name, value in vars(args).items():   # an empty value (an unset shell variable) never means "all"
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and not v.strip() and name != "verb":
                p.error(f"--{name.replace('_', '-')} '': an empty value (give one, or leave the option out)")
    if args.verb == "cases" and args.rules:
        # --rules lists every rule of the model: a filter beside it would be ignored, never applied
        given = [f"--{n}" for n in ("rule", "family", "target", "ptx", "valid", "invalid", "form", "root")
                 if getattr(args, n)]
        if given:
            p.error(f"--rules lists every rule and takes no filter: {', '.join(given)} conflicts with it "
                    f"(drop --rules{' to print the rule and list the cases breaking it' if given == ['--rule'] else ''})")
    return args


def main(argv=None):
    from .render import root_problem
    wrong = root_problem()
    if wrong:
        return _err(wrong)
    args = parse(argv)
    try:
        return {"gen": cmd_gen, "cases": cmd_cases, "modules": cmd_modules}[args.verb](args)
    except ManifestError as e:
        sys.stderr.write(f"ptxcts_gen: {e}\n")
        return 3
    except UndecidedCombination as e:   # the model (isa/<family>.py) is malformed: never a silently valid form
        sys.stderr.write(f"ptxcts_gen: the ISA model: {e}\n")
        return 3
