// What the encode validator says about a parameter set: every violation's detail names the offending values
// ('NAME[i] = VALUE', RuleViolation::detail in tensormap.hpp) and every rule carries the sentence it enforces, whole
// (rules_table; ptxcts-ref prints 'rule NAME: SENTENCE [DETAIL]'). Every expected value is derived by hand from the
// rule it checks (cuda.h's sentence, NOTES.md, the README's documented output), never by running the model.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "ptxcts/ref/tensor.hpp"
#include "ptxcts/ref/tensormap.hpp"
#include "model_helpers.hpp"
#include "tensor_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;

namespace {

// rule -> detail of the violations of p.
std::map<std::string, std::string> details_of(const TensorMapParams& p) {
  std::map<std::string, std::string> d;
  for (const auto& r : validate_encode(p).violations) d[r.rule] = r.detail;
  return d;
}

}  // namespace

// README (ptxcts-ref tensor): a parameter set the driver must reject prints 'ENCODE must reject the tensor map: rule
// NAME: SENTENCE [DETAIL]', the sentence being cuda.h's (cuTensorMapEncodeTiled, CUDA 13.0): 'When interleave is
// CU_TENSOR_MAP_INTERLEAVE_NONE, { boxDim[0] * elementSizeInBytes( tensorDataType ) } must be a multiple of 16
// bytes.' The README's own example: UINT16 tensor 16 x 4, box 7 x 2 (7 * 2 = 14 bytes, not a multiple of 16), coords
// {0, 0}; the message is the README's line, whole.
// Catches rules_table with the second half of box_inner_multiple16's sentence emptied ('elementSizeInBytes(
// tensorDataType ) } must be a multiple of 16 bytes.' -> '').
TEST(TensorMapSentences, BoxInnerMultiple16QuotedWhole) {
  const auto m = tile_map(TensorDataType::UINT16, {16, 4}, {7, 2});
  const std::string want =
      "cuTensorMapEncodeTiled must reject the tensor map: rule box_inner_multiple16: When interleave is "
      "CU_TENSOR_MAP_INTERLEAVE_NONE, { boxDim[0] * elementSizeInBytes( tensorDataType ) } must be a multiple of "
      "16 bytes. [boxDim[0] * elementSize = 7 * 16 bits]";
  EXPECT_EQ(error_of([&] { load(m, at({0, 0})); }), want);
  bool listed = false;
  for (const auto& [name, sentence] : encode_rules())
    if (name == "box_inner_multiple16") {
      listed = true;
      EXPECT_EQ(sentence,
                "When interleave is CU_TENSOR_MAP_INTERLEAVE_NONE, { boxDim[0] * elementSizeInBytes( tensorDataType ) "
                "} must be a multiple of 16 bytes.");
    }
  EXPECT_TRUE(listed);
}

// RuleViolation::detail holds 'the offending values' (tensormap.hpp), written as the other details are, 'NAME[i] =
// VALUE'. cuda.h: 'boxDim array ... must be non-zero and less than or equal to 256'. A UINT8 box of 16 x 300 breaks
// it in dimension 1 only: detail 'boxDim[1] = 300'.
// Catches validate_encode's box_dim_range detail without its ' = ' ('boxDim[1]300').
TEST(TensorMapDetails, BoxDimRangeNamesTheValue) {
  auto m = tile_map(TensorDataType::UINT8, {16, 400}, {16, 1});
  m.box[1] = 300;
  const auto d = details_of(m);
  ASSERT_EQ(d.count("box_dim_range"), 1u);
  EXPECT_EQ(d.at("box_dim_range"), "boxDim[1] = 300");
}

// cuda.h: 'When interleave is CU_TENSOR_MAP_INTERLEAVE_NONE and swizzle is not CU_TENSOR_MAP_SWIZZLE_NONE, the
// bounding box inner dimension (computed as boxDim[0] multiplied by element size derived from tensorDataType) must
// be less than or equal to the swizzle size ... CU_TENSOR_MAP_SWIZZLE_128B* require the bounding box inner dimension
// to be <= 128.' FLOAT32 boxDim[0] = 64: 64 * 4 = 256 bytes > 128; the detail names those bytes and the mode: 'inner
// box 256 bytes, swizzle 128B'. 16U4_ALIGN8B boxDim[0] = 130: 130 * 4 bits = 520 bits = 65 bytes > 64 (swizzle 64B):
// 'inner box 65 bytes, swizzle 64B'.
// Catches validate_encode's swizzle_inner_box detail rounding '(inner_bits + 7) / 8' turned into '(inner_bits +
// (7+1)) / 8' (257 and 66 bytes).
TEST(TensorMapDetails, SwizzleInnerBoxCountsTheBytes) {
  auto m = tile_map(TensorDataType::FLOAT32, {64, 2}, {64, 1});
  m.swizzle = Swizzle::B128;
  auto d = details_of(m);
  ASSERT_EQ(d.count("swizzle_inner_box"), 1u);
  EXPECT_EQ(d.at("swizzle_inner_box"), "inner box 256 bytes, swizzle 128B");
  auto u4 = tile_map(TensorDataType::T16U4_ALIGN8B, {256, 2}, {130, 1});
  u4.swizzle = Swizzle::B64;
  d = details_of(u4);
  ASSERT_EQ(d.count("swizzle_inner_box"), 1u);
  EXPECT_EQ(d.at("swizzle_inner_box"), "inner box 65 bytes, swizzle 64B");
}

// tensormap.cpp: the details of two violations ("globalAddress " dropped; "spatial dimension 1 + i" -> "1 * i").
TEST(TensorMapDetails, AddressAndSpatialDimensionNamed) {
  TensorMapParams t = tile_map(TensorDataType::FLOAT32, {64, 8}, {8, 4});
  t.global_address = (1u << 20) + 8;
  EXPECT_EQ(details_of(t)["global_address_align16"], "globalAddress " + std::to_string((1u << 20) + 8));
  // interleave 32B needs 32-byte alignment: 2^20 + 16 breaks that rule alone (its detail names the address too)
  TensorMapParams il = tile_map(TensorDataType::UINT8, {64, 8, 4}, {32, 4, 2});
  il.interleave = Interleave::B32;
  il.swizzle = Swizzle::B32;
  il.global_address = (1u << 20) + 16;
  EXPECT_EQ(details_of(il)["global_address_align32_interleave"], "globalAddress " + std::to_string((1u << 20) + 16));
  // 3-D im2col (C, W, N): W = 4 with corners lower 2, upper -2: globalDim + upper - lower = 4 - 2 - 2 = 0
  TensorMapParams i = im2col_map(EncodeKind::im2col, TensorDataType::FLOAT32, 3, {4, 4, 1, 1, 1}, {16, 64, 0, 0}, 4, 1);
  i.global_address = 1u << 20;
  i.lower_corner = {2, 0, 0};
  i.upper_corner = {-2, 0, 0};
  EXPECT_EQ(details_of(i)["im2col_box_nonzero_area"], "spatial dimension 1: globalDim + upper - lower = 0");
}

// tensormap.cpp: the OOB-NaN rule's sentence, as cuda.h states it (the middle clause was dropped by the mutant).
TEST(TensorMapSentences, OobNanSentenceIsCudaHs) {
  std::string sentence;
  for (const auto& [name, s] : encode_rules())
    if (name == "oob_nan_float_only") sentence = s;
  EXPECT_EQ(sentence,
            "CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA can only be used when tensorDataType represents a "
            "floating-point data type, and when tensorDataType is not 16U4_ALIGN8B, 16U4_ALIGN16B, and "
            "16U6_ALIGN16B.");
}

// tensormap.cpp: the channelsPerPixel violation's detail names the field ("channelsPerPixel = " dropped).
TEST(TensorMapDetails, ChannelsPerPixelNamed) {
  TensorMapParams i = im2col_map(EncodeKind::im2col, TensorDataType::UINT8, 3, {512, 4, 2, 1, 1}, {512, 2048, 0, 0},
                                 257, 4);
  i.global_address = 1u << 20;
  std::string detail;
  for (const auto& v : validate_encode(i).violations)
    if (v.rule == "channels_per_pixel_range") detail = v.detail;
  EXPECT_EQ(detail, "channelsPerPixel = 257");
}

// Every validator rule carries the documentation sentence it enforces (RuleViolation::sentence, printed by
// ptxcts-ref as 'rule NAME: SENTENCE'), and names are unique.
// Catches an emptied sentence in rules_table (global_address_align32_interleave's, for one).
TEST(TensorMapSentences, EveryRuleHasOne) {
  std::set<std::string> names;
  for (const auto& [name, sentence] : encode_rules()) {
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    EXPECT_GE(sentence.size(), 20u) << name << ": '" << sentence << "'";
  }
  EXPECT_GE(names.size(), 20u);
}

// RuleViolation::detail holds 'the offending values' (tensormap.hpp). cuda.h: 16U4_ALIGN16B needs globalDim[0] a
// multiple of 128 and swizzle 128B or 128B_ATOM_32B (or none for tiled maps).
// Catches validate_encode's global_dim0_packed16b detail reading dims[-1] and its swizzle_u4_16b_modes detail
// without 'swizzle '.
TEST(TensorMapDetails, PackedDim0AndSwizzleNamed) {
  auto p = tile_map(TensorDataType::T16U4_ALIGN16B, {64, 4}, {128, 4});
  p.strides = {64, 0, 0, 0};
  p.swizzle = Swizzle::B64;
  const EncodeVerdict v = validate_encode(p);
  std::map<std::string, std::string> detail;
  for (const auto& r : v.violations) detail[r.rule] = r.detail;
  ASSERT_EQ(detail.count("global_dim0_packed16b"), 1u);
  EXPECT_EQ(detail["global_dim0_packed16b"], "globalDim[0] = 64");
  ASSERT_EQ(detail.count("swizzle_u4_16b_modes"), 1u);
  EXPECT_EQ(detail["swizzle_u4_16b_modes"], "swizzle 64B");
}

// RuleViolation::detail holds 'the offending values' (tensormap.hpp); ptxcts-ref prints it (README: '[boxDim[0] *
// elementSize = 7 * 16 bits]'). cuda.h: 16U4_ALIGN8B needs globalDim[0] a multiple of 2.
// Catches validate_encode's global_dim0_u4_align8b and box_inner_multiple16 details reading dims[-1] / box[-1].
TEST(TensorMapDetails, Dim0AndBox0Named) {
  std::map<std::string, std::string> detail;
  for (const auto& r : validate_encode(tile_map(TensorDataType::T16U4_ALIGN8B, {3, 4}, {32, 1})).violations)
    detail[r.rule] = r.detail;
  ASSERT_EQ(detail.count("global_dim0_u4_align8b"), 1u);
  EXPECT_EQ(detail["global_dim0_u4_align8b"], "globalDim[0] = 3");
  detail.clear();
  for (const auto& r : validate_encode(tile_map(TensorDataType::UINT16, {16, 4}, {7, 2})).violations)
    detail[r.rule] = r.detail;
  ASSERT_EQ(detail.count("box_inner_multiple16"), 1u);
  EXPECT_EQ(detail["box_inner_multiple16"], "boxDim[0] * elementSize = 7 * 16 bits");
}
