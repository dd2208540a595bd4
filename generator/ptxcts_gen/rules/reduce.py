"""cp.reduce.async.bulk (9.7.9.25.4.2) and cp.reduce.async.bulk.tensor (9.7.9.25.5.3): redOp x type tables."""
from . import requirement, rule, min_sm
from .tensor import REDUCE_MODES, REDUCE_MODES_94

SEC = "9.7.9.25.4.2"
SEC_T = "9.7.9.25.5.3"
REDOPS = ("and", "or", "xor", "add", "inc", "dec", "min", "max")
TYPES = ("f16", "bf16", "b32", "u32", "s32", "b64", "u64", "s64", "f32", "f64")

# The chapter's table "valid combinations of .redOp and element type", per destination.
CELLS = {
    "shared::cluster": {"add": ("u32", "s32", "u64"), "min": ("u32", "s32"), "max": ("u32", "s32"),
                        "inc": ("u32",), "dec": ("u32",), "and": ("b32",), "or": ("b32",), "xor": ("b32",)},
    "global": {"add": ("u32", "s32", "u64", "f32", "f64", "f16", "bf16"),
               "min": ("u32", "s32", "u64", "s64", "f16", "bf16"), "max": ("u32", "s32", "u64", "s64", "f16", "bf16"),
               "inc": ("u32",), "dec": ("u32",), "and": ("b32", "b64"), "or": ("b32", "b64"), "xor": ("b32", "b64")},
}
# cp.reduce.async.bulk.tensor's own table (element type from the tensor-map); note: no .f64 for .add.
TENSOR_CELLS = {"add": ("u32", "s32", "u64", "f32", "f16", "bf16"),
                "min": ("u32", "s32", "u64", "s64", "f16", "bf16"), "max": ("u32", "s32", "u64", "s64", "f16", "bf16"),
                "inc": ("u32",), "dec": ("u32",), "and": ("b32", "b64"), "or": ("b32", "b64"), "xor": ("b32", "b64")}

requirement("reduce_bulk", SEC, "8.0", "Introduced in PTX ISA version 8.0.", [min_sm(90)], "Requires sm_90 or higher.")
requirement("reduce_tensor", SEC_T, "8.0", "Introduced in PTX ISA version 8.0.", [min_sm(90)],
            "Requires sm_90 or higher.")


@rule("reduce_bulk.redop_type_shared_cluster", "constraint", SEC,
      "The following table describes the valid combinations of .redOp and element type: | .shared::cluster | "
      ".add | .u32, .s32, .u64 | .min, .max | .u32, .s32 | .inc, .dec | .u32 | .and, .or, .xor | .b32 |")
def redop_type_shared_cluster(q):
    return q["dst"] == "shared::cluster" and q["type"] not in CELLS["shared::cluster"].get(q["redop"], ())


@rule("reduce_bulk.redop_type_global", "constraint", SEC,
      "The following table describes the valid combinations of .redOp and element type: | .global | .add | "
      ".u32, .s32, .u64, .f32, .f64, .f16, .bf16 | .min, .max | .u32, .s32, .u64, .s64, .f16, .bf16 | "
      ".inc, .dec | .u32 | .and, .or, .xor | .b32, .b64 |")
def redop_type_global(q):
    return q["dst"] == "global" and q["type"] not in CELLS["global"].get(q["redop"], ())


@rule("reduce_bulk.add_f16_bf16_requires_noftz", "constraint", SEC,
      "The cp.reduce.async.bulk.add.f16 and cp.reduce.async.bulk.add.bf16 operations require .noftz qualifier.")
def add_f16_bf16_requires_noftz(q):
    return q["redop"] == "add" and q["type"] in ("f16", "bf16") and not q.get("noftz", False)


@rule("reduce_bulk.noftz_only_add_f16_bf16", "syntax", SEC,
      "cp.reduce.async.bulk.dst.src.completion_mechanism{.level::cache_hint}.add.noftz.type ... .dst = { .global } "
      "... .type = { .f16, .bf16 }  (.noftz exists only with .add on .f16/.bf16 to .global)",
      lifted=("9.4", lambda q: q["redop"] == "add" and q["type"] == "f32" and q["dst"] == "global",
              "Qualifier .noftz with .f32 type introduced in PTX ISA version 9.4. ... "
              "cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism{.level::cache_hint}.add.noftz.type ... "
              ".type = { .f16, .bf16, .f32 }  (9.7.10.28.4.2, PTX ISA 9.4)"))
def noftz_only_add_f16_bf16(q):
    return q.get("noftz", False) and not (q["redop"] == "add" and q["type"] in ("f16", "bf16")
                                          and q["dst"] == "global")


@rule("reduce_bulk.direction", "syntax", SEC,
      ".dst = { .shared::cluster } .src = { .shared::cta } ... .dst = { .global } .src = { .shared::cta }")
def reduce_direction(q):
    return (q["dst"], q["src"]) not in (("shared::cluster", "shared::cta"), ("global", "shared::cta"))


@rule("reduce_tensor.load_mode", "syntax", SEC_T, ".load_mode = { .tile, .im2col_no_offs }  (PTX ISA 9.4, "
      "9.7.10.28.5.4: .load_mode = { .tile, .im2col_no_offs, .im2col_no_offs::w }, the last with its own "
      "requirement, reduce_tensor.im2col_no_offs_w)")
def reduce_tensor_load_mode(q):
    return q["load_mode"] not in ("",) + REDUCE_MODES + REDUCE_MODES_94


@rule("reduce_tensor.direction", "syntax", SEC_T, "// shared::cta -> global: ... .dst = { .global } "
      ".src = { .shared::cta }")
def reduce_tensor_direction(q):
    return (q["dst"], q["src"]) != ("global", "shared::cta")


@rule("reduce_bulk.no_packed_types", "constraint", "9.7.9.25.5.1",
      "cp.reduce.async.bulk doesn't support the types .b4x16, .b4x16_p64, .b6x16_p32 and .b6p2x16.")
def no_packed_types(q):
    return q["type"] in ("b4x16", "b4x16_p64", "b6x16_p32", "b6p2x16")


# ---- PTX ISA 9.3 (the text of PTX ISA 9.4, 9.7.10.28.4.2) ----
SEC_9X = "9.7.10.28.4.2 (PTX ISA 9.4)"
requirement("reduce_bulk.sem", SEC_9X, "9.3", "Support for .sem.scope qualifier is introduced in PTX ISA version 9.3.")


@rule("reduce_bulk.relaxed_scope_shared_cluster", "syntax", SEC_9X,
      "cp.reduce.async.bulk{.sem.scope}.dst.src.completion_mechanism.redOp.type [dstMem], [srcMem], size, [mbar] "
      ".sem = { .relaxed } .scope = { .cta, .cluster } .dst = { .shared::cluster }")
def relaxed_scope_shared_cluster(q):
    return q.get("sem", "") in ("relaxed.gpu", "relaxed.sys") and q["dst"] == "shared::cluster"
