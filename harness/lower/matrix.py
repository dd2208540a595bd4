"""python3 -m lower.matrix RUN... --out DIR: the lowering keys of several toolchains side by side.

RUN are lowering runs, one per toolchain (the same selection of forms and targets). For each pair of consecutive
releases and each target: how many forms kept their key, changed it, changed only the frame, or were lowered by
one release only. Writes DIR/summary.md (the tables) and DIR/changes.tsv.gz (one changed form@target per line:
release A, release B, target, form, key A, key B), both compact enough to commit."""
import gzip
import os
import sys

from framework import boundary, given
from framework import documents
from framework.documents import lowering as keys
from framework.documents import schema


def _version(doc):
    return tuple(int(x) for x in schema.toolchain_name(doc["toolchain"]).split("."))


def main(argv):
    p = boundary.ArgumentParser(prog="python3 -m lower.matrix", description=__doc__.split("\n\n")[0])
    p.add_argument("runs", path=given.INPUT, nargs="+", metavar="RUN")
    p.add_argument("--out", path=given.NEW_FOLDER, required=True)
    a = p.parse_args(argv)
    try:
        docs = sorted((keys.load_run(r) for r in a.runs), key=_version)
    except (documents.errors.UsageError, keys.BaselineError) as e:
        sys.stderr.write(f"lower.matrix: {e}\n")
        return 2
    lines = ["# Lowering keys between releases", "",
             "Per pair of consecutive releases and per target: forms whose lowering key (the core SASS "
             "instructions, registers abstracted) is the same, changed, or the same with a different frame "
             "(uniform loop, address arithmetic); forms only one release lowered.", "",
             "| runs | toolchain | ptxas | nvdisasm | forms lowered |", "|---|---|---|---|---|"]
    for d in docs:
        n = sum(1 for c in d["cases"] if c["class"] not in ("not_supported", "skipped"))
        lines.append(f"| {d['run_id']} | {schema.toolchain_name(d['toolchain'])} | {d['toolchain'].get('ptxas')} | "
                     f"{d['toolchain'].get('nvdisasm')} | {n} |")
    rows = []
    for da, db in zip(docs, docs[1:]):
        na, nb = schema.toolchain_name(da["toolchain"]), schema.toolchain_name(db["toolchain"])
        cmp = keys.compare(da, db)
        lines += ["", f"## {na} -> {nb}", "", "| target | same | key changed | frame only | only " + na +
                  " | only " + nb + " |", "|---|---|---|---|---|---|"]
        for t, r in cmp.items():
            lines.append(f"| {t} | {r['same']} | {len(r['changed'])} | {r['frame_only']} | {r['only_a']} | "
                         f"{r['only_b']} |")
            rows += [f"{na}\t{nb}\t{t}\t{c['form']}\t{c['a']}\t{c['b']}"
                     for c in r["changed"]]
    os.makedirs(a.out, exist_ok=True)
    documents.atomic_write(os.path.join(a.out, "summary.md"), "\n".join(lines) + "\n")
    body = "release_a\trelease_b\ttarget\tform\tclass_a\tkey_a\tclass_b\tkey_b\n" + "".join(r + "\n" for r in rows)
    documents.atomic_write(os.path.join(a.out, "changes.tsv.gz"), gzip.compress(body.encode(), mtime=0))
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
