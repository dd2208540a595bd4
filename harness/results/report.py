"""`./ptxcts report RUN... --out DIR`: merge runs into the per-architecture coverage report (HTML, Markdown, JSON)."""
import argparse
import json
import os
import sys

from . import coverage, manifest, merge, render_html, render_md


def add_arguments(p):
    p.add_argument("runs", nargs="+", metavar="RUN",
                   help="a run folder (holding results.json), a results.json, or a folder of run folders; "
                        "shards of one run (same run_id) are combined")
    p.add_argument("--out", required=True, metavar="DIR", help="writes DIR/report.html, report.md, report.json")
    p.add_argument("--manifest", metavar="DIR", default=None,
                   help="the generator's manifest folder (default: generated/manifest of the repository)")
    p.add_argument("--prefer-later", action="store_true",
                   help="the same case key in two runs: keep the later run's result instead of failing")
    p.add_argument("--title", default="ptx-cts coverage report")


def main(args):
    merged = merge.load_and_merge(args.runs, args.prefer_later)
    manifest_path, forms = manifest.load_forms(args.manifest or manifest.default_dir())
    rep = coverage.build(merged, forms, manifest_path, args.title)
    os.makedirs(args.out, exist_ok=True)
    files = {"report.json": json.dumps(rep, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
             "report.md": render_md.render(rep), "report.html": render_html.render(rep)}
    for name, text in files.items():
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            f.write(text)
    for line in merged.missing_shard_lines():
        print(f"report: WARNING: {line}", file=sys.stderr)
    header, rows = render_md.summary_rows(rep)
    print(render_md.text_table(header, rows))
    print(f"report: {len(merged.results)} results from {len(merged.runs)} runs, {len(rep['findings'])} findings, "
          f"{len(merged.missing_shards)} missing shards; wrote {', '.join(os.path.join(args.out, n) for n in files)}")
    return 0


def parser():
    p = argparse.ArgumentParser(prog="ptxcts report", description=__doc__)
    add_arguments(p)
    return p
