"""The ISA model: one table (module) per instruction family of the chapter.

Each family module is data:
  FAMILY      family name (also the cases/<family>.tsv and kernels/<family>.ptx file stem)
  TEMPLATE    its kernel template under templates/
  DEFAULTS    qualifier values of a form before the axes are applied
  AXES        ((qualifier, (values...)), ...): the cartesian product enumerated
  AXIS_LINKS  ((qualifier, from_qualifier), ...): qualifiers that follow another one inside the product
  derive(q)   optional: fills qualifiers left None (e.g. the completion mechanism a direction implies)
  EXTRA       explicit forms beyond the product (mostly negative forms), partial qualifier dicts
  REQUIRES    ((predicate(q), requirement name), ...): features the form uses (rules/ defines them)
  RULES       names of the form rules (rules/) that classify this family's forms
  KEEP_INVALID_PER_RULE   how many product forms breaking exactly one rule are kept per rule
  keep_invalid(q)         optional: product forms kept whatever rules they break (e.g. every redOp x type cell)
and four small functions of the qualifiers: form_id, instr (the instruction as rendered), run (fixed operand
values for the run tier) and kernel (what the template needs: completion flow, cluster, tensor map, ...).
"""
import importlib

# one module per family, in the chapter's order
FAMILY_MODULES = ("cp_async", "cp_async_groups", "bulk", "reduce_bulk", "bulk_prefetch", "tensor", "reduce_tensor",
                  "prefetch_tensor", "bulk_groups")


def seg(text):
    """A form-ID segment: the chapter's qualifier spelling with '::' written '_' ('.' kept)."""
    return text.replace("::", "_")


def derive_direction(q, completion=None):
    """The qualifiers a bulk form's direction implies when the table leaves them None: .dst/.src from `dir`,
    the completion mechanism (the chapter's tables: .bulk_group towards .global, .mbarrier::complete_tx::bytes
    towards shared memory; `completion` overrides it) and the cache-policy operand (present with
    .L2::cache_hint)."""
    q["dst"], q["src"] = q["dir"].split(".")
    if q["completion"] is None:
        q["completion"] = completion or ("bulk_group" if q["dst"] == "global" else "mbarrier::complete_tx::bytes")
    if q["policy"] is None:
        q["policy"] = q["cache_hint"]


def hint_segments(q):
    """The form-ID segments of the cache hint: `L2_cache_hint` with the qualifier, `cache_policy` for a
    cache-policy operand without it (a negative form)."""
    if q["cache_hint"]:
        return ["L2_cache_hint"]
    return ["cache_policy"] if q["policy"] else []


def tensor_operand(coords, q=None):
    """`[%tmap, {%c0, ..}]`: the tensor map and its tensorCoords vector of `coords` registers; with the PTX ISA 9.4
    override qualifiers of q, `[tensorMap{, gAddrToOverride}{, attributeOverrideInfo}, tensorCoords]`
    (override_operands)."""
    return "[" + ", ".join(["%tmap"] + override_operands(q) + ["{" + ", ".join(f"%c{i}" for i in range(coords)) + "}"]) + "]"


def override_operands(q):
    """The operands the .override::* qualifiers bring inside the tensor-map bracket (PTX ISA 9.4, 9.7.10.28.5.2):
    gAddrToOverride (64-bit) with .override::global_address; with .override::global_dim the vector
    tensorSizeToOverride of one .b16 register, with .override::global_dim_stride tensorSizeToOverride of .dim
    registers, tensorLowerStrideToOverride of .dim - 1 .b32 registers and the packed .b16 tensorUpperStrideToOverride
    (Tables 34 and 35). The registers: templates/frame.ptx.j2, k.override."""
    if not q:
        return []
    out = ["%ovr_addr"] if q.get("ovr_addr") else []
    if q.get("ovr_attr") == "global_dim":
        out.append("{%ovr_sz0}")
    elif q.get("ovr_attr") == "global_dim_stride":
        n = q["dim"]
        out += ["{" + ", ".join(f"%ovr_sz{i}" for i in range(n)) + "}",
                "{" + ", ".join(f"%ovr_lo{i}" for i in range(max(n - 1, 1))) + "}", "%ovr_up"]
    return out


def override_qualifiers(q):
    """`.override::global_address` and `.override::global_dim{_stride}` where the form has them (in the syntax's
    order: after the cache hint / eviction priority)."""
    return ["override::global_address" if q.get("ovr_addr") else None,
            f"override::{q['ovr_attr']}" if q.get("ovr_attr") else None]


def override_segments(q):
    return [seg(x) for x in override_qualifiers(q) if x]


def uses_override_registers(q):
    return bool(q.get("ovr_addr") or q.get("ovr_attr"))


def im2col_operand(count):
    """`{%i2c0, ..}`: the im2colInfo vector of `count` registers."""
    return "{" + ", ".join(f"%i2c{i}" for i in range(count)) + "}"


def instruction(opcode, qualifiers, operands):
    """The instruction as rendered: the opcode, then `.q` for each qualifier that is set (None, "" and False are
    left out), then the operands that are set, comma-separated, and ';'."""
    return opcode + "".join("." + x for x in qualifiers if x) + " " + ", ".join(o for o in operands if o) + ";"


def cache_hint(q):
    """The `.L2::cache_hint` qualifier when the form has it."""
    return "L2::cache_hint" if q["cache_hint"] else None


def policy_operand(q):
    """The cache-policy operand when the form has one (with .L2::cache_hint, or alone in a negative form)."""
    return "%policy" if q["policy"] else None


def size_operand(q):
    """The size operand: the form's immediate, or the register the kernel loads from args.size."""
    return str(q["size_imm"]) if q["size_imm"] is not None else "%size"


def mbarrier_operand(q, remote):
    """The mbarrier operand of an mbarrier-completion form: the peer CTA's (mapa) for a remote destination."""
    if not q["completion"].startswith("mbarrier"):
        return None
    return "[%c_mbar]" if remote else "[%mbar]"

# ---- qualifiers of PTX ISA 9.1-9.5 (the extension axes, EXT_AXES, of the families that take them) ----

def multicast_qualifier(q):
    """`.multicast::cluster`, with the ::16b / ::32b ctaMask width sub-qualifier of PTX ISA 9.4 when set."""
    if not q["multicast"]:
        return None
    return "multicast::cluster" + (f"::{q['mc_width']}" if q.get("mc_width") else "")


def multicast_segments(q):
    """Form-ID segments of .multicast::cluster{::16b, ::32b}."""
    return [seg(multicast_qualifier(q))] if q["multicast"] else []


def cta_mask_operand(q):
    """The ctaMask operand: 16-bit by default and with ::16b, the 32-bit register with ::32b."""
    if not q["multicast"]:
        return None
    return "%cta_mask32" if q.get("mc_width") == "32b" else "%cta_mask"


def report_qualifier(q):
    """The .report_mechanism qualifier (PTX ISA 9.4) when set."""
    return q.get("report") or None


def report_segments(q):
    return [seg(q["report"])] if q.get("report") else []


def uses_9x_registers(q):
    """The kernel needs the operand registers of the PTX ISA 9.x qualifiers (templates/frame.ptx.j2, regs9x)."""
    return bool(q.get("ignore_oob") or q.get("mc_width") == "32b")


def families():
    return [importlib.import_module(f"{__name__}.{name}") for name in FAMILY_MODULES]
