"""Modules of many cases, and the map from a module's lines back to its cases.

A module is assembled by the generator's own `ptxcts_gen.module_text(target, ptx, forms)` (ARCHITECTURE.md
section 2). When the manifest is not the generator's (test fixtures), it is assembled from the manifest alone: the
header of section 2 (`.version`, `.target`, `.address_size 64`) and each form's entry cut out of
`kernels/<family>.ptx`.

Line map: the generator's `ptxcts_gen.linemap`, the one definition every tier uses (`./ptxcts modules` writes it
into index.json). Each case owns its entry's lines, from the provenance comment that precedes `.entry` (or
`.entry` itself) to the line before the next entry's first line. Inside the entry, the instruction under test is
the line (or lines) the generator marks with `// ptxcts:test`; in an entry without that mark (a fixture's
kernel), the line(s) whose text starts with the form's instruction opcode (`instr` in forms.jsonl, its first word
with every qualifier). Every other line of the entry is the kernel frame. Lines before the first entry are the
module header.
"""
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from framework.manifest import Case, Manifest
from ptxcts_gen import linemap

HEADER = "header"


@dataclass
class Span:
    case: Case
    kernel: str
    first: int                      # 1-based, inclusive
    last: int                       # inclusive
    instr_lines: Tuple[int, ...]    # lines of the instruction under test
    companion_lines: Tuple[int, ...] = ()


@dataclass
class Module:
    target: str
    ptx: str
    text: str
    spans: List[Span]
    lines: List[str] = field(default_factory=list)

    @property
    def by_kernel(self) -> Dict[str, Span]:
        return {s.kernel: s for s in self.spans}

    def owner(self, line: int) -> Optional[Span]:
        """The span (case) the line belongs to, None for the header or beyond the text."""
        lo, hi = 0, len(self.spans) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            s = self.spans[mid]
            if line < s.first:
                hi = mid - 1
            elif line > s.last:
                lo = mid + 1
            else:
                return s
        return None

    def line_text(self, line: Optional[int]) -> str:
        if line is None or not (1 <= line <= len(self.lines)):
            return ""
        return self.lines[line - 1].strip()


class AssemblyError(Exception):
    pass


def opcode(instr: str) -> str:
    """`cp.async.ca.shared.global` from `@p cp.async.ca.shared.global [dst], [src], 4;`."""
    words = instr.strip().split()
    while words and (words[0].startswith("@") or words[0].endswith(":")):
        words = words[1:]
    if not words:
        return ""
    return words[0].rstrip(";")


class Assembler:
    """Builds module text for (target, ptx, forms)."""

    def __init__(self, manifest: Manifest, use_generator: Optional[bool] = None):
        self.manifest = manifest
        self.module_text = None
        self._gen_forms = None
        if use_generator is not False:
            try:
                import ptxcts_gen  # noqa: the generator package, on PYTHONPATH via ./ptxcts
                self.module_text = getattr(ptxcts_gen, "module_text", None)
                # module_text takes Form objects or IDs; with IDs it reloads the whole model on every call
                loader = getattr(ptxcts_gen, "load_forms", None)
                if loader is not None:
                    self._gen_forms = {f.id: f for f in loader()}
            except ImportError:
                self.module_text = None
            if use_generator and self.module_text is None:
                raise AssemblyError("ptxcts_gen.module_text is not importable (PYTHONPATH=generator)")
        self._entries: Dict[str, Dict[str, str]] = {}
        self.source = "ptxcts_gen.module_text" if self.module_text else "manifest kernels/*.ptx"

    def text(self, target: str, ptx: str, form_ids: List[str]) -> str:
        if self.module_text is not None:
            if self._gen_forms is not None:
                missing = [f for f in form_ids if f not in self._gen_forms]
                if missing:
                    raise AssemblyError(f"the generator's model has no form {missing[0]} (generated/ is stale?)")
                return self.module_text(target, ptx, [self._gen_forms[f] for f in form_ids])
            return self.module_text(target, ptx, form_ids)
        # the header of ARCHITECTURE.md section 2, and the window of section 4 every kernel may use
        parts = [f".version {ptx}", f".target {target}", ".address_size 64", "",
                 ".extern .shared .align 1024 .b8 smem[];", ""]
        for fid in form_ids:
            parts.append(self.entry_text(fid))
        return "\n".join(parts) + "\n"

    def check_kernel_files(self, form_ids) -> None:
        """Every kernel file these forms are cut from is there (AssemblyError naming the first that is not): a
        manifest folder copied without its kernels is refused before any work, not judged a harness error per
        case. Nothing to check when the generator writes the modules."""
        if self.module_text is not None:
            return
        for fid in sorted(set(form_ids)):
            fam = self.manifest.form(fid)["family"]
            if fam not in self._entries:
                self.entry_text(fid)

    def entry_text(self, form_id: str) -> str:
        """The entry of a form cut from its family's kernel file, provenance comment included."""
        form = self.manifest.form(form_id)
        fam = form["family"]
        if fam not in self._entries:
            rel = form.get("kernel_file") or f"kernels/{fam}.ptx"
            # kernel_file is relative to the manifest folder or to generated/ (its parent)
            cands = [os.path.join(self.manifest.root, rel), os.path.join(os.path.dirname(self.manifest.root), rel)]
            path = next((c for c in cands if os.path.exists(c)), None)
            if path is None:
                raise AssemblyError(f"form {form_id}: kernel file {rel} is in neither {' nor '.join(cands)}")
            self._entries[fam] = _split_kernel_file(path)
        try:
            return self._entries[fam][form["kernel"]]
        except KeyError:
            raise AssemblyError(f"form {form_id}: entry {form['kernel']} is not in kernels/{fam}.ptx")


def _split_kernel_file(path: str) -> Dict[str, str]:
    """Entry name -> its text, each beginning at the comment block just before `.entry` (its provenance)."""
    with open(path) as f:
        lines = f.read().splitlines()
    try:
        return {e.kernel: "\n".join(lines[e.first - 1:e.last]).rstrip() + "\n" for e in linemap.entries(lines)}
    except linemap.LineMapError as e:
        raise AssemblyError(f"{path}: {e}")


def build(assembler: Assembler, target: str, ptx: str, cases: List[Case]) -> Module:
    """One module holding every case's entry, and the line map."""
    forms = [assembler.manifest.form(c.form) for c in cases]
    text = assembler.text(target, ptx, [c.form for c in cases])
    lines = text.splitlines()
    try:
        mapped = {e.kernel: e for e in linemap.entries(lines)}
    except linemap.LineMapError as e:
        raise AssemblyError(f"module {target} PTX {ptx}: {e}")
    spans = []
    for c, form in zip(cases, forms):
        k = form["kernel"]
        e = mapped.get(k)
        if e is None:
            raise AssemblyError(f"case {c.id}: entry {k} is not in the module for {target} PTX {ptx}")
        instr = e.test_lines
        if not instr:
            op = opcode(form["instr"])
            instr = tuple(n for n in range(e.entry, e.last + 1) if op and _starts_with_opcode(lines[n - 1], op))
        spans.append(Span(c, k, e.first, e.last, instr, e.companion_lines))
    spans.sort(key=lambda s: s.first)
    return Module(target, ptx, text, spans, lines)


def _starts_with_opcode(line: str, op: str) -> bool:
    s = line.split("//", 1)[0].strip()
    while s.startswith("@") or re.match(r"^[A-Za-z_$][\w$]*:", s):
        # a predicate guard `@%p1 ` or a label `L1:` before the instruction
        if s.startswith("@"):
            parts = s.split(None, 1)
            s = parts[1] if len(parts) > 1 else ""
        else:
            s = s.split(":", 1)[1].strip()
    word = s.split(None, 1)[0].rstrip(";") if s else ""
    return word == op
