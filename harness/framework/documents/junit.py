"""JUnit XML for a result document, the format CI dashboards read (Jenkins, GitLab, GitHub test reporters).

One <testsuite> per family, one <testcase> per result. classname = "<tier>.<family>", name = the case ID plus the
other key fields in brackets. Classes map to JUnit outcomes as the compile tier's own writer maps them (harness/compile/output.py), so that
every tier's junit.xml reads the same on a dashboard:
  pass                    -> (no child)
  fail, compile_error     -> <failure type="CLASS" message="...">replay: command</failure>
  crash, timeout          -> <error type="CLASS" message="...">replay: command</error>
  not_supported, skipped  -> <skipped message="CLASS: reason"/>
  spec_divergence         -> <system-out>spec_divergence: message / replay: command</system-out>: a reviewed
                             divergence (a named alternative of the spec text) is not a JUnit failure; it is
                             shown in the report's findings and a new one fails the gate.
  beyond_chapter          -> <system-out>beyond_chapter: message / replay: command</system-out>: an invalid case
                             a newer toolchain accepts at a PTX ISA version newer than the chapter modelled; not
                             a failure and not a finding against the chapter (the report counts it apart).
"""
import xml.etree.ElementTree as ET

from .schema import result_key

_FAILURE = ("fail", "compile_error")
_ERROR = ("crash", "timeout")
# unruled (lowering tier): not passed, not failed: a skip whose message says no rule decides it
_SKIPPED = ("not_supported", "skipped", "unruled")
_NOTED = ("spec_divergence", "beyond_chapter")  # passed testcases that say what they are


def _case_name(case, doc):
    _, target, ptx, load_path, sm = result_key(case, doc)
    extra = f"{target} ptx{ptx} {load_path}" + (f" on {sm}" if sm else "")
    return f"{case['id']} [{extra}]"


def _counts(cases):
    n = {"tests": len(cases), "failures": 0, "errors": 0, "skipped": 0}
    for case in cases:
        cls = case["class"]
        n["failures"] += cls in _FAILURE
        n["errors"] += cls in _ERROR
        n["skipped"] += cls in _SKIPPED
    return {k: str(v) for k, v in n.items()}


def _seconds(cases):
    return f"{sum(c.get('duration_ms', 0) for c in cases) / 1000:.3f}"


def to_xml(doc):
    """The JUnit XML text of a (validated) result document."""
    families = {}
    for case in sorted(doc["cases"], key=lambda c: tuple(x or "" for x in result_key(c, doc))):
        families.setdefault(case["family"], []).append(case)
    root = ET.Element("testsuites", name=f"ptxcts.{doc['tier']}", time=_seconds(doc["cases"]),
                      **_counts(doc["cases"]))
    for family in sorted(families):
        cases = families[family]
        suite = ET.SubElement(root, "testsuite", name=f"{doc['tier']}.{family}", timestamp=doc["started"],
                              hostname=str(doc["host"].get("hostname", "")), time=_seconds(cases),
                              **_counts(cases))
        props = ET.SubElement(suite, "properties")
        for name, value in _properties(doc):
            ET.SubElement(props, "property", name=name, value=value)
        for case in cases:
            tc = ET.SubElement(suite, "testcase", classname=f"{doc['tier']}.{family}",
                               name=_case_name(case, doc), time=f"{case.get('duration_ms', 0) / 1000:.6f}")
            cls = case["class"]
            message = case.get("message", "")
            if cls in _FAILURE or cls in _ERROR:
                child = ET.SubElement(tc, "failure" if cls in _FAILURE else "error", type=cls,
                                      message=f"{cls}: {message}" if message else cls)
                child.text = f"replay: {case.get('replay', '')}"
            elif cls in _SKIPPED:
                ET.SubElement(tc, "skipped", message=f"{cls}: {message}" if message else cls)
            elif cls in _NOTED:
                ET.SubElement(tc, "system-out").text = f"{cls}: {message}\nreplay: {case.get('replay', '')}"
    ET.indent(root, space=" ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _properties(doc):
    yield "run_id", doc["run_id"]
    yield "seed", str(doc["seed"])
    yield "shard", f"{doc['shard']['index']}/{doc['shard']['count']}"
    for k, v in sorted(doc["toolchain"].items()):
        yield f"toolchain.{k}", str(v)
    if doc["device"]:
        for k in ("name", "sm", "cc"):
            yield f"device.{k}", doc["device"][k]
