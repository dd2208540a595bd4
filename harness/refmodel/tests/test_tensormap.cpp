// The encode validator: one mutation of a valid parameter set per documented rule, each expected to be
// named; boundary values on the accepted side expected to pass.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ptxcts/ref/tensormap.hpp"
#include "model_helpers.hpp"
#include "tensor_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;

namespace {

// A tiled map of `rank` dimensions with dense strides (dims and box padded with 1 past the rank).
TensorMapParams tiled_of(TensorDataType t, unsigned rank, std::array<std::uint64_t, 5> dims,
                         std::array<std::uint32_t, 5> box) {
  TensorMapParams p;
  p.kind = EncodeKind::tiled;
  p.dtype = t;
  p.rank = rank;
  p.dims = dims;
  p.strides = dense_strides(t, rank, dims);
  p.box = box;
  return p;
}
// FLOAT32, 64 x 32, row stride 256 B (dense), box 32 x 8 (inner 128 B): valid for every rule.
TensorMapParams tiled() { return tiled_of(TensorDataType::FLOAT32, 2, {64, 32, 1, 1, 1}, {32, 8, 1, 1, 1}); }
// 3D FLOAT16 interleaved-capable base: dims 16 x 8 x 4, strides 32, 256.
TensorMapParams tiled3() { return tiled_of(TensorDataType::FLOAT16, 3, {16, 8, 4, 1, 1}, {16, 8, 4, 1, 1}); }
// 16U4_ALIGN16B: globalDim[0] 128 (64 bytes), stride 64, boxDim[0] 128, address 32-aligned.
TensorMapParams packed() {
  return tiled_of(TensorDataType::T16U4_ALIGN16B, 2, {128, 4, 1, 1, 1}, {128, 4, 1, 1, 1});
}
// im2col NHWC 4D UINT8: C 16, W 8, H 8, N 2; corners {-1,-1}/{0,0}; 16 channels x 32 pixels.
TensorMapParams im2col4() {
  TensorMapParams p;
  p.kind = EncodeKind::im2col;
  p.dtype = TensorDataType::UINT8;
  p.rank = 4;
  p.dims = {16, 8, 8, 2, 1};
  p.strides = {16, 128, 1024, 0};
  p.lower_corner = {-1, -1, 0};
  p.upper_corner = {0, 0, 0};
  p.channels_per_pixel = 16;
  p.pixels_per_column = 32;
  return p;
}
TensorMapParams wide() {
  TensorMapParams p = im2col4();
  p.kind = EncodeKind::im2col_wide;
  p.swizzle = Swizzle::B64;
  p.lower_corner = {-2, 0, 0};
  p.upper_corner = {1, 0, 0};
  return p;
}

struct Case {
  const char* what;
  std::function<TensorMapParams()> make;
  const char* rule;  // nullptr: must be accepted
  unsigned cc = 0;
};

}  // namespace

TEST(TensorMapValidate, BaselinesAreAccepted) {
  for (const auto& p : {tiled(), tiled3(), packed(), im2col4(), wide()}) {
    const EncodeVerdict v = validate_encode(p, 100);
    EXPECT_TRUE(v.must_accept()) << to_string(p.kind) << ": " << (v.violations.empty() ? "" : v.violations[0].rule);
  }
}

TEST(TensorMapValidate, EachRuleNamed) {
  const std::vector<Case> cases = {
      {"rank 0", [] { auto p = tiled(); p.rank = 0; return p; }, "rank_range"},
      {"rank 6", [] { auto p = tiled(); p.rank = 6; return p; }, "rank_range"},
      {"rank 5", [] { auto p = tiled3(); p.rank = 5; p.strides = {32, 256, 1024, 1024}; return p; }, nullptr},
      {"interleave rank 2", [] { auto p = tiled(); p.interleave = Interleave::B16; return p; }, "rank_interleave"},
      {"address 8", [] { auto p = tiled(); p.global_address = 8; return p; }, "global_address_align16"},
      {"interleave 32B address 16",
       [] { auto p = tiled3(); p.interleave = Interleave::B32; p.swizzle = Swizzle::B32; p.global_address = 16; return p; },
       "global_address_align32_interleave"},
      {"packed address 16", [] { auto p = packed(); p.global_address = 16; return p; }, "global_address_align32_packed"},
      {"packed address 32", [] { auto p = packed(); p.global_address = 32; return p; }, nullptr},
      {"dim 0", [] { auto p = tiled(); p.dims[1] = 0; return p; }, "global_dim_range"},
      {"dim 2^32+1", [] { auto p = tiled(); p.dims[1] = (1ull << 32) + 1; return p; }, "global_dim_range"},
      {"packed dim0 64", [] { auto p = packed(); p.dims[0] = 64; return p; }, "global_dim0_packed16b"},
      {"u4 align8 dim0 33",
       [] { auto p = tiled(); p.dtype = TensorDataType::T16U4_ALIGN8B; p.dims[0] = 33; p.box[0] = 32; return p; },
       "global_dim0_u4_align8b"},
      {"stride 264", [] { auto p = tiled(); p.strides[0] = 264; return p; }, "global_stride_multiple16"},
      {"stride 2^40", [] { auto p = tiled(); p.strides[0] = 1ull << 40; return p; }, "global_stride_below_2_40"},
      {"stride 2^40-16", [] { auto p = tiled(); p.strides[0] = (1ull << 40) - 16; return p; }, nullptr},
      {"interleave 32B stride 48",
       [] { auto p = tiled3(); p.interleave = Interleave::B32; p.swizzle = Swizzle::B32; p.strides = {48, 384}; return p; },
       "global_stride_multiple32_interleave"},
      {"packed stride 80", [] { auto p = packed(); p.strides[0] = 80; return p; }, "global_stride_multiple32_packed"},
      {"box 0", [] { auto p = tiled(); p.box[1] = 0; return p; }, "box_dim_range"},
      {"box 257", [] { auto p = tiled(); p.box[1] = 257; return p; }, "box_dim_range"},
      {"box 256", [] { auto p = tiled(); p.box[1] = 256; return p; }, nullptr},
      {"box inner 8 bytes", [] { auto p = tiled(); p.box[0] = 2; return p; }, "box_inner_multiple16"},
      {"box inner 8 bytes interleaved",
       [] { auto p = tiled3(); p.interleave = Interleave::B16; p.box[0] = 4; return p; }, nullptr},
      {"packed box0 64", [] { auto p = packed(); p.box[0] = 64; return p; }, "box_dim0_packed16b"},
      {"element stride 9", [] { auto p = tiled(); p.element_strides[1] = 9; return p; }, "element_strides_range"},
      {"element stride 0", [] { auto p = tiled(); p.element_strides[1] = 0; return p; }, "element_strides_range"},
      {"element stride 8", [] { auto p = tiled(); p.element_strides[1] = 8; return p; }, nullptr},
      {"swizzle 64B inner 128", [] { auto p = tiled(); p.swizzle = Swizzle::B64; return p; }, "swizzle_inner_box"},
      {"swizzle 128B inner 128", [] { auto p = tiled(); p.swizzle = Swizzle::B128; return p; }, nullptr},
      {"swizzle 32B inner 32", [] { auto p = tiled(); p.swizzle = Swizzle::B32; p.box[0] = 8; return p; }, nullptr},
      {"swizzle atom64 inner 256",
       [] { auto p = tiled(); p.swizzle = Swizzle::B128_ATOM_64B; p.box[0] = 64; return p; }, "swizzle_inner_box"},
      {"u6 interleave",
       [] { auto p = packed(); p.dtype = TensorDataType::T16U6_ALIGN16B; p.rank = 3; p.dims = {128, 4, 2, 1, 1};
            p.strides = {96, 384}; p.box = {128, 4, 2, 1, 1}; p.interleave = Interleave::B16; return p; },
       "u6_no_interleave"},
      {"interleave 32B swizzle 64B",
       [] { auto p = tiled3(); p.interleave = Interleave::B32; p.swizzle = Swizzle::B64; return p; },
       "interleave32_swizzle32"},
      {"u6 swizzle 64B",
       [] { auto p = packed(); p.dtype = TensorDataType::T16U6_ALIGN16B; p.strides[0] = 96; p.swizzle = Swizzle::B64; return p; },
       "swizzle_u6_modes"},
      {"u6 swizzle atom64",
       [] { auto p = packed(); p.dtype = TensorDataType::T16U6_ALIGN16B; p.strides[0] = 96; p.swizzle = Swizzle::B128_ATOM_64B; return p; },
       nullptr},
      {"u4 16B swizzle atom64", [] { auto p = packed(); p.swizzle = Swizzle::B128_ATOM_64B; return p; },
       "swizzle_u4_16b_modes"},
      {"u4 16B swizzle atom32", [] { auto p = packed(); p.swizzle = Swizzle::B128_ATOM_32B; return p; }, nullptr},
      {"swizzle 96B", [] { auto p = tiled(); p.swizzle = Swizzle::B96; p.box[0] = 16; return p; }, "swizzle_enum"},
      {"nan fill uint32",
       [] { auto p = tiled(); p.dtype = TensorDataType::UINT32; p.oob_fill = OobFill::NAN_REQUEST_ZERO_FMA; return p; },
       "oob_nan_float_only"},
      {"nan fill packed", [] { auto p = packed(); p.oob_fill = OobFill::NAN_REQUEST_ZERO_FMA; return p; },
       "oob_nan_float_only"},
      {"nan fill bf16",
       [] { auto p = tiled(); p.dtype = TensorDataType::BFLOAT16; p.oob_fill = OobFill::NAN_REQUEST_ZERO_FMA; return p; },
       nullptr},
      {"im2col rank 2", [] { auto p = im2col4(); p.rank = 2; return p; }, "rank_im2col"},
      {"im2col 4D corner 128", [] { auto p = im2col4(); p.upper_corner[1] = 128; return p; }, "im2col_corner_range"},
      {"im2col 4D corner -128", [] { auto p = im2col4(); p.lower_corner[1] = -128; return p; }, nullptr},
      {"im2col 5D corner -17",
       [] { auto p = im2col4(); p.rank = 5; p.dims = {16, 8, 8, 4, 2}; p.strides = {16, 128, 1024, 4096};
            p.lower_corner = {-17, 0, 0}; return p; },
       "im2col_corner_range"},
      {"im2col 3D corner -32768",
       [] { auto p = im2col4(); p.rank = 3; p.dims = {16, 8, 2, 1, 1}; p.strides = {16, 128, 0, 0};
            p.lower_corner = {-32768, 0, 0}; return p; },
       nullptr},
      {"im2col zero area", [] { auto p = im2col4(); p.lower_corner = {0, 0, 0}; p.upper_corner = {-8, 0, 0}; return p; },
       "im2col_box_nonzero_area"},
      {"channels 257", [] { auto p = im2col4(); p.channels_per_pixel = 257; return p; }, "channels_per_pixel_range"},
      {"pixels 1025", [] { auto p = im2col4(); p.pixels_per_column = 1025; return p; }, "pixels_per_column_range"},
      {"pixels 1024", [] { auto p = im2col4(); p.pixels_per_column = 1024; return p; }, nullptr},
      {"packed channels 64",
       [] { auto p = im2col4(); p.dtype = TensorDataType::T16U4_ALIGN16B; p.dims[0] = 128; p.strides = {64, 512, 4096};
            p.channels_per_pixel = 64; return p; },
       "channels_per_pixel_packed16b"},
      {"wide swizzle none", [] { auto p = wide(); p.swizzle = Swizzle::NONE; return p; }, "im2col_wide_swizzle_modes"},
      {"wide swizzle 32B", [] { auto p = wide(); p.swizzle = Swizzle::B32; return p; }, "im2col_wide_swizzle_modes"},
      {"wide inner 128 > 64", [] { auto p = wide(); p.channels_per_pixel = 128; p.dims[0] = 128;
            p.strides = {128, 1024, 8192}; return p; }, "im2col_wide_inner_box"},
      {"wide corner 32768", [] { auto p = wide(); p.upper_corner[0] = 32768; return p; }, "im2col_wide_corner_range"},
      {"wide on cc 90", [] { return wide(); }, "im2col_wide_cc100", 90},
      {"tensor map on cc 80", [] { return tiled(); }, "tensor_map_cc90", 80},
  };
  for (const Case& c : cases) {
    const EncodeVerdict v = validate_encode(c.make(), c.cc);
    const auto names = rules_of(v.violations);
    if (c.rule) {
      EXPECT_TRUE(names.count(c.rule)) << c.what << ": expected rule " << c.rule << ", got "
                                       << (names.empty() ? std::string("none") : *names.begin());
    } else {
      EXPECT_TRUE(names.empty()) << c.what << ": expected accept, got " << *names.begin();
    }
    for (const auto& r : v.violations) {
      EXPECT_NE(r.sentence, "(unlisted rule)") << r.rule;
      EXPECT_FALSE(r.detail.empty()) << r.rule;
    }
  }
}

TEST(TensorMapValidate, OpenPointsAreNotRejections) {
  auto p = tiled();
  p.strides[0] = 128;  // rows overlap: 64 FLOAT32 = 256 B per row > stride 128
  const EncodeVerdict v = validate_encode(p);
  EXPECT_FALSE(v.must_reject());
  EXPECT_FALSE(v.must_accept());
  ASSERT_EQ(v.open.size(), 1u);
  EXPECT_EQ(v.open[0].rule, "global_stride_covers_previous");
}

TEST(TensorMapValidate, NamesRoundTrip) {
  for (int i = 0; i <= static_cast<int>(TensorDataType::T16U6_ALIGN16B); ++i) {
    const auto t = static_cast<TensorDataType>(i);
    EXPECT_EQ(parse_tensor_data_type(to_string(t)), t);
  }
  EXPECT_EQ(std::string(to_string(TensorDataType::T16U4_ALIGN8B)), "16U4_ALIGN8B");
  EXPECT_EQ(parse_swizzle("128B_ATOM_32B_FLIP_8B"), Swizzle::B128_ATOM_32B_FLIP_8B);
  EXPECT_EQ(parse_interleave("32B"), Interleave::B32);
  EXPECT_FALSE(parse_swizzle("256B").has_value());
  EXPECT_EQ(element_bits(TensorDataType::T16U6_ALIGN16B), 6u);
  // Dense strides: UINT16 10 x 3 x 2 -> 20, 60.
  const auto s = dense_strides(TensorDataType::UINT16, 3, {10, 3, 2, 1, 1});
  EXPECT_EQ(s[0], 20u);
  EXPECT_EQ(s[1], 60u);
}

// tensormap.hpp: dense_strides gives 'stride[i-1] = bytes of one step along dimension i', i.e. cuda.h's
// 'globalStrides[0] = globalDim[0] * elementSizeInBytes(tensorDataType) + padding[0]; globalStrides[i] =
// globalStrides[i - 1] * (globalDim[i] + padding[i])' with no padding, in whole bytes: a row that ends inside a byte
// takes that byte. 16U4_ALIGN8B (4 bits): a row of 3 values is 12 bits -> 2 bytes; of 5 values 20 bits -> 3 bytes.
// 16U6_ALIGN16B (6 bits): 1 value -> 1 byte, 2 values (12 bits) -> 2 bytes. (Those dims break the packed types'
// globalDim[0] rules; dense_strides is defined for any dims, and the run tier's explorer builds such maps to be
// rejected.) The validator's open point global_stride_covers_previous reads the same rule (globalStrides[0] >=
// globalDim[0] * elementSize, in whole bytes): a dense map never raises it.
// Catches dense_strides' '(row_bits + 7) / 8' turned into '(row_bits + 1) / 8' (1, 2, 0 and 1 bytes).
TEST(TensorMapDenseStrides, RoundPartialBytesUp) {
  EXPECT_EQ(dense_strides(TensorDataType::T16U4_ALIGN8B, 2, {3, 2, 1, 1, 1})[0], 2u);
  EXPECT_EQ(dense_strides(TensorDataType::T16U4_ALIGN8B, 3, {5, 2, 4, 1, 1})[0], 3u);
  EXPECT_EQ(dense_strides(TensorDataType::T16U4_ALIGN8B, 3, {5, 2, 4, 1, 1})[1], 6u);  // 3 bytes * globalDim[1] 2
  EXPECT_EQ(dense_strides(TensorDataType::T16U6_ALIGN16B, 2, {1, 2, 1, 1, 1})[0], 1u);
  EXPECT_EQ(dense_strides(TensorDataType::T16U6_ALIGN16B, 2, {2, 2, 1, 1, 1})[0], 2u);
  for (const std::uint64_t d0 : {1u, 2u, 3u, 5u, 7u}) {
    const auto m = dense_map(EncodeKind::tiled, TensorDataType::T16U4_ALIGN8B, 2, {d0, 2, 1, 1, 1});
    EXPECT_EQ(rules_of(validate_encode(m).open).count("global_stride_covers_previous"), 0u) << "globalDim[0] " << d0;
  }
}

// cuda.h: 'globalStrides array, which specifies tensor stride of each of the lower tensorRank - 1 dimensions'. A
// rank-r tensor has r - 1 strides; dense_strides fills those and leaves the rest of its 4 entries 0
// (value-initialised, as a hand-built map leaves them), so that a whole-array comparison of strides (the run tier's
// shrinker: 'm0.strides != dense(m0).strides', explore_tensor.cpp) sees a dense map as dense. UINT8 32 x 4: {32, 0,
// 0, 0}; UINT16 8 x 3 x 2: {16, 48, 0, 0}; FLOAT32 4 x 2 x 2 x 2: {16, 32, 64, 0}; rank 5 UINT8 16 x 2 x 2 x 2 x 2:
// {16, 32, 64, 128} (every entry used).
// Catches dense_strides' loop bound 'i < rank && i < 5' turned into 'i <= rank && i < 5' (a stride for dimension
// rank).
TEST(TensorMapDenseStrides, OnlyForTheLowerRankMinusOneDims) {
  using S = std::array<std::uint64_t, 4>;
  EXPECT_EQ(dense_strides(TensorDataType::UINT8, 2, {32, 4, 1, 1, 1}), (S{32, 0, 0, 0}));
  EXPECT_EQ(dense_strides(TensorDataType::UINT16, 3, {8, 3, 2, 1, 1}), (S{16, 48, 0, 0}));
  EXPECT_EQ(dense_strides(TensorDataType::FLOAT32, 4, {4, 2, 2, 2, 1}), (S{16, 32, 64, 0}));
  EXPECT_EQ(dense_strides(TensorDataType::UINT8, 5, {16, 2, 2, 2, 2}), (S{16, 32, 64, 128}));
  EXPECT_EQ(dense_strides(TensorDataType::UINT8, 1, {16, 1, 1, 1, 1}), (S{0, 0, 0, 0}));
}

// cuda.h, cuTensorMapEncodeIm2col: channelsPerPixel and pixelsPerColumn have upper bounds only; POLICIES.md (open
// points): 'channelsPerPixel / pixelsPerColumn of 0 -> EncodeVerdict::open (channels_per_pixel_zero,
// pixels_per_column_zero)'.
// Catches validate_encode's 'p.channels_per_pixel != 0' turned into '!= -1'.
TEST(TensorMapValidate, ZeroChannelsOrPixelsAreOpenPoints) {
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
// 'boxDim array ... must be non-zero'. A rank-6 map with boxDim[1] = 0 breaks both; the verdict lists every rule the
// parameter set breaks (tensormap.hpp), so the rank violation does not hide the box one.
// Catches validate_encode's rank clamp 'p.rank > 5 ? 5' turned into '? 1'.
TEST(TensorMapValidate, OversizedRankStillChecksEveryDimension) {
  auto p = map_of(EncodeKind::tiled, TensorDataType::FLOAT32, 6, {64, 32, 2, 2, 2}, {256, 8192, 16384, 32768});
  p.box = {32, 0, 1, 1, 1};
  const auto v = rules_of(validate_encode(p).violations);
  EXPECT_EQ(v.count("rank_range"), 1u);
  EXPECT_EQ(v.count("box_dim_range"), 1u);
}

// The enumerators' names as cuda.h spells them after CU_TENSOR_MAP_SWIZZLE_ / _INTERLEAVE_ / _L2_PROMOTION_ /
// _FLOAT_OOB_FILL_ (what ptxcts-ref reads and the run tier writes).
// Catches a swap in tensormap.cpp's name tables ("64B" and "128B" of the swizzle names, for one).
TEST(TensorMapNames, EnumeratorsAsCudaH) {
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

// cuda.h: tensor maps need compute capability 9.0; cuTensorMapEncodeIm2colWide needs 10.0. At cc 90 a tiled and an
// im2col map are accepted, an im2col::w map is rejected for im2col_wide_cc100 only.
// Catches validate_encode's 'p.kind == EncodeKind::im2col_wide' turned into '<='.
TEST(TensorMapValidate, Im2colWideNeedsCc100Only) {
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

// cuda.h, cuTensorMapEncodeIm2col: 'channelsPerPixel ... must be less than or equal to 256'. A UINT8 rank-4 map
// (dims 16 x 8 x 8 x 2, dense strides 16 / 128 / 1024, corners within [-128, 127], no swizzle) breaks no rule with
// 256 channels; with 257 it breaks that one only.
// Catches validate_encode's '<= 256' turned into '<= (256-1)'.
TEST(TensorMapValidate, ChannelsPerPixelUpTo256) {
  auto p = im2col_map(EncodeKind::im2col, TensorDataType::UINT8, 4, {16, 8, 8, 2, 1}, {16, 128, 1024, 0}, 256, 32);
  p.lower_corner = {-1, -1, 0};
  EXPECT_TRUE(validate_encode(p).must_accept());
  p.channels_per_pixel = 257;
  EXPECT_EQ(rules_of(validate_encode(p).violations), std::set<std::string>{"channels_per_pixel_range"});
}

// cuda.h, cuTensorMapEncodeIm2col: 'when tensorDataType is ..._16U6_ALIGN16B or ..._16U4_ALIGN16B, channelsPerPixel
// must be 128'. Rank-3 maps, globalDim[0] = 128 (a multiple of 128), strides multiples of 32 (16U4: 128 x 4 bit = 64
// B, then 64 x 8 = 512; 16U6: 128 x 6 bit = 96 B, then 96 x 8 = 768), swizzle NONE (allowed for both types outside
// im2col::w): 128 channels accepted, 64 break that rule only.
// Catches validate_encode's '== 128' turned into '== (128+1)'.
TEST(TensorMapValidate, PackedTypesNeed128ChannelsPerPixel) {
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
// (POLICIES.md open points), mode W128 neither.
// Catches validate_encode's '== Im2colWideMode::W128' turned into '>'.
TEST(TensorMapValidate, W128IgnoresPixelsPerColumn) {
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
// but not one for 16U6. Rank-3 16U6 map (globalDim[0] 128, strides 96 / 768, channelsPerPixel 128 = 96 bytes): 128B
// and 128B_ATOM_32B accepted; 64B breaks swizzle_u6_modes (and the inner box: 96 > 64 bytes).
// Catches validate_encode's 'p.swizzle == Swizzle::B128_ATOM_32B' turned into 'p.swizzle < Swizzle::B128_ATOM_32B'.
TEST(TensorMapValidate, U6Im2colWideSwizzleModes) {
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

// tensormap.hpp: 'Swizzle span in bytes (32, 64, 128; 96 for B96; 0 for NONE)'; NOTES.md: 'swizzle span (32/64/128
// B; all 128B_* modes: 128)'.
// Catches swizzle_span without its NONE case (NONE -> 128).
TEST(TensorMapNames, SwizzleSpanPerMode) {
  const std::vector<std::pair<Swizzle, unsigned>> want = {
      {Swizzle::NONE, 0},          {Swizzle::B32, 32},   {Swizzle::B64, 64},
      {Swizzle::B128, 128},        {Swizzle::B128_ATOM_32B, 128}, {Swizzle::B128_ATOM_32B_FLIP_8B, 128},
      {Swizzle::B128_ATOM_64B, 128}, {Swizzle::B96, 96}};
  for (const auto& [s, n] : want) EXPECT_EQ(swizzle_span(s), n) << to_string(s);
}

// cuda.h, cuTensorMapEncodeIm2colWide: 'When interleave is CU_TENSOR_MAP_INTERLEAVE_NONE, the bounding box inner
// dimension (channelsPerPixel * element size) must be less than or equal to the swizzle size.' A UINT16 map with 128
// channels (256 bytes) and swizzle 128B breaks it without interleave; with interleave 16B the rule does not apply.
// Catches validate_encode's im2col_wide_inner_box check without its 'interleave NONE and a swizzle span' condition.
TEST(TensorMapValidate, Im2colWideInnerBoxOnlyWithoutInterleave) {
  auto p = im2col_map(EncodeKind::im2col_wide, TensorDataType::UINT16, 3, {128, 8, 2, 1, 1}, {256, 2048, 0, 0},
                         128, 8);
  p.swizzle = Swizzle::B128;
  EXPECT_EQ(rules_of(validate_encode(p).violations).count("im2col_wide_inner_box"), 1u);
  p.interleave = Interleave::B16;
  EXPECT_EQ(rules_of(validate_encode(p).violations).count("im2col_wide_inner_box"), 0u);
}

// cuda.h: 'tensorRank must be non-zero and less than or equal to ... 5'. A rank-6 map whose five dimensions are
// otherwise valid (FLOAT32 64 x 32 x 2 x 2 x 2, dense strides, box 32 x 8 x 1 x 1 x 1) breaks that rule and no
// other: the validator reads no sixth dimension.
// Catches validate_encode's rank clamp 'p.rank > 5 ? 5' turned into 'p.rank == 5 ? 5'.
TEST(TensorMapValidate, OversizedRankBreaksOnlyTheRankRule) {
  auto p = tile_map(TensorDataType::FLOAT32, {64, 32, 2, 2, 2}, {32, 8, 1, 1, 1});
  EXPECT_TRUE(validate_encode(p).must_accept());
  p.rank = 6;
  const auto v = validate_encode(p);
  EXPECT_EQ(rules_of(v.violations), std::set<std::string>{"rank_range"});
  EXPECT_TRUE(v.open.empty());
}

// cuda.h: 'globalAddress ... must be 32 byte aligned when interleave is CU_TENSOR_MAP_INTERLEAVE_32B' -- only then:
// a tiled map at an address 16 bytes past a 32-byte boundary without interleave is legal.
// Catches validate_encode's global_address_align32_interleave check without its 'interleave == B32' condition.
TEST(TensorMapValidate, Align32OnlyWithInterleave32B) {
  auto m = tile_map(TensorDataType::FLOAT32, {64, 4}, {16, 1});
  m.global_address = 1024 + 16;
  const EncodeVerdict v = validate_encode(m);
  EXPECT_TRUE(v.must_accept()) << (v.violations.empty() ? "" : v.violations[0].rule);
  EXPECT_EQ(rules_of(v.violations).count("global_address_align32_interleave"), 0u);
}
