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
        self.llvm = self._load(fe)
        self.known = set(fe.description.get("intrinsics") or ())
        if not self.known:
            raise MappingError(f"toolchains/{fe.name}.json lists no intrinsic names: probe it again "
                               f"(./ptxcts frontend probe {fe.name})")
        self.by_entry = {}

    def _load(self, fe):
        return llvm_backend.load(fe)

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


class TritonLlvmEngine(LlvmEngine):
    """The LLVM bundled in Triton (llvm_backend.TritonLlvm): the LLVM mapping and IR modules, compiled through
    libtriton's translate_to_asm; its verifier runs in a child too (a malformed module ends the process)."""
    # the cpu and PTX version the spellings are verified at: translate_to_asm verifies before it selects, so a
    # refusal to select there still says the module is well formed
    VERIFY_AT = ("sm_100a", "8.6")

    backend = llvm_backend.TritonLlvm

    def _load(self, fe):
        return self.backend.load(fe)

    def verify(self, items):
        self.backend.verify(llvm_backend.module_ir(items, self.mapping.ROLES), *self.VERIFY_AT)

    @staticmethod
    def compile(arg):
        ir, cpu, ptx = arg
        return llvm_backend.TritonLlvm.emit(ir, cpu, ptx)


# the load path of a kind's results (schema: "llvm" | "nvrtc"): Triton's LLVM is an LLVM load path
LOAD_PATHS = {"llvm": "llvm", "nvrtc": "nvrtc", "triton-llvm": "llvm", "triton": "triton", "cute-dsl": "cute-dsl"}


def engine(fe):
    if fe.kind == "llvm":
        return LlvmEngine(fe)
    if fe.kind == "triton-llvm":
        return TritonLlvmEngine(fe)
    if fe.kind == "nvrtc":
        from .nvrtc_backend import NvrtcEngine
        return NvrtcEngine(fe)
    if fe.kind == "triton":
        from .triton.engine import TritonEngine
        return TritonEngine(fe)
    if fe.kind == "cute-dsl":
        from .cute_dsl.backend import CuteDslEngine
        return CuteDslEngine(fe)
    raise MappingError(f"front-end {fe.name}: no engine for kind {fe.kind!r}")
