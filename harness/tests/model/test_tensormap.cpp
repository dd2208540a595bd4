// The encode validator: one mutation of a valid parameter set per documented rule, each expected to be
// named; boundary values on the accepted side expected to pass.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <set>

#include "ptxcts/ref/tensormap.hpp"

using namespace ptxcts::ref;

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

std::set<std::string> rules_of(const std::vector<RuleViolation>& v) {
  std::set<std::string> s;
  for (const auto& r : v) s.insert(r.rule);
  return s;
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
