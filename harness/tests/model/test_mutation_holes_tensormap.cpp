// Tests added for faults that ./ptxcts selftest-model planted in the encode validator (harness/refmodel/src/
// tensormap.cpp: its rules, details, names and spans) and the other model tests
// let through (issue 10, part 3). Each names the surviving mutant it kills and the rule it checks; every expected
// value is derived by hand from that rule (docs/POLICIES.md, the chapter's or cuda.h's sentence), never by running
// the model. The triage of the survivors that no test can kill: results/selftest/model-equivalent.json.
// The holes of the other model areas: test_mutation_holes_*.cpp.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ptxcts/ref/tensormap.hpp"
#include "model_helpers.hpp"
#include "tensor_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;

// Every validator rule carries the documentation sentence it enforces (RuleViolation::sentence, printed by
// ptxcts-ref as 'rule NAME: SENTENCE'), and names are unique. Kills the emptied sentences of tensormap.cpp's rule
// table (e.g. line 36, global_address_align32_interleave).
TEST(MutationHoles, EveryEncodeRuleHasItsSentence) {
  std::set<std::string> names;
  for (const auto& [name, sentence] : encode_rules()) {
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    EXPECT_GE(sentence.size(), 20u) << name << ": '" << sentence << "'";
  }
  EXPECT_GE(names.size(), 20u);
}

// cuda.h, cuTensorMapEncodeIm2col: channelsPerPixel and pixelsPerColumn have upper bounds only; POLICIES.md
// (open points): 'channelsPerPixel / pixelsPerColumn of 0 -> EncodeVerdict::open (channels_per_pixel_zero,
// pixels_per_column_zero)'. Kills tensormap.cpp:260 'p.channels_per_pixel != 0' -> '!= -1'.
TEST(MutationHoles, ZeroChannelsOrPixelsAreOpenPoints) {
  auto p = im2col_map(EncodeKind::im2col, TensorDataType::UINT8, 4, {16, 8, 8, 2, 1}, {16, 128, 1024, 0}, 16, 32);
  p.lower_corner = {-1, -1, 0};
  EXPECT_EQ(rules_of(validate_encode(p).open).count("channels_per_pixel_zero"), 0u);
  auto c0 = p;
  c0.channels_per_pixel = 0;
  EXPECT_EQ(rules_of(validate_encode(c0).open).count("channels_per_pixel_zero"), 1u);
  auto p0 = p;
  p0.pixels_per_column = 0;
  EXPECT_EQ(rules_of(validate_encode(p0).open).count("pixels_per_column_zero"), 1u);
}

// cuda.h: 'tensorRank must be non-zero and less than or equal to the maximum supported dimensionality of 5' and
// 'boxDim array ... must be non-zero'. A rank-6 map with boxDim[1] = 0 breaks both; the verdict lists every rule
// the parameter set breaks (tensormap.hpp), so the rank violation does not hide the box one.
// Kills tensormap.cpp:205 'p.rank > 5 ? 5' -> '? 1'.
TEST(MutationHoles, OversizedRankStillChecksEveryDimension) {
  auto p = map_of(EncodeKind::tiled, TensorDataType::FLOAT32, 6, {64, 32, 2, 2, 2}, {256, 8192, 16384, 32768});
  p.box = {32, 0, 1, 1, 1};
  const auto v = rules_of(validate_encode(p).violations);
  EXPECT_EQ(v.count("rank_range"), 1u);
  EXPECT_EQ(v.count("box_dim_range"), 1u);
}

// The enumerators' names as cuda.h spells them after CU_TENSOR_MAP_SWIZZLE_ / _INTERLEAVE_ / _L2_PROMOTION_ /
// _FLOAT_OOB_FILL_ (what ptxcts-ref reads and the run tier writes). Kills tensormap.cpp:15 ("64B" and "128B"
// swapped) and the like for the other tables.
TEST(MutationHoles, EnumeratorNamesAsCudaH) {
  const std::vector<std::pair<Swizzle, const char*>> sw = {
      {Swizzle::NONE, "NONE"}, {Swizzle::B32, "32B"}, {Swizzle::B64, "64B"}, {Swizzle::B128, "128B"},
      {Swizzle::B128_ATOM_32B, "128B_ATOM_32B"}, {Swizzle::B128_ATOM_32B_FLIP_8B, "128B_ATOM_32B_FLIP_8B"},
      {Swizzle::B128_ATOM_64B, "128B_ATOM_64B"}};
  for (const auto& [s, n] : sw) {
    EXPECT_EQ(std::string(to_string(s)), n);
    EXPECT_EQ(parse_swizzle(n), s) << n;
  }
  EXPECT_EQ(std::string(to_string(Interleave::NONE)), "NONE");
  EXPECT_EQ(std::string(to_string(Interleave::B16)), "16B");
  EXPECT_EQ(std::string(to_string(Interleave::B32)), "32B");
  EXPECT_EQ(parse_interleave("16B"), Interleave::B16);
  EXPECT_EQ(std::string(to_string(L2Promotion::L2_64B)), "L2_64B");
  EXPECT_EQ(std::string(to_string(L2Promotion::L2_256B)), "L2_256B");
  EXPECT_EQ(parse_l2_promotion("L2_128B"), L2Promotion::L2_128B);
  EXPECT_EQ(std::string(to_string(OobFill::NAN_REQUEST_ZERO_FMA)), "NAN_REQUEST_ZERO_FMA");
  EXPECT_EQ(parse_oob_fill("NONE"), OobFill::NONE);
  const std::vector<std::pair<TensorDataType, const char*>> ty = {
      {TensorDataType::UINT8, "UINT8"},         {TensorDataType::UINT16, "UINT16"},
      {TensorDataType::UINT32, "UINT32"},       {TensorDataType::INT32, "INT32"},
      {TensorDataType::UINT64, "UINT64"},       {TensorDataType::INT64, "INT64"},
      {TensorDataType::FLOAT16, "FLOAT16"},     {TensorDataType::FLOAT32, "FLOAT32"},
      {TensorDataType::FLOAT64, "FLOAT64"},     {TensorDataType::BFLOAT16, "BFLOAT16"},
      {TensorDataType::FLOAT32_FTZ, "FLOAT32_FTZ"}, {TensorDataType::TFLOAT32, "TFLOAT32"},
      {TensorDataType::TFLOAT32_FTZ, "TFLOAT32_FTZ"}};
  for (const auto& [t, n] : ty) EXPECT_EQ(std::string(to_string(t)), n);
  // Element sizes (cuda.h / PTX): 8, 16, 32, 32, 64, 64, 16, 32, 64, 16, 32, 32, 32 bits.
  const unsigned bits[] = {8, 16, 32, 32, 64, 64, 16, 32, 64, 16, 32, 32, 32};
  for (std::size_t i = 0; i < ty.size(); ++i) EXPECT_EQ(element_bits(ty[i].first), bits[i]) << ty[i].second;
}

// RuleViolation::detail holds 'the offending values' (tensormap.hpp). cuda.h: 16U4_ALIGN16B needs globalDim[0] a
// multiple of 128 and swizzle 128B or 128B_ATOM_32B (or none for tiled maps). Kills tensormap.cpp:220 (detail
// reads dims[-1]) and tensormap.cpp:306 (the detail's 'swizzle ' dropped).
TEST(MutationHoles, ViolationDetailsNameTheValues) {
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

// cuda.h: tensor maps need compute capability 9.0; cuTensorMapEncodeIm2colWide needs 10.0. At cc 90 a tiled and an
// im2col map are accepted, an im2col::w map is rejected for im2col_wide_cc100 only.
// Kills tensormap.cpp:193 'p.kind == EncodeKind::im2col_wide' -> '<='.
TEST(MutationHoles, Im2colWideNeedsCc100Only) {
  auto t = tile_map(TensorDataType::FLOAT32, {64, 32}, {32, 8});
  EXPECT_TRUE(validate_encode(t, 90).must_accept());
  auto i = im2col_map(EncodeKind::im2col, TensorDataType::UINT8, 4, {16, 8, 8, 2, 1}, {16, 128, 1024, 0}, 16, 32);
  i.lower_corner = {-1, -1, 0};
  EXPECT_TRUE(validate_encode(i, 90).must_accept());
  auto w = i;
  w.kind = EncodeKind::im2col_wide;
  w.swizzle = Swizzle::B64;
  w.lower_corner = {-2, 0, 0};
  w.upper_corner = {1, 0, 0};
  EXPECT_TRUE(validate_encode(w, 100).must_accept());
  EXPECT_EQ(rules_of(validate_encode(w, 90).violations), std::set<std::string>{"im2col_wide_cc100"});
}

// ---- Held-out sample (./ptxcts selftest-model --seed 2): holes its survivors showed. ----

// cuda.h, cuTensorMapEncodeIm2col: 'channelsPerPixel ... must be less than or equal to 256'. A UINT8 rank-4 map
// (dims 16 x 8 x 8 x 2, dense strides 16 / 128 / 1024, corners within [-128, 127], no swizzle) breaks no rule with
// 256 channels; with 257 it breaks that one only. Kills tensormap.cpp:258 '<= 256' -> '<= (256-1)'.
TEST(MutationHoles, ChannelsPerPixelUpTo256) {
  auto p = im2col_map(EncodeKind::im2col, TensorDataType::UINT8, 4, {16, 8, 8, 2, 1}, {16, 128, 1024, 0}, 256, 32);
  p.lower_corner = {-1, -1, 0};
  EXPECT_TRUE(validate_encode(p).must_accept());
  p.channels_per_pixel = 257;
  EXPECT_EQ(rules_of(validate_encode(p).violations), std::set<std::string>{"channels_per_pixel_range"});
}

// cuda.h, cuTensorMapEncodeIm2col: 'when tensorDataType is ..._16U6_ALIGN16B or ..._16U4_ALIGN16B,
// channelsPerPixel must be 128'. Rank-3 maps, globalDim[0] = 128 (a multiple of 128), strides multiples of 32
// (16U4: 128 x 4 bit = 64 B, then 64 x 8 = 512; 16U6: 128 x 6 bit = 96 B, then 96 x 8 = 768), swizzle NONE
// (allowed for both types outside im2col::w): 128 channels accepted, 64 break that rule only.
// Kills tensormap.cpp:262 '== 128' -> '== (128+1)'.
TEST(MutationHoles, PackedTypesNeed128ChannelsPerPixel) {
  for (const auto& [t, row] : {std::pair{TensorDataType::T16U4_ALIGN16B, std::uint64_t{64}},
                               std::pair{TensorDataType::T16U6_ALIGN16B, std::uint64_t{96}}}) {
    auto p = im2col_map(EncodeKind::im2col, t, 3, {128, 8, 2, 1, 1}, {row, row * 8, 0, 0}, 128, 8);
    EXPECT_TRUE(validate_encode(p).must_accept()) << to_string(t);
    p.channels_per_pixel = 64;
    EXPECT_EQ(rules_of(validate_encode(p).violations), std::set<std::string>{"channels_per_pixel_packed16b"})
        << to_string(t);
  }
}

// cuda.h, cuTensorMapEncodeIm2colWide: 'pixelsPerColumn ... must be less than or equal to 1024. This field is
// ignored when mode is CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128.' The accepted im2col::w map of Im2colWideNeedsCc100Only
// with pixelsPerColumn 2000 or 0: mode W breaks pixels_per_column_range / has the open point pixels_per_column_zero
// (POLICIES.md open points), mode W128 neither. Kills tensormap.cpp:264 '== Im2colWideMode::W128' -> '>'.
TEST(MutationHoles, W128IgnoresPixelsPerColumn) {
  auto w = im2col_map(EncodeKind::im2col_wide, TensorDataType::UINT8, 4, {16, 8, 8, 2, 1}, {16, 128, 1024, 0},
                         16, 2000);
  w.swizzle = Swizzle::B64;
  w.lower_corner = {-2, 0, 0};
  w.upper_corner = {1, 0, 0};
  EXPECT_EQ(rules_of(validate_encode(w).violations), std::set<std::string>{"pixels_per_column_range"});
  w.wide_mode = Im2colWideMode::W128;
  EXPECT_TRUE(validate_encode(w).must_accept());
  w.pixels_per_column = 0;
  EXPECT_TRUE(validate_encode(w).must_accept());
  w.wide_mode = Im2colWideMode::W;
  const auto v = validate_encode(w);
  EXPECT_TRUE(v.violations.empty());
  EXPECT_EQ(rules_of(v.open), std::set<std::string>{"pixels_per_column_zero"});
}

// cuda.h, cuTensorMapEncodeIm2colWide: 'When the tensorDataType is ..._16U6_ALIGN16B, only the following swizzle
// modes are supported: CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B'. 64B is an im2col::w mode
// but not one for 16U6. Rank-3 16U6 map (globalDim[0] 128, strides 96 / 768, channelsPerPixel 128 = 96 bytes):
// 128B and 128B_ATOM_32B accepted; 64B breaks swizzle_u6_modes (and the inner box: 96 > 64 bytes).
// Kills tensormap.cpp:301 'p.swizzle == Swizzle::B128_ATOM_32B' -> 'p.swizzle < Swizzle::B128_ATOM_32B'.
TEST(MutationHoles, U6Im2colWideSwizzleModes) {
  auto p = im2col_map(EncodeKind::im2col_wide, TensorDataType::T16U6_ALIGN16B, 3, {128, 8, 2, 1, 1},
                         {96, 768, 0, 0}, 128, 8);
  for (Swizzle s : {Swizzle::B128, Swizzle::B128_ATOM_32B}) {
    p.swizzle = s;
    EXPECT_TRUE(validate_encode(p).must_accept()) << to_string(s);
  }
  p.swizzle = Swizzle::B64;
  EXPECT_EQ(rules_of(validate_encode(p).violations),
            (std::set<std::string>{"swizzle_u6_modes", "im2col_wide_inner_box"}));
}

// tensormap.hpp: 'Swizzle span in bytes (32, 64, 128; 96 for B96; 0 for NONE)'; NOTES.md: 'swizzle span
// (32/64/128 B; all 128B_* modes: 128)'. Kills tensormap.cpp:164 (the NONE case deleted: NONE -> 128).
TEST(MutationHoles, SwizzleSpanPerMode) {
  const std::vector<std::pair<Swizzle, unsigned>> want = {
      {Swizzle::NONE, 0},          {Swizzle::B32, 32},   {Swizzle::B64, 64},
      {Swizzle::B128, 128},        {Swizzle::B128_ATOM_32B, 128}, {Swizzle::B128_ATOM_32B_FLIP_8B, 128},
      {Swizzle::B128_ATOM_64B, 128}, {Swizzle::B96, 96}};
  for (const auto& [s, n] : want) EXPECT_EQ(swizzle_span(s), n) << to_string(s);
}

// cuda.h, cuTensorMapEncodeIm2colWide: 'When interleave is CU_TENSOR_MAP_INTERLEAVE_NONE, the bounding box inner
// dimension (channelsPerPixel * element size) must be less than or equal to the swizzle size.' A UINT16 map with
// 128 channels (256 bytes) and swizzle 128B breaks it without interleave; with interleave 16B the rule does not
// apply. Kills tensormap.cpp:284 (the 'interleave NONE and a swizzle span' condition deleted).
TEST(MutationHoles, Im2colWideInnerBoxOnlyWithoutInterleave) {
  auto p = im2col_map(EncodeKind::im2col_wide, TensorDataType::UINT16, 3, {128, 8, 2, 1, 1}, {256, 2048, 0, 0},
                         128, 8);
  p.swizzle = Swizzle::B128;
  EXPECT_EQ(rules_of(validate_encode(p).violations).count("im2col_wide_inner_box"), 1u);
  p.interleave = Interleave::B16;
  EXPECT_EQ(rules_of(validate_encode(p).violations).count("im2col_wide_inner_box"), 0u);
}

// RuleViolation::detail holds 'the offending values' (tensormap.hpp); ptxcts-ref prints it (README:
// '[boxDim[0] * elementSize = 7 * 16 bits]'). cuda.h: 16U4_ALIGN8B needs globalDim[0] a multiple of 2.
// Kills tensormap.cpp:222 and tensormap.cpp:242 (the details read dims[-1] / box[-1]).
TEST(MutationHoles, ViolationDetailsNameDim0AndBox0) {
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

// cuda.h: 'tensorRank must be non-zero and less than or equal to ... 5'. A rank-6 map whose five dimensions are
// otherwise valid (FLOAT32 64 x 32 x 2 x 2 x 2, dense strides, box 32 x 8 x 1 x 1 x 1) breaks that rule and no
// other: the validator reads no sixth dimension. Kills tensormap.cpp:205 'p.rank > 5 ? 5' -> 'p.rank == 5 ? 5'.
TEST(MutationHoles, OversizedRankBreaksOnlyTheRankRule) {
  auto p = tile_map(TensorDataType::FLOAT32, {64, 32, 2, 2, 2}, {32, 8, 1, 1, 1});
  EXPECT_TRUE(validate_encode(p).must_accept());
  p.rank = 6;
  const auto v = validate_encode(p);
  EXPECT_EQ(rules_of(v.violations), std::set<std::string>{"rank_range"});
  EXPECT_TRUE(v.open.empty());
}

// ---- seed 4 (held out, results/selftest/model-mutation-seed4.json) -------------------------------------------------

// cuda.h: 'globalAddress ... must be 32 byte aligned when interleave is CU_TENSOR_MAP_INTERLEAVE_32B' -- only
// then: a tiled map at an address 16 bytes past a 32-byte boundary without interleave is legal.
// Kills tensormap.cpp:209 (the 'interleave == B32' condition deleted).
TEST(MutationHoles, Align32OnlyWithInterleave32B) {
  auto m = tile_map(TensorDataType::FLOAT32, {64, 4}, {16, 1});
  m.global_address = 1024 + 16;
  const EncodeVerdict v = validate_encode(m);
  EXPECT_TRUE(v.must_accept()) << (v.violations.empty() ? "" : v.violations[0].rule);
  EXPECT_EQ(rules_of(v.violations).count("global_address_align32_interleave"), 0u);
}
