"""Whether a kernel a front-end wrote is the run tier's kernel (silicon.py writes them, check_entry judges each
before it is listed): the run ABI's parameters, the hand-written kernel's protocol in order, and the instruction
under test where the hand-written kernel has it."""
import re

from ptxcts_gen import linemap

from . import llvm_backend


# The parameters of the run ABI (docs/ARCHITECTURE.md section 4): args, and the tensor map by value.
_ARGS_PARAM = re.compile(r"^\.param \.(u64|b64) \w+$")
_TMAP_PARAM = re.compile(r"^\.param \.align 64 \.b8 \w+\[128\]$")


def entry_params(entry_text):
    """The parameter declarations of an entry's PTX, one per item, spaces normalised."""
    m = re.search(r"\.entry\s+\w+\s*\((.*?)\)", entry_text, re.S)
    if not m or not m.group(1).strip():
        return []
    return [" ".join(p.split()) for p in m.group(1).split(",")]


def abi_problem(entry_text, tmap):
    """None when the entry takes the run ABI's parameters (`.u64 args`, and for tensor forms `.align 64 .b8
    tmap[128]`), else what differs."""
    params = entry_params(entry_text)
    want = 2 if tmap else 1
    if len(params) != want:
        return f"{len(params)} parameters ({'; '.join(params) or 'none'}), the run ABI has {want}"
    if not _ARGS_PARAM.match(params[0]):
        return f"first parameter `{params[0]}` is not the u64 args address"
    if tmap and not _TMAP_PARAM.match(params[1]):
        return f"second parameter `{params[1]}` is not the 128-byte, 64-aligned tensor map by value"
    return None


# The protocol of a kernel: its instructions of these kinds, in order. Spellings the PTX ISA makes equal are made
# equal first (PROTOCOL_RULES), so that the front-end's kernel and the hand-written one compare as written.
_PROTOCOL = ("mbarrier.", "fence.", "barrier.", "bar.", "mapa.", "createpolicy.", "cp.", "st.")
PROTOCOL_RULES = (
    # barrier.cluster: "The optional .sem qualifier defines memory synchronizing effects ... If .sem is absent,
    # .release is assumed for barrier.cluster.arrive and .acquire for barrier.cluster.wait" (LLVM omits it)
    ("barrier_cluster_default_sem", re.compile(r"^(barrier\.cluster\.(?:arrive|wait))\.(?:release|acquire)"), r"\1"),
    # mapa's .u32 / .u64: the address width, not the operation (LLVM's shared pointers are 64-bit)
    ("mapa_address_width", re.compile(r"^(mapa\.shared::cluster)\.u(?:32|64)$"), r"\1"),
    # bar.sync is barrier.sync.aligned ("bar.sync is equivalent to barrier.sync.aligned")
    ("bar_sync_is_barrier_sync_aligned", re.compile(r"^barrier\.sync\.aligned$"), "bar.sync"),
    # a store's .bN / .uN / .sN: the same N bits stored (LLVM writes .b32 where the frame writes .u32)
    ("store_type_is_its_width", re.compile(r"^(st\.(?:global|shared)(?:\.v[24])?)\.[bus](8|16|32|64)$"), r"\1.\2"),
)


# Protocol items that only compute a register value (mapa: the address of a variable in another CTA of the cluster;
# createpolicy: a cache policy) and touch no memory: where a compiler schedules them among the memory and barrier
# instructions is not part of the protocol (their data dependence orders them before their use); how many there
# are before and after the instruction under test is (rule values_not_ordered, same_protocol).
VALUE_ONLY = ("mapa.", "createpolicy.")


def same_protocol(mine, want):
    """Whether two protocols (lists of protocol() items) are the same: equal, or equal once the value-only items
    (VALUE_ONLY) are taken out of the order and counted on each side of `<test>`."""
    if mine == want:
        return True

    def canon(items):
        at = items.index("<test>") if "<test>" in items else len(items)
        return ([i for i in items if not i.startswith(VALUE_ONLY)],
                sorted(i for i in items[:at] if i.startswith(VALUE_ONLY)),
                sorted(i for i in items[at:] if i.startswith(VALUE_ONLY)))
    return canon(mine) == canon(want)


def _instructions(entry_text):
    """(line number in the entry, opcode, instruction text) of every instruction of an entry's PTX body, the guard
    predicate and comments left out."""
    out = []
    for n, ln in enumerate(entry_text.splitlines()):
        t = ln.split("//", 1)[0].strip()
        if not t or t.endswith(":") or t.startswith((".", "{", "}")):
            continue
        t = re.sub(r"^@!?%\w+\s+", "", t)
        out.append((n, t.split()[0].rstrip(";"), " ".join(t.split())))
    return out


def _protocol_items(entry_text, test_line=None):
    """[(line in the entry, item)] of the entry's protocol (see protocol)."""
    out = []
    for n, op, t in _instructions(entry_text):
        if test_line is None and linemap.TEST_MARK in entry_text.splitlines()[n]:
            out.append((n, "<test>"))
        elif "%cluster_ctarank" in t:
            out.append((n, "%cluster_ctarank"))
        elif op.startswith(_PROTOCOL):
            for _, rx, to in PROTOCOL_RULES:
                op = rx.sub(to, op)
            # the N of a group wait is part of the protocol (which groups it waits for)
            imm = re.search(r"\s(\d+);?$", t) if "wait_group" in op else None
            out.append((n, op + (" " + imm.group(1) if imm else "")))
    return out


def protocol(entry_text, test_line=None):
    """The entry's protocol: its mbarrier, fence, barrier, mapa, createpolicy, cp.* and store instructions in order,
    each as its opcode (a group wait with its N), the cluster-rank read as `%cluster_ctarank`, and the instruction under
    test as `<test>`: the one at test_line (a line of the entry), else the one marked `// ptxcts:test`."""
    return ["<test>" if n == test_line else item for n, item in _protocol_items(entry_text, test_line)]


def check_entry(form, entry_text, index, hand_written):
    """(problem or None, line of the instruction under test in the entry) of the PTX of a form's kernel: the run
    ABI's parameters; the protocol of the hand-written kernel (hand_written: its PTX, render.kernel_text), which
    also holds every instruction of the chapter the frame adds (group commits and waits, proxy fences) in order;
    and where the hand-written kernel has the instruction under test, an instruction parsing to the form
    (ptxcts_gen.parse.FormIndex `index`). A frame with no other instruction of the form (the copy families) so has
    exactly one."""
    why = abi_problem(entry_text, form.kernel_cfg["tmap"])
    if why:
        return f"the entry's parameters are not the run ABI's: {why}", None
    hits, chapter = set(), []
    for n, op, t in _instructions(entry_text):
        if op.startswith(llvm_backend.UNDER_TEST):
            chapter.append(t)
            if index.same_form(form.id, t)[0]:
                hits.add(n)
    if not hits:
        return (f"0 instructions parse to {form.id} (the chapter's instructions it wrote: "
                f"{'; '.join(chapter) or 'none'})"), None
    want = protocol(hand_written)
    items = _protocol_items(entry_text, -1)
    if len(items) != len(want):
        return (f"the kernel's protocol differs from the hand-written one ({len(items)} instructions, not "
                f"{len(want)}): {' '.join(i for _, i in items)} vs {' '.join(want)}"), None
    at = want.index("<test>")
    if items[at][0] not in hits:
        return (f"the instruction where the hand-written kernel has the one under test is `{items[at][1]}`, not "
                f"{form.id}"), None
    mine = protocol(entry_text, items[at][0])
    if not same_protocol(mine, want):
        return (f"the kernel's protocol differs from the hand-written one: {' '.join(mine)} vs "
                f"{' '.join(want)}"), items[at][0]
    return None, items[at][0]
