"""The generator -> harness contract, declared once (docs/ARCHITECTURE.md sections 2 and 4).

What every form's `run` object may hold (per run ABI, with types) and the run-ABI argument words (these two
are the tables of contract.toml), and the tables both sides need (load modes, the redOp x type cells). The
generator checks each form it writes against it (`check_form`); `./ptxcts gen` renders it into
generated/contract/run_contract.hpp, which the run tier compiles and checks every form of forms.jsonl against when
it loads them (an error naming the form and the field).
The frame template takes its word offsets from here (`WORDS`).
"""
import os
import tomllib

from .rules.tensor import MODES, MODE_USES_94
from .rules.reduce import CELLS, REDOPS, TENSOR_CELLS, TYPES

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "contract.toml"), "rb") as _f:
    _TABLES = tomllib.load(_f)

# ---- the run-ABI argument words (contract.toml [words]): (name, count, meaning); word k is at byte offset 8*k ----
WORD_GROUPS = tuple((name, w["count"], w["meaning"]) for name, w in _TABLES["words"].items())
STATUS_WORDS = 16  # u32 per CTA rank


def words():
    """[(word name, index)]: coord0..coord4 and im2col0..im2col2 for the groups."""
    out = []
    for name, n, _ in WORD_GROUPS:
        for i in range(n):
            out.append((name if n == 1 else f"{name}{i}", len(out)))
    return out


WORDS = {name: 8 * index for name, index in words()}  # byte offsets, for the frame template


# The words after this one are those of PTX ISA 9.x qualifiers: the frame names them where it loads them (its
# `regs9x` block), so the comment every other kernel carries stays as it was.
_LAST_CHAPTER_WORD = "waiters"


def words_comment():
    """The frame's comment naming every word up to _LAST_CHAPTER_WORD (three lines, as the kernels have always
    carried it)."""
    items, k = [], 0
    for name, n, _ in WORD_GROUPS:
        items.append(f"{k} {name}" if n == 1 else f"{k}..{k + n - 1} {name}0..{n - 1}")
        k += n
        if name == _LAST_CHAPTER_WORD:
            break
    return (f"// args words (little endian u64): {', '.join(items[:7])},\n\t// {', '.join(items[7:14])},\n"
            f"\t// {', '.join(items[14:])}")


# ---- run fields (contract.toml [fields]): name -> (type, who reads it, meaning) ----
# type: bool | int | str | size (an int, or "args": the size comes from args.size) | str_list | type_cells
# reader: "run" (the run tier reads it: harness/runcore/src names it as field::<name>) or "info: <why no tier needs it>"
FIELDS = {name: (f["type"], f["reader"], f["meaning"]) for name, f in _TABLES["fields"].items()}

# ---- run ABIs: name -> (flow, cluster, tmap, required fields, optional fields) ----
_BULK = ("direction", "completion", "cache_hint", "remote", "size")
_BULK_OPT = ("multicast", "cp_mask", "peer_must_differ", "redop", "type", "noftz", "cell_allowed", "ignore_oob")
_TENSOR = ("direction", "completion", "cache_hint", "coords", "dims", "load_mode")
_TENSOR_OPT = ("coords_nonnegative", "cta_group", "im2col_info", "multicast", "remote", "redop", "types", "type_cells")
_CHECK = ("chunks", "chunk_bytes", "checked_after_wait", "expect_bits", "flow")
ABIS = {
    "v1.cp_async.wait_group": ("cp_async.wait_group", False, False,
                               ("cache_hint", "cop", "cp_size", "prefetch_size", "space", "src_op"), ()),
    "v1.self_check.cp_async": ("self_check.cp_async", False, False, _CHECK + ("completion", "mbarrier_count"), ()),
    "v1.self_check.bulk_group": ("self_check.bulk_group", False, False, _CHECK + ("read_only_wait",), ()),
    "v1.self_check.fence_proxy_async": ("self_check.fence_proxy_async", False, False,
                                        _CHECK + ("read_only_wait", "expect_dst_chunk0", "expect_window_src_chunk0"),
                                        ()),
    "v1.bulk_group": ("bulk_group", False, False, _BULK, _BULK_OPT),
    "v1.bulk_group.cluster": ("bulk_group", True, False, _BULK, _BULK_OPT),
    "v1.mbarrier": ("mbarrier", False, False, _BULK, _BULK_OPT),
    "v1.mbarrier.cluster": ("mbarrier", True, False, _BULK, _BULK_OPT),
    "v1.prefetch": ("prefetch", False, False, ("cache_hint", "size"), ()),
    "v1.bulk_group.tmap": ("bulk_group", False, True, _TENSOR, _TENSOR_OPT),
    "v1.bulk_group.cluster.tmap": ("bulk_group", True, True, _TENSOR, _TENSOR_OPT),
    "v1.mbarrier.tmap": ("mbarrier", False, True, _TENSOR, _TENSOR_OPT),
    "v1.mbarrier.cluster.tmap": ("mbarrier", True, True, _TENSOR, _TENSOR_OPT),
    "v1.prefetch.tmap": ("prefetch", False, True, ("cache_hint", "coords", "dims", "im2col_info", "load_mode"), ()),
}

# ---- tables ----


def ref_tensor_mode(mode):
    """harness/refmodel's ref::TensorMode enumerator of a .load_mode spelling: 'tile::' dropped, the first '::'
    joined with '_', the rest run together (tile::gather4 -> gather4, im2col::w -> im2col_w, im2col::w::128 ->
    im2col_w128)."""
    return mode.replace("tile::", "", 1).replace("::", "_", 1).replace("::", "")


# Tensor load modes (rules/tensor.MODES): PTX spelling -> ref::TensorMode enumerator.
LOAD_MODES = {m: ref_tensor_mode(m) for m in MODES}
# Load modes of a later PTX ISA text that harness/refmodel has no ref::TensorMode for yet, with the reason: a form may
# carry one in run.load_mode; the run tier plans none of its cases (tensor_mode_gate.hpp: not_supported naming it).
UNMODELLED_LOAD_MODES = {m: "PTX ISA 9.4, sm_107f+: harness/refmodel has no ref::TensorMode for it yet"
                         for m in MODE_USES_94}
# The redOp x type tables (rules/reduce.py), per site of harness/refmodel's ref::ReduceSite.
REDUCE_SITES = {"bulk_shared_cluster": CELLS["shared::cluster"], "bulk_global": CELLS["global"],
                "tensor": TENSOR_CELLS}
TYPE_CELL_VALUES = ("allowed", "not_in_table")
# The quals the run tier reads (a fact of the form's spelling, not of its run): "" = the qualifier is absent.
QUALS_READ = {"load_mode": ("str", "the .load_mode qualifier as spelled (\"\": absent, the default .tile)")}


def _type_ok(kind, v):
    if kind == "bool":
        return isinstance(v, bool)
    if kind == "int":
        return isinstance(v, int) and not isinstance(v, bool)
    if kind == "str":
        return isinstance(v, str)
    if kind == "size":
        return v == "args" or (isinstance(v, int) and not isinstance(v, bool))
    if kind == "str_list":
        return isinstance(v, list) and all(isinstance(x, str) for x in v)
    if kind == "type_cells":
        return isinstance(v, dict) and set(v) == set(TYPES) and all(x in TYPE_CELL_VALUES for x in v.values())
    raise KeyError(kind)


def check_form(form_id, abi, run):
    """Raise ValueError naming the form and the field when `run` breaks the contract."""
    if abi not in ABIS:
        raise ValueError(f"{form_id}: run ABI '{abi}' is not in contract.ABIS")
    _, _, _, required, optional = ABIS[abi]
    for name in required:
        if name not in run:
            raise ValueError(f"{form_id}: run.{name} is required by ABI {abi}")
    for name, v in run.items():
        if name not in required and name not in optional:
            raise ValueError(f"{form_id}: run.{name} is not a field of ABI {abi} (generator/ptxcts_gen/contract.py)")
        if not _type_ok(FIELDS[name][0], v):
            raise ValueError(f"{form_id}: run.{name} = {v!r} is not of type {FIELDS[name][0]}")
    if "load_mode" in run and run["load_mode"] not in LOAD_MODES and run["load_mode"] not in UNMODELLED_LOAD_MODES:
        raise ValueError(f"{form_id}: run.load_mode '{run['load_mode']}' is not one of {', '.join(LOAD_MODES)}")
