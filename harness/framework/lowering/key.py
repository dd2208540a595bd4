"""The lowering key: the SASS of one instruction under test reduced to what a compiler engineer compares.

The instructions nvdisasm attributes to the `// ptxcts:test` line fall in four kinds:
* core: the asynchronous-copy machinery itself (CORE_OPCODES): the key is these, in order, each as its mnemonic
  (opcode and modifiers) and its operands with registers, predicates, labels and address offsets abstracted
  (`UTMALDG.3D.MULTICAST [UR], [UR], UR`); immediates outside addresses stay (`DEPBAR.LE SB0, 0x1`);
* loop: the uniform-operand loop ptxas wraps around an instruction whose operands must be warp-uniform
  (VOTEU.ANY, R2UR, ELECT, the BRA.U.ANY back edge, PLOP3 on its predicates);
* addr: address arithmetic (IADD3, IMAD, LEA, PRMT, MOV ... and their uniform forms);
* other: anything else the line info puts there (a compare scheduled into the line, a branch).
The frame (loop, addr, other: the mnemonics of each, sorted, once each) is recorded beside the key: it changes with
scheduling and register allocation, the key only when the lowering itself does.
"""
import functools
import re
from typing import List, Sequence, Tuple

from framework.toolchains.sass import Instr

CORE_OPCODES = frozenset({
    "LDGSTS", "LDGDEPBAR", "DEPBAR", "ARRIVES", "SYNCS", "UBLKCP", "UBLKRED", "UBLKPF", "UTMALDG", "UTMASTG",
    "UTMAREDG", "UTMAPF", "UTMACMDFLUSH", "CCTL", "FENCE", "MEMBAR",
    "ATOMS",   # sm_8x: cp.async.mbarrier.arrive raises the mbarrier's count with a shared-memory atomic
    "UBLKL2CCTL", "UTMAL2CCTL",   # the L2 cache control of a prefetch with .L2::evict_last (PTX ISA 9.4, sm_107)
    "CALL"})   # a call out at the instruction's line: ptxas's software path (a rule must expect it)
LOOP_OPCODES = frozenset({"VOTEU", "R2UR", "ELECT", "PLOP3", "WARPSYNC"})
ADDR_OPCODES = frozenset({"IADD3", "UIADD3", "IMAD", "UIMAD", "LEA", "ULEA", "MOV", "UMOV", "PRMT", "UPRMT", "SHF",
                          "USHF", "LOP3", "ULOP3", "S2R", "S2UR", "VIADD", "IADD", "UIADD", "SEL", "USEL", "LDC",
                          "LDCU", "IABS", "MOV64"})

_HEX = re.compile(r"0x[0-9a-fA-F]+")
_PRED = re.compile(r"\b(U?)P\d\b")


def _pred(m):
    return m.group(1) + "P"


# The operand abstractions, applied in this order: (what is matched, what replaces it).
_ABSTRACTIONS = (
    (re.compile(r"`\([^)]*\)"), "LABEL"),                                 # a label
    (re.compile(r"c\[0x[0-9a-f]+\]\[0x[0-9a-f]+\]"), "c[]"),              # a constant bank entry
    (re.compile(r"\[[^\]]*\]"), lambda m: _HEX.sub("imm", m.group(0))),   # offsets inside an address
    (re.compile(r"\b(U?)R\d+\b"), lambda m: m.group(1) + "R"),            # a register
    (_PRED, _pred),                                                       # a predicate
)


def kind(i: Instr) -> str:
    op = i.opcode
    if op in CORE_OPCODES:
        return "core"
    if op in LOOP_OPCODES or (op == "BRA" and ".U.ANY" in i.mnemonic):
        return "loop"
    if op in ADDR_OPCODES:
        return "addr"
    return "other"


@functools.lru_cache(maxsize=1 << 16)   # the same operand texts recur across forms, targets and mutants
def abstract_operands(text: str) -> str:
    """Registers to R / UR, predicates to P / UP, labels to LABEL, constants to c[], offsets inside [] to imm."""
    for pattern, replacement in _ABSTRACTIONS:
        text = pattern.sub(replacement, text)
    return text


def core_text(i: Instr) -> str:
    ops = abstract_operands(i.operands)
    return f"{i.mnemonic} {ops}".strip()


def split_operands(i: Instr) -> List[str]:
    return [o.strip() for o in i.operands.split(",") if o.strip()] if i.operands else []


def reduce(instrs: Sequence[Instr]) -> Tuple[str, str]:
    """(key, frame) of the instructions at the test line."""
    core = [core_text(i) for i in instrs if kind(i) == "core"]
    frame = {}
    for i in instrs:
        k = kind(i)
        if k != "core":
            frame.setdefault(k, set()).add(i.mnemonic)
        elif i.guard:
            frame.setdefault("loop", set()).add("guard " + _PRED.sub(_pred, i.guard))
    key = " ; ".join(core)
    frame_text = " ".join(f"{k}({','.join(sorted(frame[k]))})" for k in ("loop", "addr", "other") if k in frame)
    return key, frame_text
