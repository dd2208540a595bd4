// The alternatives measured on a device (docs/POLICIES.md, column "measured on a device"): each computes what its
// sentence states, and the measured alternative of a policy is the first deviation the run tier tries. Expected
// values come from the alternatives' sentences; the tf32 values and the interleaved layout are also what the
// H100's sweeps printed (results/findings/h100-tf32-load-rounding, h100-interleaved-tile-load-overrun).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <algorithm>
#include <cstring>

#include "ptxcts/ref/policy.hpp"
#include "ptxcts/ref/tensor.hpp"
#include "tensor_helpers.hpp"

namespace ptxcts::ref {
namespace {

using testing::tile_map;
using T = TensorDataType;

PolicySet with_policy(const char* name, const char* value) {
  PolicySet p;
  EXPECT_TRUE(p.set(name, value));
  return p;
}

// tensor_tf32_load=round_nearest_even: 13 low bits rounded away, ties to even, the carry may reach the exponent;
// subnormals rounded like normals; every NaN 0x7fffe000.
TEST(MeasuredPolicies, Tf32RoundsToNearestEven) {
  EXPECT_EQ(tf32_round_nearest_even(0xd7b0b2f8u), 0xd7b0c000u);  // low 0x12f8 above the half: up
  EXPECT_EQ(tf32_round_nearest_even(0x48638001u), 0x48638000u);  // below the half: down
  EXPECT_EQ(tf32_round_nearest_even(0x3f801000u), 0x3f800000u);  // a tie, even already: down
  EXPECT_EQ(tf32_round_nearest_even(0x3f803000u), 0x3f804000u);  // a tie, odd: up to even
  EXPECT_EQ(tf32_round_nearest_even(0x00364002u), 0x00364000u);  // a subnormal is rounded, not flushed
  EXPECT_EQ(tf32_round_nearest_even(0x7f7ff000u), 0x7f800000u);  // the carry reaches infinity
  EXPECT_EQ(tf32_round_nearest_even(0x7f800000u), 0x7f800000u);  // infinity stays
  EXPECT_EQ(tf32_round_nearest_even(0x7fa7c000u), 0x7fffe000u);  // a NaN becomes the tf32 NaN
  EXPECT_EQ(tf32_round_nearest_even(0xff800001u), 0x7fffe000u);  // whatever its sign and payload
}

// The load rounds in-bounds TFLOAT32 elements only: the OOB fill and FLOAT32 maps keep their bytes.
TEST(MeasuredPolicies, Tf32LoadRoundsInBoundsElementsOnly) {
  const std::vector<std::uint32_t> values{0xd7b0b2f8u, 0x3f803000u};
  std::vector<std::uint8_t> g(16, 0);
  std::memcpy(g.data(), values.data(), 8);
  TensorMapParams m = tile_map(T::TFLOAT32, {2}, {4});
  m.oob_fill = OobFill::NAN_REQUEST_ZERO_FMA;
  TensorAccess a;
  a.mode = TensorMode::tile;
  const PolicySet round = with_policy("tensor_tf32_load", "round_nearest_even");
  std::vector<std::uint8_t> w(64, 0);
  tensor_load(m, a, ConstByteSpan{g.data(), g.size()}, ByteSpan{w.data(), w.size()}, round);
  std::uint32_t got[4];
  std::memcpy(got, w.data(), 16);
  EXPECT_EQ(got[0], 0xd7b0c000u);
  EXPECT_EQ(got[1], 0x3f804000u);
  EXPECT_EQ(got[2], oob_fill_pattern(T::TFLOAT32, OobFill::NAN_REQUEST_ZERO_FMA, round));  // the fill as it is
  m.dtype = T::FLOAT32;
  std::fill(w.begin(), w.end(), 0);
  tensor_load(m, a, ConstByteSpan{g.data(), g.size()}, ByteSpan{w.data(), w.size()}, round);
  std::memcpy(got, w.data(), 8);
  EXPECT_EQ(got[0], values[0]);
  EXPECT_EQ(got[1], values[1]);
}

// interleave_tile_box=chunk_rows: boxDim[0] chunks per row, rows along box dimensions 1 .. rank-1 but rank-2.
// The H100 sweep: UINT8, dims 16x8x7, box 16x1x2, coords (0,1,1), interleave 16B wrote shared +0..+255 from global
// +144 and +256..+511 from global +272 (rows z = 1, 2; dimension 1 is rank-2 and not iterated).
TEST(MeasuredPolicies, InterleavedBoxIsChunkRows) {
  TensorMapParams m = tile_map(T::UINT8, {16, 8, 7}, {16, 1, 2});
  m.interleave = Interleave::B16;
  TensorAccess a;
  a.mode = TensorMode::tile;
  a.coords = {0, 1, 1, 0, 0};
  const PolicySet rows = with_policy("interleave_tile_box", "chunk_rows");
  const std::vector<BoxPiece> box = tensor_box(m, a, rows);  // one piece per element: 2 rows of 256 bytes
  ASSERT_EQ(box.size(), 512u);
  for (std::uint32_t i = 0; i < 512; ++i) {
    EXPECT_EQ(box[i].smem_off, i);
    EXPECT_EQ(box[i].data_bytes, 1u);
    EXPECT_TRUE(box[i].in_bounds);
    EXPECT_EQ(box[i].global_off, (i < 256 ? 144u : 272u - 256u) + i) << i;
  }
  EXPECT_EQ(tensor_tx_bytes(m, a, rows), 512u);  // the device credits the bytes it writes
  EXPECT_EQ(tensor_tx_bytes(m, a), 32u);          // the documented box: 16 x 1 x 2 bytes
  // 32B interleave: 32-byte chunks; rank 4 iterates dimensions 1 and 3
  TensorMapParams m4 = tile_map(T::UINT8, {32, 8, 7, 6}, {32, 2, 3, 2});
  m4.interleave = Interleave::B32;
  m4.swizzle = Swizzle::B32;
  a.coords = {0, 1, 1, 1, 0};
  EXPECT_EQ(tensor_tx_bytes(m4, a, rows), 32u * 32u * 2u * 2u);
}

// chunk_rows outside the loads' first domain (results/findings/h100-interleaved-tile-copy-outside-domain, the H200's
// sweep; the configurations and the runs it printed are quoted): dimension 0 counts chunks -- its coordinate and
// globalDim[0] too --, elementStrides step chunks and rows, dimension rank-2 keeps its coordinate and has no box,
// out-of-bounds chunks are filled (loads) or skipped (stores), overlapping rows reduce once per row.
// The expected pieces are computed from that rule here, chunk by chunk, and compared with the model's.
struct Chunk { std::uint32_t smem; bool in; std::uint64_t global; };
std::vector<Chunk> chunks_of(const TensorMapParams& m, const TensorAccess& a) {
  std::vector<Chunk> out;
  const std::uint32_t chunk = m.interleave == Interleave::B32 ? 32 : 16;
  const unsigned unit = element_bits(m.dtype) / 8;
  const std::vector<BoxPiece> box = tensor_box(m, a, with_policy("interleave_tile_box", "chunk_rows"));
  EXPECT_EQ(box.size() % (chunk / unit), 0u);
  for (std::size_t i = 0; i < box.size(); i += chunk / unit) {
    for (std::size_t k = 1; k < chunk / unit; ++k) {  // a chunk's elements: contiguous in both memories
      EXPECT_EQ(box[i + k].smem_off, box[i].smem_off + k * unit);
      EXPECT_EQ(box[i + k].in_bounds, box[i].in_bounds);
      if (box[i].in_bounds) {
        EXPECT_EQ(box[i + k].global_off, box[i].global_off + k * unit);
      }
    }
    out.push_back({box[i].smem_off, box[i].in_bounds, box[i].in_bounds ? box[i].global_off : 0});
  }
  return out;
}
// Row start of (y, z, w) in the sweep's 4D UINT8 tensor 32 x 8 x 7 x 6 (strides 32, 256, 1792).
std::uint64_t row4(std::int64_t y, std::int64_t z, std::int64_t w) { return 32 * y + 256 * z + 1792 * w; }

TEST(MeasuredPolicies, InterleavedChunkCoordinatesAndBounds) {
  TensorMapParams m = tile_map(T::UINT8, {32, 8, 7, 6}, {32, 1, 1, 1});
  m.interleave = Interleave::B16;
  TensorAccess a;
  a.mode = TensorMode::tile;
  // sweep idx 601: coords (-16, 1, 1, 1): runs [0, fill 00, 256], [256, 2080, 256]
  a.coords = {-16, 1, 1, 1, 0};
  std::vector<Chunk> c = chunks_of(m, a);
  ASSERT_EQ(c.size(), 32u);
  for (std::uint32_t j = 0; j < 32; ++j) {
    const std::int64_t k = -16 + std::int64_t(j);  // chunk index: out of bounds below 0
    EXPECT_EQ(c[j].smem, 16 * j);
    EXPECT_EQ(c[j].in, k >= 0) << j;
    if (k >= 0) {
      EXPECT_EQ(c[j].global, row4(1, 1, 1) + 16 * std::uint64_t(k)) << j;
    }
  }
  EXPECT_EQ(row4(1, 1, 1), 2080u);
  // sweep idx 602: coords (16, 1, 1, 1): chunks 16..31 from 2080 + 256, chunks 32..47 past globalDim[0] = 32
  a.coords = {16, 1, 1, 1, 0};
  c = chunks_of(m, a);
  for (std::uint32_t j = 0; j < 32; ++j) {
    EXPECT_EQ(c[j].in, 16 + j < 32) << j;
    if (c[j].in) {
      EXPECT_EQ(c[j].global, 2080u + 16 * (16 + j)) << j;
    }
  }
  // sweep idx 605: rank-2 (dimension 2) at -1 with box 2: one row, outside: 512 fill bytes
  m.box = {32, 1, 2, 1, 1};
  a.coords = {0, 1, -1, 1, 0};
  c = chunks_of(m, a);
  ASSERT_EQ(c.size(), 32u);
  for (const Chunk& x : c) EXPECT_FALSE(x.in);
  // sweep idx 603: dimension 1 at -1 with box 2: row y = -1 filled, row y = 0 from 2048
  m.box = {32, 2, 1, 1, 1};
  a.coords = {0, -1, 1, 1, 0};
  c = chunks_of(m, a);
  ASSERT_EQ(c.size(), 64u);
  for (std::uint32_t j = 0; j < 64; ++j) {
    EXPECT_EQ(c[j].in, j >= 32) << j;
    if (j >= 32) {
      EXPECT_EQ(c[j].global, row4(0, 1, 1) + 16 * (j - 32)) << j;
    }
  }
  EXPECT_EQ(row4(0, 1, 1), 2048u);
  EXPECT_EQ(tensor_tx_bytes(m, a, with_policy("interleave_tile_box", "chunk_rows")), 1024u);  // fill credited
}

TEST(MeasuredPolicies, InterleavedChunkElementStrides) {
  TensorAccess a;
  a.mode = TensorMode::tile;
  // sweep idx 520: elementStrides[0] = 2: 16 chunks, chunk j at index 2j (2080 + 32 j)
  TensorMapParams m = tile_map(T::UINT8, {32, 8, 7, 6}, {32, 1, 1, 1}, {2, 1, 1, 1});
  m.interleave = Interleave::B16;
  a.coords = {0, 1, 1, 1, 0};
  std::vector<Chunk> c = chunks_of(m, a);
  ASSERT_EQ(c.size(), 16u);
  for (std::uint32_t j = 0; j < 16; ++j) EXPECT_EQ(c[j].global, 2080u + 32 * j) << j;
  // sweep idx 524: elementStrides[1] = 3, box 5: rows y = 0, 3 (2048, 2144)
  m = tile_map(T::UINT8, {32, 8, 7, 6}, {32, 5, 1, 1}, {1, 3, 1, 1});
  m.interleave = Interleave::B16;
  a.coords = {0, 0, 1, 1, 0};
  c = chunks_of(m, a);
  ASSERT_EQ(c.size(), 64u);
  EXPECT_EQ(c[0].global, row4(0, 1, 1));
  EXPECT_EQ(c[32].global, row4(3, 1, 1));
  EXPECT_EQ(c[32].global, 2144u);
  // sweep idx 522: elementStrides[2] = 2, box 4 along rank-2: still one row, at z = 0 (1824)
  m = tile_map(T::UINT8, {32, 8, 7, 6}, {32, 1, 4, 1}, {1, 1, 2, 1});
  m.interleave = Interleave::B16;
  a.coords = {0, 1, 0, 1, 0};
  c = chunks_of(m, a);
  ASSERT_EQ(c.size(), 32u);
  EXPECT_EQ(c[0].global, 1824u);
  // sweep idx 561: interleave 32B, elementStrides[3] = 8, box 4: one row of 32 chunks of 32 bytes from 288
  m = tile_map(T::UINT8, {32, 8, 7, 6}, {32, 1, 1, 4}, {1, 1, 1, 8});
  m.interleave = Interleave::B32;
  m.swizzle = Swizzle::B32;  // the documented pairing
  a.coords = {0, 1, 1, 0, 0};
  c = chunks_of(m, a);
  ASSERT_EQ(c.size(), 32u);
  for (std::uint32_t j = 0; j < 32; ++j) EXPECT_EQ(c[j].global, 288u + 32 * j) << j;
}

// Loads fill an out-of-bounds chunk element by element (sweep idx 705: FLOAT32 8 x 8 x 7 x 6, coords (-4, 1, 1, 1),
// NaN fill: 64 bytes of 0x7ff77ff7, then 64 bytes from 2080); stores skip it (sweep idx 812: rows y = 7, 8 of a
// UINT8 tensor: 512 bytes written at 2272, row y = 8 not written).
TEST(MeasuredPolicies, InterleavedChunkFillAndStoreSkip) {
  PolicySet p = with_policy("interleave_tile_box", "chunk_rows");
  ASSERT_TRUE(p.set("oob_nan_pattern", "repeat_7ff7"));
  TensorMapParams m = tile_map(T::FLOAT32, {8, 8, 7, 6}, {8, 1, 1, 1});
  m.interleave = Interleave::B16;
  m.oob_fill = OobFill::NAN_REQUEST_ZERO_FMA;
  TensorAccess a;
  a.mode = TensorMode::tile;
  a.coords = {-4, 1, 1, 1, 0};
  const std::vector<std::uint8_t> g = make_index_tensor(m, 0x1234);
  std::vector<std::uint8_t> w(256, 0xa5);
  EXPECT_EQ(tensor_load(m, a, ConstByteSpan{g.data(), g.size()}, ByteSpan{w.data(), w.size()}, p), 128u);
  for (unsigned i = 0; i < 64; i += 4) {
    std::uint32_t v;
    std::memcpy(&v, &w[i], 4);
    EXPECT_EQ(v, 0x7ff77ff7u) << i;
  }
  for (unsigned i = 64; i < 128; ++i) EXPECT_EQ(w[i], g[2080 + i - 64]) << i;
  for (unsigned i = 128; i < 256; ++i) EXPECT_EQ(w[i], 0xa5) << i;

  TensorMapParams s = tile_map(T::UINT8, {32, 8, 7, 6}, {32, 2, 1, 1});
  s.interleave = Interleave::B16;
  a.coords = {0, 7, 1, 1, 0};
  std::vector<std::uint8_t> win(1024);
  for (unsigned i = 0; i < win.size(); ++i) win[i] = std::uint8_t(i * 7 + 1);
  std::vector<std::uint8_t> gd(tensor_global_bytes(s) + 4096, 0);
  tensor_store(s, a, ByteSpan{gd.data(), gd.size()}, ConstByteSpan{win.data(), win.size()}, p);
  for (unsigned i = 0; i < gd.size(); ++i) {
    const bool written = i >= 2272 && i < 2272 + 512;
    EXPECT_EQ(gd[i], written ? win[i - 2272] : 0) << i;
  }
}

// Rows that overlap in global memory are reduced once per row (sweep idx 159: UINT32 4 x 8 x 7 x 6, box 4 x 2 x 1 x 1
// at (0, 1, 1, 1), interleave 16B: rows y = 1, 2 of 64 bytes at 1040 and 1056 overlap by 48 bytes, which received
// the sum of both sources).
TEST(MeasuredPolicies, InterleavedChunkRowsReduceOncePerRow) {
  const PolicySet p = with_policy("interleave_tile_box", "chunk_rows");
  TensorMapParams m = tile_map(T::UINT32, {4, 8, 7, 6}, {4, 2, 1, 1});
  m.interleave = Interleave::B16;
  TensorAccess a;
  a.mode = TensorMode::tile;
  a.coords = {0, 1, 1, 1, 0};
  std::vector<std::uint8_t> win(256);
  for (unsigned i = 0; i < 256; i += 4) {
    const std::uint32_t v = 0x40000000u | i;
    std::memcpy(&win[i], &v, 4);
  }
  std::vector<std::uint8_t> gd(tensor_global_bytes(m) + 1024, 0);
  tensor_reduce(m, a, RedOp::add, ByteSpan{gd.data(), gd.size()}, ConstByteSpan{win.data(), win.size()}, p);
  for (unsigned o = 1024; o < 1200; o += 4) {
    std::uint32_t got, want = 0;
    std::memcpy(&got, &gd[o], 4);
    if (o >= 1040 && o < 1104) want += 0x40000000u | (o - 1040);        // row y = 1, shared +0..63
    if (o >= 1056 && o < 1120) want += 0x40000000u | (64 + o - 1056);   // row y = 2, shared +64..127
    EXPECT_EQ(got, want) << o;
  }
}

// A row of globalDim[0] chunks runs past the last element (explored.0xa12ed5be65, seed 20261129: FLOAT16 9 x 1 x 24,
// strides 32, interleave 32B, box 16 x 1 x 1 at (0, 0, 23); on the H100 and the H200 the max reduced 288 bytes at
// 736, chunks 0-8 of row z = 23, i.e. up to byte 1024 of a tensor whose last element ends at 754): the tensor spans
// the chunk row, so chunk_rows places every in-bounds chunk inside it and the judge can try it.
TEST(MeasuredPolicies, InterleavedChunkRowPastTheLastElementIsInsideTheTensor) {
  TensorMapParams m = tile_map(T::FLOAT16, {9, 1, 24}, {16, 1, 1});
  m.strides = {32, 32, 0, 0};
  m.interleave = Interleave::B32;
  m.swizzle = Swizzle::B32;
  EXPECT_EQ(tensor_global_bytes(m), 1024u) << "23 rows of 32 bytes, then 9 chunks of 32";
  TensorMapParams plain = m;
  plain.interleave = Interleave::NONE;
  plain.swizzle = Swizzle::NONE;
  EXPECT_EQ(tensor_global_bytes(plain), 754u) << "without interleave the tensor ends at its last element";
  TensorAccess a;
  a.mode = TensorMode::tile;
  a.coords = {0, 0, 23, 0, 0};
  std::vector<std::uint8_t> win(512);
  for (unsigned i = 0; i < win.size(); i += 2) {
    const std::uint16_t v = 0x3c00 | (i / 2);  // 1.0 and up: larger than the zero old values
    std::memcpy(&win[i], &v, 2);
  }
  std::vector<std::uint8_t> gd(tensor_global_bytes(m), 0);
  tensor_reduce(m, a, RedOp::max, ByteSpan{gd.data(), gd.size()}, ConstByteSpan{win.data(), win.size()},
                with_policy("interleave_tile_box", "chunk_rows"));
  for (unsigned o = 0; o < gd.size(); ++o)  // the box's 288 bytes, read from the 32B-swizzled window
    EXPECT_EQ(gd[o], o >= 736 ? win[swizzle_address(Swizzle::B32, o - 736)] : 0) << o;
}

// im2col_interleave_box_area=previous_dim gives every verdict of the H100's grid (results/findings/
// h100-im2col-interleave-encode-refusal/h100-grid-by-extent.txt: 5,408 interleaved and plain rank-4 maps, W and H
// 1-4, corner differences -6..6 along both): an interleaved map's box along H is checked against W, along W
// against C; the documented reading (checked) gives the plain maps' verdicts and not the interleaved ones'.
TEST(MeasuredPolicies, Im2colInterleaveBoxCheckedAgainstTheDimensionBelowGivesTheH100Grid) {
  std::ifstream in(PTXCTS_ENCODE_GRID);
  ASSERT_TRUE(in) << PTXCTS_ENCODE_GRID;
  const PolicySet measured = with_policy("im2col_interleave_box_area", "previous_dim");
  std::string line;
  size_t rows = 0, documented_wrong_plain = 0, documented_wrong_interleaved = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    int il = 0, dw = 0, dh = 0, ok = 0;
    std::uint64_t w = 0, h = 0;
    ASSERT_TRUE(f >> il >> w >> h >> dw >> dh >> ok) << line;
    TensorMapParams m = testing::map_of(EncodeKind::im2col, T::UINT8, 4, {1, w, h, 1, 1}, {16, 16 * w, 16 * w * h, 0});
    m.channels_per_pixel = 64;
    m.pixels_per_column = 8;
    m.global_address = 1216;
    m.l2_promotion = L2Promotion::L2_128B;
    m.interleave = il ? Interleave::B16 : Interleave::NONE;
    m.upper_corner = {dw, dh, 0};  // only upper - lower counts (the grid's lower corners -3..3 say so)
    EXPECT_EQ(validate_encode(m, 90, measured).must_accept(), ok == 1) << line;
    const bool documented = validate_encode(m, 90).must_accept();
    (il ? documented_wrong_interleaved : documented_wrong_plain) += documented != (ok == 1);
    ++rows;
  }
  EXPECT_EQ(rows, 5408u);
  EXPECT_EQ(documented_wrong_plain, 0u) << "without interleave the documented rule holds";
  EXPECT_GT(documented_wrong_interleaved, 0u) << "with interleave it does not";
}

// One rule per behaviour: the measured alternative of a policy is its first single deviation.
TEST(MeasuredPolicies, MeasuredAlternativeIsTriedFirst) {
  std::string first_f64, first_tf32;
  for (const auto& [name, ps] : single_deviations(PolicySet{})) {
    if (first_f64.empty() && name.rfind("f64_add_nan=", 0) == 0) first_f64 = name;
    if (first_tf32.empty() && name.rfind("tensor_tf32_load=", 0) == 0) first_tf32 = name;
  }
  EXPECT_EQ(first_f64, "f64_add_nan=passthrough");
  EXPECT_EQ(first_tf32, "tensor_tf32_load=round_nearest_even");
  for (const PolicyInfo& p : policy_catalog())
    for (const Measured& m : p.measured) {
      EXPECT_LT(m.alternative, p.alternatives.size()) << p.name;
      EXPECT_NE(m.evidence.find("results/findings/"), std::string::npos) << p.name;
    }
}

}  // namespace
}  // namespace ptxcts::ref
