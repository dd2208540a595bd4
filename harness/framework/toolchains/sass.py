"""Reading `nvdisasm -c -gp` output: the SASS instructions of each kernel, each with the PTX module line nvdisasm
attributes it to.

With `-gp` (and a cubin assembled with `ptxas -lineinfo`), nvdisasm writes `//## File ".nv_debug_ptx_txt", line N`
before the instructions that came from line N of the PTX module; every instruction after it, up to the next such
comment, belongs to line N. Every other line of the listing is one of a small set of shapes (section and symbol
directives, labels, comments, blank); a line of none of them is an error that shows the line, never skipped.
"""
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Dict, List, Optional

from framework.boundary import VerbError

PTX_LINE = re.compile(r'^\s*//## File "\.nv_debug_ptx_txt", line (\d+)(?:, inlined at .*)?\s*$')
OTHER_FILE_LINE = re.compile(r'^\s*//## File ".*", line \d+.*$')
INSTR = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*(?:/\*.*\*/\s*)?$")
LABEL = re.compile(r"^\s*([A-Za-z_.$][\w.$]*):\s*$")
DIRECTIVE = re.compile(r"^\s*\.[A-Za-z_]\w*(\s.*)?$")
COMMENT = re.compile(r"^\s*//.*$")
BRACE = re.compile(r"^\s*[{}]\s*$")
FUNC_SECTION = re.compile(r"^\s*\.section\s+\.text\.([A-Za-z_$][\w$]*),")


class SassError(VerbError):
    """Output nvdisasm wrote that this reader cannot take (exit 3), naming the line."""


@dataclass(frozen=True)
class Instr:
    addr: int
    text: str            # as printed, without the trailing ';'
    ptx_line: int        # 0: no line attribution before it

    # The parts of the text, each split once per instruction (cached_property: the judge reads them millions of
    # times in the lowering tier's self-test, which took most of its time splitting the same text again).
    @cached_property
    def guard(self) -> str:
        return self.text.split(None, 1)[0] if self.text.startswith("@") else ""

    @cached_property
    def body(self) -> str:
        return self.text.split(None, 1)[1] if self.text.startswith("@") else self.text

    @cached_property
    def mnemonic(self) -> str:
        """The opcode with its modifiers: `UTMALDG.3D.MULTICAST`."""
        return self.body.split(None, 1)[0]

    @cached_property
    def opcode(self) -> str:
        return self.mnemonic.split(".", 1)[0]

    @cached_property
    def operands(self) -> str:
        parts = self.body.split(None, 1)
        return parts[1] if len(parts) > 1 else ""


@dataclass
class Listing:
    target: str
    kernels: Dict[str, List[Instr]] = field(default_factory=dict)
    has_line_info: bool = False

    def at_lines(self, kernel: str, lines) -> List[Instr]:
        want = set(lines)
        return [i for i in self.kernels.get(kernel, []) if i.ptx_line in want]


def parse(text: str, source: str = "nvdisasm output") -> Listing:
    """The listing of one cubin. SassError naming source and line for a line of no known shape."""
    listing = Listing(target="")
    kernel: Optional[str] = None
    line_no = 0
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or BRACE.match(raw):
            continue
        m = PTX_LINE.match(raw)
        if m:
            line_no = int(m.group(1))
            listing.has_line_info = True
            continue
        if OTHER_FILE_LINE.match(raw):
            line_no = 0       # a line of another file (a .cu source): not a PTX module line
            continue
        m = INSTR.match(raw)
        if m:
            if kernel is None:
                raise SassError(f"{source}:{n}: an instruction before any function section: {raw.strip()!r}")
            listing.kernels[kernel].append(Instr(int(m.group(1), 16), m.group(2), line_no))
            continue
        m = FUNC_SECTION.match(raw)
        if m:
            kernel, line_no = m.group(1), 0
            listing.kernels.setdefault(kernel, [])
            continue
        if raw.strip().startswith(".target"):
            listing.target = raw.split()[1]
            continue
        if DIRECTIVE.match(raw) or LABEL.match(raw) or COMMENT.match(raw):
            continue
        raise SassError(f"{source}:{n}: a line of no shape nvdisasm -c -gp writes (instruction `/*addr*/ OP ...;`, "
                        f"`//## File` line info, directive, label or comment): {raw.strip()!r}")
    if not listing.kernels:
        raise SassError(f"{source}: no function section (`.section .text.NAME`): not nvdisasm -c output?")
    return listing
