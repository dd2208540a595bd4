"""The model against what is known (Dat3M's verdicts, dat3m/ptx75.litmus) and the tests generated from it
(shapes.py -> cases/*.litmus, their labels cases/labels.jsonl.gz)."""
import os

from .model import Model
from .syntax import parse_file

HERE = os.path.dirname(os.path.abspath(__file__))
DAT3M = os.path.join(HERE, "dat3m", "ptx75.litmus")
SUITE_DIR = os.path.join(HERE, "cases")


def agreement(model=None):
    """One row per Dat3M test: its expected result (1: the condition holds, herd's reading) and the model's."""
    model = model or Model()
    rows = []
    for t in parse_file(DAT3M):
        res = model.run(t)
        want = int(t.expects["dat3m"][0])
        rows.append({"test": t.name, "source": t.source, "kind": t.condition[0], "dat3m": want,
                     "model": res.condition, "agree": want == res.condition})
    return rows


LABELS = os.path.join(SUITE_DIR, "labels.jsonl.gz")


def _label_rows(model, paths):
    import time
    rows, start = [], time.monotonic()
    for path in paths:
        for t in parse_file(path):
            res = model.run(t)
            rows.append({"test": t.name, "file": os.path.basename(path),
                         "outcomes": {outcome_key(o): v for o, v in sorted(res.verdicts.items())}})
    return rows, time.monotonic() - start


def outcome_key(o):
    return " ".join(f"{k}={v}" for k, v in o)


def suite_files():
    return sorted(os.path.join(SUITE_DIR, f) for f in os.listdir(SUITE_DIR) if f.endswith(".litmus"))


def suite_tests():
    """{name: test} of the generated suite (every cases/*.litmus): the originals a mutant is judged by."""
    return {t.name: t for f in suite_files() for t in parse_file(f)}


def write_suite():
    """cases/<shape>.litmus from shapes.py, and every outcome's label by the model."""
    import gzip
    import json
    from . import shapes
    os.makedirs(SUITE_DIR, exist_ok=True)
    for f in suite_files():
        os.remove(f)
    for shape in shapes.SHAPES:
        with open(os.path.join(SUITE_DIR, f"{shape}.litmus"), "w", encoding="utf-8") as f:
            f.write(shapes.family_text(shape))
    rows, _ = _label_rows(Model(), suite_files())
    with gzip.open(LABELS, "wt", encoding="utf-8", compresslevel=9) as f:
        f.write("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    # gzip's header carries a time stamp: written byte-deterministic
    with open(LABELS, "rb") as f:
        data = bytearray(f.read())
    data[4:8] = b"\0\0\0\0"
    with open(LABELS, "wb") as f:
        f.write(bytes(data))
    return len(rows)


def committed_labels():
    import gzip
    import json
    with gzip.open(LABELS, "rt", encoding="utf-8") as f:
        return {r["test"]: r for r in map(json.loads, f)}


def check_suite(model=None):
    """The differences between the committed labels and today's model (and between shapes.py and the files)."""
    from . import shapes
    diffs = []
    for shape in shapes.SHAPES:
        path = os.path.join(SUITE_DIR, f"{shape}.litmus")
        text = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                text = f.read()
        if text != shapes.family_text(shape):
            diffs.append(f"{path}: not what shapes.py writes (./ptxcts litmus suite write)")
    rows, secs = _label_rows(model or Model(), suite_files())
    want = committed_labels()
    for r in rows:
        w = want.get(r["test"])
        if w is None:
            diffs.append(f"{r['test']}: no committed label")
            continue
        for o in sorted(set(r["outcomes"]) | set(w["outcomes"])):
            a, b = w["outcomes"].get(o, "absent"), r["outcomes"].get(o, "absent")
            if a != b:
                diffs.append(f"{r['test']}: {o or '(no register)'}: labelled {a}, the model says {b}")
    for name in set(want) - {r["test"] for r in rows}:
        diffs.append(f"{name}: labelled but not generated")
    return diffs, len(rows), secs
