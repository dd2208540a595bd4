"""How each compiler front-end spells the forms of the ISA model (harness/frontend judges what it emits).

One module per front-end, each a mapping from a form (its qualifier dict, as isa/<family>.py builds it) to that
front-end's spelling, or to the reason it has none:
  llvm.py   LLVM's NVPTX back-end: the llvm.nvvm.* intrinsic, its operands and its flag arguments
  cccl.py   CUDA C++ through NVRTC: the cuda::ptx function of CCCL and its tag and template arguments

Each module's QUALIFIERS is its decision per qualifier: {(family, qualifier, value): Written | Unexpressible}
for every qualifier value of the model's vocabulary (table.vocabulary()); a form carrying a value the front-end
cannot write is Unexpressible with that value's reason before its family's function is asked.

    from ptxcts_gen.frontends import llvm
    s = llvm.spell(form)        # Spelling, or Unexpressible with the reason
    llvm.QUALIFIERS[("cp.async.bulk", "ignore_oob", True)]     # Written(how) or Unexpressible(reason)
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
    """The front-end has no spelling of the form (or of a qualifier value); `reason` says why (reported per form).
    `absent`: for a qualifier the front-end's own files lack, (text, where): the text the reason says they never
    contain and where it was looked for ("library": the LLVM shared library; otherwise CCCL header names under
    cuda/__ptx/instructions/generated/); the front-end tests check it against the installed files."""
    reason: str
    absent: Tuple[Tuple[str, Tuple[str, ...]], ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Written:
    """A qualifier value the front-end writes: `how` names the intrinsic, function, tag or argument that writes
    it (for a default value: that the spelling leaves it out). Some combinations may still be refused by the
    family's function, each with its reason."""
    how: str


def rule_invalid_reason(form, frontend):
    """The reason every front-end gives for a form breaking one of the chapter's form rules (not a target or PTX
    version requirement): a call through its interface cannot state such a form, so there is nothing to ask of
    it. None for a form that breaks no form rule, or only rules a later PTX ISA version lifts for it
    (Form.valid_from: it is a valid form from that version, asked like any other)."""
    if form.invalid_by and form.valid_from is None:
        return Unexpressible(f"the form breaks the chapter's rule(s) {', '.join(form.invalid_by)}, which a "
                             f"{frontend} call cannot state (its interface only spells well-formed instructions)")
    return None
