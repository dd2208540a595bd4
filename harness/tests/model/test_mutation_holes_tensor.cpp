// Tests added for faults that ./ptxcts selftest-model planted in the tensor copies (harness/refmodel/src/tensor.cpp,
// tensor_box.cpp: loads, stores, reductions, trap predictions) and the other model tests
// let through (issue 10, part 3). Each names the surviving mutant it kills and the rule it checks; every expected
// value is derived by hand from that rule (docs/POLICIES.md, the chapter's or cuda.h's sentence), never by running
// the model. The triage of the survivors that no test can kill: results/selftest/model-equivalent.json.
// The holes of the other model areas: test_mutation_holes_*.cpp.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ptxcts/ref/policy.hpp"
#include "ptxcts/ref/tensor.hpp"
#include "ptxcts/ref/tensormap.hpp"
#include "model_helpers.hpp"
#include "tensor_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;

// POLICIES.md, tensor_coord_alignment: 'Tile and im2col tensor copies: whether the innermost start coordinate
// times the element size must be a multiple of 16 bytes'. gather4/scatter4 and im2col::w / ::w::128 are neither:
// under 16B_trap a FLOAT32 start of 1 (4 bytes) traps a tile and an im2col copy, and nothing else.
// Kills tensor.cpp:473 'a.mode == TensorMode::tile' -> '>=' and 'a.mode == TensorMode::im2col' -> '>='.
TEST(MutationHoles, CoordAlignmentTrapOnlyForTileAndIm2col) {
  const auto m = tile_map(TensorDataType::FLOAT32, {64, 4}, {16, 1});
  PolicySet al;
  ASSERT_TRUE(al.set("tensor_coord_alignment", "16B_trap"));
  EXPECT_NE(tensor_access_trap(m, at({1, 0}, TensorMode::tile), al), "");
  EXPECT_NE(tensor_access_trap(m, at({1, 0, 0}, TensorMode::im2col), al), "");
  for (TensorMode mode : {TensorMode::gather4, TensorMode::scatter4, TensorMode::im2col_w, TensorMode::im2col_w128})
    EXPECT_EQ(tensor_access_trap(m, at({1, 0, 0, 0, 0}, mode), al), "") << to_string(mode);
}

// The chapter: 'For .b4x16_p64, .b6x16_p32 and .b6p2x16, the first coordinate in the tensorCoords argument vector
// must be a multiple of 128.' The model's refusal quotes that rule (the run tier and ptxcts-ref print it).
// Kills tensor.cpp:92 (the quoted sentence emptied).
TEST(MutationHoles, PackedFirstCoordinateErrorQuotesTheRule) {
  const auto m = tile_map(TensorDataType::T16U4_ALIGN16B, {256, 2}, {128, 1});
  const std::string e = error_of([&] { load(m, at({64, 0})); });
  EXPECT_NE(e.find("tensorCoords[0] = 64"), std::string::npos) << e;
  EXPECT_NE(e.find("must be a multiple of 128"), std::string::npos) << e;
}

// POLICIES.md, tensor_store_oob=granule16_written: 'box elements past globalDim[0] whose bytes lie in the 16-byte
// granule holding the row's last in-bounds byte (other coordinates in bounds) are written'. UINT16 tensor 6 x 3,
// row stride 16 B (row y holds elements at 16y + 2x, x < 6; bytes 16y+12..16y+15 are padding). A store of box 8 x 2
// at {0, 1}: the shared box rows are 16 B (box row r, element x at 16r + 2x). Rows 1 and 2 get box elements 6, 7
// (shared bytes 12..15 and 28..31) at 28..31 and 44..47 under the policy; row 0 (bytes 0..15) is never touched.
// Kills tensor.cpp:416 'i < map.rank' -> 'i > map.rank' (the row offset of a granule element).
TEST(MutationHoles, StoreGranuleElementsLandInTheirOwnRow) {
  auto m = tile_map(TensorDataType::UINT16, {6, 3}, {8, 2});
  m.strides = {16, 0, 0, 0};
  std::vector<std::uint8_t> win(64);
  for (std::size_t i = 0; i < win.size(); ++i) win[i] = static_cast<std::uint8_t>(0x40 + i);
  auto run = [&](const PolicySet& p) {
    std::vector<std::uint8_t> g(64, kPoison);
    tensor_store(m, at({0, 1}), ByteSpan{g.data(), g.size()}, ConstByteSpan{win.data(), win.size()}, p);
    return g;
  };
  PolicySet gr;
  ASSERT_TRUE(gr.set("tensor_store_oob", "granule16_written"));
  for (const bool granule : {false, true}) {
    const auto g = run(granule ? gr : PolicySet{});
    for (int i = 0; i < 16; ++i) EXPECT_EQ(g[i], kPoison) << "row 0 byte " << i;
    for (int y = 1; y <= 2; ++y) {
      for (int b = 0; b < 12; ++b) EXPECT_EQ(g[16 * y + b], win[16 * (y - 1) + b]) << y << " " << b;
      for (int b = 12; b < 16; ++b)
        EXPECT_EQ(g[16 * y + b], granule ? win[16 * (y - 1) + b] : kPoison) << granule << " row " << y << " " << b;
    }
    for (int i = 48; i < 64; ++i) EXPECT_EQ(g[i], kPoison) << i;
  }
}

// POLICIES.md, im2col_start_outside_box=trap: a W/H/D start outside [lowerCorner, globalDim + upperCorner) traps;
// the prediction names the coordinate and that box. W dim 20, corners -1/-1: box [-1, 19); start W = 19.
// Kills tensor.cpp:489 (the message's box emptied).
TEST(MutationHoles, Im2colStartTrapNamesTheBox) {
  const std::array<std::uint64_t, 5> dims{8, 20, 3, 1, 1};
  auto m = im2col_map(EncodeKind::im2col, TensorDataType::FLOAT32, 3, dims,
                      dense_strides(TensorDataType::FLOAT32, 3, dims), 8, 16);
  m.lower_corner = m.upper_corner = {-1, 0, 0};
  PolicySet ob;
  ASSERT_TRUE(ob.set("im2col_start_outside_box", "trap"));
  const std::string t = tensor_access_trap(m, at({0, 19, 2}, TensorMode::im2col), ob);
  EXPECT_NE(t.find("W = 19"), std::string::npos) << t;
  EXPECT_NE(t.find("[-1, 19)"), std::string::npos) << t;
}

// The 16B_trap prediction names the start coordinate and its byte offset: FLOAT32 start 1 is 4 bytes.
// Kills tensor.cpp:479 ('innermost start coordinate N is' dropped from the message).
TEST(MutationHoles, CoordAlignmentTrapNamesTheStart) {
  const auto m = tile_map(TensorDataType::FLOAT32, {64, 4}, {16, 1});
  PolicySet al;
  ASSERT_TRUE(al.set("tensor_coord_alignment", "16B_trap"));
  const std::string t = tensor_access_trap(m, at({1, 0}), al);
  EXPECT_NE(t.find("innermost start coordinate 1 is 4 bytes"), std::string::npos) << t;
}

// ---- Held-out sample (./ptxcts selftest-model --seed 2): holes its survivors showed. ----

// The chapter, restrictions on the .global.shared::cta direction: 'The bounding box along the D, W and H
// dimensions must stay within the tensor boundaries. This implies: Bounding-Box Lower-Corner must be non-negative.
// Bounding-Box Upper-Corner must be non-positive.' -- for every spatial dimension, not only W. Rank-4 UINT8 map
// (C 16, W 4, H 3, N 1): corners {W 0, H -1} or {W 0, H +1} are valid maps but refused for an im2col_no_offs store.
// Kills tensor.cpp:397 (a break after the first spatial dimension's check).
TEST(MutationHoles, StoreCornersCheckedInEverySpatialDimension) {
  auto m = im2col_map(EncodeKind::im2col, TensorDataType::UINT8, 4, {16, 4, 3, 1, 1}, {16, 64, 192, 0}, 16, 4);
  std::vector<std::uint8_t> g(192, 0), win(1024, 1);
  const auto store = [&](const TensorMapParams& map) {
    return error_of([&] {
      tensor_store(map, at({0, 0, 0, 0}, TensorMode::im2col_no_offs), ByteSpan{g.data(), g.size()},
                   ConstByteSpan{win.data(), win.size()});
    });
  };
  EXPECT_EQ(store(m), "(no ModelError)");
  auto lo = m;
  lo.lower_corner = {0, -1, 0};
  ASSERT_TRUE(validate_encode(lo).must_accept());
  EXPECT_NE(store(lo).find("'Bounding-Box Lower-Corner must be non-negative.'"), std::string::npos) << store(lo);
  auto hi = m;
  hi.upper_corner = {0, 1, 0};
  ASSERT_TRUE(validate_encode(hi).must_accept());
  EXPECT_NE(store(hi).find("'Bounding-Box Upper-Corner must be non-positive.'"), std::string::npos) << store(hi);
}

// A tensor reduce whose box reads past the shared window is refused with the byte and the reason (the run tier and
// ptxcts-ref print it). UINT32 box 8 x 1 (32 bytes) from a 16-byte window: element 4 reads shared byte 16.
// Kills tensor.cpp:464 (' beyond the window' dropped from the message).
TEST(MutationHoles, TensorReduceWindowOverrunNamesTheByte) {
  const auto m = tile_map(TensorDataType::UINT32, {8, 1}, {8, 1});
  std::vector<std::uint8_t> g(32, 0), win(16, 0);
  const std::string e = error_of([&] {
    tensor_reduce(m, at({0, 0}), RedOp::add, ByteSpan{g.data(), g.size()}, ConstByteSpan{win.data(), win.size()});
  });
  EXPECT_NE(e.find("tensor reduce reads shared byte 16 beyond the window"), std::string::npos) << e;
}

// ---- seed 4 (held out, results/selftest/model-mutation-seed4.json) -------------------------------------------------

// A tensor load whose in-bounds element lies past the end of the global memory given to the model is refused with
// the sizes (ptxcts-ref prints it). UINT8 tensor of 64, box 16 at 0, only 8 bytes of memory: the box does not fit.
// Kills tensor.cpp:83 ('tensor memory holds ' emptied).
TEST(MutationHoles, TensorLoadPastTheGlobalMemoryNamesIt) {
  const auto m = tile_map(TensorDataType::UINT8, {64}, {16});
  std::vector<std::uint8_t> g(8, 0), win(64, 0);
  const std::string e = error_of(
      [&] { tensor_load(m, at({0}), ConstByteSpan{g.data(), g.size()}, ByteSpan{win.data(), win.size()}); });
  EXPECT_EQ(e.rfind("tensor memory holds 8 bytes, the element at byte ", 0), 0u) << e;
  EXPECT_NE(e.find(" lies beyond"), std::string::npos) << e;
}

// NOTES (open, the model's reading): the im2col walk steps N by elementStrides[N] when W wraps. UINT8 C=16 W=4 N=4,
// zero corners, elementStrides {1, 1, 2}, 6 pixels from (w=0, n=0): (0,0) (1,0) (2,0) (3,0), then n += 2: (0,2)
// (1,2). Value = c + 16(w + 4n). Kills tensor_box.cpp:204 ('element_strides[rank - 1]' -> '[rank / 1]', the
// unused fourth stride, 1).
TEST(MutationHoles, Im2colWalkStepsNByItsElementStride) {
  auto m = dense_map(EncodeKind::im2col, TensorDataType::UINT8, 3, {16, 4, 4, 1, 1});
  m.element_strides = {1, 1, 2, 1, 1};
  m.channels_per_pixel = 16;
  m.pixels_per_column = 6;
  ASSERT_TRUE(validate_encode(m).must_accept());
  const Loaded l = load(m, at({0, 0, 0}, TensorMode::im2col));
  const int want_w[6] = {0, 1, 2, 3, 0, 1}, want_n[6] = {0, 0, 0, 0, 2, 2};
  for (int p = 0; p < 6; ++p)
    for (int c = 0; c < 16; ++c)
      EXPECT_EQ(l.window[16 * p + c], c + 16 * (want_w[p] + 4 * want_n[p])) << "pixel " << p << " channel " << c;
}
