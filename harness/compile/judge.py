"""Judging cases with as few ptxas calls as possible.

A chunk is a list of cases of one (target, PTX version) that are all valid or all invalid. The chunk becomes one
module; ptxas's diagnostics are mapped to cases by line. A case with an error or fatal on one of its lines is
rejected, with those messages. Because a fatal (a syntax error) stops ptxas at its line, and because a failed
call may stop before later checks, the cases that got no diagnostic are not yet known to be accepted: they are
assembled again without the rejected ones, until a call succeeds (they are accepted) or every case is judged.
A failure that names no line of any case (no line at all, a crash, a timeout) is isolated by bisection down to
single cases. An error on a header line (`.version`, `.target`) concerns every entry of the module and says
nothing about any instruction under test: every case of the module gets the verdict `header_refused`, which the
classification turns into not_supported, except for cases whose only rules are about the target line itself.
The compiler is a backend (compile.backends: ptxas, nvJitLink or the driver's JIT); all three speak ptxas's
diagnostics.
"""
import errno
import os
import re
import tempfile
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from framework.toolchains import diagnostics, ptxas

from framework import modules
from framework.manifest import Case

class Interrupted(BaseException):
    """The compiler was stopped by the user's Ctrl-C (SIGINT reaches the whole process group): nothing about the
    module is known, and the run is being interrupted (a BaseException, so no judging code catches it)."""


class ToolchainChanged(BaseException):
    """The compiler's file was replaced (or removed) while the run judged with it: a verdict from then on may be
    another compiler's. Raised after the call that noticed it, whose verdicts are dropped; a BaseException, so no
    per-case handler turns it into a harness error."""


class MachineError(BaseException):
    """The machine refused the compile tier what it needs -- open files (ulimit -n), disk space, the file-size
    limit (ulimit -f), a writable folder, memory: no verdict of any compiler, and every later module would be
    refused the same way. Stops the run as ToolchainChanged does (what was judged is kept, partial; exit 2) instead
    of recording each case a harness error."""


# what the machine, not the case, lacks
_MACHINE_ERRNOS = {errno.EMFILE, errno.ENFILE, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.ENOMEM}


def machine_error(e):
    """A MachineError for an OSError of the machine's (_MACHINE_ERRNOS), else None."""
    if isinstance(e, OSError) and e.errno in _MACHINE_ERRNOS:
        from framework import boundary
        return MachineError(boundary.describe_os_error(e))
    return None


def binary_identity(path):
    """What identifies a compiler's file on disk (device, inode, size, modification time), or None when there is
    no file there: a file replaced by another (a reinstall, a package upgrade, a copy over it) changes it."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


ACCEPTED, REJECTED, CRASH, TIMEOUT, ERROR, HEADER_REFUSED = (
    "accepted", "rejected", "crash", "timeout", "harness_error", "header_refused")


@dataclass
class Outcome:
    """What ptxas did with one case."""
    case_id: str
    verdict: str                              # accepted | rejected | crash | timeout | harness_error | header_refused
    diags: List[dict] = field(default_factory=list)   # {severity, line, entry_line, where, text, message}
    frame_errors: List[dict] = field(default_factory=list)  # rejecting diags outside the instruction under test
    seconds: float = 0.0                      # this case's share of the ptxas calls it was part of
    calls: int = 0
    module_cases: int = 0                     # size of the first module the case was in
    note: str = ""

    @property
    def messages(self) -> List[str]:
        return [d["message"] for d in self.diags if d["severity"] in (diagnostics.ERROR, diagnostics.FATAL)]


class Judge:
    def __init__(self, backend, assembler: modules.Assembler, workdir: Optional[str] = None,
                 keep_modules: Optional[str] = None, identity=None):
        self.backend = backend        # compile.backends.Ptxas | NvJitLink | Driver
        self.identity = identity      # binary_identity of the compiler's file when the run began (None: unchecked)
        self.assembler = assembler
        self.workdir = workdir
        self.keep = keep_modules      # a folder: every module and ptxas's output stay there, for review
        if self.keep:
            os.makedirs(self.keep, exist_ok=True)
        self.calls = 0

    def chunk(self, arch: str, target: str, ptx: str, cases: List[Case]) -> Dict[str, Outcome]:
        out: Dict[str, Outcome] = {c.id: Outcome(c.id, "", module_cases=len(cases)) for c in cases}
        with tempfile.TemporaryDirectory(prefix="ptxcts-compile-", dir=self.workdir) as wd:
            self._judge(arch, target, ptx, list(cases), out, wd)
        return out

    def _call(self, arch, target, ptx, cases, out, wd):
        try:
            mod = modules.build(self.assembler, target, ptx, cases)
        except Exception as e:  # a module that cannot be assembled is the harness's fault, per case
            if len(cases) == 1:
                o = out[cases[0].id]
                o.verdict, o.note = ERROR, f"cannot assemble the module: {e}"
                return None, None
            raise
        name = f"{target}.ptx{ptx.replace('.', '')}.{self.backend.load_path}.{os.getpid()}.{self.calls}"
        call = self.backend.assemble(arch, mod.text, self.keep or wd, name)
        self.calls += 1
        if self.identity is not None and binary_identity(self.backend.path) != self.identity:
            raise ToolchainChanged(f"{self.backend.path}: the compiler's file was replaced or removed during the run "
                                   f"(it is not the file the run began with)")
        if self.keep:
            with open(os.path.join(self.keep, name + ".log"), "w") as f:
                f.write(f"$ {' '.join(call.argv)}\nexit {call.returncode}\n{call.output}")
                f.write("".join(f"# {s.first}-{s.last} {s.case.id}\n" for s in mod.spans))
        share = call.seconds / len(cases)
        for c in cases:
            out[c.id].seconds += share
            out[c.id].calls += 1
        return mod, call

    def _judge_halves(self, arch, target, ptx, pending: List[Case], out, wd):
        """Judge the two halves of pending apart: the call on all of them could not say which case is at fault."""
        mid = len(pending) // 2
        self._judge(arch, target, ptx, pending[:mid], out, wd)
        self._judge(arch, target, ptx, pending[mid:], out, wd)

    def _judge(self, arch, target, ptx, pending: List[Case], out, wd):
        while pending:
            try:
                mod, call = self._call(arch, target, ptx, pending, out, wd)
            except Exception as e:
                if machine_error(e):
                    raise machine_error(e) from None
                if len(pending) == 1:
                    o = out[pending[0].id]
                    o.verdict, o.note = ERROR, f"the compile tier failed on this case: {type(e).__name__}: {e}"
                    return
                self._judge_halves(arch, target, ptx, pending, out, wd)
                return
            if mod is None:
                return
            if call.signal in ("SIGINT", "SIGTERM", "SIGHUP"):   # stopped by the user or a CI runner, not a crash
                raise Interrupted()
            if call.timed_out or call.signal:
                if len(pending) == 1:
                    o = out[pending[0].id]
                    o.verdict = TIMEOUT if call.timed_out else CRASH
                    o.note = (f"ptxas ran past {ptxas.CALL_TIMEOUT_S}s" if call.timed_out
                              else f"ptxas died of {call.signal}")
                    o.diags = [_diag(d, mod, None) for d in call.diags]
                    return
                self._judge_halves(arch, target, ptx, pending, out, wd)
                return

            per: Dict[str, List[dict]] = {c.id: [] for c in pending}
            header, unplaced = [], []
            for d in call.diags:
                if diagnostics.is_abort_notice(d):
                    continue
                if d.line is None:
                    # some checks name the entry instead of a line ("Entry function 'k_..' uses too much ...")
                    span = _named_entry(d.message, mod)
                    if span is None:
                        unplaced.append(d)
                    else:
                        per[span.case.id].append(_diag(d, mod, span))
                    continue
                span = mod.owner(d.line)
                if span is None:
                    header.append(_diag(d, mod, None))
                else:
                    per[span.case.id].append(_diag(d, mod, span))

            if call.accepted:
                for c in pending:
                    o = out[c.id]
                    o.verdict, o.diags = ACCEPTED, per[c.id] + header + [_diag(d, mod, None) for d in unplaced]
                return

            if any(h["severity"] in (diagnostics.ERROR, diagnostics.FATAL) for h in header):
                # `.version`/`.target` refused: no entry of this module can be assembled, and nothing is known
                # about any instruction under test
                for c in pending:
                    o = out[c.id]
                    o.verdict, o.diags = HEADER_REFUSED, header + per[c.id]
                return

            rejected = [c for c in pending if any(d["severity"] in (diagnostics.ERROR, diagnostics.FATAL)
                                                  for d in per[c.id])]
            if not rejected:
                if len(pending) == 1:
                    o = out[pending[0].id]
                    o.verdict = REJECTED
                    o.diags = [_diag(d, mod, None) for d in unplaced] or [
                        {"severity": "error", "line": None, "entry_line": None, "where": "call", "text": "",
                         "message": f"ptxas exited {call.returncode} without a diagnostic: {call.output.strip()}"}]
                    o.note = "ptxas named no line; isolated to this case alone"
                    return
                self._judge_halves(arch, target, ptx, pending, out, wd)
                return
            for c in rejected:
                o = out[c.id]
                o.verdict, o.diags = REJECTED, per[c.id]
                rej = [d for d in per[c.id] if d["severity"] in (diagnostics.ERROR, diagnostics.FATAL)]
                instr_rejected = any(d["where"] == "instruction" for d in rej)
                # a companion line's error is expected only beside a rejected instruction under test
                o.frame_errors = [d for d in rej if d["where"] != "instruction"
                                  and not (d["where"] == "companion" and instr_rejected)]
            done = {c.id for c in rejected}
            pending = [c for c in pending if c.id not in done]


def _named_entry(message: str, mod: modules.Module) -> Optional[modules.Span]:
    for name in re.findall(r"'([A-Za-z_$][\w$]*)'", message):
        span = mod.by_kernel.get(name)
        if span is not None:
            return span
    return None


def _diag(d: diagnostics.Diagnostic, mod: modules.Module, span: Optional[modules.Span]) -> dict:
    if span is None:
        where = "header" if d.line is not None else "call"
        entry_line = None
    elif d.line is None:
        entry_line, where = None, "entry"
    else:
        entry_line = d.line - span.first + 1
        where = ("instruction" if d.line in span.instr_lines else
                 "companion" if d.line in span.companion_lines else "frame")
    return {"severity": d.severity, "line": d.line, "entry_line": entry_line, "where": where,
            "text": mod.line_text(d.line), "message": d.message}
