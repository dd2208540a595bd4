#include "ptxcts/ref/policy.hpp"

#include <algorithm>
#include <stdexcept>

namespace ptxcts::ref {

namespace {

std::vector<PolicyInfo> make_catalog() {
  std::vector<PolicyInfo> c;
  auto add = [&c](PolicyId id, std::string name, std::string question,
                  std::vector<std::pair<std::string, std::string>> alts, std::size_t def) {
    if (static_cast<std::size_t>(id) != c.size()) throw std::logic_error("policy catalog out of PolicyId order");
    c.push_back(PolicyInfo{id, std::move(name), std::move(question), std::move(alts), def, {}});
  };
  // measured(id, alternative, device, evidence): the alternative a device showed over a whole sweep.
  auto measured = [&c](PolicyId id, const std::string& alt, std::string device, std::string evidence) {
    PolicyInfo& p = c.at(static_cast<std::size_t>(id));
    for (std::size_t i = 0; i < p.alternatives.size(); ++i)
      if (p.alternatives[i].first == alt) {
        p.measured.push_back({i, std::move(device), std::move(evidence)});
        return;
      }
    throw std::logic_error("measured: policy " + p.name + " has no alternative " + alt);
  };
  const std::string h100 = "NVIDIA H100 80GB HBM3 (sm_90), driver 580.159.04";
  const std::vector<std::pair<std::string, std::string>> subnormal_alts = {
      {"flush", "subnormal inputs and subnormal results become zero of the same sign"},
      {"keep", "IEEE 754: subnormal inputs and results kept"},
      {"flush_inputs", "subnormal inputs flushed, subnormal results kept"},
      {"flush_results", "subnormal inputs kept, subnormal results flushed"}};
  const std::vector<std::pair<std::string, std::string>> add_nan_alts = {
      {"canonical", "any NaN result is the canonical NaN (f16/bf16 0x7fff, f32 0x7fffffff, f64 0x7fffffffffffffff)"},
      {"old_quieted", "the destination (old) NaN with its quiet bit set, else the source NaN quieted, else canonical"},
      {"src_quieted", "the source NaN with its quiet bit set, else the destination NaN quieted, else canonical"},
      {"passthrough", "a NaN operand is returned bit for bit (not quieted, sign kept), the source's when both are NaN; "
                      "an invalid operation (inf - inf) gives the negative quiet NaN with zero payload (f16 0xfe00, "
                      "bf16 0xffc0, f32 0xffc00000, f64 0xfff8000000000000)"}};
  const std::vector<std::pair<std::string, std::string>> minmax_nan_alts = {
      {"other_operand", "a NaN operand is treated as missing: the other operand; both NaN: canonical NaN 0x7fff"},
      {"canonical_nan", "NaN-propagating: either operand NaN gives the canonical NaN 0x7fff"},
      {"old_quieted", "NaN-propagating: the destination NaN quieted, else the source NaN quieted"},
      {"src_quieted", "NaN-propagating: the source NaN quieted, else the destination NaN quieted"}};
  const std::vector<std::pair<std::string, std::string>> signed_zero_alts = {
      {"ordered", "-0 < +0: min(+0,-0) = -0, max(+0,-0) = +0"},
      {"old", "zeros compare equal and the destination (old) value is kept"},
      {"src", "zeros compare equal and the source value is stored"}};

  add(PolicyId::f32_add_subnormals, "f32_add_subnormals",
      "cp.reduce.async.bulk add.f32: the chapter says 'The current implementation of cp.reduce.async.bulk.add.f32 "
      "flushes subnormal inputs and results to sign-preserving zero'. Default: that sentence (the modelled chapter, "
      "PTX ISA 9.0). PTX ISA 9.4 says the opposite: 'The default behavior for cp.reduce.async.bulk.add.f32 is "
      "equivalent to specifying optional .noftz qualifier which preserves input and result subnormals' (keep); "
      ".add.noftz.f32 (9.4) keeps them whatever this policy says.",
      subnormal_alts, 0);
  add(PolicyId::tensor_f32_add_subnormals, "tensor_f32_add_subnormals",
      "cp.reduce.async.bulk.tensor add on a FLOAT32/FLOAT32_FTZ map: the chapter states no subnormal rule (NOTES: "
      "open). Default by_dtype: the map type decides, since the driver offers FLOAT32 and FLOAT32_FTZ.",
      {{"by_dtype", "FLOAT32 keeps subnormals, FLOAT32_FTZ flushes inputs and results"},
       {"flush", "flush inputs and results for both map types (as the bulk form's current implementation)"},
       {"keep", "keep subnormals for both map types"}},
      0);
  add(PolicyId::tensor_half_add_subnormals, "tensor_half_add_subnormals",
      "cp.reduce.async.bulk.tensor add on FLOAT16/BFLOAT16 maps has no .noftz qualifier and no stated subnormal "
      "rule. Default keep (what .noftz means for the bulk form).",
      {{"keep", "subnormal inputs and results kept"}, {"flush", "subnormal inputs and results flushed"}}, 0);
  add(PolicyId::f16_add_nan, "f16_add_nan",
      "The NaN produced by an f16 add is not specified by the chapter. Default canonical (PTX canonical NaN).",
      add_nan_alts, 0);
  add(PolicyId::bf16_add_nan, "bf16_add_nan",
      "The NaN produced by a bf16 add is not specified by the chapter. Default canonical.", add_nan_alts, 0);
  add(PolicyId::f32_add_nan, "f32_add_nan",
      "The NaN produced by an f32 add is not specified by the chapter. Default canonical.", add_nan_alts, 0);
  add(PolicyId::f64_add_nan, "f64_add_nan",
      "The NaN produced by an f64 add is not specified by the chapter. Default canonical.", add_nan_alts, 0);
  add(PolicyId::f16_minmax_nan, "f16_minmax_nan",
      "min/max .f16: NaN handling is not stated for these instructions (NOTES: open). Default other_operand "
      "(the rule of PTX min/max without .NaN).",
      minmax_nan_alts, 0);
  add(PolicyId::bf16_minmax_nan, "bf16_minmax_nan",
      "min/max .bf16: NaN handling is not stated (NOTES: open). Default other_operand.", minmax_nan_alts, 0);
  add(PolicyId::f16_minmax_signed_zero, "f16_minmax_signed_zero",
      "min/max .f16 of +0 and -0 is not stated (NOTES: open). Default ordered (-0 < +0, as PTX min/max).",
      signed_zero_alts, 0);
  add(PolicyId::bf16_minmax_signed_zero, "bf16_minmax_signed_zero",
      "min/max .bf16 of +0 and -0 is not stated (NOTES: open). Default ordered.", signed_zero_alts, 0);
  add(PolicyId::oob_nan_pattern, "oob_nan_pattern",
      "OOB fill NAN_REQUEST_ZERO_FMA: the NaN bit pattern per type is undocumented (NOTES: open). Default canonical.",
      {{"canonical", "f16/bf16 0x7fff, f32/tf32 0x7fffffff, f64 0x7fffffffffffffff"},
       {"all_ones", "every bit set: 0xffff, 0xffffffff, 0xffffffffffffffff"},
       {"quiet_positive", "positive quiet NaN with zero payload: 0x7e00, 0x7fc0, 0x7fc00000, 0x7ff8000000000000"},
       {"quiet_negative", "negative quiet NaN with zero payload: 0xfe00, 0xffc0, 0xffc00000, 0xfff8000000000000"},
       {"repeat_7ff7", "the 16-bit pattern 0x7ff7 repeated over the element: f16/bf16 0x7ff7, f32/tf32 0x7ff77ff7, "
                       "f64 0x7ff77ff77ff77ff7"}},
      0);
  add(PolicyId::swizzle_flip_8b_rows, "swizzle_flip_8b_rows",
      "SWIZZLE_128B_ATOM_32B_FLIP_8B: cuda.h says 'additionally swap lower 8B with upper 8B within each 16B for every "
      "alternate row'; which rows (128-byte lines of the absolute address) is open. Default odd.",
      {{"odd", "the 8-byte halves swap where bit 7 of the address is 1"},
       {"even", "the 8-byte halves swap where bit 7 of the address is 0"}},
      0);
  add(PolicyId::swizzle_narrow_box, "swizzle_narrow_box",
      "Shared-memory layout when the inner box is narrower than the swizzle span (NOTES: open). Default dense: the "
      "box is dense and the swizzle formula is applied to each byte's absolute address.",
      {{"dense", "dense box, swizzle applied to the absolute address"},
       {"pad_to_span", "each inner row padded to the swizzle span, then swizzled"}},
      0);
  add(PolicyId::interleave_row_pitch, "interleave_row_pitch",
      "Shared-memory pitch of an inner box row with interleave 16B/32B (the driver text describes only the global "
      "layout). Default granule_16B: rows rounded up to 16 bytes.",
      {{"granule_16B", "inner row bytes rounded up to 16"},
       {"interleave_span", "inner row bytes rounded up to the interleave size (16 or 32)"}},
      0);
  add(PolicyId::packed_gap_fill, "packed_gap_fill",
      "16U4_ALIGN16B / 16U6_ALIGN16B loads leave 8-/4-byte gaps in shared memory; what the gaps receive is not "
      "stated. Default zero.",
      {{"zero", "gap bytes are written with zeros"}, {"untouched", "gap bytes are not written"}}, 0);
  add(PolicyId::packed_tx_bytes, "packed_tx_bytes",
      "Bytes credited to the mbarrier for the padded packed types (NOTES: 'the box's shared-memory bytes'). "
      "Default smem_bytes (gaps counted).",
      {{"smem_bytes", "shared-memory footprint, gaps included"}, {"global_bytes", "packed global bytes only"}}, 0);
  add(PolicyId::im2col_wrap_stride, "im2col_wrap_stride",
      "im2col: where the W/H/D walk restarts after passing dim + upper corner when elementStrides != 1 (NOTES: open). "
      "Default reset.",
      {{"reset", "restart exactly at the lower corner"},
       {"carry", "restart at the lower corner plus the overshoot past dim + upper corner"}},
      0);
  add(PolicyId::im2col_w_halo, "im2col_w_halo",
      "im2col::w / ::w::128: placement and byte credit of the wHalo pixels (NOTES: open). Default append.",
      {{"append", "wHalo more pixels continue the W walk after the column, appended in shared memory and credited"},
       {"ignore", "no halo pixels are loaded"}},
      0);
  add(PolicyId::tensor_store_oob, "tensor_store_oob",
      "cp.async.bulk.tensor .global.shared::cta and cp.reduce.async.bulk.tensor: which out-of-bounds box elements "
      "reach global memory. NOTES: 'in-bounds elements written, OOB ones not' (not stated in PTX). Default "
      "not_written.",
      {{"not_written", "no out-of-bounds element is written or reduced"},
       {"granule16_written", "box elements past globalDim[0] whose bytes lie in the 16-byte granule holding the "
                             "row's last in-bounds byte (other coordinates in bounds) are written / reduced like "
                             "in-bounds elements"}},
      0);
  add(PolicyId::tensor_coord_alignment, "tensor_coord_alignment",
      "Tile and im2col tensor copies: whether the innermost start coordinate times the element size must be a "
      "multiple of 16 bytes (NOTES: open; the chapter states none). Default none.",
      {{"none", "any innermost start coordinate"},
       {"16B_trap", "an innermost start not a multiple of 16 bytes traps (the kernel does not complete)"}},
      0);
  add(PolicyId::im2col_start_outside_box, "im2col_start_outside_box",
      "im2col loads and prefetches: a W/H/D start coordinate outside the bounding box [lowerCorner, globalDim + "
      "upperCorner) (the chapter and NOTES describe the walk, not this case). Default walk.",
      {{"walk", "the walk starts there as NOTES describes (wrap at dim + upper corner, OOB pixels filled)"},
       {"trap", "the copy traps (the kernel does not complete)"}},
      0);
  add(PolicyId::tensor_smem_alignment, "tensor_smem_alignment",
      "Tensor copies to or from shared memory (tile and im2col): the alignment the shared-memory address needs. "
      "The chapter's bulk copies ask 16 bytes; NOTES: the alignment the hardware requires per mode is open. "
      "Default 16B (the model requires 128 bytes only with a swizzle).",
      {{"16B", "any 16-byte aligned shared-memory address"},
       {"128B_trap", "a shared-memory address that is not 128-byte aligned traps (the kernel does not complete)"}},
      0);
  add(PolicyId::tensor_tf32_load, "tensor_tf32_load",
      "Tile and im2col loads of a TFLOAT32 or TFLOAT32_FTZ map into shared memory: cuda.h names the data types, the "
      "chapter states no conversion. Default copy (the bytes as in global memory).",
      {{"copy", "the element's bytes are copied"},
       {"round_nearest_even", "each in-bounds element is rounded to tf32 (10 mantissa bits) to nearest, ties to even, "
                              "its low 13 bits zero (a carry may reach the exponent and infinity); subnormals are "
                              "rounded, not flushed, for both map types; every NaN becomes 0x7fffe000; stores copy"}},
      0);
  add(PolicyId::im2col_channel_bytes, "im2col_channel_bytes",
      "cuTensorMapEncodeIm2col: cuda.h bounds channelsPerPixel by 256 (128 for two packed types) and states no rule "
      "on its bytes. Default any (the documentation).",
      {{"any", "any channelsPerPixel the documented rules allow"},
       {"multiple_16B", "channelsPerPixel x element size must be a multiple of 16 bytes, else the encode refuses "
                        "the map (CUDA_ERROR_INVALID_VALUE)"}},
      0);
  add(PolicyId::interleave32_swizzle, "interleave32_swizzle",
      "cuda.h: 'When interleave is CU_TENSOR_MAP_INTERLEAVE_32B, swizzle must be CU_TENSOR_MAP_SWIZZLE_32B.' "
      "Default swizzle_32B_only (the documentation's rule interleave32_swizzle32).",
      {{"swizzle_32B_only", "the encode refuses interleave 32B with any swizzle but 32B"},
       {"any_swizzle", "the encode accepts interleave 32B with every swizzle (the rule is not enforced)"}},
      0);
  add(PolicyId::interleave_tile_box, "interleave_tile_box",
      "Tile copies of a map with interleave 16B or 32B: cuda.h describes the interleaved global layout (NC/8HWC8) "
      "and the box as for any map; which bytes a box then covers is not stated. Default box (boxDim elements along "
      "every dimension, as for a map without interleave).",
      {{"box", "the box of boxDim elements along every dimension"},
       {"chunk_rows", "dimension 0 counts interleave chunks (16 or 32 bytes): its coordinate, globalDim[0] and "
                      "boxDim[0]; each row is ceil(boxDim[0] / elementStrides[0]) chunks from chunk index "
                      "tensorCoords[0] in steps of elementStrides[0], at global row start + index x chunk; rows along "
                      "box dimensions 1 .. rank-1 except dimension rank-2, which keeps its coordinate and has no box "
                      "(dimension 1 fastest, elementStrides applied); dense in shared memory, swizzled. A chunk "
                      "outside [0, globalDim[0]) or in a row outside the tensor is filled (loads) or not written "
                      "(stores, reductions); rows are stored / reduced in order, an element once per row; the mbarrier "
                      "is credited every chunk"}},
      0);
  add(PolicyId::im2col_interleave_box_area, "im2col_interleave_box_area",
      "cuTensorMapEncodeIm2col: 'The bounding box specified by pixelBoxLowerCorner and pixelBoxUpperCorner must have "
      "non-zero area.' Default checked (the documentation's rule im2col_box_nonzero_area, whatever the interleave).",
      {{"checked", "a bounding box of zero or negative extent is refused"},
       {"previous_dim", "with interleave 16B or 32B the encode checks the box along spatial dimension i + 1 against "
                        "globalDim[i], the dimension below it (channels for the first): it refuses the map when "
                        "globalDim[i] + upper[i] - lower[i] <= 0, whatever the box's own extent (without interleave "
                        "it checks globalDim[i + 1])"}},
      0);
  add(PolicyId::packed_type_encode, "packed_type_encode",
      "cuTensorMapEncodeTiled/Im2col with a packed data type (16U4_ALIGN8B, 16U4_ALIGN16B, 16U6_ALIGN16B): cuda.h "
      "states the rules such a map must meet and no compute capability for the types. Default documented_rules.",
      {{"documented_rules", "a packed-type map that meets the documented rules is accepted"},
       {"refused", "the encode refuses every map of a packed type (CUDA_ERROR_INVALID_VALUE), tiled and im2col"}},
      0);
  add(PolicyId::interleave_inner_box, "interleave_inner_box",
      "cuTensorMapEncodeTiled: cuda.h states 'When interleave is CU_TENSOR_MAP_INTERLEAVE_NONE, { boxDim[0] * "
      "elementSizeInBytes( tensorDataType ) } must be a multiple of 16 bytes' and no such rule with interleave 16B "
      "or 32B. Default unchecked (the documentation).",
      {{"unchecked", "with interleave, any boxDim[0] the other documented rules allow"},
       {"multiple_16B", "with interleave 16B or 32B too, boxDim[0] x element size must be a multiple of 16 bytes, "
                        "else the encode refuses the map (CUDA_ERROR_INVALID_VALUE)"}},
      0);
  add(PolicyId::ignore_oob_tx_bytes, "ignore_oob_tx_bytes",
      "cp.async.bulk .ignore_oob (PTX ISA 9.2): the complete-tx operation is performed 'with completeCount argument "
      "equal to amount of data copied in bytes', and the bytes ignored at either end are 'indeterminate' in the "
      "destination: whether they count as copied is open. Default size (the operand that 'specifies the amount of "
      "memory to be copied').",
      {{"size", "the mbarrier is credited the size operand, ignored bytes included"},
       {"determinate", "only the bytes not ignored at either end are credited"}},
      0);
  add(PolicyId::im2col_wide_encode_cc, "im2col_wide_encode_cc",
      "cuTensorMapEncodeIm2colWide: cuda.h says 'This API is only supported on devices of compute capability 10.0 "
      "or higher.' Whether the encode itself refuses a map on an older device is not said. Default checked (the "
      "sentence read as a refusal: im2col_wide_cc100).",
      {{"checked", "below compute capability 10.0 the encode refuses every map (CUDA_ERROR_INVALID_VALUE)"},
       {"unchecked", "the encode writes the map whatever the device; the documented rules of the map still hold"}},
      0);
  add(PolicyId::swizzle_atom_encode, "swizzle_atom_encode",
      "cuTensorMapEncodeTiled/Im2col with CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B, _ATOM_32B_FLIP_8B or _ATOM_64B: cuda.h "
      "(CUDA 13.0) states the rules such a map must meet and no compute capability for these modes. Default "
      "documented_rules.",
      {{"documented_rules", "a map with a 128B_ATOM swizzle that meets the documented rules is accepted"},
       {"refused_below_cc100", "below compute capability 10.0 the encode refuses every map with a 128B_ATOM swizzle "
                               "(CUDA_ERROR_INVALID_VALUE)"}},
      0);

  measured(PolicyId::f16_add_nan, "canonical", h100, "results/findings/h100-add-nan (178 NaN results of 225 pairs)");
  measured(PolicyId::bf16_add_nan, "canonical", h100, "results/findings/h100-add-nan (178 NaN results of 225 pairs)");
  measured(PolicyId::f32_add_nan, "canonical", h100, "results/findings/h100-add-nan (178 NaN results of 225 pairs)");
  measured(PolicyId::f64_add_nan, "passthrough", h100, "results/findings/h100-add-nan (178 NaN results of 225 pairs)");
  measured(PolicyId::tensor_tf32_load, "round_nearest_even", h100,
           "results/findings/h100-tf32-load-rounding (65,536 bit patterns, shared::cta and shared::cluster)");
  measured(PolicyId::im2col_channel_bytes, "multiple_16B", h100,
           "results/findings/h100-im2col-encode-channels (119,808 maps: every refusal and no acceptance against it)");
  measured(PolicyId::interleave32_swizzle, "any_swizzle", h100,
           "results/findings/h100-im2col-encode-channels (every type, swizzle and inner box, tiled and im2col)");
  measured(PolicyId::interleave_tile_box, "chunk_rows", h100,
           "results/findings/h100-interleaved-tile-load-overrun (798 interleaved tile loads: bytes written, their "
           "sources and the bytes credited)");
  measured(PolicyId::interleave_tile_box, "chunk_rows", "NVIDIA H200 (sm_90), driver 580.159.04",
           "results/findings/h100-interleaved-tile-copy-outside-domain (755 interleaved tile copies: stores, "
           "add/inc/max reductions, peer-CTA and multicast loads, elementStrides 2/3/8, coordinates outside the "
           "tensor with OOB fill NONE and NaN: every byte, its source and the bytes credited)");
  measured(PolicyId::im2col_interleave_box_area, "previous_dim", h100,
           "results/findings/h100-im2col-interleave-encode-refusal (38,416 interleaved rank-4 maps, W and H 1-4, every "
           "corner of -3..3: every verdict; and results/findings/h100-im2col-encode-channels: 300 empty boxes accepted "
           "per interleave, all of rank 3, none of ranks 4-5)");
  measured(PolicyId::packed_type_encode, "refused", h100,
           "results/findings/h100-packed-encode (24,384 tiled and im2col maps of the three packed types, the "
           "documented rules met or not: none accepted)");
  measured(PolicyId::im2col_wide_encode_cc, "unchecked", "NVIDIA H200 (sm_90), driver 580.159.04",
           "results/findings/h200-encode-enums (the run tier's encode cases: 32 Im2colWide maps of every data "
           "type, swizzle, interleave, L2 promotion and wide mode, each accepted at compute capability 9.0)");
  measured(PolicyId::swizzle_atom_encode, "refused_below_cc100", "NVIDIA H200 (sm_90), driver 580.159.04",
           "results/findings/h200-encode-enums (the run tier's encode cases: the three 128B_ATOM modes with a "
           "128-byte inner box, tiled and im2col: each refused, CUDA_ERROR_INVALID_VALUE)");
  measured(PolicyId::interleave_inner_box, "multiple_16B", h100,
           "results/findings/h100-interleave-encode (15,360 interleaved maps: every one legal by the documented "
           "rules with an inner box of 1-8 bytes refused, every one of 16-1024 bytes accepted)");
  measured(PolicyId::oob_nan_pattern, "repeat_7ff7", h100,
           "results/findings/h100-tf32-load-rounding (FLOAT32, FLOAT32_FTZ, TFLOAT32, TFLOAT32_FTZ loads)");
  measured(PolicyId::swizzle_narrow_box, "pad_to_span", h100,
           "results/findings/h100-tensor-reduce-swizzle32-narrow (reductions with box rows narrower than the span)");
  measured(PolicyId::tensor_store_oob, "granule16_written", h100,
           "results/findings/h100-tensor-reduce-swizzle32-narrow (bf16 max, b64 and, u64 min; dims[0] 1..9)");
  return c;
}

}  // namespace

const std::vector<PolicyInfo>& policy_catalog() {
  static const std::vector<PolicyInfo> catalog = make_catalog();
  return catalog;
}

const PolicyInfo* find_policy(std::string_view name) {
  for (const PolicyInfo& p : policy_catalog())
    if (p.name == name) return &p;
  return nullptr;
}

const PolicyInfo& policy_info(PolicyId id) { return policy_catalog().at(static_cast<std::size_t>(id)); }

std::vector<std::string> policy_alternatives(std::string_view name) {
  std::vector<std::string> out;
  if (const PolicyInfo* p = find_policy(name))
    for (const auto& a : p->alternatives) out.push_back(a.first);
  return out;
}

PolicySet::PolicySet() {
  for (const PolicyInfo& p : policy_catalog()) choice_.push_back(p.default_index);
}

const std::string& PolicySet::value_name(PolicyId id) const { return policy_info(id).alternatives.at(index(id)).first; }

bool PolicySet::set(std::string_view name, std::string_view value, std::string* why) {
  const PolicyInfo* p = find_policy(name);
  if (!p) {
    if (why) {
      *why = "unknown policy '" + std::string(name) + "'; known:";
      for (const PolicyInfo& q : policy_catalog()) *why += " " + q.name;
    }
    return false;
  }
  for (std::size_t i = 0; i < p->alternatives.size(); ++i) {
    if (p->alternatives[i].first == value) {
      choice_[static_cast<std::size_t>(p->id)] = i;
      return true;
    }
  }
  if (why) {
    *why = "policy " + p->name + " has no alternative '" + std::string(value) + "'; alternatives:";
    for (const auto& a : p->alternatives) *why += " " + a.first;
  }
  return false;
}

bool PolicySet::set_assignment(std::string_view assignment, std::string* why) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == assignment.size()) {
    if (why) *why = "policy selection '" + std::string(assignment) + "' is not NAME=VALUE";
    return false;
  }
  return set(assignment.substr(0, eq), assignment.substr(eq + 1), why);
}

void PolicySet::set_index(PolicyId id, std::size_t alternative) {
  if (alternative >= policy_info(id).alternatives.size()) throw std::out_of_range("policy alternative index");
  choice_[static_cast<std::size_t>(id)] = alternative;
}

bool PolicySet::is_default() const {
  for (const PolicyInfo& p : policy_catalog())
    if (choice_[static_cast<std::size_t>(p.id)] != p.default_index) return false;
  return true;
}

std::string PolicySet::describe() const {
  std::string out;
  for (const PolicyInfo& p : policy_catalog()) {
    const std::size_t i = choice_[static_cast<std::size_t>(p.id)];
    if (i == p.default_index) continue;
    if (!out.empty()) out += ",";
    out += p.name + "=" + p.alternatives[i].first;
  }
  return out.empty() ? "default" : out;
}

PolicySet measured_profile() {
  PolicySet s;
  for (const PolicyInfo& p : policy_catalog())
    if (!p.measured.empty()) s.set_index(p.id, p.measured.front().alternative);
  return s;
}

std::vector<std::pair<std::string, PolicySet>> single_deviations(const PolicySet& base) {
  std::vector<std::pair<std::string, PolicySet>> out;
  for (const PolicyInfo& p : policy_catalog()) {
    std::vector<std::size_t> order;
    for (const Measured& m : p.measured)  // one alternative may be measured on several devices: tried once
      if (std::find(order.begin(), order.end(), m.alternative) == order.end()) order.push_back(m.alternative);
    for (std::size_t i = 0; i < p.alternatives.size(); ++i)
      if (std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
    for (const std::size_t i : order) {
      if (i == base.index(p.id)) continue;
      PolicySet s = base;
      s.set_index(p.id, i);
      out.emplace_back(p.name + "=" + p.alternatives[i].first, s);
    }
  }
  return out;
}

std::vector<std::pair<std::string, PolicySet>> measured_deviations(const PolicySet& base) {
  std::vector<std::pair<std::string, PolicySet>> out;
  for (auto& [name, ps] : single_deviations(base))
    for (const PolicyInfo& p : policy_catalog())
      for (const Measured& m : p.measured)
        if (ps.index(p.id) == m.alternative && m.alternative != base.index(p.id)) out.emplace_back(name, ps);
  return out;
}

}  // namespace ptxcts::ref
