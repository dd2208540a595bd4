"""ptxas's diagnostics, parsed.

ptxas prints one line per finding:
    ptxas FILE, line N; error   : MESSAGE
    ptxas FILE, line N; warning : MESSAGE
    ptxas FILE, line N; fatal   : Parsing error near '4': syntax error
    ptxas fatal   : Ptx assembly aborted due to errors         (no line: about the whole call)
    ptxas warning : ...                                         (no line)
An `error` lets ptxas go on through the module; a `fatal` with a line (a syntax error) stops it there, so nothing
after that line has been judged.
"""
import re
from dataclasses import dataclass
from typing import List, Optional

ERROR, WARNING, FATAL, INFO = "error", "warning", "fatal", "info"

_WITH_LINE = re.compile(r"^ptxas (?P<file>.*?), line (?P<line>\d+); (?P<sev>[a-z]+)\s*: ?(?P<msg>.*)$")
_NO_LINE = re.compile(r"^ptxas (?P<sev>[a-z]+)\s*: ?(?P<msg>.*)$")
# The closing line of every failed call; it says nothing about any one line.
ABORTED = "Ptx assembly aborted due to errors"


@dataclass(frozen=True)
class Diagnostic:
    severity: str            # error | warning | fatal | info
    message: str
    line: Optional[int]      # 1-based line of the module, None when ptxas names no line
    raw: str

    @property
    def rejects(self) -> bool:
        """Whether this diagnostic means ptxas refused the line (warnings and infos do not)."""
        return self.severity in (ERROR, FATAL)

    def as_dict(self):
        return {"severity": self.severity, "line": self.line, "message": self.message}


def parse(text: str) -> List[Diagnostic]:
    """Every diagnostic in ptxas's output, in order. Lines that are not diagnostics (e.g. -v statistics) are
    kept as `info` so that nothing ptxas said is lost."""
    out = []
    for raw in text.splitlines():
        raw = raw.rstrip()
        if not raw:
            continue
        m = _WITH_LINE.match(raw)
        if m:
            out.append(Diagnostic(_severity(m["sev"]), m["msg"].strip(), int(m["line"]), raw))
            continue
        m = _NO_LINE.match(raw)
        if m:
            out.append(Diagnostic(_severity(m["sev"]), m["msg"].strip(), None, raw))
            continue
        out.append(Diagnostic(INFO, raw, None, raw))
    return out


def _severity(word: str) -> str:
    return word if word in (ERROR, WARNING, FATAL) else INFO


def is_abort_notice(d: Diagnostic) -> bool:
    return d.line is None and d.severity == FATAL and d.message.startswith(ABORTED)


def first_fatal_line(diags: List[Diagnostic]) -> Optional[int]:
    """The line of the first fatal diagnostic that names one (a syntax error): ptxas read nothing after it."""
    for d in diags:
        if d.severity == FATAL and d.line is not None:
            return d.line
    return None
