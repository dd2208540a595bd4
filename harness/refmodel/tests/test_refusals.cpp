// Every refusal of the reference model, site by site (among the mutants ./ptxcts selftest-model plants, the
// commonest survivors were violation details and messages that no test read, each found one sample at a time).
//
// - Rules: every c.rule / c.open call of validate_encode (tensormap.cpp) is broken by a map that breaks nothing else.
//   validate_encode must give exactly the listed "rule: detail" lines, in its order. The nearest maps that keep the
//   rule must be accepted outright (the bound's other side), and the rule's sentence must name what it is about.
// - Refusals: every need(), throw and fail() of harness/refmodel/src is tripped by one call, and the message must
//   be exactly the listed one. Where the check has a bound, the call just inside it must not be refused.
// - EverySiteHasARow reads harness/refmodel/src (PTXCTS_REFMODEL_SRC), comments removed. Every such call must be
//   claimed by at least one row, and every row must claim a call. A new refusal without a row fails here, and so
//   does a row whose site is gone. A row claims a call by a fragment of one of its string literals (its message or
//   rule name), never of its condition: a changed condition is for the rows' calls to catch, not for the scan.
//   Five sites cannot be reached through the public functions; their rows say why instead of tripping them.
//
// Expected lines and messages are derived by hand from the format each site builds and the rule it enforces, never
// by running the model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model_helpers.hpp"
#include "ptxcts/ref/copy.hpp"
#include "ptxcts/ref/reduce.hpp"
#include "ptxcts/ref/tensor.hpp"
#include "ptxcts/ref/tensormap.hpp"
#include "tensor_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;
using T = TensorDataType;

namespace {

template <typename F>
TensorMapParams with(TensorMapParams m, F f) {
  f(m);
  return m;
}

TensorMapParams placed(TensorMapParams m) {
  m.global_address = 1u << 20;
  return m;
}

// Legal maps each row starts from (validate_encode accepts them outright: RuleRowBasesAreLegal).
TensorMapParams tiled1() { return placed(tile_map(T::UINT8, {64}, {16})); }
TensorMapParams tiled2() { return placed(tile_map(T::UINT8, {64, 4}, {16, 2})); }
TensorMapParams tiled3() { return placed(tile_map(T::UINT8, {64, 4, 4}, {16, 2, 2})); }
TensorMapParams tiled5() { return placed(tile_map(T::UINT8, {32, 2, 2, 2, 2}, {16, 1, 1, 1, 1})); }
TensorMapParams packed16(T t) { return placed(tile_map(t, {128, 2}, {128, 1})); }
TensorMapParams im2col(unsigned rank, T t = T::UINT8, std::uint64_t c = 16, std::uint32_t cpp = 16) {
  const std::array<std::uint64_t, 5> dims = rank == 3   ? std::array<std::uint64_t, 5>{c, 8, 2, 1, 1}
                                            : rank == 4 ? std::array<std::uint64_t, 5>{c, 8, 8, 2, 1}
                                                        : std::array<std::uint64_t, 5>{c, 8, 8, 4, 2};
  return placed(im2col_map(EncodeKind::im2col, t, rank, dims, dense_strides(t, rank, dims), cpp, 8));
}
TensorMapParams wide(T t = T::UINT8, std::uint32_t cpp = 64, Swizzle s = Swizzle::B64) {
  const std::array<std::uint64_t, 5> dims{t == T::UINT8 ? 64u : 128u, 8, 2, 1, 1};
  TensorMapParams m =
      placed(im2col_map(EncodeKind::im2col_wide, t, 3, dims, dense_strides(t, 3, dims), cpp, 8));
  m.swizzle = s;
  return m;
}

// ---------------------------------------------------------------------------------------------------------------
// validate_encode

struct RuleRow {
  std::string site;                     // the rule name (a literal) of the c.rule / c.open call, or another literal
  std::string subject;                  // what the rule's sentence must name
  TensorMapParams broken;               // breaks this rule and no other
  std::vector<std::string> violations;  // every "rule: detail" validate_encode gives for `broken`, in order
  std::vector<std::string> open;        // the same for its open points
  std::vector<TensorMapParams> kept;    // the nearest maps that keep the rule: accepted outright
  unsigned cc = 0;                      // the compute capability both are validated for (0: unknown)
  PolicySet policies{};                 // the encode rules' alternatives both are validated under
};

PolicySet policy(const char* name, const char* value) {
  PolicySet p;
  EXPECT_TRUE(p.set(name, value)) << name << "=" << value;
  return p;
}

std::vector<RuleRow> rule_rows() {
  using S = Swizzle;
  const TensorMapParams t3 = tiled3();
  const TensorMapParams i4 = im2col(4);
  const TensorMapParams w = wide();
  const TensorMapParams p16 = packed16(T::T16U4_ALIGN16B);
  const TensorMapParams il32 = with(t3, [](auto& m) {
    m.interleave = Interleave::B32;
    m.swizzle = S::B32;
    m.global_address = 32;
  });
  const TensorMapParams u6_3d = placed(tile_map(T::T16U6_ALIGN16B, {128, 2, 2}, {128, 1, 1}));
  return {
      {"\"tensor_map_cc90\"", "compute capability 9.0", t3, {"tensor_map_cc90: compute capability 80"}, {}, {}, 80},
      {"\"tensor_map_cc90\"", "compute capability 9.0", t3, {}, {}, {t3}, 90},
      {"\"im2col_wide_cc100\"", "compute capability 10.0", w, {"im2col_wide_cc100: compute capability 90"}, {}, {},
       90},
      {"\"im2col_wide_cc100\"", "compute capability 10.0", w, {}, {}, {w}, 100},
      {"\"rank_im2col\"", "tensorRank", with(i4, [](auto& m) { m.rank = 2; }), {"rank_im2col: tensorRank 2"}, {},
       {im2col(3), im2col(5)}},
      {"\"rank_im2col\"", "tensorRank", with(im2col(5), [](auto& m) { m.rank = 6; }), {"rank_im2col: tensorRank 6"},
       {}, {}},
      {"\"rank_range\"", "tensorRank", with(t3, [](auto& m) { m.rank = 0; }), {"rank_range: tensorRank 0"}, {},
       {tiled1(), tiled5()}},
      {"\"rank_range\"", "tensorRank", with(tiled5(), [](auto& m) { m.rank = 6; }), {"rank_range: tensorRank 6"}, {},
       {}},
      {"\"rank_interleave\"", "tensorRank", with(tiled2(), [](auto& m) { m.interleave = Interleave::B16; }),
       {"rank_interleave: tensorRank 2 with interleave 16B"}, {},
       {with(t3, [](auto& m) { m.interleave = Interleave::B16; })}},
      {"\"global_address_align16\"", "globalAddress", with(t3, [](auto& m) { m.global_address = 8; }),
       {"global_address_align16: globalAddress 8"}, {}, {with(t3, [](auto& m) { m.global_address = 16; })}},
      {"\"global_address_align32_interleave\"", "globalAddress", with(il32, [](auto& m) { m.global_address = 16; }),
       {"global_address_align32_interleave: globalAddress 16"}, {}, {il32}},
      {"\"global_address_align32_packed\"", "globalAddress", with(p16, [](auto& m) { m.global_address = 16; }),
       {"global_address_align32_packed: globalAddress 16"}, {},
       {with(p16, [](auto& m) { m.global_address = 32; }),
        with(packed16(T::T16U6_ALIGN16B), [](auto& m) { m.global_address = 32; })}},
      {"\"global_address_align32_packed\"", "globalAddress",
       with(packed16(T::T16U6_ALIGN16B), [](auto& m) { m.global_address = 48; }),
       {"global_address_align32_packed: globalAddress 48"}, {}, {}},
      {"\"global_dim_range\"", "globalDim", with(t3, [](auto& m) { m.dims[1] = 0; }),
       {"global_dim_range: globalDim[1] = 0"}, {},
       {with(t3, [](auto& m) { m.dims[1] = 1; }), with(t3, [](auto& m) { m.dims[2] = std::uint64_t{1} << 32; })}},
      {"\"global_dim_range\"", "globalDim", with(t3, [](auto& m) { m.dims[2] = (std::uint64_t{1} << 32) + 1; }),
       {"global_dim_range: globalDim[2] = 4294967297"}, {}, {}},
      {"\"global_dim0_packed16b\"", "globalDim[0]", with(p16, [](auto& m) { m.dims[0] = 64; }),
       {"global_dim0_packed16b: globalDim[0] = 64"}, {}, {p16}},
      {"\"global_dim0_u4_align8b\"", "globalDim[0]", placed(tile_map(T::T16U4_ALIGN8B, {63}, {32})),
       {"global_dim0_u4_align8b: globalDim[0] = 63"}, {}, {placed(tile_map(T::T16U4_ALIGN8B, {64}, {32}))}},
      {"\"global_stride_multiple16\"", "globalStrides", with(t3, [](auto& m) { m.strides = {72, 288}; }),
       {"global_stride_multiple16: globalStrides[0] = 72"}, {}, {with(t3, [](auto& m) { m.strides = {80, 320}; })}},
      {"\"global_stride_below_2_40\"", "globalStrides",
       with(tiled2(), [](auto& m) { m.strides[0] = std::uint64_t{1} << 40; }),
       {"global_stride_below_2_40: globalStrides[0] = 1099511627776"}, {},
       {with(tiled2(), [](auto& m) { m.strides[0] = (std::uint64_t{1} << 40) - 16; })}},
      {"\"global_stride_multiple32_interleave\"", "the strides must be a multiple of 32",
       with(il32, [](auto& m) { m.strides = {80, 320}; }),
       {"global_stride_multiple32_interleave: globalStrides[0] = 80"}, {},
       {with(il32, [](auto& m) { m.strides = {96, 384}; })}},
      {"\"global_stride_multiple32_packed\"", "the strides must be a multiple of 32",
       with(p16, [](auto& m) { m.strides[0] = 80; }), {"global_stride_multiple32_packed: globalStrides[0] = 80"}, {},
       {with(p16, [](auto& m) { m.strides[0] = 96; })}},
      {"\"global_stride_covers_previous\"", "globalStrides[i] >= globalStrides[i-1] * globalDim[i]",
       with(t3, [](auto& m) { m.strides = {48, 192}; }), {},
       {"global_stride_covers_previous: globalStrides[0] = 48 < 64"}, {t3}},
      {"\"global_stride_covers_previous\"", "globalStrides[0] >= globalDim[0] * elementSize",
       with(t3, [](auto& m) { m.strides = {64, 240}; }), {},
       {"global_stride_covers_previous: globalStrides[1] = 240 < 256"}, {}},
      {"\"box_dim_range\"", "boxDim", with(t3, [](auto& m) { m.box[1] = 0; }), {"box_dim_range: boxDim[1] = 0"}, {},
       {with(t3, [](auto& m) { m.box[1] = 1; }), with(t3, [](auto& m) { m.box[2] = 256; })}},
      {"\"box_dim_range\"", "boxDim", with(t3, [](auto& m) { m.box[2] = 257; }), {"box_dim_range: boxDim[2] = 257"},
       {}, {}},
      {"\"box_inner_multiple16\"", "boxDim[0]", with(t3, [](auto& m) { m.box[0] = 8; }),
       {"box_inner_multiple16: boxDim[0] * elementSize = 8 * 8 bits"}, {},
       {with(t3, [](auto& m) { m.box[0] = 32; }), with(t3, [](auto& m) {
          m.box[0] = 8;
          m.interleave = Interleave::B16;
        })}},
      {"\"box_dim0_packed16b\"", "boxDim[0] must be 128", with(p16, [](auto& m) { m.box[0] = 256; }),
       {"box_dim0_packed16b: boxDim[0] = 256"}, {}, {p16}},
      {"\"pixelBoxLowerCorner\"", "pixelBoxLowerCorner", with(i4, [](auto& m) { m.lower_corner[1] = -129; }),
       {"im2col_corner_range: pixelBoxLowerCorner[1] = -129"}, {},
       {with(i4, [](auto& m) {
          m.lower_corner[1] = -128;
          m.upper_corner[0] = 127;
        })}},
      {"\"pixelBoxUpperCorner\"", "rank 4: two within [-128, 127]",
       with(i4, [](auto& m) { m.upper_corner[0] = 128; }), {"im2col_corner_range: pixelBoxUpperCorner[0] = 128"}, {},
       {}},
      {"\"pixelBoxLowerCorner\"", "rank 3: one signed offset within [-32768, 32767]",
       with(im2col(3), [](auto& m) { m.lower_corner[0] = -32769; }),
       {"im2col_corner_range: pixelBoxLowerCorner[0] = -32769"}, {},
       {with(im2col(3), [](auto& m) {
          m.lower_corner[0] = -32768;
          m.upper_corner[0] = 32767;
        })}},
      {"\"pixelBoxUpperCorner\"", "rank 5: three within [-16, 15]",
       with(im2col(5), [](auto& m) { m.upper_corner[2] = 16; }), {"im2col_corner_range: pixelBoxUpperCorner[2] = 16"},
       {},
       {with(im2col(5), [](auto& m) {
          m.upper_corner[2] = 15;
          m.lower_corner[2] = -16;
        })}},
      {"\"pixelBoxLowerCorner\"", "pixelBoxLowerCornerWidth",
       with(w, [](auto& m) { m.lower_corner[0] = -32769; }),
       {"im2col_wide_corner_range: pixelBoxLowerCorner[0] = -32769"}, {},
       {with(w, [](auto& m) {
          m.lower_corner[0] = -32768;
          m.upper_corner[0] = 32767;
        })}},
      {"\"pixelBoxUpperCorner\"", "[-32768, 32767]", with(w, [](auto& m) { m.upper_corner[0] = 32768; }),
       {"im2col_wide_corner_range: pixelBoxUpperCorner[0] = 32768"}, {}, {}},
      {"\"im2col_box_nonzero_area\"", "non-zero area", with(i4, [](auto& m) { m.upper_corner[0] = -8; }),
       {"im2col_box_nonzero_area: spatial dimension 1: globalDim + upper - lower = 0"}, {},
       {with(i4, [](auto& m) { m.upper_corner[0] = -7; }), with(i4, [](auto& m) { m.lower_corner[1] = 7; })}},
      {"\"im2col_box_nonzero_area\"", "non-zero area", with(i4, [](auto& m) { m.lower_corner[1] = 8; }),
       {"im2col_box_nonzero_area: spatial dimension 2: globalDim + upper - lower = 0"}, {}, {}},
      {"\"channels_per_pixel_range\"", "channelsPerPixel", with(i4, [](auto& m) { m.channels_per_pixel = 257; }),
       {"channels_per_pixel_range: channelsPerPixel = 257"}, {},
       {with(i4, [](auto& m) { m.channels_per_pixel = 256; })}},
      {"\"channels_per_pixel_zero\"", "channelsPerPixel of 0", with(i4, [](auto& m) { m.channels_per_pixel = 0; }),
       {}, {"channels_per_pixel_zero: channelsPerPixel = 0"}, {with(i4, [](auto& m) { m.channels_per_pixel = 1; })}},
      {"\"channels_per_pixel_packed16b\"", "channelsPerPixel must be 128", im2col(3, T::T16U4_ALIGN16B, 128, 64),
       {"channels_per_pixel_packed16b: channelsPerPixel = 64"}, {}, {im2col(3, T::T16U4_ALIGN16B, 128, 128)}},
      {"\"pixels_per_column_range\"", "pixelsPerColumn", with(i4, [](auto& m) { m.pixels_per_column = 1025; }),
       {"pixels_per_column_range: pixelsPerColumn = 1025"}, {},
       {with(i4, [](auto& m) { m.pixels_per_column = 1024; }), with(w, [](auto& m) {
          m.wide_mode = Im2colWideMode::W128;
          m.pixels_per_column = 1025;
        })}},
      {"\"pixels_per_column_zero\"", "pixelsPerColumn of 0", with(i4, [](auto& m) { m.pixels_per_column = 0; }), {},
       {"pixels_per_column_zero: pixelsPerColumn = 0"},
       {with(i4, [](auto& m) { m.pixels_per_column = 1; }), with(w, [](auto& m) {
          m.wide_mode = Im2colWideMode::W128;
          m.pixels_per_column = 0;
        })}},
      {"\"element_strides_range\"", "elementStrides", with(t3, [](auto& m) { m.element_strides[2] = 0; }),
       {"element_strides_range: elementStrides[2] = 0"}, {}, {with(t3, [](auto& m) { m.element_strides[1] = 8; })}},
      {"\"element_strides_range\"", "elementStrides", with(t3, [](auto& m) { m.element_strides[1] = 9; }),
       {"element_strides_range: elementStrides[1] = 9"}, {}, {}},
      {"\"swizzle_enum\"", "CUtensorMapSwizzle", with(t3, [](auto& m) { m.swizzle = S::B96; }),
       {"swizzle_enum: swizzle 96B"}, {}, {with(t3, [](auto& m) { m.swizzle = S::B32; })}},
      {"\"im2col_wide_swizzle_modes\"", "64B, 128B, 128B_ATOM_32B", with(w, [](auto& m) { m.swizzle = S::B32; }),
       {"im2col_wide_swizzle_modes: swizzle 32B",
        "im2col_wide_inner_box: channelsPerPixel * elementSize = 64 bytes, swizzle 32B"},
       {}, {w, wide(T::UINT8, 64, S::B128), wide(T::UINT8, 64, S::B128_ATOM_32B)}},
      {"\"im2col_wide_swizzle_modes\"", "64B, 128B, 128B_ATOM_32B", with(w, [](auto& m) { m.swizzle = S::NONE; }),
       {"im2col_wide_swizzle_modes: swizzle NONE"}, {}, {}},
      {"\"im2col_wide_inner_box\"", "channelsPerPixel * element size", wide(T::UINT8, 128),
       {"im2col_wide_inner_box: channelsPerPixel * elementSize = 128 bytes, swizzle 64B"}, {},
       {wide(T::UINT8, 128, S::B128)}},
      {"\"swizzle_inner_box\"", "the swizzle size", with(t3, [](auto& m) {
         m.box[0] = 64;
         m.swizzle = S::B32;
       }),
       {"swizzle_inner_box: inner box 64 bytes, swizzle 32B"}, {}, {with(t3, [](auto& m) {
         m.box[0] = 32;
         m.swizzle = S::B32;
       })}},
      {"\"u6_no_interleave\"", "16U6_ALIGN16B requires interleave", with(u6_3d, [](auto& m) {
         m.interleave = Interleave::B16;
       }),
       {"u6_no_interleave: interleave 16B"}, {}, {u6_3d}},
      {"\"interleave32_swizzle32\"", "swizzle must be CU_TENSOR_MAP_SWIZZLE_32B",
       with(il32, [](auto& m) { m.swizzle = S::NONE; }), {"interleave32_swizzle32: swizzle NONE"}, {}, {il32}},
      // interleave32_swizzle=any_swizzle: the rule is not applied (every swizzle kept)
      {"\"interleave32_swizzle32\"", "swizzle must be CU_TENSOR_MAP_SWIZZLE_32B", il32, {}, {},
       {il32, with(il32, [](auto& m) { m.swizzle = S::NONE; }), with(il32, [](auto& m) { m.swizzle = S::B128; })}, 0,
       policy("interleave32_swizzle", "any_swizzle")},
      // im2col_channel_bytes=multiple_16B: 15 one-byte channels are refused, 16 and 32 kept
      {"\"im2col_channel_bytes_multiple16\"", "multiple of 16 bytes",
       with(i4, [](auto& m) { m.channels_per_pixel = 15; }),
       {"im2col_channel_bytes_multiple16: channelsPerPixel * elementSize = 15 bytes"}, {},
       {i4, with(i4, [](auto& m) { m.channels_per_pixel = 32; })}, 0, policy("im2col_channel_bytes", "multiple_16B")},
      // interleave_inner_box=multiple_16B: an interleaved map whose inner box is 8 bytes is refused, 16 kept
      {"\"interleave_inner_box_multiple16\"", "multiple of 16", with(il32, [](auto& m) { m.box[0] = 8; }),
       {"interleave_inner_box_multiple16: boxDim[0] * elementSize = 8 * 8 bits, interleave 32B"}, {},
       {il32, with(il32, [](auto& m) { m.box[0] = 16; })}, 0, policy("interleave_inner_box", "multiple_16B")},
      // swizzle_atom_encode=refused_below_cc100: a 128B_ATOM swizzle at compute capability 9.0 is refused, one that
      // meets every documented rule too; the same map with the 128B swizzle is kept
      {"\"swizzle_atom_refused\"", "128B_ATOM swizzle",
       placed(with(tile_map(T::UINT8, {256, 4, 4}, {128, 2, 2}), [](auto& m) { m.swizzle = S::B128_ATOM_32B; })),
       {"swizzle_atom_refused: swizzle 128B_ATOM_32B at compute capability 90"}, {},
       {placed(with(tile_map(T::UINT8, {256, 4, 4}, {128, 2, 2}), [](auto& m) { m.swizzle = S::B128; }))}, 90,
       policy("swizzle_atom_encode", "refused_below_cc100")},
      // packed_type_encode=refused: every packed-type map is refused, one that meets every documented rule too
      {"\"packed_type_refused\"", "packed data type", p16, {"packed_type_refused: tensorDataType 16U4_ALIGN16B"}, {},
       {t3}, 0, policy("packed_type_encode", "refused")},
      // im2col_interleave_box_area=previous_dim: an interleaved map's box along W is checked against C (16), so an
      // empty W box is kept; without interleave it is refused
      {"\"im2col_box_nonzero_area\"", "non-zero area", with(i4, [](auto& m) { m.upper_corner[0] = -8; }),
       {"im2col_box_nonzero_area: spatial dimension 1: globalDim + upper - lower = 0"}, {},
       {with(i4, [](auto& m) {
         m.upper_corner[0] = -8;
         m.interleave = Interleave::B16;
       })},
       0, policy("im2col_interleave_box_area", "previous_dim")},
      // ... and its box along H against W: a W of 1 refuses an H box of 6 (explored.0x33158d4bbe's shape), which
      // without interleave is kept
      {"\"im2col_box_nonzero_area\"", "non-zero area", with(i4, [](auto& m) {
         m.dims[1] = 1;
         m.upper_corner[1] = -2;
         m.interleave = Interleave::B16;
       }),
       {"im2col_box_nonzero_area: spatial dimension 2, checked against globalDim[1] (interleave): globalDim[1] + upper "
        "- lower = -1"}, {},
       {with(i4, [](auto& m) {
         m.dims[1] = 1;
         m.upper_corner[1] = -2;
       })},
       0, policy("im2col_interleave_box_area", "previous_dim")},
      {"\"swizzle_u6_modes\"", "NONE, 128B, 128B_ATOM_32B, 128B_ATOM_64B",
       with(packed16(T::T16U6_ALIGN16B), [](auto& m) { m.swizzle = S::B64; }),
       {"swizzle_inner_box: inner box 96 bytes, swizzle 64B", "swizzle_u6_modes: swizzle 64B"}, {},
       {with(packed16(T::T16U6_ALIGN16B), [](auto& m) { m.swizzle = S::B128; }),
        with(packed16(T::T16U6_ALIGN16B), [](auto& m) { m.swizzle = S::B128_ATOM_64B; })}},
      {"\"swizzle_u6_modes\"", "16U6_ALIGN16B", wide(T::T16U6_ALIGN16B, 128),
       {"im2col_wide_inner_box: channelsPerPixel * elementSize = 96 bytes, swizzle 64B",
        "swizzle_u6_modes: swizzle 64B"},
       {}, {wide(T::T16U6_ALIGN16B, 128, S::B128), wide(T::T16U6_ALIGN16B, 128, S::B128_ATOM_32B)}},
      {"\"swizzle_u4_16b_modes\"", "NONE, 128B, 128B_ATOM_32B", with(p16, [](auto& m) { m.swizzle = S::B64; }),
       {"swizzle_u4_16b_modes: swizzle 64B"}, {}, {p16, with(p16, [](auto& m) { m.swizzle = S::B128_ATOM_32B; })}},
      {"\"swizzle_u4_16b_modes\"", "16U4_ALIGN16B", wide(T::T16U4_ALIGN16B, 128),
       {"swizzle_u4_16b_modes: swizzle 64B"}, {}, {wide(T::T16U4_ALIGN16B, 128, S::B128)}},
      {"\"swizzle_u4_16b_modes\"", "16U4_ALIGN16B", wide(T::T16U4_ALIGN16B, 128, S::NONE),
       {"im2col_wide_swizzle_modes: swizzle NONE", "swizzle_u4_16b_modes: swizzle NONE"}, {}, {}},
      {"\"oob_nan_float_only\"", "FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA",
       with(t3, [](auto& m) { m.oob_fill = OobFill::NAN_REQUEST_ZERO_FMA; }),
       {"oob_nan_float_only: tensorDataType UINT8"}, {},
       {with(placed(tile_map(T::FLOAT32, {16, 4, 4}, {4, 2, 2})),
             [](auto& m) { m.oob_fill = OobFill::NAN_REQUEST_ZERO_FMA; })}},
  };
}

std::vector<std::string> lines(const std::vector<RuleViolation>& v) {
  std::vector<std::string> out;
  for (const RuleViolation& r : v) out.push_back(r.rule + ": " + r.detail);
  return out;
}

std::string sentence_of(const std::string& rule) {
  for (const auto& [name, sentence] : encode_rules())
    if (name == rule) return sentence;
  return "";
}

// ---------------------------------------------------------------------------------------------------------------
// need(), throw and fail()

struct Refusal {
  std::string site;                    // a fragment of a string literal of the call
  std::function<std::string()> trip;   // the message it gives; empty: the site cannot be reached (message: why)
  std::string message;
  std::function<void()> inside = {};   // the nearest call the check lets through (optional)
};

using Bytes = std::vector<std::uint8_t>;
ByteSpan span(Bytes& b) { return ByteSpan{b.data(), b.size()}; }
ConstByteSpan cspan(const Bytes& b) { return ConstByteSpan{b.data(), b.size()}; }

std::string cp_async_error(std::size_t dst, std::size_t src, CpAsyncArgs args) {
  return error_of([&] {
    Bytes d(dst), s(src, 7);
    cp_async(span(d), cspan(s), args);
  });
}
CpAsyncArgs cp(unsigned size, std::optional<std::uint32_t> src_size = std::nullopt, bool ignore = false,
               bool cg = false) {
  CpAsyncArgs a;
  a.cp_size = size;
  a.src_size = src_size;
  a.ignore_src = ignore;
  a.cg = cg;
  return a;
}
void accepted(const std::string& m) {
  if (m != "(no ModelError)") throw std::runtime_error("refused: " + m);
}

std::string bulk_reduce_error(ReduceOp op, ReduceSite site, std::size_t dst, std::size_t src, std::uint32_t size) {
  return error_of([&] {
    Bytes d(dst), s(src);
    bulk_reduce(op, site, span(d), cspan(s), size);
  });
}
std::string to_peer_error(std::size_t src_rank, std::size_t src_off, std::size_t peer, std::size_t dst_off,
                          std::uint32_t size) {
  return error_of([&] {
    std::vector<Window> w(2, Window(64));
    bulk_reduce_to_peer(ReduceOp{RedOp::add, ElemType::u32, false}, w, src_rank, src_off, peer, dst_off, size);
  });
}
std::string multicast_error(std::vector<std::size_t> sizes, std::size_t dst_off, std::uint32_t size,
                            std::uint16_t mask) {
  return error_of([&] {
    std::vector<Window> w;
    for (std::size_t n : sizes) w.emplace_back(n);
    Bytes s(size, 3);
    bulk_copy_multicast(w, dst_off, cspan(s), size, mask);
  });
}
std::string allowed_why(ReduceSite site, ReduceOp op) {
  std::string why;
  return reduce_op_allowed(site, op, &why) ? "(allowed)" : why;
}
std::string parse_why(const char* s) {
  std::string why;
  return parse_reduce_op(s, &why) ? "(parsed)" : why;
}

// A tensor copy over the map's index tensor (or `global_size` bytes of it) and a window of `window` bytes.
enum class Dir { load, store, reduce };
std::string tensor_error(Dir dir, const TensorMapParams& m, const TensorAccess& a, std::size_t window = 8192,
                         std::size_t global_size = 0, RedOp op = RedOp::add) {
  return error_of([&] {
    Bytes g = make_index_tensor(m, 1);
    if (global_size) g.resize(global_size);
    Bytes win(window, 5);
    switch (dir) {
      case Dir::load: tensor_load(m, a, cspan(g), span(win)); break;
      case Dir::store: tensor_store(m, a, span(g), cspan(win)); break;
      case Dir::reduce: tensor_reduce(m, a, op, span(g), cspan(win)); break;
    }
  });
}
// A multicast load of the map's index tensor into windows of these sizes.
std::string tensor_multicast_error(const TensorMapParams& m, std::vector<std::size_t> sizes, std::uint16_t mask) {
  return error_of([&] {
    std::vector<Window> win;
    for (std::size_t n : sizes) win.emplace_back(n);
    const Bytes g = make_index_tensor(m, 0);
    tensor_load_multicast(m, at(std::vector<std::int32_t>(m.rank, 0)), cspan(g), win, mask);
  });
}
std::string box_error(const TensorMapParams& m, const TensorAccess& a) {
  return error_of([&] { tensor_box(m, a); });
}
// tensor_box under interleave_tile_box=chunk_rows (the layout measured for interleaved maps).
std::string chunk_rows_error(const TensorMapParams& m, const TensorAccess& a) {
  PolicySet p;
  p.set("interleave_tile_box", "chunk_rows");
  return error_of([&] { tensor_box(m, a, p); });
}
TensorAccess at_smem(std::vector<std::int32_t> c, std::uint32_t smem, TensorMode mode = TensorMode::tile) {
  TensorAccess a = at(std::move(c), mode);
  a.smem_offset = smem;
  return a;
}
TensorAccess im2col_at(unsigned rank, unsigned s, std::uint16_t off) {
  TensorAccess a = at(std::vector<std::int32_t>(rank, 0), TensorMode::im2col);
  a.im2col_offsets[s] = off;
  return a;
}
TensorAccess wide_at(TensorMode mode, std::uint16_t halo, std::uint16_t offset) {
  TensorAccess a = at({0, 0, 0}, mode);
  a.w_halo = halo;
  a.w_offset = offset;
  return a;
}

const char kBulkRange[] =
    "cp.async.bulk: 'The memory range [dstMem, dstMem + size - 1] must not overflow the destination memory space "
    "and the memory range [srcMem, srcMem + size - 1] must not overflow the source memory space'";
const char kSizeRule[] =
    "'size must be a multiple of 16. If the value is not a multiple of 16, then the behavior is undefined.'";
const char kCoordRule[] = "'Starting co-ordinates for Bounding Box (tensorCoords) must be non-negative.'";
const char kPacked128[] =
    "'For .b4x16_p64, .b6x16_p32 and .b6p2x16, the first coordinate in the tensorCoords argument vector must be a "
    "multiple of 128.'";

std::vector<Refusal> refusal_rows() {
  const ReduceOp add_u32{RedOp::add, ElemType::u32, false};
  const TensorMapParams t3 = tiled3();
  const TensorMapParams g2 = placed(tile_map(T::UINT8, {64, 8}, {16, 1}));  // gather4 / scatter4
  const TensorMapParams u32_3 = placed(tile_map(T::UINT32, {16, 4, 4}, {4, 2, 2}));
  const TensorMapParams il16_4 = with(placed(tile_map(T::UINT8, {16, 4, 3, 2}, {16, 2, 2, 2})),
                                      [](auto& m) { m.interleave = Interleave::B16; });
  const TensorMapParams nooffs = im2col(3);
  const TensorMapParams w = wide();
  return {
      // copy.cpp
      {"cp-size can only be 4, 8 and 16", [] { return cp_async_error(16, 16, cp(12)); },
       "cp.async: cp-size 12: 'cp-size can only be 4, 8 and 16'",
       [] {
         for (unsigned n : {4u, 8u, 16u}) accepted(cp_async_error(16, 16, cp(n)));
       }},
      {".cg takes cp-size 16 only", [] { return cp_async_error(16, 16, cp(8, {}, false, true)); },
       "cp.async.cg: cp-size 8: .cg takes cp-size 16 only",
       [] { accepted(cp_async_error(16, 16, cp(16, {}, false, true))); }},
      {"src-size and ignore-src are alternative operands", [] { return cp_async_error(16, 16, cp(16, 4u, true)); },
       "cp.async: src-size and ignore-src are alternative operands",
       [] { accepted(cp_async_error(16, 0, cp(16, {}, true))); }},
      {"cp.async: destination holds ", [] { return cp_async_error(8, 16, cp(16)); },
       "cp.async: destination holds 8 bytes, cp-size is 16",
       [] { accepted(cp_async_error(16, 16, cp(16))); }},
      {"Specifying src-size larger than cp-size", [] { return cp_async_error(16, 32, cp(16, 17u)); },
       "cp.async: src-size 17 > cp-size 16: 'Specifying src-size larger than cp-size results in undefined behavior'",
       [] { accepted(cp_async_error(16, 16, cp(16, 16u))); }},
      {"cp.async: source holds ", [] { return cp_async_error(16, 15, cp(16)); },
       "cp.async: source holds 15 bytes, 16 are read", [] { accepted(cp_async_error(16, 8, cp(16, 8u))); }},
      {"size must be a multiple of 16", [] { return error_of([] { check_bulk_size(24, "what"); }); },
       std::string("what: size 24: ") + kSizeRule,
       [] {
         check_bulk_size(0, "what");
         check_bulk_size(32, "what");
       }},
      {"\"cp.async.bulk\")",
       [] {
         return error_of([] {
           Bytes d(32), s(32);
           bulk_copy(span(d), cspan(s), 24);
         });
       },
       std::string("cp.async.bulk: size 24: ") + kSizeRule},
      {"\"cp.async.bulk.cp_mask\")",
       [] {
         return error_of([] {
           Bytes d(32), s(32);
           bulk_copy_cp_mask(span(d), cspan(s), 8, 0xffff);
         });
       },
       std::string("cp.async.bulk.cp_mask: size 8: ") + kSizeRule},
      {"\"cp.async.bulk .ignore_oob\")",
       [] {
         return error_of([] {
           Bytes d(32), s(32);
           bulk_copy_ignore_oob(span(d), cspan(s), 8, IgnoredBytes{});
         });
       },
       std::string("cp.async.bulk .ignore_oob: size 8: ") + kSizeRule},
      {"\"cp.async.bulk .ignore_oob: 'The only valid values",
       [] {
         return error_of([] {
           Bytes d(32), s(32);
           bulk_copy_ignore_oob(span(d), cspan(s), 32, IgnoredBytes{16, 0});
         });
       },
       "cp.async.bulk .ignore_oob: 'The only valid values for ignoreBytesLeft and ignoreBytesRight are [0..15], and "
       "any other value may result in undefined behavior.' (got 16, 0)",
       [] {
         Bytes d(32), s(32);
         bulk_copy_ignore_oob(span(d), cspan(s), 32, IgnoredBytes{15, 15});
       }},
      {"\"cp.async.bulk.multicast::cluster\")", [] { return multicast_error({64}, 0, 8, 1); },
       std::string("cp.async.bulk.multicast::cluster: size 8: ") + kSizeRule},
      {"\"cp.reduce.async.bulk\")",
       [] { return bulk_reduce_error({RedOp::add, ElemType::u32, false}, ReduceSite::bulk_global, 32, 32, 8); },
       std::string("cp.reduce.async.bulk: size 8: ") + kSizeRule},
      {"must not overflow the destination memory space",
       [] {
         return error_of([] {
           Bytes d(16), s(32);
           bulk_copy(span(d), cspan(s), 32);
         });
       },
       kBulkRange,
       [] {
         Bytes d(32), s(32);
         bulk_copy(span(d), cspan(s), 32);
       }},
      {"\"cp.async.bulk.cp_mask: a range overflows",
       [] {
         return error_of([] {
           Bytes d(32), s(16);
           bulk_copy_cp_mask(span(d), cspan(s), 32, 0xffff);
         });
       },
       "cp.async.bulk.cp_mask: a range overflows its memory space",
       [] {
         Bytes d(32), s(32);
         bulk_copy_cp_mask(span(d), cspan(s), 32, 0xffff);
       }},
      {"\"cp.async.bulk.multicast::cluster: ctaMask bit \"", [] { return multicast_error({64, 64}, 0, 16, 0b101); },
       "cp.async.bulk.multicast::cluster: ctaMask bit 2 names a CTA outside the cluster of 2",
       [] { accepted(multicast_error({64, 64}, 0, 16, 0b11)); }},
      {"\"cp.async.bulk.multicast::cluster: ctaMask bit \"", [] { return multicast_error({64, 64}, 0, 16, 0b1001); },
       "cp.async.bulk.multicast::cluster: ctaMask bit 3 names a CTA outside the cluster of 2"},
      {"\"multicast: destination range overflows CTA \"", [] { return multicast_error({64, 32}, 16, 32, 0b11); },
       "multicast: destination range overflows CTA 1's window",
       [] { accepted(multicast_error({64, 32}, 0, 32, 0b11)); }},
      {"the tensor site is cp.reduce.async.bulk.tensor", [=] { return bulk_reduce_error(add_u32, ReduceSite::tensor, 16, 16, 16); },
       "bulk_reduce: the tensor site is cp.reduce.async.bulk.tensor (tensor.hpp)",
       [=] { accepted(bulk_reduce_error(add_u32, ReduceSite::bulk_global, 16, 16, 16)); }},
      {"\"cp.reduce.async.bulk .\"",
       [] { return bulk_reduce_error({RedOp::min, ElemType::f32, false}, ReduceSite::bulk_global, 16, 16, 16); },
       "cp.reduce.async.bulk .min.f32: redop_type_table: .min .f32 is not a cell of the valid combinations of .redOp "
       "and element type for bulk_global"},
      {"\"cp.reduce.async.bulk: a range overflows", [=] {
         return bulk_reduce_error(add_u32, ReduceSite::bulk_global, 32, 16, 32);
       },
       "cp.reduce.async.bulk: a range overflows its memory space",
       [=] { accepted(bulk_reduce_error(add_u32, ReduceSite::bulk_global, 32, 32, 32)); }},
      {"rank outside the cluster", [] { return to_peer_error(0, 0, 2, 0, 16); },
       "cp.reduce.async.bulk.shared::cluster: rank outside the cluster",
       [] { accepted(to_peer_error(1, 0, 0, 0, 16)); }},
      {"source range overflows the window", [] { return to_peer_error(0, 48, 1, 0, 32); },
       "cp.reduce.async.bulk: source range overflows the window", [] { accepted(to_peer_error(0, 32, 1, 0, 32)); }},
      {"destination range overflows the window", [] { return to_peer_error(0, 0, 1, 48, 32); },
       "cp.reduce.async.bulk: destination range overflows the window",
       [] { accepted(to_peer_error(0, 0, 1, 32, 32)); }},
      {"overlap in one window", [] { return to_peer_error(0, 16, 0, 0, 32); },
       "cp.reduce.async.bulk: source and destination ranges overlap in one window"},
      {"overlap in one window", [] { return to_peer_error(0, 0, 0, 16, 32); },
       "cp.reduce.async.bulk: source and destination ranges overlap in one window",
       [] {
         accepted(to_peer_error(0, 0, 0, 32, 32));
         accepted(to_peer_error(0, 32, 0, 0, 32));
       }},
      // reduce.cpp
      {"\"min/max .\"",
       [] {
         return error_of([] {
           reduce_element({RedOp::min, ElemType::f32, false}, 0, 0, PolicySet{}, ReduceContext{});
         });
       },
       "min/max .f32 is in no reduce table",
       [] { reduce_element({RedOp::min, ElemType::f16, false}, 0, 0, PolicySet{}, ReduceContext{}); }},
      {"\"reduce: destination (\"",
       [] {
         return error_of([] {
           Bytes d(8), s(4);
           reduce_array({RedOp::add, ElemType::u32, false}, span(d), cspan(s));
         });
       },
       "reduce: destination (8 bytes) and source (4 bytes) differ; 'The size of the source and the destination array "
       "must be the same'"},
      {"\"reduce: size \"",
       [] {
         return error_of([] {
           Bytes d(6), s(6);
           reduce_array({RedOp::add, ElemType::u32, false}, span(d), cspan(s));
         });
       },
       "reduce: size 6 is not a multiple of the .u32 element size",
       [] {
         Bytes d(8), s(8);
         reduce_array({RedOp::add, ElemType::u32, false}, span(d), cspan(s));
       }},
      // types.cpp
      {"\"op '\"", [] { return parse_why("add"); }, "op 'add' is not <redOp>.<type>"},
      {"\"unknown redOp '\"", [] { return parse_why("mul.u32"); },
       "unknown redOp 'mul' (and, or, xor, add, inc, dec, min, max)"},
      {"\"unknown type '\"", [] { return parse_why("add.noftz.u8"); },
       "unknown type 'u8' (b32, b64, u32, s32, u64, s64, f16, bf16, f32, f64)",
       [] {
         if (!parse_reduce_op("add.noftz.f16", nullptr)) throw std::runtime_error("add.noftz.f16 not parsed");
       }},
      {"\"redop_type_table: .\"",
       [] { return allowed_why(ReduceSite::bulk_shared_cluster, {RedOp::add, ElemType::f32}); },
       "redop_type_table: .add .f32 is not a cell of the valid combinations of .redOp and element type for "
       "bulk_shared_cluster"},
      {"\"noftz_tensor:", [] { return allowed_why(ReduceSite::tensor, {RedOp::add, ElemType::f16, true}); },
       "noftz_tensor: cp.reduce.async.bulk.tensor has no .noftz qualifier"},
      {"\"noftz_required:", [] { return allowed_why(ReduceSite::bulk_global, {RedOp::add, ElemType::bf16, false}); },
       "noftz_required: 'The cp.reduce.async.bulk.add.f16 and cp.reduce.async.bulk.add.bf16 operations require .noftz "
       "qualifier.'",
       [] {
         if (allowed_why(ReduceSite::bulk_global, {RedOp::add, ElemType::bf16, true}) != "(allowed)")
           throw std::runtime_error("add.noftz.bf16 refused");
       }},
      {"\"noftz_only_half_add:", [] { return allowed_why(ReduceSite::bulk_global, {RedOp::add, ElemType::u32, true}); },
       "noftz_only_half_add: .noftz is defined only for .add.f16 and .add.bf16, and .add.f32 to .global (PTX ISA 9.4)"},
      // tensor.cpp
      {"no layout the model can state",
       [] { return error_of([] { swizzle_address(Swizzle::B96, 0); }); },
       "swizzle 96B: open point -- no layout the model can state"},
      {"is a store/reduce mode, not a load mode",
       [=] { return tensor_error(Dir::load, g2, at({0, 0, 1, 2, 3}, TensorMode::scatter4)); },
       "mode scatter4 is a store/reduce mode, not a load mode",
       [=] { accepted(tensor_error(Dir::load, g2, at({0, 0, 1, 2, 3}, TensorMode::gather4))); }},
      {"is a store/reduce mode, not a load mode",
       [=] { return tensor_error(Dir::load, nooffs, at({0, 0, 0}, TensorMode::im2col_no_offs)); },
       "mode im2col_no_offs is a store/reduce mode, not a load mode"},
      // tiled3's box ends at global byte 336: its last row starts at 64 + 256 (box rows 1 and 1) and holds 16 bytes
      {"\"tensor memory holds \"", [=] { return tensor_error(Dir::load, t3, at({0, 0, 0}), 8192, 335); },
       "tensor memory holds 335 bytes, the element at byte 335 lies beyond",
       [=] { accepted(tensor_error(Dir::load, t3, at({0, 0, 0}), 8192, 336)); }},
      {"\", the window has \"",
       [=] { return tensor_error(Dir::load, t3, at({0, 0, 0}), 63); },
       "tensor load writes shared byte 63, the window has 63",
       [=] { accepted(tensor_error(Dir::load, t3, at({0, 0, 0}), 64)); }},
      {"\"ctaMask bit \"", [=] { return tensor_multicast_error(t3, {64, 64}, 0b101); },
       "ctaMask bit 2 names a CTA outside the cluster of 2"},
      {"\"ctaMask bit \"", [=] { return tensor_multicast_error(t3, {64, 64}, 0b1001); },
       "ctaMask bit 3 names a CTA outside the cluster of 2"},
      {"\" beyond CTA \"", [=] { return tensor_multicast_error(t3, {64, 63}, 0b11); },
       "tensor load writes shared byte 63 beyond CTA 1's window",
       [=] { accepted(tensor_multicast_error(t3, {64, 64}, 0b11)); }},
      {"is not a .global.shared::cta mode", [=] {
         return tensor_error(Dir::store, g2, at({0, 0, 1, 2, 3}, TensorMode::gather4));
       },
       "mode gather4 is not a .global.shared::cta mode (tile, tile::scatter4, im2col_no_offs)",
       [=] { accepted(tensor_error(Dir::store, g2, at({0, 0, 1, 2, 3}, TensorMode::scatter4))); }},
      {"Starting co-ordinates for Bounding Box", [=] { return tensor_error(Dir::store, t3, at({0, -1, 0})); },
       std::string("tensorCoords[1] = -1: ") + kCoordRule},
      {"Starting co-ordinates for Bounding Box",
       [=] { return tensor_error(Dir::store, g2, at({0, 0, 1, 2, -1}, TensorMode::scatter4)); },
       std::string("tensorCoords[4] = -1: ") + kCoordRule},
      {"Bounding-Box Lower-Corner must be non-negative",
       [=] {
         return tensor_error(Dir::store, with(nooffs, [](auto& m) { m.lower_corner[0] = -1; }),
                             at({0, 1, 0}, TensorMode::im2col_no_offs));
       },
       "'Bounding-Box Lower-Corner must be non-negative.'",
       [=] { accepted(tensor_error(Dir::store, nooffs, at({0, 1, 0}, TensorMode::im2col_no_offs))); }},
      {"Bounding-Box Upper-Corner must be non-positive",
       [=] {
         return tensor_error(Dir::store, with(nooffs, [](auto& m) { m.upper_corner[0] = 1; }),
                             at({0, 1, 0}, TensorMode::im2col_no_offs));
       },
       "'Bounding-Box Upper-Corner must be non-positive.'"},
      {"doesn't support the type .b4x16_p64",
       [] { return tensor_error(Dir::store, packed16(T::T16U4_ALIGN16B), at({0, 0})); },
       "'cp.async.bulk.tensor with the direction .global.shared::cta doesn't support the type .b4x16_p64.'",
       [] { accepted(tensor_error(Dir::store, packed16(T::T16U6_ALIGN16B), at({0, 0}))); }},
      {"\"tensor memory holds \"", [=] { return tensor_error(Dir::store, t3, at({0, 0, 0}), 64, 335); },
       "tensor memory holds 335 bytes, the element at byte 335 lies beyond",
       [=] { accepted(tensor_error(Dir::store, t3, at({0, 0, 0}), 64, 336)); }},
      {"\"tensor store reads shared byte \"", [=] { return tensor_error(Dir::store, t3, at({0, 0, 0}), 63); },
       "tensor store reads shared byte 63 beyond the window",
       [=] { accepted(tensor_error(Dir::store, t3, at({0, 0, 0}), 64)); }},
      {"doesn't support the types .b4x16",
       [] { return tensor_error(Dir::reduce, packed16(T::T16U6_ALIGN16B), at({0, 0})); },
       "'cp.reduce.async.bulk doesn't support the types .b4x16, .b4x16_p64, .b6x16_p32 and .b6p2x16.'"},
      {"the type has no reduce element type", [=] { return tensor_error(Dir::reduce, t3, at({0, 0, 0})); },
       "cp.reduce.async.bulk.tensor .add on a UINT8 map: the type has no reduce element type"},
      {"\"cp.reduce.async.bulk.tensor: \"",
       [] {
         return tensor_error(Dir::reduce, placed(tile_map(T::FLOAT64, {4, 4, 4}, {2, 2, 2})), at({0, 0, 0}));
       },
       "cp.reduce.async.bulk.tensor: redop_type_table: .add .f64 is not a cell of the valid combinations of .redOp "
       "and element type for tensor"},
      {"has no .tile::scatter4 mode",
       [] {
         return tensor_error(Dir::reduce, placed(tile_map(T::UINT32, {16, 8}, {4, 1})),
                             at({0, 0, 1, 2, 3}, TensorMode::scatter4));
       },
       "cp.reduce.async.bulk.tensor has no .tile::scatter4 mode"},
      {"\"tensor reduce reads shared byte \"", [=] { return tensor_error(Dir::reduce, u32_3, at({0, 0, 0}), 63); },
       "tensor reduce reads shared byte 63 beyond the window",
       [=] { accepted(tensor_error(Dir::reduce, u32_3, at({0, 0, 0}), 64)); }},
      {"strides place an element outside", {},
       "unreachable: make_index_tensor sizes its buffer by tensor_global_bytes, which ends at the last element"},
      // tensor_box.cpp
      // rank 4: rows along dimensions 1 and 3; 4,096-byte rows (256 chunks), 4,096 of them are 16 MiB
      {"the box needs more than 16 MiB of shared memory",
       [=] {
         return chunk_rows_error(with(il16_4, [](auto& m) { m.box = {256, 256, 1, 17, 1}; }), at({0, 0, 0, 0}));
       },
       "the box needs more than 16 MiB of shared memory",
       [=] { accepted(chunk_rows_error(with(il16_4, [](auto& m) { m.box = {256, 4, 1, 2, 1}; }), at({0, 0, 0, 0}))); }},
      {"tensor box exceeds 4 GiB of shared memory", {},
       "unreachable: tile_box refuses boxes above 16 MiB and an im2col box stays below 16 MiB (1024 pixels of "
       "256 channels of 8 bytes)"},
      {"\" takes a map from \"", [=] { return box_error(t3, at({0, 0, 0}, TensorMode::im2col)); },
       "mode im2col takes a map from cuTensorMapEncodeIm2col, this one is for cuTensorMapEncodeTiled"},
      {"throw TensorMapRejected(",
       [=] { return box_error(with(t3, [](auto& m) { m.box[1] = 0; }), at({0, 0, 0})); },
       "cuTensorMapEncodeTiled must reject the tensor map: rule box_dim_range: boxDim array ... must be non-zero and "
       "less than or equal to 256. [boxDim[1] = 0]"},
      {"CUDA 13.0 has no CUtensorMapSwizzle value for it", {},
       "unreachable: validate_encode rejects swizzle 96B (rule swizzle_enum) before this check"},
      {"is not 16-byte aligned", [=] { return box_error(t3, at_smem({0, 0, 0}, 8)); },
       "smem_offset 8 is not 16-byte aligned", [=] { accepted(box_error(t3, at_smem({0, 0, 0}, 16))); }},
      {"the model requires 128-byte alignment",
       [=] { return box_error(with(t3, [](auto& m) { m.swizzle = Swizzle::B32; }), at_smem({0, 0, 0}, 16)); },
       "smem_offset 16 with a swizzle: the model requires 128-byte alignment (the hardware's requirement per mode is "
       "open)",
       [=] { accepted(box_error(with(t3, [](auto& m) { m.swizzle = Swizzle::B32; }), at_smem({0, 0, 0}, 128))); }},
      {"the first coordinate in the", [] { return box_error(packed16(T::T16U4_ALIGN16B), at({64, 0})); },
       std::string("tensorCoords[0] = 64: ") + kPacked128,
       [] { accepted(box_error(packed16(T::T16U4_ALIGN16B), at({128, 0}))); }},
      {"the first coordinate in the", [] { return box_error(packed16(T::T16U6_ALIGN16B), at({64, 0})); },
       std::string("tensorCoords[0] = 64: ") + kPacked128},
      {"splits a byte", [] { return box_error(placed(tile_map(T::T16U4_ALIGN8B, {64}, {32})), at({1})); },
       "tensorCoords[0] = 1: 16U4_ALIGN8B with an odd first coordinate splits a byte; the model requires an even one "
       "(open)",
       [] { accepted(box_error(placed(tile_map(T::T16U4_ALIGN8B, {64}, {32})), at({2}))); }},
      {"boxDim[0] is not a whole number of units",
       [] {
         return box_error(with(placed(tile_map(T::T16U4_ALIGN8B, {64, 2, 2}, {3, 1, 1})),
                               [](auto& m) { m.interleave = Interleave::B16; }),
                          at({0, 0, 0}));
       },
       "packed type: boxDim[0] is not a whole number of units",
       [] {
         accepted(box_error(with(placed(tile_map(T::T16U4_ALIGN8B, {64, 2, 2}, {4, 1, 1})),
                                 [](auto& m) { m.interleave = Interleave::B16; }),
                            at({0, 0, 0})));
       }},
      // FLOAT32 box 256 x 256 x 65: 1,024-byte rows, 256 x 65 of them
      {"\"the box needs \"",
       [] { return box_error(placed(tile_map(T::FLOAT32, {256, 256, 65}, {256, 256, 65})), at({0, 0, 0})); },
       "the box needs 17039360 bytes of shared memory; the model refuses boxes above 16 MiB"},
      {"need a 2D tensor map", [=] { return box_error(t3, at({0, 0, 1, 2, 3}, TensorMode::gather4)); },
       "tile::gather4 / tile::scatter4 need a 2D tensor map, this one has rank 3"},
      {"boxDim[1] must be 1 (NOTES)",
       [=] { return box_error(with(g2, [](auto& m) { m.box[1] = 2; }), at({0, 0, 1, 2, 3}, TensorMode::gather4)); },
       "tile::gather4 / tile::scatter4: boxDim[1] must be 1 (NOTES), it is 2"},
      {"channelsPerPixel is not a whole number of units",
       [] { return box_error(im2col(3, T::T16U4_ALIGN8B, 64, 3), at({0, 0, 0}, TensorMode::im2col)); },
       "packed type: channelsPerPixel is not a whole number of units",
       [] { accepted(box_error(im2col(3, T::T16U4_ALIGN8B, 64, 4), at({0, 0, 0}, TensorMode::im2col))); }},
      {"\"im2colInfo offset \"", [] { return box_error(im2col(4), im2col_at(4, 1, 256)); },
       "im2colInfo offset 1 = 256 exceeds the 4D range [0, 256)",
       [] {
         accepted(box_error(im2col(4), im2col_at(4, 1, 255)));
         accepted(box_error(im2col(3), im2col_at(3, 0, 65535)));
         accepted(box_error(im2col(5), im2col_at(5, 2, 31)));
       }},
      {"\"im2colInfo offset \"", [] { return box_error(im2col(5), im2col_at(5, 2, 32)); },
       "im2colInfo offset 2 = 32 exceeds the 5D range [0, 32)"},
      {"\"wHalo \"", [=] { return box_error(w, wide_at(TensorMode::im2col_w128, 32, 0)); },
       "wHalo 32 is outside [0, 32)",
       [=] {
         accepted(box_error(w, wide_at(TensorMode::im2col_w128, 31, 0)));
         accepted(box_error(w, wide_at(TensorMode::im2col_w, 511, 0)));
       }},
      {"\"wHalo \"", [=] { return box_error(w, wide_at(TensorMode::im2col_w, 512, 0)); },
       "wHalo 512 is outside [0, 512)"},
      {"\"wOffset \"", [=] { return box_error(w, wide_at(TensorMode::im2col_w, 0, 32)); },
       "wOffset 32 is outside [0, 32)", [=] { accepted(box_error(w, wide_at(TensorMode::im2col_w, 0, 31))); }},
      {"\"tx bytes exceed 32 bits\"", {},
       "unreachable: the box's pieces are within 16 MiB of shared memory, so their bytes are too"},
      {"tensor box exceeds 4 GiB of shared memory", {},
       "unreachable: the extent ends within a box of at most 16 MiB, rounded up to 128 bytes"},
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The sites in the source

// The text of a source file without its comments (string and character literals kept whole).
std::string without_comments(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"' || c == '\'') {
      const std::size_t start = i;
      for (++i; i < s.size() && s[i] != c; ++i)
        if (s[i] == '\\') ++i;
      out.append(s, start, i - start + 1);
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      out += '\n';
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      i = s.find("*/", i + 2);
      if (i == std::string::npos) break;
      ++i;
    } else {
      out += c;
    }
  }
  return out;
}

struct Site {
  std::string file;
  std::string text;  // from the callee's name to its closing parenthesis, whitespace folded
};

// Every call of the refusing functions in `text`: need(...), fail(...), check_bulk_size(...), c.rule(...),
// c.open(...), throw ModelError(...) and throw TensorMapRejected(...). Definitions (`void need(` ...) are not calls.
std::vector<Site> sites_of(const std::string& file, const std::string& text) {
  static const char* const callees[] = {"need(",  "fail(",   "check_bulk_size(",        "c.rule(",
                                        "c.open(", "throw ModelError(", "throw TensorMapRejected("};
  std::vector<Site> out;
  for (const char* callee : callees) {
    const std::string name(callee);
    for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
      const char before = at == 0 ? ' ' : text[at - 1];
      if (std::isalnum(static_cast<unsigned char>(before)) || before == '_' || before == '.' ||
          (at >= 5 && text.compare(at - 5, 5, "void ") == 0))
        continue;
      int depth = 0;
      std::size_t end = at + name.size() - 1;
      for (; end < text.size(); ++end) {
        const char c = text[end];
        if (c == '"' || c == '\'') {
          for (++end; end < text.size() && text[end] != c; ++end)
            if (text[end] == '\\') ++end;
        } else if (c == '(') {
          ++depth;
        } else if (c == ')' && --depth == 0) {
          break;
        }
      }
      std::string call = text.substr(at, end - at + 1), folded;
      for (char c : call) {
        if (std::isspace(static_cast<unsigned char>(c))) {
          if (!folded.empty() && folded.back() != ' ') folded += ' ';
        } else {
          folded += c;
        }
      }
      out.push_back({file, folded});
    }
  }
  return out;
}

std::vector<Site> model_sites() {
  std::vector<Site> sites;
  for (const auto& entry : std::filesystem::directory_iterator(PTXCTS_REFMODEL_SRC)) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    for (Site& s : sites_of(entry.path().filename().string(), without_comments(ss.str()))) sites.push_back(s);
  }
  return sites;
}

}  // namespace

TEST(Refusals, RuleRowBasesAreLegal) {
  for (const TensorMapParams& m : {tiled1(), tiled2(), tiled3(), tiled5(), packed16(T::T16U4_ALIGN16B),
                                   packed16(T::T16U6_ALIGN16B), im2col(3), im2col(4), im2col(5), wide()}) {
    const EncodeVerdict v = validate_encode(m);
    EXPECT_TRUE(v.must_accept()) << ::testing::PrintToString(lines(v.violations))
                                 << ::testing::PrintToString(lines(v.open));
  }
}

TEST(Refusals, EveryValidatorRule) {
  std::set<std::string> covered;
  for (const RuleRow& r : rule_rows()) {
    SCOPED_TRACE(r.site + " / " + r.subject);
    const EncodeVerdict v = validate_encode(r.broken, r.cc, r.policies);
    EXPECT_EQ(lines(v.violations), r.violations);
    EXPECT_EQ(lines(v.open), r.open);
    for (const auto& list : {v.violations, v.open})
      for (const RuleViolation& x : list) {
        covered.insert(x.rule);
        EXPECT_EQ(x.sentence, sentence_of(x.rule));
      }
    // the sentence of a rule the row breaks names what the row is about
    bool named = false;
    for (const auto& list : {r.violations, r.open})
      for (const std::string& line : list)
        named = named || sentence_of(line.substr(0, line.find(':'))).find(r.subject) != std::string::npos;
    if (!r.violations.empty() || !r.open.empty()) {
      EXPECT_TRUE(named) << "no sentence names " << r.subject;
    }
    for (const TensorMapParams& k : r.kept) {
      const EncodeVerdict kv = validate_encode(k, r.cc, r.policies);
      EXPECT_TRUE(kv.must_accept()) << ::testing::PrintToString(lines(kv.violations))
                                    << ::testing::PrintToString(lines(kv.open));
    }
  }
  std::set<std::string> all;
  for (const auto& [name, sentence] : encode_rules()) all.insert(name);
  EXPECT_EQ(covered, all) << "a rule no row breaks";
}

TEST(Refusals, EveryModelRefusal) {
  for (const Refusal& r : refusal_rows()) {
    SCOPED_TRACE(r.site);
    if (!r.trip) continue;  // unreachable: the message says why
    EXPECT_EQ(r.trip(), r.message);
    if (r.inside) {
      EXPECT_NO_THROW(r.inside());
    }
  }
}

// The reasons tensor_access_trap gives (under the policies that trap; the default policies never do).
TEST(Refusals, TrapReasons) {
  auto with_policy = [](const char* name, const char* value) {
    PolicySet p;
    EXPECT_TRUE(p.set(name, value));
    return p;
  };
  const TensorMapParams t3 = tiled3();
  EXPECT_EQ(tensor_access_trap(t3, at({4, 0, 0}), with_policy("tensor_coord_alignment", "16B_trap")),
            "innermost start coordinate 4 is 4 bytes, not a multiple of 16 (tensor_coord_alignment=16B_trap)");
  EXPECT_EQ(tensor_access_trap(t3, at({16, 0, 0}), with_policy("tensor_coord_alignment", "16B_trap")), "");
  EXPECT_EQ(tensor_access_trap(t3, at_smem({0, 0, 0}, 16), with_policy("tensor_smem_alignment", "128B_trap")),
            "shared-memory address 16 (from a 1024-byte-aligned base) is not 128-byte aligned "
            "(tensor_smem_alignment=128B_trap)");
  EXPECT_EQ(tensor_access_trap(t3, at_smem({0, 0, 0}, 128), with_policy("tensor_smem_alignment", "128B_trap")), "");
  // im2col(3): W spans [0, 8)
  EXPECT_EQ(tensor_access_trap(im2col(3), at({0, 8, 0}, TensorMode::im2col),
                               with_policy("im2col_start_outside_box", "trap")),
            "im2col start W = 8 lies outside the bounding box [0, 8) (im2col_start_outside_box=trap)");
  EXPECT_EQ(tensor_access_trap(im2col(3), at({0, 7, 0}, TensorMode::im2col),
                               with_policy("im2col_start_outside_box", "trap")),
            "");
}

// The rules that list swizzle modes: exactly the modes their sentences list pass them, for each type and encode
// function they apply to (im2col::w with a packed type: both lists). A plain tiled map takes every mode but 96B.
TEST(Refusals, SwizzleModeListsAreTheSentences) {
  auto listed = [](const std::string& rule) {
    const std::string s = sentence_of(rule);
    std::string list = s.substr(s.rfind(": ") + 2);
    list = list.substr(0, std::min(list.find(" ("), list.find('.')));
    std::set<Swizzle> out;
    for (std::size_t at = 0; at <= list.size();) {
      const std::size_t e = std::min(list.find(", ", at), list.size());
      const auto sw = parse_swizzle(list.substr(at, e - at));
      EXPECT_TRUE(sw.has_value()) << rule << ": '" << list.substr(at, e - at) << "' is not a swizzle mode";
      if (sw) out.insert(*sw);
      at = e + 2;
    }
    return out;
  };
  auto both = [](const std::set<Swizzle>& a, const std::set<Swizzle>& b) {
    std::set<Swizzle> out;
    for (Swizzle s : a)
      if (b.count(s)) out.insert(s);
    return out;
  };
  const std::set<std::string> mode_rules = {"swizzle_enum", "swizzle_u6_modes", "swizzle_u4_16b_modes",
                                            "im2col_wide_swizzle_modes"};
  auto passing = [&](TensorMapParams m) {
    std::set<Swizzle> out;
    for (unsigned s = 0; s <= static_cast<unsigned>(Swizzle::B96); ++s) {
      m.swizzle = static_cast<Swizzle>(s);
      bool ok = true;
      for (const RuleViolation& v : validate_encode(m).violations) ok = ok && !mode_rules.count(v.rule);
      if (ok) out.insert(m.swizzle);
    }
    return out;
  };
  std::set<Swizzle> all_but_96;
  for (unsigned s = 0; s < static_cast<unsigned>(Swizzle::B96); ++s) all_but_96.insert(static_cast<Swizzle>(s));
  const auto u6 = listed("swizzle_u6_modes"), u4 = listed("swizzle_u4_16b_modes");
  const auto w = listed("im2col_wide_swizzle_modes");
  EXPECT_EQ(u6.size(), 4u);
  EXPECT_EQ(u4.size(), 3u);
  EXPECT_EQ(w.size(), 3u);
  EXPECT_EQ(passing(tiled3()), all_but_96);
  EXPECT_EQ(passing(packed16(T::T16U6_ALIGN16B)), u6);
  EXPECT_EQ(passing(packed16(T::T16U4_ALIGN16B)), u4);
  EXPECT_EQ(passing(wide()), w);
  EXPECT_EQ(passing(wide(T::T16U6_ALIGN16B, 128)), both(u6, w));
  EXPECT_EQ(passing(wide(T::T16U4_ALIGN16B, 128)), both(u4, w));
}

TEST(Refusals, EverySiteHasARow) {
  const std::vector<Site> sites = model_sites();
  ASSERT_GE(sites.size(), 90u) << PTXCTS_REFMODEL_SRC << ": the sources were not found or not parsed";
  std::vector<std::string> keys;
  for (const RuleRow& r : rule_rows()) keys.push_back(r.site);
  for (const Refusal& r : refusal_rows()) keys.push_back(r.site);
  std::set<std::string> claimed;
  for (const Site& s : sites) {
    bool any = false;
    for (const std::string& k : keys)
      if (s.text.find(k) != std::string::npos) {
        any = true;
        claimed.insert(k);
      }
    EXPECT_TRUE(any) << s.file << ": no row for " << s.text;
  }
  for (const std::string& k : keys) EXPECT_TRUE(claimed.count(k)) << "no call in the sources for the row " << k;
}
