"""cp.async.bulk.tensor (9.7.9.25.5.2) and cp.async.bulk.prefetch.tensor (9.7.9.25.5.4); the coordinate and
im2colInfo rules are shared with cp.reduce.async.bulk.tensor (9.7.9.25.5.3)."""
from . import requirement, rule, min_sm, exact, family

SEC = "9.7.9.25.5.2"
SEC_P = "9.7.9.25.5.4"
# The tensor families' .load_mode qualifiers, in the chapter's order, each with the forms whose .load_mode set names
# it: loads (and prefetch) "{ .tile, .tile::gather4, .im2col, .im2col::w, .im2col::w::128 }", stores "{ .tile,
# .tile::scatter4, .im2col_no_offs }", reductions (9.7.9.25.5.3) "{ .tile, .im2col_no_offs }". The one list of
# their spellings: every other list of modes (isa/*tensor.py, contract.LOAD_MODES) is derived from it.
MODE_USES = {
    "tile": ("load", "store", "reduce"),
    "tile::gather4": ("load",),
    "tile::scatter4": ("store",),
    "im2col": ("load",),
    "im2col::w": ("load",),
    "im2col::w::128": ("load",),
    "im2col_no_offs": ("store", "reduce"),
}
MODES = tuple(MODE_USES)
LOAD_MODES = tuple(m for m in MODES if "load" in MODE_USES[m])
STORE_MODES = tuple(m for m in MODES if "store" in MODE_USES[m])
REDUCE_MODES = tuple(m for m in MODES if "reduce" in MODE_USES[m])
IM2COL_LOAD = tuple(m for m in LOAD_MODES if m.startswith("im2col"))
ROW_MODES = tuple(m for m in MODES if m.startswith("tile::"))            # gather4 / scatter4: rows of a 2D tensor
WIDE_MODES = tuple(m for m in IM2COL_LOAD if m.startswith("im2col::w"))  # im2col::w, im2col::w::128

# "sm_100a; sm_101a (Renamed to sm_110a from PTX ISA version 9.0); And is supported on following family-specific
# architectures from PTX ISA version 8.8: sm_100f or higher in the same family; sm_101f or higher in the same
# family (Renamed to sm_110f from PTX ISA version 9.0); sm_110f or higher in the same family"
ARCH_LIST_A = (exact("sm_100a"), exact("sm_101a", to_ptx="8.8"), exact("sm_110a", from_ptx="9.0"),
               family("sm_100f", from_ptx="8.8"), family("sm_101f", from_ptx="8.8", to_ptx="8.8"),
               family("sm_110f", from_ptx="9.0"))
ARCH_LIST_A_TEXT = ("sm_100a; sm_101a (Renamed to sm_110a from PTX ISA version 9.0); And is supported on following "
                    "family-specific architectures from PTX ISA version 8.8: sm_100f or higher in the same family; "
                    "sm_101f or higher in the same family (Renamed to sm_110f from PTX ISA version 9.0); sm_110f or "
                    "higher in the same family")

requirement("tensor", SEC, "8.0", "Introduced in PTX ISA version 8.0.", [min_sm(90)], "Requires sm_90 or higher.")
requirement("tensor.dst_shared_cta", SEC, "8.6",
            "Support for .shared::cta as destination state space is introduced in PTX ISA version 8.6.")
# The sentences several requirements quote.
INTRO_GATHER4 = "Support for qualifiers .tile::gather4 and .tile::scatter4 introduced in PTX ISA version 8.6."
INTRO_IM2COL_W = "Support for qualifiers .im2col::w and .im2col::w::128 introduced in PTX ISA version 8.6."
CLUSTER_DST = ("Qualifiers .tile::gather4 and .im2col::w require: sm_100a when destination state space is "
               ".shared::cluster and is supported on sm_100f from PTX ISA version 8.8.")
CTA_DST = ("Qualifiers .tile::gather4 and .im2col::w require: ... sm_100 or higher when destination state space is "
           ".shared::cta.")


def on_arch_list_a(name, sec, intro, qualifiers):
    """A requirement of PTX 8.6 and the architectures of ARCH_LIST_A; `qualifiers` begins the chapter's sentence
    ("Qualifier .x is", "Qualifiers .x and .y are")."""
    requirement(name, sec, "8.6", intro, ARCH_LIST_A,
                f"{qualifiers} supported on following architectures: " + ARCH_LIST_A_TEXT)


for _qual, _intro in (("gather4", INTRO_GATHER4), ("im2col_w", INTRO_IM2COL_W)):
    requirement(f"tensor.{_qual}.cluster", SEC, "8.6", _intro, [exact("sm_100a"), family("sm_100f", from_ptx="8.8")],
                CLUSTER_DST)
    requirement(f"tensor.{_qual}.cta", SEC, "8.6", _intro, [min_sm(100)], CTA_DST)
on_arch_list_a("tensor.scatter4", SEC, INTRO_GATHER4, "Qualifier .tile::scatter4 is")
on_arch_list_a("tensor.im2col_w_128", SEC, INTRO_IM2COL_W, "Qualifier .im2col::w::128 is")
on_arch_list_a("tensor.cta_group", SEC, "Support for qualifier .cta_group introduced in PTX ISA version 8.6.",
               "Qualifier .cta_group is")
requirement("prefetch_tensor", SEC_P, "8.0", "Introduced in PTX ISA version 8.0.", [min_sm(90)],
            "Requires sm_90 or higher.")
on_arch_list_a("prefetch_tensor.gather4", SEC_P,
               "Support for qualifier .tile::gather4 introduced in PTX ISA version 8.6.", "Qualifier .tile::gather4 is")
on_arch_list_a("prefetch_tensor.im2col_w", SEC_P, INTRO_IM2COL_W, "Qualifiers .im2col::w and .im2col::w::128 are")


def expected_coords(q):
    mode = q.get("load_mode", "")
    return 5 if mode in ROW_MODES else q["dim"]


def expected_im2col_info(q):
    mode = q.get("load_mode", "")
    if mode == "im2col":
        return max(1, q["dim"] - 2)   # below 3d (itself invalid) one offset, so the operand stays well-formed
    if mode in WIDE_MODES:
        return 2
    return 0


@rule("tensor.load_mode_load", "syntax", SEC,
      "// global -> shared::cta / shared::cluster ... .load_mode = { .tile, .tile::gather4, .im2col, .im2col::w, "
      ".im2col::w::128 }")
def load_mode_load(q):
    return q["src"] == "global" and q["load_mode"] not in ("",) + LOAD_MODES


@rule("tensor.load_mode_store", "syntax", SEC,
      "// shared::cta -> global ... .load_mode = { .tile, .tile::scatter4, .im2col_no_offs }  (PTX ISA 9.4, "
      "9.7.10.28.5.3, adds .im2col_no_offs::w: its own requirement, tensor.im2col_no_offs_w)")
def load_mode_store(q):
    return q["dst"] == "global" and q["load_mode"] not in ("",) + STORE_MODES + STORE_MODES_94


@rule("prefetch_tensor.load_mode", "syntax", SEC_P,
      ".load_mode = { .tile, .tile::gather4, .im2col, .im2col::w, .im2col::w::128 }")
def prefetch_load_mode(q):
    return q["load_mode"] not in ("",) + LOAD_MODES


@rule("tensor.coords_count", "constraint", f"{SEC} / {SEC_P} / 9.7.9.25.5.3",
      "| .tile::scatter4 / .tile::gather4 | {col_idx, row_idx0, row_idx1, row_idx2, row_idx3} | Fixed length vector "
      "of size 5. | Rest all | {d0, .., dn} for n = .dim | Vector of n elements where n = .dim. |  (reduce: The "
      "number of tensor coordinates in the vector argument tensorCoords should be equal to the dimension specified "
      "by the modifier .dim.)")
def coords_count(q):
    return q.get("coords") is not None and q["coords"] != expected_coords(q)


@rule("tensor.im2col_min_3d", "constraint", f"{SEC} / {SEC_P} / 9.7.9.25.5.3",
      "In .im2col and .im2col::* modes, the tensor has to be at least 3-dimensional.  (reduce: In .im2col mode, "
      "the tensor has to be at least 3-dimensional.)")
def im2col_min_3d(q):
    return q.get("load_mode", "").startswith("im2col") and q["dim"] < 3


@rule("tensor.gather4_scatter4_2d", "constraint", f"{SEC} / {SEC_P}",
      "In .tile::gather4 mode, four rows in 2-dimnesional source tensor are combined to form a single "
      "2-dimensional destination tensor. In .tile::scatter4 mode, single 2-dimensional source tensor is divided "
      "into four rows in 2-dimensional destination tensor.")
def gather4_scatter4_2d(q):
    return q.get("load_mode") in ROW_MODES and q["dim"] != 2


@rule("tensor.im2col_info_only_im2col", "syntax", f"{SEC} / {SEC_P}",
      "The vector operand im2colInfo can be specified only when .load_mode is .im2col or .im2col::w or "
      ".im2col::w::128.")
def im2col_info_only_im2col(q):
    return bool(q.get("im2col_info")) and q.get("load_mode") not in IM2COL_LOAD


@rule("tensor.im2col_info_length", "constraint", f"{SEC} / {SEC_P}",
      "| .im2col | { i2cOffW , i2cOffH , i2cOffD } for .dim = .5d | A vector of im2col offsets whose vector size "
      "is two less than number of dimensions .dim. | .im2col::w | { wHalo, wOffset } | A vector of 2 arguments "
      "containing wHalo and wOffset arguments. | .im2col::w::128 |")
def im2col_info_length(q):
    return (q.get("load_mode") in IM2COL_LOAD and q.get("im2col_info") is not None
            and q["im2col_info"] != expected_im2col_info(q) and q["dim"] >= 3)


@rule("tensor.multicast_dst_cluster", "syntax", SEC,
      "// global -> shared::cluster cp.async.bulk.tensor.dim.dst.src{.load_mode}.completion_mechanism{.multicast}"
      "{.cta_group}{.level::cache_hint}  (.multicast::cluster exists only with the .shared::cluster destination)")
def multicast_dst_cluster(q):
    return q.get("multicast", False) and q["dst"] != "shared::cluster"


@rule("tensor.cta_group_mbarrier_only", "constraint", SEC,
      "The modifier .cta_group can only be specified with the mbarrier based completion mechanism.")
def cta_group_mbarrier_only(q):
    return bool(q.get("cta_group")) and q.get("completion") != "mbarrier::complete_tx::bytes"


@rule("tensor.direction", "syntax", SEC,
      "// global -> shared::cta ... // global -> shared::cluster ... // shared::cta -> global")
def tensor_direction(q):
    return (q["dst"], q["src"]) not in (("shared::cta", "global"), ("shared::cluster", "global"),
                                        ("global", "shared::cta"))


# ---- PTX ISA 9.4 (the text of PTX ISA 9.4, 9.7.10.28.5.3 and .5.5) ----
SEC_9X = "9.7.10.28.5.3 (PTX ISA 9.4)"
SEC_9X_P = "9.7.10.28.5.5 (PTX ISA 9.4)"
SM107F = (family("sm_107f"),)
requirement("tensor.multicast_16b", SEC_9X, "9.4",
            "Support for .multicast::cluster::16b and .multicast::cluster::32b qualifiers introduced in PTX ISA "
            "version 9.4.")
requirement("tensor.multicast_32b", SEC_9X, "9.4",
            "Support for .multicast::cluster::16b and .multicast::cluster::32b qualifiers introduced in PTX ISA "
            "version 9.4.", SM107F,
            "Qualifier .multicast::cluster::32b is supported on following family-specific architectures: sm_107f or "
            "higher in the same family")
requirement("tensor.report", SEC_9X, "9.4", "Support for qualifier .report_mechanism introduced in PTX ISA version 9.4.",
            SM107F, "Qualifier .report_mechanism is supported on following family-specific architectures: sm_107f or "
            "higher in the same family")
requirement("prefetch_tensor.eviction_priority", SEC_9X_P, "9.4",
            "Support for qualifier .level::eviction_priority introduced in PTX ISA version 9.4.", SM107F,
            "Qualifier .level::eviction_priority is supported on following family-specific architectures: sm_107f or "
            "higher in the same family")


@rule("prefetch_tensor.eviction_priority_or_cache_hint", "syntax", SEC_9X_P,
      "cp.async.bulk.prefetch.tensor.dim.L2.src{.load_mode}{.level::cache_hint}{.override::global_address}"
      "{.override_attribute} [...] {, im2colInfo } {, cache_policy} cp.async.bulk.prefetch.tensor.dim.L2.src"
      "{.load_mode}{.level::eviction_priority}{.override::global_address}{.override_attribute} [...] {, im2colInfo }"
      "  (one or the other)")
def prefetch_eviction_priority_or_cache_hint(q):
    return bool(q.get("eviction")) and (q.get("cache_hint", False) or bool(q.get("policy")))


# ---- PTX ISA 9.4: .im2col_no_offs::w and the .override::* qualifiers (9.7.10.28.5.2-.5.5 of the PTX ISA 9.4 text;
# shared/spec/PTX9x.md says where it is) ----
SEC_9X_R = "9.7.10.28.5.4 (PTX ISA 9.4)"
SEC_9X_O = "9.7.10.28.5.2.2 (PTX ISA 9.4)"
# The .load_mode of PTX ISA 9.4 beside MODE_USES: stores "{ .tile, .tile::scatter4, .im2col_no_offs,
# .im2col_no_offs::w }", reductions "{ .tile, .im2col_no_offs, .im2col_no_offs::w }". Kept out of MODES (and so of
# contract.LOAD_MODES) until harness/refmodel has its ref::TensorMode: the run tier plans no case of it
# (tensor_mode_gate.hpp: an unmodelled mode is not_supported), contract.UNMODELLED_LOAD_MODES says why.
MODE_USES_94 = {"im2col_no_offs::w": ("store", "reduce")}
STORE_MODES_94 = tuple(m for m, uses in MODE_USES_94.items() if "store" in uses)
REDUCE_MODES_94 = tuple(m for m, uses in MODE_USES_94.items() if "reduce" in uses)
# .override_attribute = { .override::global_dim, .override::global_dim_stride } (the model's value: the part after
# "override::"); .override::global_address is a qualifier of its own (ovr_addr)
OVERRIDE_ATTRIBUTES = ("global_dim", "global_dim_stride")

INTRO_NO_OFFS_W = "Support for qualifier .im2col_no_offs::w introduced in PTX ISA version 9.4."
TARGET_NO_OFFS_W = ("Qualifier .im2col_no_offs::w is supported on following family-specific architectures: sm_107f or "
                    "higher in the same family")
INTRO_OVERRIDE = ("Support for qualifiers .override::global_address and .override_attribute introduced in PTX ISA "
                  "version 9.4.")
TARGET_OVERRIDE = ("Qualifiers .override::global_address and .override_attribute are supported on following "
                   "family-specific architectures: sm_107f or higher in the same family")
for _fam, _sec in (("tensor", SEC_9X), ("reduce_tensor", SEC_9X_R), ("prefetch_tensor", SEC_9X_P)):
    # one requirement per qualifier (the sentence names both): each value of its own axis is decided by its own
    requirement(f"{_fam}.override_address", _sec, "9.4", INTRO_OVERRIDE, SM107F, TARGET_OVERRIDE)
    requirement(f"{_fam}.override_attribute", _sec, "9.4", INTRO_OVERRIDE, SM107F, TARGET_OVERRIDE)
for _fam, _sec in (("tensor", SEC_9X), ("reduce_tensor", SEC_9X_R)):
    requirement(f"{_fam}.im2col_no_offs_w", _sec, "9.4", INTRO_NO_OFFS_W, SM107F, TARGET_NO_OFFS_W)


@rule("tensor.override_attribute_needs_address", "constraint", SEC_9X_O,
      "As part of tensor attributes override, the tensor base address override must also naturally follow. In other "
      "words, while using .override_attribute qualifier, it is mandatory to also specify .override::global_address "
      "qualifier.")
def override_attribute_needs_address(q):
    return bool(q.get("ovr_attr")) and not q.get("ovr_addr")


@rule("tensor.override_attribute_tile_only", "constraint", SEC_9X_O,
      "The tensor data access mode must be tile. i.e. The qualifier .load_mode if specified must be set to .tile.")
def override_attribute_tile_only(q):
    return bool(q.get("ovr_attr")) and q.get("load_mode", "") not in ("", "tile")


@rule("tensor.override_attribute_multicast_32b", "constraint", SEC_9X_O,
      "If specified, the optional .multicast qualifier must be .multicast::cluster::32b.")
def override_attribute_multicast_32b(q):
    return bool(q.get("ovr_attr")) and q.get("multicast", False) and q.get("mc_width") != "32b"


@rule("tensor.override_attribute_dim", "constraint", SEC_9X_O,
      "For .1d tensors, since stride is absent, only .override::global_dim is valid. For tensors with dimensionality "
      "of at least 2, both dimension and stride must be overridden together, so only .override::global_dim_stride "
      "is valid.")
def override_attribute_dim(q):
    return bool(q.get("ovr_attr")) and q["ovr_attr"] != ("global_dim" if q["dim"] == 1 else "global_dim_stride")
