"""Per front-end kind: how a form is spelled, how a batch of spellings becomes one compile job, how the job runs
in the child, and how the instructions under test are found in its PTX."""
from ptxcts_gen.frontends import MappingError, Spelling

from . import llvm_backend


class LlvmEngine:
    load_path = "llvm"
    # LLVM refuses by exiting the process: a batch of cases expected to be refused would die at its first, so
    # each of those is compiled alone from the start
    batch_invalid = False

    def __init__(self, fe):
        from ptxcts_gen.frontends import llvm as mapping
        self.fe, self.mapping = fe, mapping
        self.llvm = llvm_backend.load(fe)
        self.known = set(fe.description.get("intrinsics") or ())
        if not self.known:
            raise MappingError(f"toolchains/{fe.name}.json lists no intrinsic names: probe it again "
                               f"(./ptxcts frontend probe {fe.name})")
        self.by_entry = {}

    def spell(self, form):
        s = self.mapping.spell(form, self.known)
        if isinstance(s, Spelling):
            self.by_entry[form.entry] = s
        return s

    def verify(self, items):
        self.llvm.parse_assembly(llvm_backend.module_ir(items, self.mapping.ROLES)).verify()

    def build(self, target, ptx, entries):
        return (llvm_backend.module_ir([(e, self.by_entry[e]) for e in entries], self.mapping.ROLES), target, ptx)

    @staticmethod
    def compile(arg):
        ir, cpu, ptx = arg
        return llvm_backend.emit(ir, cpu, ptx)

    extract = staticmethod(llvm_backend.instructions)

    def describe_call(self, s):
        return f"call void @{s.callee}({', '.join(t + ' ' + v for t, v in s.args)})"


def engine(fe):
    if fe.kind == "llvm":
        return LlvmEngine(fe)
    if fe.kind == "nvrtc":
        from .nvrtc_backend import NvrtcEngine
        return NvrtcEngine(fe)
    if fe.kind == "cute-dsl":
        from .cute_dsl_backend import CuteDslEngine
        return CuteDslEngine(fe)
    raise MappingError(f"front-end {fe.name}: no engine for kind {fe.kind!r}")
