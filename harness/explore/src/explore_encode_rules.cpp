#include "explore_encode_rules.hpp"

#include <functional>
#include <map>

#include "explore_draw.hpp"

namespace ptxcts::run {

namespace {

using TDT = ref::TensorDataType;
using draw::chance;
using draw::pick;

enum Kinds { tiled_only, im2col_only, both };

struct Breaker {
  Kinds kinds;
  std::function<void(ref::TensorMapParams&, Rng&)> apply;
};

// A dimension index below the map's rank, and one of its strides (rank >= 2: a tiled map of rank 1 gets a
// second dimension of 1, which keeps it the same tensor).
unsigned any_dim(const ref::TensorMapParams& m, Rng& r) { return unsigned(r.below(std::max(1u, m.rank))); }
// At least `rank` dimensions: the new outer ones of extent 1, which keeps the tensor the same.
void grow_rank(ref::TensorMapParams& m, unsigned rank) {
  for (; m.rank < rank; ++m.rank) {
    const unsigned i = m.rank;
    m.strides[i - 1] = i == 1 ? ((m.dims[0] * ref::element_bits(m.dtype) + 7) / 8 + 15) / 16 * 16
                              : m.strides[i - 2] * m.dims[i - 1];
    m.dims[i] = 1; m.box[i] = 1; m.element_strides[i] = 1;
  }
}
unsigned any_stride(ref::TensorMapParams& m, Rng& r) {
  grow_rank(m, 2);
  return unsigned(r.below(m.rank - 1));
}
// An element type that is not packed (the inner-box and channel rules count whole bytes).
void unpacked(ref::TensorMapParams& m) {
  if (ref::is_packed(m.dtype)) m.dtype = TDT::UINT8;
}
TDT packed16(Rng& r) { return chance(r, 50) ? TDT::T16U4_ALIGN16B : TDT::T16U6_ALIGN16B; }
uint64_t esize(const ref::TensorMapParams& m) { return std::max(1u, ref::element_bits(m.dtype) / 8); }
unsigned spatial(const ref::TensorMapParams& m) { return m.rank >= 3 ? m.rank - 2 : 1; }
int corner_limit(const ref::TensorMapParams& m) { return m.rank == 3 ? 32768 : m.rank == 4 ? 128 : 16; }

// The change that breaks each rule a drawn case can break; the kinds of map it applies to.
const std::map<std::string, Breaker>& breakers() {
  static const std::map<std::string, Breaker> b = {
      // tensorRank 0 (above 5 the case's arrays, five long, could not hold the dimensions the driver would read).
      {"rank_range", {tiled_only, [](auto& m, Rng&) { m.rank = 0; }}},
      {"rank_interleave", {tiled_only, [](auto& m, Rng& r) {
         m.rank = unsigned(1 + r.below(2));
         m.interleave = ref::Interleave::B16;
       }}},
      {"rank_im2col", {im2col_only, [](auto& m, Rng& r) { m.rank = unsigned(1 + r.below(2)); }}},
      {"global_address_align16", {both, [](auto& m, Rng& r) { m.global_address += pick(r, {1u, 4u, 8u, 12u}); }}},
      {"global_address_align32_interleave", {tiled_only, [](auto& m, Rng&) {
         grow_rank(m, 3);
         m.interleave = ref::Interleave::B32;
         m.global_address = m.global_address / 32 * 32 + 16;
       }}},
      {"global_address_align32_packed", {both, [](auto& m, Rng& r) {
         m.dtype = packed16(r);
         m.global_address = m.global_address / 32 * 32 + 16;
       }}},
      {"global_dim_range", {both, [](auto& m, Rng& r) {
         m.dims[any_dim(m, r)] = chance(r, 50) ? 0 : (uint64_t(1) << 32) + 1 + r.below(1024);
       }}},
      {"global_dim0_packed16b", {both, [](auto& m, Rng& r) {
         m.dtype = packed16(r);
         m.dims[0] = 128 * r.below(4) + 1 + r.below(127);
       }}},
      {"global_dim0_u4_align8b", {both, [](auto& m, Rng& r) {
         m.dtype = TDT::T16U4_ALIGN8B;
         m.dims[0] = 2 * r.below(64) + 1;
       }}},
      {"global_stride_multiple16", {both, [](auto& m, Rng& r) { m.strides[any_stride(m, r)] += 1 + r.below(15); }}},
      {"global_stride_below_2_40", {both, [](auto& m, Rng& r) {
         m.strides[any_stride(m, r)] = (uint64_t(1) << 40) + 16 * r.below(4);
       }}},
      {"global_stride_multiple32_interleave", {tiled_only, [](auto& m, Rng& r) {
         grow_rank(m, 3);
         m.interleave = ref::Interleave::B32;
         m.strides[any_stride(m, r)] = 32 * (1 + r.below(64)) + 16;
       }}},
      {"global_stride_multiple32_packed", {both, [](auto& m, Rng& r) {
         m.dtype = packed16(r);
         m.strides[any_stride(m, r)] = 32 * (1 + r.below(64)) + 16;
       }}},
      {"box_dim_range", {tiled_only, [](auto& m, Rng& r) {
         m.box[any_dim(m, r)] = chance(r, 50) ? 0 : uint32_t(257 + r.below(256));
       }}},
      {"box_inner_multiple16", {tiled_only, [](auto& m, Rng& r) {
         unpacked(m);
         m.interleave = ref::Interleave::NONE;
         m.box[0] = uint32_t(2 * r.below(64) + 1);  // an odd count of 1..8-byte elements: never 16-byte whole
       }}},
      {"box_dim0_packed16b", {tiled_only, [](auto& m, Rng& r) {
         m.dtype = packed16(r);
         m.box[0] = pick(r, {32u, 64u, 96u, 160u, 256u});
       }}},
      {"element_strides_range", {both, [](auto& m, Rng& r) {
         m.element_strides[any_dim(m, r)] = chance(r, 50) ? 0 : uint32_t(9 + r.below(8));
       }}},
      {"swizzle_inner_box", {both, [](auto& m, Rng& r) {
         unpacked(m);
         m.interleave = ref::Interleave::NONE;
         m.swizzle = pick(r, {ref::Swizzle::B32, ref::Swizzle::B64, ref::Swizzle::B128});
         const uint64_t over = (ref::swizzle_span(m.swizzle) + 16 * (1 + r.below(4))) / esize(m);
         if (m.kind == ref::EncodeKind::tiled) m.box[0] = uint32_t(std::min<uint64_t>(over, 256));
         else m.channels_per_pixel = uint32_t(std::min<uint64_t>(over, 256));
       }}},
      {"u6_no_interleave", {both, [](auto& m, Rng& r) {
         m.dtype = TDT::T16U6_ALIGN16B;
         m.interleave = chance(r, 50) ? ref::Interleave::B16 : ref::Interleave::B32;
       }}},
      // A rule of the measured alternative interleave_inner_box=multiple_16B: an interleaved tiled map whose inner
      // box is 1-15 bytes (legal by the documented rules, which check the inner box only without interleave).
      {"interleave_inner_box_multiple16", {tiled_only, [](auto& m, Rng& r) {
         unpacked(m);
         grow_rank(m, 3);
         m.interleave = chance(r, 50) ? ref::Interleave::B16 : ref::Interleave::B32;
         m.swizzle = m.interleave == ref::Interleave::B32 ? ref::Swizzle::B32 : m.swizzle;
         m.box[0] = uint32_t(std::max<uint64_t>(1, (1 + r.below(15)) / esize(m)));
       }}},
      {"interleave32_swizzle32", {both, [](auto& m, Rng& r) {
         if (m.kind == ref::EncodeKind::tiled) grow_rank(m, 3);
         m.interleave = ref::Interleave::B32;
         m.swizzle = pick(r, {ref::Swizzle::NONE, ref::Swizzle::B64, ref::Swizzle::B128});
       }}},
      // The chapter's 96B swizzle: CUDA 13.0 names no CUtensorMapSwizzle for it; the case passes the value
      // after the last one (ref::Swizzle::B96's index).
      {"swizzle_enum", {both, [](auto& m, Rng&) { m.swizzle = ref::Swizzle::B96; }}},
      {"oob_nan_float_only", {both, [](auto& m, Rng& r) {
         m.dtype = pick(r, {TDT::UINT8, TDT::UINT16, TDT::UINT32, TDT::INT32, TDT::UINT64, TDT::INT64,
                            TDT::T16U4_ALIGN8B, TDT::T16U4_ALIGN16B, TDT::T16U6_ALIGN16B});
         m.oob_fill = ref::OobFill::NAN_REQUEST_ZERO_FMA;
       }}},
      {"swizzle_u6_modes", {both, [](auto& m, Rng& r) {
         m.dtype = TDT::T16U6_ALIGN16B;
         m.swizzle = chance(r, 50) ? ref::Swizzle::B32 : ref::Swizzle::B64;
       }}},
      {"swizzle_u4_16b_modes", {both, [](auto& m, Rng& r) {
         m.dtype = TDT::T16U4_ALIGN16B;
         m.swizzle = chance(r, 50) ? ref::Swizzle::B32 : ref::Swizzle::B64;
       }}},
      {"im2col_corner_range", {im2col_only, [](auto& m, Rng& r) {
         const int lim = corner_limit(m);
         const unsigned s = unsigned(r.below(spatial(m)));
         if (chance(r, 50)) m.lower_corner[s] = -lim - 1 - int(r.below(4));
         else m.upper_corner[s] = lim + int(r.below(4));
       }}},
      // Extent globalDim + upper - lower of 0 along one spatial dimension (checked without interleave).
      {"im2col_box_nonzero_area", {im2col_only, [](auto& m, Rng& r) {
         const unsigned s = unsigned(r.below(spatial(m)));
         m.interleave = ref::Interleave::NONE;
         m.dims[1 + s] = 1 + r.below(8);
         m.lower_corner[s] = 0;
         m.upper_corner[s] = -int(m.dims[1 + s]);
       }}},
      {"channels_per_pixel_range", {im2col_only, [](auto& m, Rng& r) {
         m.channels_per_pixel = uint32_t(257 + r.below(256));
       }}},
      {"channels_per_pixel_packed16b", {im2col_only, [](auto& m, Rng& r) {
         m.dtype = packed16(r);
         m.channels_per_pixel = pick(r, {32u, 64u, 96u, 160u, 256u});
       }}},
      {"pixels_per_column_range", {im2col_only, [](auto& m, Rng& r) {
         m.pixels_per_column = uint32_t(1025 + r.below(1024));
       }}},
      // A rule of the measured alternative packed_type_encode=refused: any map of a packed type (the documented
      // rules may then hold or not).
      {"packed_type_refused", {both, [](auto& m, Rng& r) {
         m.dtype = pick(r, {TDT::T16U4_ALIGN8B, TDT::T16U4_ALIGN16B, TDT::T16U6_ALIGN16B});
       }}},
      // A rule of the measured alternative swizzle_atom_encode=refused_below_cc100: a 128B_ATOM swizzle on a map
      // whose inner box is the 128-byte span (the documented rules may then hold or not).
      {"swizzle_atom_refused", {tiled_only, [](auto& m, Rng& r) {
         m.swizzle = pick(r, {ref::Swizzle::B128_ATOM_32B, ref::Swizzle::B128_ATOM_32B_FLIP_8B,
                              ref::Swizzle::B128_ATOM_64B});
       }}},
      // A rule of the named alternative im2col_channel_bytes=multiple_16B: the map stays legal by the documented
      // rules (a run case; a device that refuses it matches the alternative).
      {"im2col_channel_bytes_multiple16", {im2col_only, [](auto& m, Rng& r) {
         unpacked(m);
         m.channels_per_pixel = uint32_t(2 * r.below(32) + 1);  // odd: never a whole 16 bytes
         m.dims[0] = std::max<uint64_t>(m.dims[0], m.channels_per_pixel);
       }}},
  };
  return b;
}

// The rules no drawn case can break, and why (the rest have a change above; a rule with neither is reported as
// lacking one, never silently dropped).
const std::map<std::string, std::string>& unreachable_rules() {
  static const std::string wide =
      "cuTensorMapEncodeIm2colWide: exploration draws no Wide maps (the run tier's planned encode cases of its form, "
      "encode_forms, hold every value of its enums, each refused below compute capability 10.0) and the im2col::w "
      "forms that need it run on sm_100, which the run tier does not drive yet";
  static const std::string open =
      "an open point of the validator (no must either way): a map breaking it alone is no case (the encode ABI "
      "refuses it), one breaking it with another rule is judged by the other";
  static const std::map<std::string, std::string> u = {
      {"tensor_map_cc90", "broken only on a device below compute capability 9.0, which has no tensor maps to "
                          "explore (exploration judges maps for sm_90)"},
      {"im2col_wide_cc100", wide},
      {"im2col_wide_corner_range", wide},
      {"im2col_wide_swizzle_modes", wide},
      {"im2col_wide_inner_box", wide},
      {"global_stride_covers_previous", open},
      {"channels_per_pixel_zero", open},
      {"pixels_per_column_zero", open},
  };
  return u;
}

}  // namespace

const std::vector<EncodeRuleTarget>& encode_rule_targets() {
  static const std::vector<EncodeRuleTarget> v = [] {
    std::vector<EncodeRuleTarget> out;
    for (auto& [name, sentence] : ref::encode_rules()) {
      EncodeRuleTarget t;
      t.rule = name;
      auto b = breakers().find(name);
      auto u = unreachable_rules().find(name);
      if (u != unreachable_rules().end()) t.unreachable = u->second;
      else if (b == breakers().end()) t.unreachable = "exploration has no change that breaks it (explore_encode_rules.cpp)";
      else {
        t.tiled = b->second.kinds != im2col_only;
        t.im2col = b->second.kinds != tiled_only;
      }
      out.push_back(t);
    }
    return out;
  }();
  return v;
}

bool break_encode_rule(const std::string& rule, ref::TensorMapParams& m, Rng& r) {
  auto b = breakers().find(rule);
  if (b == breakers().end()) return false;
  const bool tiled = m.kind == ref::EncodeKind::tiled;
  if ((tiled && b->second.kinds == im2col_only) || (!tiled && b->second.kinds == tiled_only)) return false;
  b->second.apply(m, r);
  return true;
}

}  // namespace ptxcts::run
