"""`./ptxcts report RUN... --out DIR`: merge runs into the report: DIR/report.html (a small index page),
DIR/families/<family>.html (per-family pages), DIR/report.css (the stylesheet they share), DIR/report.md and
DIR/report.json. With --gzip the pages and the stylesheet are written gzip-compressed (NAME.gz), as the committed
report (results/report/) is: `gunzip -rk DIR` puts the browsable pages beside them (the links name the .html)."""
import gzip
import json
import os
import sys

from framework import given
from framework import manifest
from framework.documents import merge
from . import coverage, explorations, render_html, render_md, selftests, wholes
from framework.documents.errors import UsageError
from framework.documents.runio import atomic_write
from framework import paths

JSON_DROPPED = ("findings", "rows")  # per finding and per form: on the family pages; derivable from the results


def add_arguments(p):
    p.add_argument("runs", path=given.INPUT, nargs="+", metavar="RUN",
                   help="a run folder (holding results.json), a results.json, or a folder of run folders; "
                        "shards of one run (same run_id) are combined; runs of several toolchains get columns each")
    p.add_argument("--out", path=given.NEW_FOLDER, required=True, metavar="DIR",
                   help="writes DIR/report.html, DIR/families/*.html, report.css, report.md, report.json")
    p.add_argument("--manifest", path=given.FOLDER, metavar="DIR", default=None,
                   help="the generator's manifest folder (default: generated/manifest of the repository)")
    p.add_argument("--baselines", path=given.FOLDER, path_also=("none",), metavar="DIR", default=None,
                   help="the baselines to classify regressions against (default: results/baselines of the "
                        "repository; 'none': no regression section)")
    p.add_argument("--prefer-later", action="store_true",
                   help="the same case key in two runs: keep the later run's result instead of failing")
    p.add_argument("--explore", path=given.INPUT, action="append", default=[], metavar="DIR",
                   help="an exploration's folder (./ptxcts explore, results/explore/<id>): its numbers, the share of "
                        "each parameter's value bins it reached and its coverage picture (repeatable)")
    p.add_argument("--selftest", path=given.FILE, action="append", default=[], metavar="FILE",
                   help="a self-test's score (./ptxcts selftest's selftest.json, or "
                        "results/selftest/selftest-<device>.json.gz): per fault kind and family, the faults caught "
                        "(repeatable)")
    p.add_argument("--whole", path=given.INPUT, action="append", default=[], metavar="RESULTS",
                   help="the front-ends' own whole kernels on a GPU (./ptxcts frontend whole-run's folder or its "
                        "results.jsonl, or a committed results-*.jsonl.gz): kernels per template and class, every "
                        "one that did not pass (repeatable)")
    p.add_argument("--partial", action="append", default=[], metavar="RUN_ID",
                   help="this run covers part of its baseline (a filtered run), as gate --partial: its baseline cases "
                        "it did not run are counted not run, not missing (repeatable)")
    p.add_argument("--device-columns", action="store_true",
                   help="a column per device for every run on a device, named by the device, also where one device "
                        "has its architecture (a fleet's report: one gate per device)")
    p.add_argument("--title", default="ptx-cts coverage report")
    p.add_argument("--gzip", action="store_true",
                   help="write the HTML pages and report.css gzip-compressed (report.html.gz, families/*.html.gz, "
                        "report.css.gz), as the committed report is; report.md and report.json stay plain")


def dumps(rep):
    """report.json: the top-level fields one per line, and the items of its lists and objects one per line
    (diffable, and small enough to commit: no indentation inside an item)."""
    def compact(v):
        return json.dumps(v, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    lines = []
    for k in sorted(rep):
        v = rep[k]
        if isinstance(v, list) and v:
            inner = ",\n  ".join(compact(x) for x in v)
            lines.append(f' {json.dumps(k)}: [\n  {inner}\n ]')
        elif isinstance(v, dict) and v:
            inner = ",\n  ".join(f"{json.dumps(kk)}: {compact(vv)}" for kk, vv in sorted(v.items()))
            lines.append(f' {json.dumps(k)}: {{\n  {inner}\n }}')
        else:
            lines.append(f" {json.dumps(k)}: {compact(v)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


PAGE_SUFFIXES = (".html", ".css")  # what --gzip compresses: the browsable part; report.md and report.json stay text


def compressed(files):
    """{name: text} with every page and the stylesheet gzip-compressed under NAME.gz (no timestamp in the gzip
    header: the same report gives the same bytes)."""
    return {(name + ".gz" if name.endswith(PAGE_SUFFIXES) else name):
            (gzip.compress(text.encode("utf-8"), mtime=0) if name.endswith(PAGE_SUFFIXES) else text)
            for name, text in files.items()}


def _remove_stale(out, files):
    """Remove the pages this report did not write: family pages of families it no longer has, and the other form
    (plain or .gz) of every page it wrote, so that DIR holds one form of each page, this report's."""
    plain = [name[:-len(".gz")] if name.endswith(".gz") else name for name in files]
    other = [p + ".gz" if p in files else p for p in plain if p.endswith(PAGE_SUFFIXES)]
    fam_dir = os.path.join(out, "families")
    other += [f"families/{name}" for name in sorted(os.listdir(fam_dir))
              if name.endswith((".html", ".html.gz")) and f"families/{name}" not in files]
    for name in other:
        if name not in files and os.path.isfile(os.path.join(out, name)):
            os.unlink(os.path.join(out, name))


def _root():
    return paths.root()


def _lowering_rules(paths):
    """The rules' coverage (rules.json) of each lowering run among the given run folders."""
    out = []
    for p in paths:
        f = os.path.join(p, "rules.json") if os.path.isdir(p) else None
        if f and os.path.isfile(f):
            try:
                with open(f) as fh:
                    doc = json.load(fh)
                out.append({"file": f, "toolchain": doc["toolchain"], "nvdisasm": doc["nvdisasm"], "rules": doc["rules"]})
            except (OSError, ValueError, KeyError) as e:
                raise UsageError(f"{f}: not a lowering tier's rules.json: {e}") from None
    return out


def main(args):
    if args.manifest and not os.path.isdir(args.manifest):
        raise UsageError(f"--manifest {args.manifest}: no such folder (a manifest folder: forms.jsonl, cases/)")
    groups = merge.load_and_merge_groups(args.runs, args.prefer_later)
    manifest_dir = args.manifest or manifest.default_dir()
    manifest_path, forms = manifest.load_forms(manifest_dir)
    cases = manifest.load_cases(manifest_dir)
    baselines = args.baselines or os.path.join(_root(), "results", "baselines")
    if args.baselines and args.baselines != "none" and not os.path.isdir(args.baselines):
        raise UsageError(f"--baselines {args.baselines}: no such folder")
    known_ids = {r.run_id for g in groups for r in g.runs}
    unknown = sorted(set(args.partial) - known_ids)
    if unknown:
        raise UsageError(f"--partial {unknown[0]}: no run of this report has that run id "
                         f"(its runs: {', '.join(sorted(known_ids))})")
    rep = coverage.build(groups, forms, cases, manifest_path, args.title,
                         None if baselines == "none" or not os.path.isdir(baselines) else baselines,
                         partial_ids=frozenset(args.partial), device_columns=args.device_columns)
    rep["baselines_dir"] = None if baselines == "none" or not os.path.isdir(baselines) else (
        "results/baselines" if os.path.realpath(baselines) == os.path.realpath(
            os.path.join(_root(), "results", "baselines")) else baselines)
    rep["explorations"] = explorations.load(args.explore)
    rep["selftests"] = selftests.load(args.selftest)
    rep["wholes"] = wholes.load(args.whole)
    rep["lowering_rules"] = _lowering_rules(args.runs)
    files = render_html.render(rep)
    files["report.md"] = render_md.render(rep)
    files["report.json"] = dumps(dict({k: v for k, v in rep.items() if k not in JSON_DROPPED},
                                      explorations=explorations.without_pictures(rep["explorations"])))
    if args.gzip:
        files = compressed(files)
    for name, text in files.items():
        atomic_write(os.path.join(args.out, name), text)
    _remove_stale(args.out, files)
    for g in groups:
        for line in g.missing_shard_lines() + g.partial_lines():
            print(f"report: WARNING: {line}", file=sys.stderr)
    index, css = ("report.html.gz", "report.css.gz") if args.gzip else ("report.html", "report.css")
    header, rows = render_md.summary_rows(rep)
    print(render_md.text_table(header, rows))
    for line in render_md.device_diff_lines(rep):
        print(line)
    for w in rep["wholes"]:
        print("report: " + wholes.line(w))
    unexplained = [g for g in rep["finding_groups"] if g["unexplained"]]
    regress = sum(r.get("regressions", 0) for r in rep["regressions"])
    print(f"report: {sum(len(g.results) for g in groups)} results from {sum(len(g.runs) for g in groups)} runs "
          f"({len({g.toolchain for g in groups})} toolchain(s)), {rep['findings_total']} findings in {len(rep['finding_groups'])} groups "
          f"({sum(g['count'] for g in unexplained)} unexplained), {regress} regressions against the baselines, "
          f"{len(rep['missing_shards'])} missing shards, {len(rep['partial_runs'])} partial; wrote "
          f"{os.path.join(args.out, index)} (+ {len(files) - 4} family pages), {css}, report.md, report.json")
    return 0
