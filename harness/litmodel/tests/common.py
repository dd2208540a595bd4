"""What the litmodel tests share: a test of the committed suites by name, its verdicts under a model."""
import functools

from litmodel import suite
from litmodel.model import Model
from litmodel.syntax import parse_file


@functools.lru_cache(maxsize=None)
def all_tests():
    tests = {}
    for f in suite.suite_files() + [suite.DAT3M]:
        for t in parse_file(f):
            tests[t.name] = t
    return tests


def verdict(name, outcome, policies=None, broken=()):
    """The verdict of `outcome` ("T0:r1=0 x=1"; None when the model does not produce it) for test `name`."""
    res = Model(policies, broken).run(all_tests()[name])
    for o, v in res.verdicts.items():
        if " ".join(f"{k}={x}" for k, x in o) == outcome:
            return v
    return None
