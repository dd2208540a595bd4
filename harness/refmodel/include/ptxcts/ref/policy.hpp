// Named policies: every point where the chapter (or the driver documentation) leaves a behaviour undefined,
// or describes only "the current implementation", is a policy with named alternatives. The model computes
// under the selected alternative of each; the run tier recomputes a failing case under each alternative so
// that it can say "device matched alternative X" (spec_divergence) instead of "fail".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxcts::ref {

enum class PolicyId : std::uint8_t {
  f32_add_subnormals,          // cp.reduce.async.bulk add.f32
  tensor_f32_add_subnormals,   // cp.reduce.async.bulk.tensor add, FLOAT32 / FLOAT32_FTZ maps
  tensor_half_add_subnormals,  // cp.reduce.async.bulk.tensor add, FLOAT16 / BFLOAT16 maps (no .noftz there)
  f16_add_nan,
  bf16_add_nan,
  f32_add_nan,
  f64_add_nan,
  f16_minmax_nan,
  bf16_minmax_nan,
  f16_minmax_signed_zero,
  bf16_minmax_signed_zero,
  oob_nan_pattern,
  swizzle_flip_8b_rows,
  swizzle_narrow_box,
  interleave_row_pitch,
  packed_gap_fill,
  packed_tx_bytes,
  im2col_wrap_stride,
  im2col_w_halo,
  tensor_store_oob,
  tensor_coord_alignment,
  im2col_start_outside_box,
  tensor_smem_alignment,
  tensor_tf32_load,            // tile/im2col loads of TFLOAT32 / TFLOAT32_FTZ maps into shared memory
  im2col_channel_bytes,        // cuTensorMapEncodeIm2col: channelsPerPixel x element size
  interleave32_swizzle,        // cuTensorMapEncodeTiled/Im2col: interleave 32B with a swizzle other than 32B
  interleave_tile_box,         // tile copies of an interleaved map: which bytes the box covers
  im2col_interleave_box_area,  // cuTensorMapEncodeIm2col: the bounding box's area with interleave
  packed_type_encode,
  interleave_inner_box,        // cuTensorMapEncodeTiled with interleave 16B / 32B: boxDim[0] x element size          // cuTensorMapEncode*: maps of the packed types (16U4_ALIGN8B, 16U4_ALIGN16B, 16U6_ALIGN16B)
  ignore_oob_tx_bytes,         // cp.async.bulk .ignore_oob (PTX ISA 9.2): the complete-tx count
  im2col_wide_encode_cc,       // cuTensorMapEncodeIm2colWide below compute capability 10.0
  swizzle_atom_encode,         // cuTensorMapEncode*: the 128B_ATOM swizzle modes on a given device
  count_
};
constexpr std::size_t kPolicyCount = static_cast<std::size_t>(PolicyId::count_);

// Alternative values, in catalog order (index 0 is not necessarily the default; see the catalog).
enum class SubnormalMode : std::uint8_t { flush, keep, flush_inputs, flush_results };
enum class TensorF32Subnormals : std::uint8_t { by_dtype, flush, keep };
enum class HalfSubnormals : std::uint8_t { keep, flush };
enum class AddNan : std::uint8_t { canonical, old_quieted, src_quieted, passthrough };
enum class MinMaxNan : std::uint8_t { other_operand, canonical_nan, old_quieted, src_quieted };
enum class SignedZero : std::uint8_t { ordered, old, src };
enum class OobNanPattern : std::uint8_t { canonical, all_ones, quiet_positive, quiet_negative, repeat_7ff7 };
enum class FlipRows : std::uint8_t { odd, even };
enum class NarrowBox : std::uint8_t { dense, pad_to_span };
enum class InterleaveRowPitch : std::uint8_t { granule_16B, interleave_span };
enum class PackedGapFill : std::uint8_t { zero, untouched };
enum class PackedTxBytes : std::uint8_t { smem_bytes, global_bytes };
enum class IgnoreOobTxBytes : std::uint8_t { size, determinate };
enum class Im2colWideEncodeCc : std::uint8_t { checked, unchecked };
enum class SwizzleAtomEncode : std::uint8_t { documented_rules, refused_below_cc100 };
enum class WrapStride : std::uint8_t { reset, carry };
enum class WHalo : std::uint8_t { append, ignore };
enum class StoreOob : std::uint8_t { not_written, granule16_written };
enum class CoordAlignment : std::uint8_t { none, trap_16B };      // spelled "16B_trap"
enum class Im2colStartOutside : std::uint8_t { walk, trap };
enum class SmemAlignment : std::uint8_t { granule_16B, trap_128B };  // spelled "16B", "128B_trap"
enum class Tf32Load : std::uint8_t { copy, round_nearest_even };
enum class ChannelBytes : std::uint8_t { any, multiple_16B };
enum class Interleave32Swizzle : std::uint8_t { swizzle_32B_only, any_swizzle };
enum class InterleaveTileBox : std::uint8_t { box, chunk_rows };
enum class Im2colInterleaveBoxArea : std::uint8_t { checked, previous_dim };
enum class PackedTypeEncode : std::uint8_t { documented_rules, refused };
enum class InterleaveInnerBox : std::uint8_t { unchecked, multiple_16B };

// An alternative seen on a device and measured to its boundary: the run tier names it first when several
// alternatives of one policy explain a case (one rule per behaviour), and the report cites the evidence.
struct Measured {
  std::size_t alternative;  // index into PolicyInfo::alternatives
  std::string device;       // where it was measured (device, driver)
  std::string evidence;     // the sweep that measured it (results/findings/<id>/)
};

struct PolicyInfo {
  PolicyId id;
  std::string name;          // the spelling used by --policy NAME=VALUE and in reports
  std::string question;      // what is not pinned down, and where (chapter / NOTES / driver doc)
  std::vector<std::pair<std::string, std::string>> alternatives;  // {value name, what it means}
  std::size_t default_index; // the model's choice when nothing is selected, with the reason in `question`
  std::vector<Measured> measured;  // alternatives measured on a device (the default may be one of them)
};

// The whole catalog, in PolicyId order.
const std::vector<PolicyInfo>& policy_catalog();
const PolicyInfo* find_policy(std::string_view name);
const PolicyInfo& policy_info(PolicyId id);
// The alternatives' names of a policy; empty for an unknown name.
std::vector<std::string> policy_alternatives(std::string_view name);

// One choice per policy. Default-constructed: every policy at its default.
class PolicySet {
 public:
  PolicySet();
  std::size_t index(PolicyId id) const { return choice_[static_cast<std::size_t>(id)]; }
  template <typename E>
  E get(PolicyId id) const {
    return static_cast<E>(index(id));
  }
  const std::string& value_name(PolicyId id) const;
  // Selects NAME=VALUE; false (and *why) for an unknown name or value.
  bool set(std::string_view name, std::string_view value, std::string* why = nullptr);
  // Parses "NAME=VALUE".
  bool set_assignment(std::string_view assignment, std::string* why = nullptr);
  void set_index(PolicyId id, std::size_t alternative);
  bool is_default() const;
  // "name=value" for every policy not at its default, comma separated; "default" when none.
  std::string describe() const;

 private:
  std::vector<std::size_t> choice_;
};

// The device's measured profile: every policy at its first measured alternative (the default where none is
// measured or the default is the measured one). What a device showed, all at once: a case whose behaviour takes
// three measured alternatives together (a tf32 load of a narrow swizzled box with a NaN fill) matches it.
PolicySet measured_profile();

// Every PolicySet that differs from `base` in exactly one policy, each with "name=value" describing it:
// what the run tier iterates over when a result does not match the default. Within a policy, the alternatives
// measured on a device come first, so that a case two alternatives explain is named by the measured one.
std::vector<std::pair<std::string, PolicySet>> single_deviations(const PolicySet& base);

// The single deviations from `base` (single_deviations, in its order) whose alternative was measured on a device
// (PolicyInfo::measured): the ones the run tier pairs with an involved alternative of another policy.
std::vector<std::pair<std::string, PolicySet>> measured_deviations(const PolicySet& base);

}  // namespace ptxcts::ref
