"""The named lowering rules (see the package docstring). One Rule per fact; its `demand` maps the form's fields to
what the SASS of the instruction under test must show, or None where the rule does not concern the form.

A demand speaks of the form's *principal* SASS instruction (the one whose opcode the family's opcode rule names)
through modifier runs: `has=("S.G",)` means the mnemonic's modifiers contain S then G, in a row; `lacks` the
opposite. Each rule also lists the whole alphabet it decides (`lacks` the members not chosen), so that a modifier
no rule decides is seen (the form's lowering is then `unruled`). The group and fence forms are demanded as exact
sequences of instructions, registers abstracted.
"""
import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Optional, Tuple

TENSOR = ("cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor", "cp.async.bulk.prefetch.tensor")
BULK_OPS = ("cp.async.bulk", "cp.reduce.async.bulk", "cp.async.bulk.prefetch") + TENSOR

OBSERVED = "observed: ptxas 13.0 and 13.5, sm_90a and sm_100a (nvdisasm 13.5.37)"


@dataclass(frozen=True)
class Demand:
    opcode: str = ""                       # the principal instruction's opcode
    has: Tuple[str, ...] = ()              # modifier runs the principal mnemonic contains
    lacks: Tuple[str, ...] = ()            # modifier runs it must not contain
    tail: Optional[str] = None             # "desc" / "pred": the last operand is a descriptor / predicate; "plain"
    # the exact instructions of the lowering, in order: each a mnemonic, with its operands (registers
    # abstracted) where they matter (`DEPBAR.LE SB0, 0x1`)
    sequence: Optional[Tuple[str, ...]] = None
    # instructions that may stand between or around the sequence's (each an addition that only orders more,
    # e.g. a further MEMBAR before a proxy fence); empty: the sequence is exact
    extra: Tuple[str, ...] = ()
    count: Optional[int] = None            # exactly this many instructions of `opcode`
    # the lowering calls out, once (SOFTWARE_CALL): ptxas's software path where the target has no hardware for the
    # qualifier
    call: bool = False
    # with `call`: the modifier of the hardware path that makes the call unnecessary
    hardware: str = "MULTICAST"
    # exactly one of these runs (each a choice the form allows, e.g. a scope at least as wide as the form's)
    one_of: Tuple[str, ...] = ()
    # the instruction's place in the kernel, as the PTX has it: (the generic writes the nearest line before it
    # holds, the async-proxy operations the nearest line after it holds), each a set of SASS opcodes; the
    # instruction's SASS lies after the one and before the other (a compiler that moves a proxy fence above the
    # write it orders, or past the operation it orders it before, has in effect dropped it). PLACE_PTX names the
    # PTX lines (the lowering tier records their SASS beside the test line's)
    between: Optional[Tuple[Tuple[str, ...], Tuple[str, ...]]] = None


@dataclass(frozen=True)
class Rule:
    name: str
    families: Tuple[str, ...]
    fields: Tuple[str, ...]                # the quals of forms.jsonl it reads ("instr" for the group forms)
    rests_on: str                          # a sentence of the chapter, verbatim (or "" where only observed)
    observed: str
    demand: Callable[[dict], Optional[Demand]] = field(repr=False)
    instrs: Tuple[str, ...] = ()           # group families: only the forms of these instructions


def _choose(chosen, alphabet, opcode):
    """has the chosen run (None: none of them), lacks every other member of the alphabet."""
    return Demand(opcode=opcode, has=(chosen,) if chosen else (), lacks=tuple(a for a in alphabet if a != chosen))


# ---- which SASS opcode a family lowers to ---------------------------------------------------------------------
def _l2cctl(q):
    """The prefetch is the L2 cache-control instruction (UBLKL2CCTL / UTMAL2CCTL): at sm_107* (every prefetch, .PF;
    with .L2::evict_last, .PM), and for .L2::evict_last (PTX ISA 9.4, sm_107f+) at a target not named."""
    return (q.get("target") or "").startswith("sm_107") or bool(q.get("eviction"))


def _principal(q, family):
    if family in ("cp.async.bulk.prefetch", "cp.async.bulk.prefetch.tensor") and _l2cctl(q):
        return "UBLKL2CCTL" if family == "cp.async.bulk.prefetch" else "UTMAL2CCTL"
    if family == "cp.async":
        return "LDGSTS"
    if family == "cp.async.bulk":
        return "UBLKCP"
    if family == "cp.reduce.async.bulk":
        return "UBLKRED"
    if family == "cp.async.bulk.prefetch":
        return "UBLKPF"
    if family == "cp.async.bulk.tensor":
        return "UTMASTG" if q.get("dst") == "global" else "UTMALDG"
    if family == "cp.reduce.async.bulk.tensor":
        return "UTMAREDG"
    if family == "cp.async.bulk.prefetch.tensor":
        return "UTMAPF"
    return None


def principal(form):
    """The principal SASS opcode of a form record (None for the group and fence forms)."""
    return _principal(form.get("quals", {}), form["family"])


def _family_rule(family):
    return lambda q: Demand(opcode=_principal(q, family), count=1)


RANKS = tuple(f"{n}D" for n in range(1, 6))
LOAD_MODES = {"": None, "tile": None, "im2col": "IM2COL", "im2col_no_offs": "IM2COL", "im2col::w": "W",
              "im2col::w::128": "W128", "tile::gather4": "GATHER4", "tile::scatter4": "SCATTER4",
              "im2col_no_offs::w": "W"}
LOAD_MODE_TOKENS = ("IM2COL", "W", "W128", "GATHER4", "SCATTER4")
DIRECTIONS = {"shared::cluster.global": "S.G", "shared::cta.global": "S.G", "global.shared::cta": "G.S",
              "shared::cluster.shared::cta": "S.S"}
DIRECTION_TOKENS = ("S.G", "G.S", "S.S")
REDOPS = ("ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR")
# the element type's SASS token: the 32-bit unsigned and bit types are the default (no token); .b64 bit
# operations act on 64-bit words as .u64 does
RED_TYPES = {"u32": None, "b32": None, "s32": "S32", "u64": "U64", "b64": "U64", "s64": "S64", "f32": "F32",
             "f64": "F64", "f16": "F16", "bf16": "BF16"}
RED_TYPE_TOKENS = ("S32", "U64", "S64", "F32", "F64", "F16", "BF16")
FLOATS = ("f32", "f64", "f16", "bf16")
CP_SIZES = {4: None, 8: "64", 16: "128"}
PREFETCH = {"": None, "L2::64B": "LTC64B", "L2::128B": "LTC128B", "L2::256B": "LTC256B"}
PREFETCH_TOKENS = ("LTC64B", "LTC128B", "LTC256B")
CTA_GROUP = {"": None, "cta_group::1": None, "cta_group::2": "2CTA"}


# The instructions of the group and fence lowerings (sequence demands).
DEPBAR, CCTL_IVALL, LDGDEPBAR = "DEPBAR.LE", "CCTL.IVALL", "LDGDEPBAR"
ARRIVE_TRANS, ARRIVES_TRANSCNT, ARRIVES_ARVCNT = ("SYNCS.ARRIVE.TRANS64.RED.A0T1", "ARRIVES.LDGSTSBAR.64.TRANSCNT",
                                                  "ARRIVES.LDGSTSBAR.64.ARVCNT")
ATOMS_ADD, ARRIVES_SM8X = "ATOMS.ADD.S32", "ARRIVES.LDGSTSBAR.64"      # sm_80..sm_89: no SYNCS unit
CMDFLUSH = "UTMACMDFLUSH"
MEMBAR_GPU, MEMBAR_CTA, FENCE_S, FENCE_G = "MEMBAR.ALL.GPU", "MEMBAR.ALL.CTA", "FENCE.VIEW.ASYNC.S", "FENCE.VIEW.ASYNC.G"
# a Demand's `between`: the PTX of the lines it speaks of (opcode prefixes; the group instructions are no
# async-proxy operation) and their SASS opcodes
PLACE_PTX = (("st.",), ("cp.async.bulk.", "cp.reduce.async.bulk."),
             ("cp.async.bulk.commit_group", "cp.async.bulk.wait_group"))
GENERIC_WRITES = ("STS", "STG", "ST")
ASYNC_PROXY_OPS = ("UBLKCP", "UBLKRED", "UTMALDG", "UTMASTG", "UTMAREDG")
# the state space of cp.async.mbarrier.arrive{.noinc} changes no instruction of its lowering
ARRIVE_STATE = ("observed: ptxas 13.5.37 at every target sm_80..sm_121f: .shared, .shared::cta and none (a generic "
                "address of the mbarrier) give the same sequence")
SEQUENCE_MNEMONICS = (DEPBAR, CCTL_IVALL, LDGDEPBAR, ARRIVE_TRANS, ARRIVES_TRANSCNT, ARRIVES_ARVCNT, ATOMS_ADD, CMDFLUSH,
                      MEMBAR_GPU, MEMBAR_CTA, FENCE_S, FENCE_G)


# The targets .multicast::cluster is optimized for (the chapter's list; sm_101a/f are sm_110a/f's former names).
# Elsewhere it is valid but ptxas may take a software path: the instruction without .MULTICAST and a CALL.
MULTICAST_TARGETS = ("sm_90a", "sm_100f", "sm_100a", "sm_103f", "sm_103a", "sm_110f", "sm_110a", "sm_101a", "sm_101f")
MULTICAST_TARGETS_QUOTE = ("`.multicast::cluster` qualifier is optimized for target architecture `sm_90a`/`sm_100f`/"
                           "`sm_100a`/ `sm_103f`/`sm_103a`/`sm_110f`/`sm_110a` and may have substantially reduced "
                           "performance on other targets")


SOFTWARE_CALL = "CALL.ABS.NOINC"   # the software path's call, once (observed: ptxas 12.9 and 13.0 at sm_120a)


MULTICAST_TOKENS = ("MULTICAST", "MULTICAST32")


def _multicast_token(q):
    """The modifier of a hardware multicast: .MULTICAST (the 16-bit ctaMask of .multicast::cluster and
    .multicast::cluster::16b), .MULTICAST32 (the 32-bit ctaMask of .multicast::cluster::32b, PTX ISA 9.4)."""
    return "MULTICAST32" if q.get("mc_width") == "32b" else "MULTICAST"


def _multicast(q, opcode, hardware):
    """.multicast::cluster at a target of MULTICAST_TARGETS (hardware=True) or elsewhere (False); None when this
    rule is not the one for the form's target. Without multicast: no .MULTICAST, at every target."""
    on_list = q.get("target") in MULTICAST_TARGETS or q.get("target") is None
    if not q.get("multicast"):
        return _choose(None, MULTICAST_TOKENS, opcode) if hardware else None
    if hardware != on_list:
        return None
    token = _multicast_token(q)
    if hardware:
        return _choose(token, MULTICAST_TOKENS, opcode)
    # elsewhere: the hardware form is fine as well; without it, the software path must be there (a CALL)
    return Demand(opcode=opcode, call=True, hardware=token,
                  lacks=tuple(t for t in MULTICAST_TOKENS if t != token))


def _multicast_rules(prefix, family, opcode, what):
    """The two .multicast::cluster rules of a family: <prefix>.multicast (at a target of MULTICAST_TARGETS, and
    without multicast everywhere) and <prefix>.multicast.elsewhere (the software path); `what` names the
    instruction in the observation ("copy", "load")."""
    return (Rule(f"{prefix}.multicast", (family,), ("multicast", "mc_width", "target"),
                 "Operand `ctaMask` specifies the destination CTAs in the cluster",
                 OBSERVED + ": .multicast::cluster: .MULTICAST; observed: ptxas 13.5.37 (PTX ISA 9.4): "
                 ".multicast::cluster::16b: .MULTICAST (the 16-bit ctaMask of .multicast::cluster); ::32b at "
                 "sm_107a/f: .MULTICAST32",
                 lambda q: _multicast(q, opcode, hardware=True)),
            Rule(f"{prefix}.multicast.elsewhere", (family,), ("multicast", "mc_width", "target"),
                 MULTICAST_TARGETS_QUOTE,
                 f"observed: ptxas 12.9 at sm_120a: the {what} without .MULTICAST, a ctaMask test and a CALL (the "
                 "path for destinations other than the issuing CTA); ptxas 13.5.37: the same for ::16b; ::32b at "
                 "sm_107a/f: .MULTICAST32",
                 lambda q: _multicast(q, opcode, hardware=False)))


def _sm8x(q):
    """The target is sm_80..sm_89 (Ampere, Ada: cp.async without the SYNCS unit of sm_90 and newer)."""
    t = q.get("target") or ""
    return t.startswith("sm_8")


def _hex(n):
    return f"0x{int(n):x}"


def _bulk_wait(q):
    seq = (f"{DEPBAR} SB0, {_hex(q['n'])}",) + (() if q["instr"].endswith(".read") else (CCTL_IVALL,))
    return Demand(sequence=seq) if q.get("n_operand") == "immediate" else None


def _fence(q):
    seq = {"": (MEMBAR_GPU, FENCE_S), "shared::cluster": (MEMBAR_GPU, FENCE_S), "shared::cta": (MEMBAR_CTA, FENCE_S),
           "global": (FENCE_G,)}.get(q.get("space"))
    # a further MEMBAR orders more, never less: ptxas 12.4 puts MEMBAR.ALL.CTA before MEMBAR.ALL.GPU; the fence
    # stays between the generic write and the bulk copy its kernel orders (the flows generic_write_then_bulk_*)
    return Demand(sequence=seq, extra=(MEMBAR_CTA, MEMBAR_GPU), between=(GENERIC_WRITES, ASYNC_PROXY_OPS)) \
        if seq else None


# ---- PTX ISA 9.1-9.5 (the model's extension axes; the text of PTX ISA 9.4 is quoted by the model's rules) ----
def _model_text(name):
    """The sentence a rule of the ISA model quotes (ptxcts_gen.rules): the 9.x text is not in shared/spec/000_*.txt,
    so a lowering rule on a 9.x qualifier rests on the sentence the model already quotes for it (stated once)."""
    from .. import rules as model_rules
    return model_rules.load_all()[name].sentence


OBSERVED_9X = "observed: ptxas 13.5.37 at every target it assembles the form for, sm_90a..sm_121f (nvdisasm 13.5.37)"
# .sem of cp.async.bulk and cp.reduce.async.bulk (PTX ISA 9.3): .relaxed is a strong operation of the memory model,
# at its .scope; .weak (and no .sem) is a weak one. The SASS scopes, narrowest first: .SM (the CTA's SM), .GPU,
# .SYS; a cluster has no scope of its own in the SASS, .GPU covers it. A wider scope than the form's orders more,
# never less, so each scope accepts itself and every wider one.
SASS_SCOPES = ("SM", "GPU", "SYS")
SCOPE_AT_LEAST = {"cta": SASS_SCOPES, "cluster": ("GPU", "SYS"), "gpu": ("GPU", "SYS"), "sys": ("SYS",)}
STRONG = "STRONG"


def _sem(q, opcode):
    sem = q.get("sem", "")
    if sem.startswith("relaxed."):
        wide = SCOPE_AT_LEAST[sem.split(".", 1)[1]]
        return Demand(opcode=opcode, has=(STRONG,), one_of=wide, lacks=tuple(t for t in SASS_SCOPES if t not in wide))
    return Demand(opcode=opcode, lacks=(STRONG,) + SASS_SCOPES)


# .report_mechanism (PTX ISA 9.4): the validity pattern of the qualifier, as the SASS spells it (the pattern's hex
# digits right-aligned in eight places, X elsewhere; per_element::ff: EVERY_FF); ::disabled reports nothing
REPORT_PREFIX = "mbarrier::report::validity::"


def _report_token(report):
    if not report.startswith(REPORT_PREFIX):
        return None
    kind, pattern = report[len(REPORT_PREFIX):].split("::")
    if kind == "per_element":
        return f"VALIDCHK_EVERY_{pattern.upper()}"
    return f"VALIDCHK_{pattern.upper().rjust(8, 'X')}"


REPORT_TOKENS = ("VALIDCHK_80000000", "VALIDCHK_XXXX8000", "VALIDCHK_XXXXXX80", "VALIDCHK_XXXXXXX8",
                 "VALIDCHK_EVERY_FF")
# the modifiers of the L2 cache-control instruction of a prefetch at sm_107*: .PF a prefetch, .PM a prefetch with
# .L2::evict_last
L2CCTL_PREFETCH, EVICT_LAST = "PF", "PM"


def _eviction(q):
    if _l2cctl(q):
        return _choose(EVICT_LAST if q.get("eviction") else L2CCTL_PREFETCH, (L2CCTL_PREFETCH, EVICT_LAST), "")
    return _choose(None, (L2CCTL_PREFETCH, EVICT_LAST), "")


OBSERVED_9X_107 = "observed: ptxas 13.5.37 at sm_107f (nvdisasm 13.5.37)"
# .override::global_address and .override_attribute (PTX ISA 9.4): the SASS modifiers of the tensor instruction
OVERRIDE_ADDRESS, OVERRIDE_ATTRIBUTE = "TENSOR_GADDR", "TENSOR_STRIDE_SIZE_MAX256"


# a flush-to-zero modifier, which .noftz forbids (no SASS of these toolchains shows one on UBLKRED: its .ADD.F32 keeps
# subnormals, measured on the H100 and the H200, results/findings/toolchains.md)
FTZ = "FTZ"


RULES = (
    # ---- the opcode of each family: one instruction of it -------------------------------------------------------
    Rule("cp.async.opcode", ("cp.async",), ("family",),
         "`cp.async` is a non-blocking instruction which initiates an asynchronous copy operation of data from the "
         "location specified by source address operand `src` to the location specified by destination address "
         "operand `dst`.",
         OBSERVED + ": one LDGSTS (load global, store shared)", _family_rule("cp.async")),
    Rule("bulk.opcode", ("cp.async.bulk",), ("family",), "",
         OBSERVED + ": one UBLKCP (bulk copy)", _family_rule("cp.async.bulk")),
    Rule("reduce.opcode", ("cp.reduce.async.bulk",), ("family",), "",
         OBSERVED + ": one UBLKRED (bulk reduction)", _family_rule("cp.reduce.async.bulk")),
    Rule("bulk_prefetch.opcode", ("cp.async.bulk.prefetch",), ("family", "eviction", "target"), "",
         OBSERVED + ": one UBLKPF (bulk prefetch); " + OBSERVED_9X + ": at sm_107* and with .L2::evict_last one "
         "UBLKL2CCTL (L2 cache control)", _family_rule("cp.async.bulk.prefetch")),
    Rule("tensor.opcode", ("cp.async.bulk.tensor",), ("dst",), "",
         OBSERVED + ": one UTMALDG (tensor load, .dst shared) or UTMASTG (tensor store, .dst global)",
         _family_rule("cp.async.bulk.tensor")),
    Rule("reduce_tensor.opcode", ("cp.reduce.async.bulk.tensor",), ("family",), "",
         OBSERVED + ": one UTMAREDG", _family_rule("cp.reduce.async.bulk.tensor")),
    Rule("prefetch_tensor.opcode", ("cp.async.bulk.prefetch.tensor",), ("family", "eviction", "target"), "",
         OBSERVED + ": one UTMAPF; " + OBSERVED_9X + ": at sm_107* and with .L2::evict_last one UTMAL2CCTL",
         _family_rule("cp.async.bulk.prefetch.tensor")),

    # ---- cp.async ------------------------------------------------------------------------------------------------
    Rule("cp.async.global_source", ("cp.async",), ("family",),
         "Operand `src` specifies a location in the global state space and `dst` specifies a location in the shared "
         "state space.",
         OBSERVED + ": LDGSTS.E (extended, 64-bit global address)",
         lambda q: Demand(opcode="LDGSTS", has=("E",))),
    Rule("cp.async.cp_size", ("cp.async",), ("cp_size",),
         "Operand `cp-size` is an integer constant which specifies the size of data in bytes to be copied to the "
         "destination `dst`.",
         OBSERVED + ": 4 bytes: no width; 8: .64; 16: .128",
         lambda q: _choose(CP_SIZES[q["cp_size"]], ("64", "128"), "LDGSTS") if q.get("cp_size") in CP_SIZES else None),
    Rule("cp.async.cache_operator", ("cp.async",), ("cop",),
         "the `.cg` qualifier indicates caching of data only at global level cache L2 and not at L1",
         OBSERVED + ": .cg: .BYPASS (the L1 is bypassed); .ca: none",
         lambda q: _choose("BYPASS" if q.get("cop") == "cg" else None, ("BYPASS",), "LDGSTS")),
    Rule("cp.async.prefetch_size", ("cp.async",), ("prefetch",),
         "The `.level::prefetch_size` qualifier is a hint to fetch additional data of the specified size",
         OBSERVED + ": .L2::64B/128B/256B: .LTC64B/.LTC128B/.LTC256B",
         lambda q: _choose(PREFETCH[q.get("prefetch", "")], PREFETCH_TOKENS, "LDGSTS")
         if q.get("prefetch", "") in PREFETCH else None),
    Rule("cp.async.src_size", ("cp.async",), ("src_op",),
         "In such case, remaining bytes in destination `dst` are filled with zeros.",
         OBSERVED + ": src-size: .ZFILL; without it: none",
         lambda q: _choose("ZFILL" if "src_size" in q.get("src_op", "") else None, ("ZFILL",), "LDGSTS")),
    Rule("cp.async.ignore_src", ("cp.async",), ("src_op",),
         "If the source data is ignored then zeros will be copied to destination `dst`.",
         OBSERVED + ": ignore-src: a predicate operand last; without it and src-size: none",
         lambda q: Demand(opcode="LDGSTS", tail="pred") if q.get("src_op") == "ignore_src"
         else (Demand(opcode="LDGSTS", tail="plain") if q.get("src_op") == "" else None)),

    # ---- the bulk families ------------------------------------------------------------------------------------------
    Rule("bulk.direction", ("cp.async.bulk", "cp.reduce.async.bulk"), ("dir",),
         "The source address operand `srcMem` is located in the state space specified by `.src` and the "
         "destination address operand `dstMem` is located in the state specified by the `.dst`.",
         OBSERVED + ": shared<-global: .S.G; global<-shared: .G.S; shared::cluster<-shared::cta: .S.S",
         lambda q: Demand(opcode="UBLKRED" if "redop" in q else "UBLKCP", has=(DIRECTIONS[q["dir"]],),
                          lacks=tuple(t for t in DIRECTION_TOKENS if t != DIRECTIONS[q["dir"]]))
         if q.get("dir") in DIRECTIONS else None),
    *_multicast_rules("bulk", "cp.async.bulk", "UBLKCP", "copy"),
    Rule("bulk.cp_mask", ("cp.async.bulk",), ("cp_mask",), "",
         OBSERVED + " (sm_100a and newer): .cp_mask: .DST_G_BYTE_MASK",
         lambda q: _choose("DST_G_BYTE_MASK" if q.get("cp_mask") else None, ("DST_G_BYTE_MASK",), "UBLKCP")),
    Rule("bulk.cache_hint", BULK_OPS, ("cache_hint",),
         "", OBSERVED + ": .L2::cache_hint: the cache policy as a last operand desc[URx]; without it: none",
         lambda q: None),   # replaced below per family (it needs the family's opcode)
    Rule("bulk_prefetch.level", ("cp.async.bulk.prefetch", "cp.async.bulk.prefetch.tensor"), ("dst",),
         "", OBSERVED + ": .L2: .L2; at sm_107* (ptxas 13.5.37) the opcode names the level (L2CCTL)",
         lambda q: Demand(opcode="", has=("L2",)) if q.get("dst") == "L2" and not _l2cctl(q) else None),
    Rule("reduce.operation", ("cp.reduce.async.bulk", "cp.reduce.async.bulk.tensor"), ("redop",),
         "Each data element in the destination array is reduced inline with the corresponding data element in "
         "the source array with the reduction operation specified by the modifier `.redOp`.",
         OBSERVED + ": .add/.min/.max/.inc/.dec/.and/.or/.xor: .ADD/.MIN/.MAX/.INC/.DEC/.AND/.OR/.XOR",
         lambda q: _choose(q["redop"].upper(), REDOPS, "") if q.get("redop", "").upper() in REDOPS else None),
    Rule("reduce.type", ("cp.reduce.async.bulk",), ("type",),
         "The type of each data element in the source and the destination array is specified by the modifier "
         "`.type`.",
         OBSERVED + ": .u32/.b32: none; .s32: .S32; .u64/.b64: .U64; .s64: .S64; .f32/.f64/.f16/.bf16: "
         ".F32/.F64/.F16/.BF16",
         lambda q: _choose(RED_TYPES[q["type"]], RED_TYPE_TOKENS, "UBLKRED") if q.get("type") in RED_TYPES else None),
    Rule("reduce.float_rounding", ("cp.reduce.async.bulk",), ("type",),
         "The floating point operation `.add` rounds to the nearest even.",
         OBSERVED + ": a floating-point type: .RN (also for .min/.max); an integer type: none",
         lambda q: _choose("RN" if q.get("type") in FLOATS else None, ("RN",), "UBLKRED")
         if q.get("type") in RED_TYPES else None),

    # ---- the tensor families --------------------------------------------------------------------------------------
    Rule("tensor.rank", TENSOR, ("dim",),
         "The dimension of the tensor data is specified by the `.dim` modifier.",
         OBSERVED + ": .1d..5d: .1D..5D",
         lambda q: _choose(f"{q['dim']}D", RANKS, "") if q.get("dim") in (1, 2, 3, 4, 5) else None),
    Rule("tensor.load_mode", TENSOR, ("load_mode",), "",
         OBSERVED + ": .tile (or none): none; .im2col, .im2col_no_offs: .IM2COL; .im2col::w: .W; "
         ".im2col::w::128: .W128; .tile::gather4: .GATHER4; .tile::scatter4: .SCATTER4; " + OBSERVED_9X_107
         + ": .im2col_no_offs::w (PTX ISA 9.4, stores and reductions): .W, as .im2col::w of the loads",
         lambda q: _choose(LOAD_MODES[q["load_mode"]], LOAD_MODE_TOKENS, "")
         if q.get("load_mode") in LOAD_MODES else None),
    *_multicast_rules("tensor", "cp.async.bulk.tensor", "", "load"),
    Rule("tensor.cta_group", ("cp.async.bulk.tensor",), ("cta_group",),
         "`.cta_group::2` : The mbarrier signal is multicasted either to all the odd numbered CTAs or the",
         OBSERVED + ": .cta_group::2: .2CTA; .cta_group::1 (or none): none",
         lambda q: _choose(CTA_GROUP[q["cta_group"]], ("2CTA",), "") if q.get("cta_group", "") in CTA_GROUP else None),
    Rule("tensor.override_address", TENSOR, ("ovr_addr",), _model_text("tensor.override_attribute_needs_address"),
         OBSERVED_9X_107 + ": .override::global_address: .TENSOR_GADDR on UTMALDG / UTMASTG / UTMAREDG / UTMAL2CCTL "
         "(the address operand in a uniform register pair beside the tensor map); without it: none",
         lambda q: _choose(OVERRIDE_ADDRESS if q.get("ovr_addr") else None, (OVERRIDE_ADDRESS,), "")),
    Rule("tensor.override_attribute", TENSOR, ("ovr_attr",), _model_text("tensor.override_attribute_dim"),
         OBSERVED_9X_107 + ": .override::global_dim (1d) and .override::global_dim_stride (2d-5d) alike: "
         ".TENSOR_STRIDE_SIZE_MAX256 (after .TENSOR_GADDR, which the attribute needs); without either: none",
         lambda q: _choose(OVERRIDE_ATTRIBUTE if q.get("ovr_attr") else None, (OVERRIDE_ATTRIBUTE,), "")),

    # ---- completion: groups and the proxy fence ---------------------------------------------------------------
    Rule("cp.async.wait_group", ("cp.async.groups",), ("instr", "n"),
         "`cp.async.wait_group` instruction will cause executing thread to wait till only `N` or fewer of",
         OBSERVED + ": DEPBAR.LE SB0, N",
         lambda q: Demand(sequence=(f"{DEPBAR} SB0, {_hex(q['n'])}",))
         if q.get("n_operand") == "immediate" else None, instrs=("cp.async.wait_group",)),
    Rule("cp.async.wait_all", ("cp.async.groups",), ("instr",),
         "`cp.async.wait_all` is equivalent to :",
         OBSERVED + ": LDGDEPBAR (the commit) then DEPBAR.LE SB0, 0x0",
         lambda q: Demand(sequence=(LDGDEPBAR, f"{DEPBAR} SB0, 0x0")), instrs=("cp.async.wait_all",)),
    Rule("cp.async.mbarrier.arrive", ("cp.async.groups",), ("instr", "target", "state"), "",
         OBSERVED + ": SYNCS.ARRIVE.TRANS64.RED.A0T1 (the pending count raised) then "
         "ARRIVES.LDGSTSBAR.64.TRANSCNT; at sm_80..sm_89 (no SYNCS unit; ptxas 13.0): ATOMS.ADD.S32 on the "
         "mbarrier (the count raised, warp-aggregated) then ARRIVES.LDGSTSBAR.64; " + ARRIVE_STATE,
         lambda q: Demand(sequence=(ATOMS_ADD, ARRIVES_SM8X) if _sm8x(q) else (ARRIVE_TRANS, ARRIVES_TRANSCNT)),
         instrs=("cp.async.mbarrier.arrive",)),
    Rule("cp.async.mbarrier.arrive.noinc", ("cp.async.groups",), ("instr", "target", "state"), "",
         OBSERVED + ": ARRIVES.LDGSTSBAR.64.ARVCNT; at sm_80..sm_89 (ptxas 13.0): ARRIVES.LDGSTSBAR.64; " + ARRIVE_STATE,
         lambda q: Demand(sequence=(ARRIVES_SM8X,) if _sm8x(q) else (ARRIVES_ARVCNT,)),
         instrs=("cp.async.mbarrier.arrive.noinc",)),
    Rule("bulk.commit_group", ("cp.async.bulk.groups",), ("instr",), "",
         OBSERVED + ": UTMACMDFLUSH",
         lambda q: Demand(sequence=(CMDFLUSH,)), instrs=("cp.async.bulk.commit_group",)),
    Rule("bulk.wait_group", ("cp.async.bulk.groups",), ("instr", "n"),
         "The optional `.read` modifier indicates that the waiting has to be done until all the bulk",
         OBSERVED + ": DEPBAR.LE SB0, N then CCTL.IVALL (the L1 invalidated: the writes become visible); "
         ".read: DEPBAR.LE SB0, N alone",
         _bulk_wait, instrs=("cp.async.bulk.wait_group", "cp.async.bulk.wait_group.read")),
    Rule("bulk.wait_group.sync_restrict", ("cp.async.bulk.groups",), ("instr", "n"), "",
         "observed: ptxas 13.5.37 at sm_90a, sm_100a and sm_120a (nvdisasm 13.5.37; PTX ISA 9.5, which 13.0 does not "
         "know): cp.async.bulk.wait_group.sync_restrict::proxy::async N: DEPBAR.LE SB0, N alone, as .read "
         "(no CCTL.IVALL)",
         lambda q: Demand(sequence=(f"{DEPBAR} SB0, {_hex(q['n'])}",)) if q.get("n_operand") == "immediate" else None,
         instrs=("cp.async.bulk.wait_group.sync_restrict::proxy::async",)),
    # ---- PTX ISA 9.1-9.5 ---------------------------------------------------------------------------------------
    Rule("bulk.sem", ("cp.async.bulk", "cp.reduce.async.bulk"), ("sem",), _model_text("bulk.sem_type"),
         OBSERVED_9X + ": .relaxed.cta: .STRONG.SM; .relaxed.cluster, .relaxed.gpu: .STRONG.GPU; .relaxed.sys: "
         ".STRONG.SYS; .weak and no .sem: none (a weak copy); ptxas 13.0 and older: no .sem, none",
         lambda q: _sem(q, "UBLKRED" if "redop" in q else "UBLKCP")),
    Rule("bulk.report", ("cp.async.bulk", "cp.async.bulk.tensor"), ("report",),
         _model_text("common.report_global_to_shared"),
         OBSERVED_9X + " (sm_107a/f): .mbarrier::report::validity::per_16bytes::80000000 / ::8000 / ::80 / ::8: "
         ".VALIDCHK_80000000 / _XXXX8000 / _XXXXXX80 / _XXXXXXX8; ::per_element::ff: .VALIDCHK_EVERY_FF; "
         "::disabled and none: none",
         lambda q: _choose(_report_token(q.get("report", "")), REPORT_TOKENS, "")),
    Rule("bulk_prefetch.eviction_priority", ("cp.async.bulk.prefetch", "cp.async.bulk.prefetch.tensor"),
         ("eviction", "target"), _model_text("bulk_prefetch.eviction_priority_or_cache_hint"),
         OBSERVED_9X + ": at sm_107, sm_107a, sm_107f every prefetch is the L2 cache-control instruction "
         "UBLKL2CCTL / UTMAL2CCTL (the tensor one with the rank and mode modifiers): .PF, and .PM with "
         ".L2::evict_last; elsewhere UBLKPF.L2 / UTMAPF.L2, neither",
         _eviction),
    Rule("reduce.noftz", ("cp.reduce.async.bulk",), ("noftz",),
         "It preserves input and result subnormals, and does not flush them to zero.",
         OBSERVED_9X + ": .add.noftz.f16/.bf16/.f32: UBLKRED .ADD.F16/.BF16/.F32.RN, no flush-to-zero modifier; "
         ".add.noftz.f32 is the instruction of .add.f32 (the same encoding), whose .ADD.F32 keeps subnormals on the "
         "H100 and the H200 (results/findings/toolchains.md)",
         lambda q: Demand(opcode="UBLKRED", lacks=(FTZ,)) if q.get("noftz") else None),
    Rule("fence.proxy.async", ("cp.async.bulk.groups",), ("space",),
         "`fence.proxy.async` should be used to synchronize memory between *generic",
         OBSERVED + ": FENCE.VIEW.ASYNC.S after MEMBAR.ALL.GPU (no space, .shared::cluster) or MEMBAR.ALL.CTA "
         "(.shared::cta); .global: FENCE.VIEW.ASYNC.G alone; a further MEMBAR may precede (ptxas 12.4: "
         "MEMBAR.ALL.CTA before MEMBAR.ALL.GPU); after the STS/STG of the generic write before it and before the "
         "UBLKCP of the bulk copy after it",
         _fence, instrs=("fence.proxy.async",)),
)


# The form fields (forms.jsonl quals) no lowering rule reads, each with the reason: a qualifier of the model is either
# read by a rule above or named here (lower.unit.rules fails on one that is neither: a new qualifier needs a
# lowering decision).
NOT_LOWERED = {
    "b128": ".b128 comes with .relaxed (bulk.sem reads .sem); it names the element type, no SASS modifier",
    "byte_mask": "the byteMask operand of .cp_mask (bulk.cp_mask reads cp_mask): an operand value",
    "completion": "the completion mechanism follows from the direction (bulk.direction); the SASS names neither",
    "coords": "the count of tensor coordinates follows from .dim (tensor.rank reads dim): operands",
    "im2col_info": "the count of im2col offsets follows from .dim and the load mode: operands",
    "flow": "the test kernel's flow around the instruction (group counts), not the instruction",
    "ignore_oob": ".ignore_oob: ptxas 13.5.37 emits the copy without it, the same 128-bit encoding, and drops "
                  "ignoreBytesLeft/Right with the loads of their registers: no SASS mark to demand "
                  "(results/findings/toolchains.md)",
    "mbar_operand": "the [mbar] operand's presence (the forms without it are invalid)",
    "n_operand": "an immediate or a register N (the register forms are invalid)",
    "policy": "the cache-policy operand comes with .L2::cache_hint (bulk.cache_hint reads cache_hint)",
    "size_imm": "an immediate size: an operand value",
    "src": "the source space, with .dst the direction (bulk.direction reads dir)",
}


# A field a family's forms carry that no rule of that family reads, with the reason (NOT_LOWERED for every family).
NOT_LOWERED_IN = {
    ("cp.async", "cache_hint"):
        "LDGSTS takes the cache policy in its memory descriptor desc[URx], which every LDGSTS has: without "
        ".L2::cache_hint the kernel's default descriptor (ULDC.64 of c[0x0][0x208]), with it the createpolicy value "
        "(ptxas 13.5.37, sm_90): telling them apart is a data flow through uniform registers, which the lowering "
        "judge does not follow (the bulk forms' policy is an operand of their own: bulk.cache_hint)",
}


# Every modifier some rule gives a meaning to (the modifier alphabets, and the modifiers of the sequences). On a form none of whose rules decides it, such a modifier is a
# contradiction (rule modifiers.meaningful_elsewhere: the lowering claims a property the form does not have, e.g.
# .2CTA on a prefetch); a modifier no rule knows at all leaves the lowering unruled.
KNOWN_MODIFIERS = frozenset(
    t for group in (RANKS, LOAD_MODE_TOKENS, DIRECTION_TOKENS, REDOPS, RED_TYPE_TOKENS, PREFETCH_TOKENS,
                    ("64", "128", "BYPASS", "ZFILL", "E", "DST_G_BYTE_MASK", "2CTA", "L2", "RN"), MULTICAST_TOKENS,
                    (STRONG,) + SASS_SCOPES, REPORT_TOKENS, (L2CCTL_PREFETCH, EVICT_LAST),
                    (OVERRIDE_ADDRESS, OVERRIDE_ATTRIBUTE),
                    tuple(m.split(".", 1)[1] for m in SEQUENCE_MNEMONICS if "." in m))
    for run in group for t in run.split("."))
MEANINGFUL_ELSEWHERE = Rule(
    "modifiers.meaningful_elsewhere", tuple(sorted(set(BULK_OPS) | {"cp.async"})), (), "",
    "a modifier another rule gives a meaning to (KNOWN_MODIFIERS) appears only where a rule of the form demands it",
    lambda q: None)


def _cache_hint(family):
    def demand(q):
        if "cache_hint" not in q:
            return None
        return Demand(opcode=_principal(q, family), tail="desc" if q["cache_hint"] else "nodesc")
    return demand


# bulk.cache_hint needs each family's opcode: one rule, its demand built per family
_CACHE = {f: _cache_hint(f) for f in BULK_OPS}


def rules_for(form, target=None):
    """[(rule, demand)] of every rule that concerns the form record (a forms.jsonl line as a dict) at target
    (None: a target with every hardware feature the form names)."""
    fam, q = form["family"], dict(form.get("quals", {}), target=target)
    out = []
    for r in RULES:
        if fam not in r.families:
            continue
        if r.instrs and q.get("instr") not in r.instrs:
            continue
        d = _CACHE[fam](q) if r.name == "bulk.cache_hint" else r.demand(q)
        if d is None:
            continue
        if not d.opcode and d.sequence is None:
            d = dataclasses.replace(d, opcode=_principal(q, fam))
        out.append((r, d))
    return out


def by_name():
    return {r.name: r for r in RULES}
