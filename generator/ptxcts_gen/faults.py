"""Planted faults of the instruction under test, for the suite's self-test (`./ptxcts selftest`).

A fault kind rewrites the line marked `// ptxcts:test` of a rendered kernel into what a wrong compiler or driver
could produce — another redOp, the other signedness, a destination 16 bytes off, a wait that waits for one group
less — keeping the PTX valid, so that the run tier runs the faulty kernel against the model's expectation of the
unchanged form. `./ptxcts modules` plants one kind into every form it applies to when PTXCTS_PLANT_FAULT names it
(PTXCTS_PLANT_FAULT_FORMS, a file of form IDs one per line, limits it to those forms) and writes
`faults.json` (form -> the line before and after) beside the modules. Kernels are independent entries, so one
module run per kind plants the fault into every form at once.

A fault is *equivalent* for a form when the chapter says the difference is not observable (a cache hint, a
prefetch, two's-complement addition of either signedness); `equivalent(kind, form)` gives the reason. Every other
surviving fault is a hole of the suite.
"""
import re
from dataclasses import dataclass
from typing import Callable, Optional

TEST_MARK = "// ptxcts:test"
FAULT_MARK = "// ptxcts:fault"

INT_SWAP = {"add": "min", "min": "max", "max": "min", "inc": "dec", "dec": "inc", "and": "or", "or": "xor",
            "xor": "and"}
SIGN_SWAP = {"u32": "s32", "s32": "u32", "u64": "s64", "s64": "u64"}
# another element type of the same width (a compiler that picks the wrong type); combinations the chapter's
# redOp x type table does not have are refused by ptxas and dropped
TYPE_SWAP = {"f16": "bf16", "bf16": "f16", "u32": "f32", "s32": "f32", "f32": "u32", "u64": "f64", "s64": "f64",
             "f64": "u64", "b32": "u32", "b64": "u64"}
# the same kind of element at the other width
WIDTH_SWAP = {"u32": "u64", "u64": "u32", "s32": "s64", "s64": "s32", "b32": "b64", "b64": "b32", "f32": "f64",
              "f64": "f32", "f16": "f32"}
BITWISE = ("and", "or", "xor")


@dataclass(frozen=True)
class Kind:
    name: str
    what: str                    # the fault, in words
    apply: Callable              # (instruction line without indent/mark, form) -> [lines] or None (not plantable)
    equivalent: Callable = lambda form: None   # form -> the chapter's reason the fault cannot be observed, or None


def _first_address(line):
    """The first `[...]` operand that is a plain address (not a tensor map, not an mbarrier)."""
    for m in re.finditer(r"\[([^\]]+)\]", line):
        inner = m.group(1)
        if "%tmap" not in inner and "mbar" not in inner and "," not in inner:
            return m
    return None


def _redop(line, form):
    """The next redOp of INT_SWAP (f16/bf16: add->min->max->min without .noftz); a combination the chapter does
    not allow for the type is dropped by the self-test's ptxas check before anything runs."""
    if not form.family.startswith("cp.reduce"):
        return None
    m = re.search(r"\.(add|min|max|inc|dec|and|or|xor)(\.noftz)?(\.(?:[usbf]\d+|bf16))?(?=[ .])", line)
    if not m:
        return None
    op, typ = m.group(1), m.group(3) or ""
    if typ in (".f32", ".f64"):
        return None        # .add is the only redOp the chapter's table has for f32/f64
    if typ in (".f16", ".bf16"):
        new = {"add": "min", "min": "max", "max": "min"}[op]
        return [line[:m.start()] + f".{new}{typ}" + line[m.end():]]
    return [line[:m.start()] + f".{INT_SWAP[op]}{typ}" + line[m.end():]]


def _signedness(line, form):
    if not form.family.startswith("cp.reduce"):
        return None
    m = re.search(r"\.(add|min|max)\.(u32|s32|u64|s64)(?=[ .])", line)
    if not m:
        return None
    return [line[:m.start(2)] + SIGN_SWAP[m.group(2)] + line[m.end(2):]]


def _type_of(line, form, table):
    """The non-tensor reduction's element type replaced by table's (the tensor forms take theirs from the map)."""
    if form.family != "cp.reduce.async.bulk":
        return None
    m = re.search(r"\.(add|min|max|inc|dec|and|or|xor)(\.noftz)?\.(u32|s32|u64|s64|b32|b64|f16|bf16|f32|f64)(?=[ .])",
                  line)
    if not m or m.group(3) not in table:
        return None
    return [line[:m.start(3)] + table[m.group(3)] + line[m.end(3):]]


def _type(line, form):
    return _type_of(line, form, TYPE_SWAP)


def _width(line, form):
    return _type_of(line, form, WIDTH_SWAP)


def _bitwise_equivalent(form):
    if ((form.run or {}).get("redop") or "") in BITWISE:
        return "a bitwise operation gives the same bytes whatever the integer type and width it is read as"
    return None


def _sign_equivalent(form):
    op = (form.run or {}).get("redop") or ""
    if op == "add":
        return "two's-complement addition gives the same bits for .u and .s operands"
    return None


def _address(line, form):
    m = _first_address(line)
    if not m:
        return None
    return [line[:m.start()] + f"[{m.group(1)}+16]" + line[m.end():]]


def _size(line, form):
    if form.family == "cp.async":
        return None        # cp.async's sizes are cp-size (the cp_size kind) and src-size
    m = re.search(r"\], (%size|\d+)(?=[,;])", line)
    if not m:
        return None
    if m.group(1) == "%size":
        return [f"add.u32 %size, %size, 16; {FAULT_MARK}", line]
    return [line[:m.start(1)] + str(int(m.group(1)) + 16) + line[m.end(1):]]


def _coords(line, form):
    if "{%c0" not in line:
        return None
    return [f"add.s32 %c0, %c0, 16; {FAULT_MARK}", line]


def _im2col_offsets(line, form):
    if "{%i2c0" not in line:
        return None
    return [f"add.u16 %i2c0, %i2c0, 1; {FAULT_MARK}", line]


def _cta_mask(line, form):
    if "%cta_mask" not in line:
        return None
    return [f"and.b16 %cta_mask, %cta_mask, 0xfffe; {FAULT_MARK}", line]


def _wait_count(line, form):
    m = re.match(r"(cp\.async(?:\.bulk)?\.wait_group(?:\.read)?) (\d+);", line)
    if m:
        return [f"{m.group(1)} {int(m.group(2)) + 1};" + line[m.end():]]
    if line.startswith("cp.async.wait_all;"):
        return ["cp.async.commit_group; " + FAULT_MARK, "cp.async.wait_group 1;" + line[len("cp.async.wait_all;"):]]
    return None


def _wait_read(line, form):
    m = re.match(r"cp\.async\.bulk\.wait_group (\d+);", line)
    if not m:
        return None
    return ["cp.async.bulk.wait_group.read" + line[len("cp.async.bulk.wait_group"):]]


def _arrive(line, form):
    if line.startswith("cp.async.mbarrier.arrive.noinc."):
        return ["cp.async.mbarrier.arrive." + line[len("cp.async.mbarrier.arrive.noinc."):]]
    if line.startswith("cp.async.mbarrier.arrive."):
        return ["cp.async.mbarrier.arrive.noinc." + line[len("cp.async.mbarrier.arrive."):]]
    return None


def _cp_size(line, form):
    m = re.match(r"(cp\.async\.ca\.[^ ]+ \[[^\]]+\], \[[^\]]+\], )(4|8|16)(?=[,;])", line)
    if not m:
        return None
    new = {"4": "8", "8": "4", "16": "8"}[m.group(2)]
    return [m.group(1) + new + line[m.end():]]


def _cache_hint(line, form):
    if ".L2::cache_hint" not in line or ", %policy;" not in line:
        return None
    return [line.replace(".L2::cache_hint", "", 1).replace(", %policy;", ";", 1)]


def _hint_equivalent(form):
    return "a cache hint has no visible result (the chapter; NOTES.md \"Hints\")"


def _prefetch_equivalent(form):
    return "a prefetch has no visible result: the data is the same whatever it fetches (the chapter)" \
        if "prefetch" in form.family else None


# ---- the qualifiers of PTX ISA 9.2-9.5 (the extension axes of the model) ----
def _ignore_oob(line, form):
    """.ignore_oob dropped with its ignoreBytesLeft/Right operands (a copy that ignores nothing)."""
    if ".ignore_oob" not in line or ", %ign_l, %ign_r" not in line:
        return None
    return [line.replace(".ignore_oob", "", 1).replace(", %ign_l, %ign_r", "", 1)]


def _ignore_oob_equivalent(form):
    return ("the kernels' ignoreBytesLeft and ignoreBytesRight are 0 (templates/frame.ptx.j2): no byte is ignored, "
            "so the copy is the one without .ignore_oob")


def _ignore_bytes(line, form):
    """ignoreBytesLeft 0 -> 8: the first 8 bytes of the source ignored."""
    if ".ignore_oob" not in line or ", %ign_l, %ign_r" not in line:
        return None
    return [f"add.u32 %ign_l, %ign_l, 8; {FAULT_MARK}", line]


SCOPE_RE = re.compile(r"\.relaxed\.(cta|cluster|gpu|sys)(?=\.)")


def _scope(line, form):
    """.relaxed.{cluster,gpu,sys} narrowed to .relaxed.cta."""
    m = SCOPE_RE.search(line)
    if not m or m.group(1) == "cta":
        return None
    return [line[:m.start(1)] + "cta" + line[m.end(1):]]


def _drop_with(line, qualifier_re, companion_re):
    """The line without the qualifier qualifier_re finds and without the first match of companion_re (what comes
    with that qualifier: a type, an operand); None when the qualifier is not there."""
    m = qualifier_re.search(line)
    if not m:
        return None
    return [re.sub(companion_re, "", line[:m.start()] + line[m.end():], count=1)]


def _relaxed(line, form):
    """.relaxed.scope dropped (with the .b128 type it comes with): a weak copy or reduction."""
    return _drop_with(line, SCOPE_RE, r"\.b128(?=[ .])")


def _noftz(line, form):
    """.noftz dropped from .add.noftz.f32 (the flushing add; .f16/.bf16 take no add without it)."""
    if ".add.noftz.f32" not in line:
        return None
    return [line.replace(".add.noftz.f32", ".add.f32", 1)]


MULTICAST_RE = re.compile(r"\.multicast::cluster(::16b|::32b)(?=[ .])")


def _multicast(line, form):
    """.multicast::cluster::16b / ::32b (PTX ISA 9.4) dropped with its ctaMask operand: a copy to the issuing CTA
    alone (the plain .multicast::cluster has the cta_mask kind)."""
    return _drop_with(line, MULTICAST_RE, r", %cta_mask(32)?(?=[,;])")


def _mc_width(line, form):
    """::16b dropped from .multicast::cluster::16b."""
    if ".multicast::cluster::16b" not in line:
        return None
    return [line.replace(".multicast::cluster::16b", ".multicast::cluster", 1)]


def _mc_width_equivalent(form):
    return ("`.multicast::cluster` takes the 16-bit `ctaMask` (the chapter) that `::16b` names: the same copy to the "
            "same CTAs")


REPORT_RE = re.compile(r"\.mbarrier::report::validity::per_16bytes::(80000000|8000|80|8)(?=[ .])")
REPORT_NEXT = {"80000000": "8000", "8000": "80", "80": "8", "8": "80000000"}


def _report(line, form):
    """The validity pattern of .mbarrier::report::validity::per_16bytes::X replaced by another one."""
    m = REPORT_RE.search(line)
    if not m:
        return None
    return [line[:m.start(1)] + REPORT_NEXT[m.group(1)] + line[m.end(1):]]


def _sync_restrict(line, form):
    m = re.match(r"cp\.async\.bulk\.wait_group\.sync_restrict::proxy::async (\d+);", line)
    if not m:
        return None
    return ["cp.async.bulk.wait_group" + line[len("cp.async.bulk.wait_group.sync_restrict::proxy::async"):]]


def _sync_restrict_equivalent(form):
    return ("a wait_group without .sync_restrict::proxy::async waits for at least what the restricted one does: no "
            "result of a kernel can change (the lowering tier sees the CCTL.IVALL it adds)")


def _evict_last(line, form):
    """.L2::evict_last dropped from a prefetch (a plain prefetch to L2)."""
    if ".L2::evict_last" not in line:
        return None
    return [line.replace(".L2::evict_last", "", 1)]


KINDS = {k.name: k for k in (
    Kind("redop", "another redOp of the same type (add->min, min->max, inc->dec, and->or, ...)", _redop,
         _prefetch_equivalent),
    Kind("signedness", "the other signedness (.u32<->.s32, .u64<->.s64)", _signedness, _sign_equivalent),
    Kind("type", "another element type of the same width (f16<->bf16, u32/s32<->f32, u64<->f64, b32->u32, ...)",
         _type, _bitwise_equivalent),
    Kind("width", "the element type at the other width (u32<->u64, s32<->s64, b32<->b64, f32<->f64, f16->f32)",
         _width, _bitwise_equivalent),
    Kind("address", "the first address operand 16 bytes off", _address, _prefetch_equivalent),
    Kind("size", "16 bytes more copied, reduced or prefetched", _size, _prefetch_equivalent),
    Kind("coords", "the innermost tensor coordinate 16 elements off", _coords, _prefetch_equivalent),
    Kind("im2col_offsets", "the first im2col offset one more", _im2col_offsets, _prefetch_equivalent),
    Kind("cta_mask", "CTA 0 left out of the multicast ctaMask", _cta_mask),
    Kind("wait_count", "a wait that waits for one group less (wait_group N -> N+1, wait_all -> wait_group 1)",
         _wait_count),
    Kind("wait_read", "a bulk wait_group that waits only for the reads (.read added)", _wait_read),
    Kind("arrive", "the other cp.async.mbarrier.arrive form (.noinc toggled)", _arrive),
    Kind("cp_size", "another cp-size (16->8, 8->4, 4->8)", _cp_size, _prefetch_equivalent),
    Kind("cache_hint", "the L2 cache hint and its policy operand dropped", _cache_hint, _hint_equivalent),
    # PTX ISA 9.2-9.5
    Kind("ignore_oob", ".ignore_oob dropped with its ignoreBytesLeft/Right operands", _ignore_oob,
         _ignore_oob_equivalent),
    Kind("ignore_bytes", "ignoreBytesLeft of .ignore_oob 8 more (the first 8 source bytes ignored)", _ignore_bytes),
    Kind("scope", "the .relaxed scope narrowed to .cta (.cluster/.gpu/.sys -> .cta)", _scope),
    Kind("relaxed", ".relaxed.scope (and its .b128) dropped: a weak copy or reduction", _relaxed),
    Kind("noftz", ".noftz dropped from .add.noftz.f32 (subnormals flushed)", _noftz),
    Kind("multicast", ".multicast::cluster::16b/::32b and its ctaMask dropped: the issuing CTA's copy alone",
         _multicast),
    Kind("mc_width", "::16b dropped from .multicast::cluster::16b", _mc_width, _mc_width_equivalent),
    Kind("report", "another validity pattern of .mbarrier::report::validity::per_16bytes", _report),
    Kind("sync_restrict", ".sync_restrict::proxy::async dropped from a bulk wait_group", _sync_restrict,
         _sync_restrict_equivalent),
    Kind("evict_last", ".L2::evict_last dropped from a prefetch", _evict_last, _prefetch_equivalent),
)}


# Faults of the host's driver-API calls: one field of the tensor map the run tier encodes is perturbed
# at run time (harness/runcore/src/testbeds/host_faults.cpp, when PTXCTS_PLANT_HOST_FAULT names the kind) while the
# model keeps its expectation of the unperturbed map; nothing is planted into the kernels. They apply to the forms that take
# a tensor map (kernel `tmap`), reported as family "tensor". The worker says per case what it changed, when no
# legal change exists (like a plant ptxas refuses), and when the model shows no observable difference for that
# case (an equivalent fault); a prefetch has no visible result at all.
@dataclass(frozen=True)
class HostKind:
    name: str                    # as harness/runcore/src/testbeds/host_faults.cpp names it
    what: str
    equivalent: Callable = lambda form: None


HOST_FAMILY = "tensor"
HOST_KINDS = {k.name: k for k in (
    HostKind("tmap_swizzle", "another swizzle mode in the encoded tensor map (NONE -> 128B/64B/32B, others -> NONE)",
             _prefetch_equivalent),
    HostKind("tmap_oobfill", "the tensor map's OOB fill flipped (NONE <-> NAN_REQUEST_ZERO_FMA)", _prefetch_equivalent),
    HostKind("tmap_estride", "a tensor-map element stride changed (1 -> 2, n -> 1)", _prefetch_equivalent),
    HostKind("tmap_box", "a tensor-map box dimension one smaller (im2col: pixelsPerColumn)", _prefetch_equivalent),
    HostKind("tmap_stride", "a tensor-map global stride 16 bytes larger", _prefetch_equivalent),
    HostKind("tmap_dtype", "another tensor-map data type of the same width (integer <-> float, then signedness)",
             _prefetch_equivalent),
)}


def plant(kind_name, text, forms, allow=None):
    """(module text with the fault planted, {form ID: {"from": line, "to": [lines]}}). forms: the module's Form
    objects; allow: a set of form IDs to plant into (None: every form the kind applies to)."""
    kind = KINDS[kind_name]
    by_id = {f.id: f for f in forms}
    out, planted, form = [], {}, None
    for line in text.split("\n"):
        if line.startswith("// form: "):
            form = by_id.get(line[len("// form: "):])
        if TEST_MARK in line and form is not None and (allow is None or form.id in allow) \
                and form.id not in planted:
            indent = line[:len(line) - len(line.lstrip())]
            body = line.strip()
            new = kind.apply(body, form)
            if new:
                planted[form.id] = {"from": body, "to": new}
                out.extend(indent + n for n in new)
                continue
        out.append(line)
    return "\n".join(out), planted
