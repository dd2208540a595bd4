"""How each compiler front-end spells the forms of the ISA model (harness/frontend judges what it emits).

One module per front-end, each a mapping from a form (its qualifier dict, as isa/<family>.py builds it) to that
front-end's spelling, or to the reason it has none:
  llvm.py   LLVM's NVPTX back-end: the llvm.nvvm.* intrinsic, its operands and its flag arguments
  cccl.py   CUDA C++ through NVRTC: the cuda::ptx function of CCCL and its tag and template arguments

    from ptxcts_gen.frontends import llvm
    s = llvm.spell(form)        # Spelling, or Unexpressible with the reason
A mapping entry that is not well formed (an operand of an unknown role, a flag that is not a constant of its type)
raises MappingError naming the form and the entry: a bug of the table, reported as a malformed input (exit 3).
"""
from dataclasses import dataclass, field
from typing import Tuple


class MappingError(Exception):
    """A malformed mapping entry (the command line exits 3 on it)."""


@dataclass(frozen=True)
class Spelling:
    """A front-end's spelling of one form: `callee` (intrinsic or cuda::ptx function) and its arguments, each
    (type, value): value "%role" names a kernel parameter of that role, anything else is a literal constant."""
    callee: str
    args: Tuple[Tuple[str, str], ...] = ()
    notes: Tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Unexpressible:
    """The front-end has no spelling of the form; `reason` says why (reported per form)."""
    reason: str


def rule_invalid_reason(form, frontend):
    """The reason every front-end gives for a form breaking one of the chapter's form rules (not a target or PTX
    version requirement): a call through its interface cannot state such a form, so there is nothing to ask of
    it. None for a form that breaks no form rule."""
    if form.invalid_by:
        return Unexpressible(f"the form breaks the chapter's rule(s) {', '.join(form.invalid_by)}, which a "
                             f"{frontend} call cannot state (its interface only spells well-formed instructions)")
    return None
