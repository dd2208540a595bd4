"""The reviewed findings file (results/expectations/ptxas.toml): where ptxas and the chapter disagree.

Each finding is one `[[finding]]` table:

    [[finding]]
    id = "short-name"                # unique
    cases = ["<case ID or glob>", ...]
    verdict = "accepts" | "rejects"  # what ptxas does with these cases, against the manifest's expectation
    rules = ["rule.name", ...]       # "accepts" only: the manifest rules ptxas does not enforce; the finding
                                     # excuses an accepted invalid case only if every rule it breaks is listed
    sentence = "..."                 # the chapter's sentence, quoted (000_*.txt)
    ptxas = "..."                    # ptxas's message; for "rejects" it must occur in the diagnostic of every
                                     # case it covers (so a changed reason is not hidden by an old finding)
    note = "..."                     # the reviewer's note: why this is ptxas's divergence, not a manifest bug
    reviewed = "who, date"
    toolchains = ["13.0", "12.*"]    # the toolchains (names or globs) it was reviewed for; a run of another
                                     # toolchain neither applies it nor calls it stale
    load_paths = ["ptxas", ...]      # optional: the compilers it covers (ptxas, nvjitlink, driver; default all)

A finding turns the compile_error (valid case rejected) or fail (invalid case accepted) of a case it covers into
spec_divergence with the finding's text. A finding that covers no case that diverges is stale.
"""
import fnmatch
import os
import re
from dataclasses import dataclass, field
from typing import List

from framework.boundary import VerbError

from . import jsonloc, tomldoc

REQUIRED = ("id", "cases", "verdict", "sentence", "ptxas", "note", "reviewed", "toolchains")
OPTIONAL = ("rules", "load_paths")
LOAD_PATHS = ("ptxas", "nvjitlink", "driver")
VERDICTS = ("accepts", "rejects")


class ExpectationsError(VerbError):
    """A findings file that does not exist (code 2, usage) or breaks its format (code 3, malformed: the default)."""


@dataclass
class Finding:
    id: str
    cases: List[str]
    verdict: str
    sentence: str
    ptxas: str
    note: str
    reviewed: str
    line: int
    toolchains: List[str] = field(default_factory=list)
    load_paths: List[str] = field(default_factory=lambda: list(LOAD_PATHS))
    rules: List[str] = field(default_factory=list)
    applied: List[str] = field(default_factory=list)   # case IDs it turned into spec_divergence this run
    covered: List[str] = field(default_factory=list)   # case IDs of this run its patterns match

    def covers(self, toolchain: str, load_path: str) -> bool:
        """Whether the finding was reviewed for this toolchain (name) and compiler."""
        return load_path in self.load_paths and any(fnmatch.fnmatchcase(toolchain, p) for p in self.toolchains)

    def matches(self, case_id: str) -> bool:
        return any(fnmatch.fnmatchcase(case_id, p) for p in self.cases)

    def text(self) -> str:
        return (f"finding {self.id}: ptxas {self.verdict} this case; chapter: \"{self.sentence}\"; "
                f"ptxas: \"{self.ptxas}\"; note: {self.note}")


def load(path: str) -> List[Finding]:
    """Parse and check the file. Any problem: ExpectationsError naming the file and line."""
    if os.path.isdir(path):
        raise ExpectationsError(f"--expectations {path}: is a folder, not a findings file (the default is "
                                f"results/expectations/ptxas.toml)", code=2)
    if not os.path.isfile(path):
        raise ExpectationsError(f"--expectations {path}: no such file (the reviewed findings would silently be "
                                f"lost; the default is results/expectations/ptxas.toml)", code=2)
    try:   # the file and line named: not TOML, not UTF-8, a FIFO, nested too deeply (framework/documents/tomldoc)
        text = jsonloc.read_text(path)
        doc = tomldoc.loads(text, path)
    except VerbError as e:
        raise ExpectationsError(str(e), code=e.code) from None
    text_lines = text.splitlines()
    table_lines = [i for i, l in enumerate(text_lines, 1) if re.match(r"^\s*\[\[\s*finding\s*\]\]", l)]
    unknown_top = [k for k in doc if k != "finding"]
    if unknown_top:
        raise ExpectationsError(f"{path}:{_key_line(text_lines, unknown_top[0])}: unknown top-level key "
                                f"'{unknown_top[0]}' (only [[finding]] tables)")
    entries = doc.get("finding", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ExpectationsError(f"{path}:{_key_line(text_lines, 'finding')}: 'finding' must be an array of tables "
                                "([[finding]]), each a table of keys")
    out, seen = [], {}
    for n, e in enumerate(entries):
        line = table_lines[n] if n < len(table_lines) else 0
        where = f"{path}:{line}"
        missing = [k for k in REQUIRED if k not in e]
        if missing:
            raise ExpectationsError(f"{where}: finding {e.get('id', '#' + str(n + 1))} lacks {', '.join(missing)}")
        extra = [k for k in e if k not in REQUIRED + OPTIONAL]
        if extra:
            raise ExpectationsError(f"{where}: finding {e['id']}: unknown key {', '.join(extra)} "
                                    f"(keys: {', '.join(REQUIRED + OPTIONAL)})")
        for k in REQUIRED:
            if k in ("cases", "toolchains"):
                continue
            if not isinstance(e[k], str) or not e[k].strip():
                raise ExpectationsError(f"{where}: finding {e.get('id')}: '{k}' must be a non-empty string")
        cases = e["cases"]
        if isinstance(cases, str):
            cases = [cases]
        if not isinstance(cases, list) or not cases or not all(isinstance(c, str) and c for c in cases):
            raise ExpectationsError(f"{where}: finding {e['id']}: 'cases' must be a non-empty list of case IDs or globs")
        from framework.documents.waivers import glob_problem
        bad_glob = next((glob_problem(c) for c in cases if glob_problem(c)), None)
        if bad_glob:
            raise ExpectationsError(f"{where}: finding {e['id']}: 'cases': not a glob: {bad_glob}")
        if e["verdict"] not in VERDICTS:
            raise ExpectationsError(f"{where}: finding {e['id']}: verdict '{e['verdict']}' is not one of {VERDICTS}")
        rules = e.get("rules", [])
        if not isinstance(rules, list) or not all(isinstance(r, str) and r for r in rules):
            raise ExpectationsError(f"{where}: finding {e['id']}: 'rules' must be a list of rule names")
        if e["verdict"] == "accepts" and not rules:
            raise ExpectationsError(f"{where}: finding {e['id']}: a finding that ptxas accepts invalid cases must "
                                    f"name the rules ptxas does not enforce ('rules')")
        tcs = e["toolchains"]
        if not isinstance(tcs, list) or not tcs or not all(isinstance(t, str) and t for t in tcs):
            raise ExpectationsError(f"{where}: finding {e['id']}: 'toolchains' must be a non-empty list of toolchain "
                                    f"names or globs (e.g. [\"13.0\"])")
        bad = [t for t in tcs if not re.fullmatch(r"[0-9*?\[\]]+(\.[0-9*?\[\]]+)?", t)]
        if bad:
            raise ExpectationsError(f"{where}: finding {e['id']}: toolchains {', '.join(bad)}: a toolchain name is "
                                    f"MAJOR.MINOR (e.g. 13.0), or a glob of one (13.*)")
        lps = e.get("load_paths", list(LOAD_PATHS))
        if not isinstance(lps, list) or not lps or any(lp not in LOAD_PATHS for lp in lps):
            raise ExpectationsError(f"{where}: finding {e['id']}: 'load_paths' must be a list of {LOAD_PATHS}")
        if e["id"] in seen:
            raise ExpectationsError(f"{where}: finding id '{e['id']}' repeats the one at line {seen[e['id']]}")
        seen[e["id"]] = line
        out.append(Finding(e["id"], cases, e["verdict"], e["sentence"].strip(), e["ptxas"].strip(),
                           e["note"].strip(), e["reviewed"].strip(), line, list(tcs), list(lps), list(rules)))
    return out


def _key_line(lines, key):
    for i, l in enumerate(lines, 1):
        if re.match(rf"^\s*{re.escape(key)}\s*[=.\]]", l) or re.match(rf"^\s*\[+\s*{re.escape(key)}", l):
            return i
    return 0


def lookup(findings: List[Finding], case_id: str, verdict: str, messages: List[str], case_rules=()):
    """The finding that excuses this outcome (None if none) and, when a finding lists the case but does not
    apply, why not."""
    why_not = []
    for f in findings:
        if not f.matches(case_id):
            continue
        if f.verdict != verdict:
            why_not.append(f"finding {f.id} expects ptxas {f.verdict} it, but ptxas {verdict} it")
            continue
        if verdict == "accepts":
            others = [r for r in case_rules if r not in f.rules]
            if others or not case_rules:
                why_not.append(f"finding {f.id} covers rules {', '.join(f.rules)}, but this case also breaks "
                               f"{', '.join(others) or '(no rule)'}")
                continue
        if verdict == "rejects" and not any(f.ptxas in m for m in messages):
            why_not.append(f"finding {f.id} expects ptxas's message \"{f.ptxas}\", but ptxas said: "
                           + " | ".join(messages))
            continue
        return f, why_not
    return None, why_not


def stale(findings: List[Finding], run_cases, all_cases) -> List[dict]:
    """Findings this run should have used and did not. run_cases, all_cases: (case ID, valid) of this run and of
    the manifest. A finding can excuse only invalid cases ("accepts") or valid ones ("rejects"). One whose patterns
    match no such case of the whole manifest is stale; one that matches such cases of this run, none of which
    diverged, is stale; one whose cases all lie outside this run's selection is not judged."""
    out = []
    for f in findings:
        if f.applied:
            continue
        want_valid = f.verdict == "rejects"
        in_run = [c for c, valid in run_cases if valid == want_valid and f.matches(c)]
        if in_run:
            out.append({"id": f.id, "line": f.line,
                        "why": f"covers {len(in_run)} case(s) of this run (e.g. {in_run[0]}) and none of them diverged"})
        elif not any(valid == want_valid and f.matches(c) for c, valid in all_cases):
            out.append({"id": f.id, "line": f.line, "why": f"its patterns match no {'valid' if want_valid else 'invalid'} "
                                                         f"case of the manifest (it {f.verdict} them)"})
    return out
