"""What is decided about a graded mutant without a GPU: whether ptxas gives its kernel the same SASS as its
original's (then no device can tell them apart: the mutation does not reach the machine code), and which rule of
the lowering tier (generator/ptxcts_gen/lowering/rules.py) checks statically the instruction the mutation removed
or weakened. Both feed the triage of a survivor (gpu_tier.triage).

`same_sass`: the build keeps the cubin of the kernels (`nvcc -keep`), nvdisasm lists it, and each mutant's
kernel is compared with its original's, instruction by instruction (normalised), into build/static.tsv
(MUTANT <TAB> same|differs <TAB> the ptxas and nvdisasm releases <TAB> sass_diff: the instructions the mutation
added, removed or reordered), carried with the runner."""
import os
import re
import shutil
import subprocess

from . import cuda

# operator (and the instruction it touched) -> the lowering rule that demands that instruction in the SASS
LOWERING_RULES = (
    ("drop_fence", "fence.proxy.async", "fence.proxy.async"),
    ("wait_n_plus_1", "cp.async.bulk.wait_group", "bulk.wait_group"),
    ("wait_read_for_full", "cp.async.bulk.wait_group", "bulk.wait_group"),
    ("wait_n_plus_1", "cp.async.wait_group", "cp.async.wait_group"),
)

_LABEL = re.compile(r"\.L_x_\d+")
_INTERNAL = re.compile(r"\$__internal_\d+_\$")   # a helper's copy (the 64-bit remainder): numbered per module
_KERNEL = re.compile(r"_Z\d+lit_\w+6Params")
_MOV_ADDR = re.compile(r"^(MOV R\d+, )0x([0-9a-f]+)$")


# a swap of a proxy fence with the generic write before it or the async-proxy operation after it, in one thread:
# the lowering rule's place (ptxcts_gen.lowering.rules: Demand.between), a compiler that moves the fence fails there
_SWAPPED = re.compile(r"'T\d+: ([^']*)'")
_FENCE_PARTNERS = ("st.", "cp.async.bulk ", "cp.reduce.async.bulk")


def lowering_rule(operator, what):
    """The lowering rule that checks the instruction `what` (a mutant's description) touches, or None."""
    for op, instr, rule in LOWERING_RULES:
        if op == operator and instr in what:
            return rule
    if operator == "reverse_accesses":
        swapped = _SWAPPED.findall(what)
        fence = [x for x in swapped if x.startswith("fence.proxy.async")]
        other = [x for x in swapped if not x.startswith("fence.proxy.async")]
        if len(swapped) == 2 and fence and other and other[0].startswith(_FENCE_PARTNERS):
            return "fence.proxy.async"
    return None


def find_nvdisasm():
    """An nvdisasm: $PTXCTS_NVDISASM, the newest installed in the toolchain cache (the framework's), the PATH,
    the CUDA toolkit; None."""
    cands = [os.environ.get("PTXCTS_NVDISASM")]
    try:
        from framework.toolchains import nvdisasm as nd
        inst = nd._installed()
        cands += [inst[k] for k in sorted(inst, key=nd._release_key, reverse=True)]
    except ImportError:   # a GPU machine without the framework's dependencies: the PATH
        pass
    cands += [shutil.which("nvdisasm"), "/usr/local/cuda/bin/nvdisasm"]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def kernel_symbol(test_name):
    """The mangled name of a test's kernel (cuda.py: `lit_<ident>(Params)`)."""
    k = "lit_" + cuda._ident(test_name)
    return f"_Z{len(k)}{k}6Params"


def normalised(instrs):
    """A kernel's instruction texts without its NOPs (padding and scheduling slots), its branch labels renamed
    in order of appearance, the module's numbering of helper copies and the kernel's own name left out, and a
    return address (`MOV R8, 0x34b0` before a `CALL.REL`: an address of the kernel) written as the index of the
    first kept instruction at or after it (a NOP left out before it moves the address, not the instruction)."""
    names = {}

    def lab(m):
        return names.setdefault(m.group(0), f"L{len(names)}")
    kept = [i for i in instrs if i.body != "NOP"]
    at = {}
    k = 0
    for i in instrs:   # every address -> the index of the first kept instruction at or after it
        at[i.addr] = k
        k += i.body != "NOP"
    calls = any(i.opcode == "CALL" for i in kept)
    out = []
    for i in kept:
        t = _KERNEL.sub("KERNEL", _INTERNAL.sub("$__internal_$", i.text))
        m = _MOV_ADDR.match(t)
        if calls and m and int(m.group(2), 16) in at:
            t = f"{m.group(1)}@{at[int(m.group(2), 16)]}"
        out.append(_LABEL.sub(lab, t))
    return out


def sass_diff(mutant, original):
    """What the mutant's normalised SASS has that the original's has not, as opcodes with modifiers: `-CCTL.IVALL`
    (one fewer), `+LD.E` (one more); with the same opcodes, `operands -[TEXT] +[TEXT]` (a wait's count), or `order`
    when the same instructions come in another order; '' when equal."""
    if mutant == original:
        return ""
    from collections import Counter

    def mnem(t):
        body = t.split(None, 1)[1] if t.startswith("@") else t
        return body.split(None, 1)[0]
    a, b = Counter(map(mnem, mutant)), Counter(map(mnem, original))
    parts = [f"-{m}" for m in sorted((b - a).elements())] + [f"+{m}" for m in sorted((a - b).elements())]
    if parts:
        return " ".join(parts)
    a, b = Counter(mutant), Counter(original)   # the same opcodes: an operand (a wait's count), or the order
    parts = [f"-[{t}]" for t in sorted((b - a).elements())] + [f"+[{t}]" for t in sorted((a - b).elements())]
    return "operands " + " ".join(parts) if parts else "order"


def same_sass(cubin, pairs, nvdisasm):
    """{mutant: (same: bool, sass_diff)} for [(mutant, original)] from the cubin holding both kernels."""
    from framework.toolchains import nvdisasm as nd
    listing = nd.disassemble(nvdisasm, cubin)
    out = {}
    for mutant, original in pairs:
        a = listing.kernels.get(kernel_symbol(mutant))
        b = listing.kernels.get(kernel_symbol(original))
        if a is None or b is None:
            continue
        na, nb = normalised(a), normalised(b)
        out[mutant] = (na == nb, sass_diff(na, nb))
    return out


def nvdisasm_version(path):
    r = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    m = re.search(r"V(\d+\.\d+\.\d+)", r.stdout)
    return m.group(1) if m else "unknown"


def write_static(path, same, tools):
    """static.tsv: MUTANT <TAB> same|differs <TAB> the tools that compiled and listed it <TAB> sass_diff."""
    with open(path, "w", encoding="utf-8") as f:
        for m in sorted(same):
            eq, diff = same[m]
            f.write(f"{m}\t{'same' if eq else 'differs'}\t{tools}\t{diff[:300]}\n")


def read_static(path):
    """{mutant: (same: bool, tools, sass_diff)} from static.tsv; {} when there is none."""
    out = {}
    if not os.path.isfile(path):
        return out
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 4 or parts[1] not in ("same", "differs"):
                raise ValueError(f"{path}:{no}: expected MUTANT<TAB>same|differs<TAB>TOOLS<TAB>SASS DIFF")
            out[parts[0]] = (parts[1] == "same", parts[2], parts[3])
    return out
