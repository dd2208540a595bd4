"""What the lowering tier's tests share: the fixture module and its real nvdisasm listing, the manifest's form
records, and the nvdisasm installed on this machine (None when there is none: the tests that need it skip)."""
import gzip
import json
import os

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def fixture_text(name):
    with gzip.open(os.path.join(FIXTURES, name), "rt") as f:
        return f.read()


def forms():
    with open(os.path.join(ROOT, "generated", "manifest", "forms.jsonl")) as f:
        return {r["form"]: r for r in map(json.loads, f)}


def fixture_lowering():
    """{form ID: (form record, [Instr] at its test line)} of the fixture module."""
    from framework.toolchains import sass
    from ptxcts_gen import linemap
    ptx = fixture_text("sm_100a.ptx.gz").splitlines()
    listing = sass.parse(fixture_text("sm_100a.sass.gz"), "sm_100a.sass.gz")
    recs = forms()
    return {e.form: (recs[e.form], listing.at_lines(e.kernel, e.test_lines)) for e in linemap.entries(ptx)}


def installed_nvdisasm():
    from framework import toolchains
    from framework.toolchains import nvdisasm as disasm
    try:
        return disasm.find(toolchains.resolve(None))
    except Exception:
        return None
