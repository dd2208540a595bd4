"""The model against what is known (Dat3M's verdicts, dat3m/ptx75.litmus) and the tests generated from it
(shapes.py -> generated/*.litmus, their labels generated/labels.jsonl.gz)."""
import os

from .model import Model
from .syntax import parse_file

HERE = os.path.dirname(os.path.abspath(__file__))
DAT3M = os.path.join(HERE, "dat3m", "ptx75.litmus")
SUITE_DIR = os.path.join(HERE, "generated")


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
