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


def fixture_lowering(name="sm_100a"):
    """{form ID: (form record, [Instr] at its test line)} of a fixture module (fixtures/README.md): sm_100a, the nine
    forms of PTX ISA 9.0; sm_107a-9x, eleven forms of PTX ISA 9.2-9.5."""
    from framework.toolchains import sass
    from ptxcts_gen import linemap
    ptx = fixture_text(f"{name}.ptx.gz").splitlines()
    listing = sass.parse(fixture_text(f"{name}.sass.gz"), f"{name}.sass.gz")
    recs = forms()
    return {e.form: (recs[e.form], listing.at_lines(e.kernel, e.test_lines)) for e in linemap.entries(ptx)}


def installed_nvdisasm():
    from framework import toolchains
    from framework.toolchains import nvdisasm as disasm
    try:
        return disasm.find(toolchains.resolve(None))
    except Exception:
        return None
