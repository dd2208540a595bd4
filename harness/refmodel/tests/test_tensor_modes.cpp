// gather4 / scatter4, im2col (offsets, corners, wrap, element strides), im2col::w, stores and reductions.
// Expected values derived by hand in the comments from NOTES.md's descriptions; the index tensor holds
// base + linear index, so every value names its element.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <string>

#include "model_helpers.hpp"
#include "tensor_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;

namespace {

// im2col map: dims innermost first (C, W, [H, [D]], N), dense strides.
TensorMapParams im2col_map(TensorDataType t, std::vector<std::uint64_t> dims, std::vector<int> lower,
                           std::vector<int> upper, std::uint32_t cpp, std::uint32_t ppc) {
  TensorMapParams p;
  p.kind = EncodeKind::im2col;
  p.dtype = t;
  p.rank = static_cast<unsigned>(dims.size());
  for (unsigned i = 0; i < p.rank; ++i) p.dims[i] = dims[i];
  for (std::size_t i = 0; i < lower.size(); ++i) {
    p.lower_corner[i] = lower[i];
    p.upper_corner[i] = upper[i];
  }
  p.channels_per_pixel = cpp;
  p.pixels_per_column = ppc;
  p.strides = dense_strides(t, p.rank, p.dims);
  return p;
}

}  // namespace

// gather4: UINT32 8 x 10, box 4 x 1, coords {col 2, rows 7, 0, 9, 10}: shared row k = row_k's x = 2..5
// (value 8*row + x); row 10 is beyond dims[1] = 10 -> zeros. 16 elements -> 64 tx bytes.
TEST(TensorGather4, FourRowsInOrder) {
  const auto m = tile_map(TensorDataType::UINT32, {8, 10}, {4, 1});
  const Loaded l = load(m, at({2, 7, 0, 9, 10}, TensorMode::gather4));
  const std::uint32_t want[16] = {58, 59, 60, 61, 2, 3, 4, 5, 74, 75, 76, 77, 0, 0, 0, 0};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(at_le(l.window, 4 * i, 4), want[i]) << i;
  EXPECT_EQ(l.tx, 64u);
  EXPECT_EQ(l.window[64], kPoison);
  const auto bad = tile_map(TensorDataType::UINT32, {8, 10}, {4, 2});
  EXPECT_THROW(load(bad, at({2, 7, 0, 9, 1}, TensorMode::gather4)), ModelError);  // boxDim[1] must be 1
}

// scatter4: the inverse; a row outside the tensor is not written. Shared rows hold 0xA000 + k*16 + j.
TEST(TensorGather4, Scatter4WritesRowsSkipsOob) {
  const auto m = tile_map(TensorDataType::UINT32, {8, 10}, {4, 1});
  std::vector<std::uint8_t> win(256, 0);
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 4; ++j) store_le(win.data() + 16 * k + 4 * j, 4, 0xA000u + 16 * k + j);
  std::vector<std::uint8_t> g(8 * 10 * 4, 0);
  tensor_store(m, at({4, 1, 3, 12, 5}, TensorMode::scatter4), ByteSpan{g.data(), g.size()},
               ConstByteSpan{win.data(), win.size()});
  auto elem = [&](int x, int y) { return at_le(g, 4 * (8 * y + x), 4); };
  EXPECT_EQ(elem(4, 1), 0xA000u);
  EXPECT_EQ(elem(7, 1), 0xA003u);
  EXPECT_EQ(elem(5, 3), 0xA011u);
  EXPECT_EQ(elem(6, 5), 0xA032u);  // row 12 (k=2) skipped; k=3 -> row 5
  int written = 0;
  for (int i = 0; i < 80; ++i) written += at_le(g, 4 * i, 4) != 0;
  EXPECT_EQ(written, 12);
}

// im2col 3D (C, W, N): UINT8 C=16, W=6, N=2; lower corner -1, upper corner -1 -> W walks [-1, 5).
// cpp 16, 8 pixels from (c=0, w=-1, n=0): w = -1,0,1,2,3,4, then w=5 reaches 6 + (-1) -> back to -1 and n=1:
// w = -1, 0. w = -1 is outside -> zeros. Value (c, w, n) = c + 16(w + 6n).
TEST(TensorIm2col, Walk3DWithCornersAndWrap) {
  const auto m = im2col_map(TensorDataType::UINT8, {16, 6, 2}, {-1}, {-1}, 16, 8);
  const Loaded l = load(m, at({0, -1, 0}, TensorMode::im2col));
  const int want_w[8] = {-1, 0, 1, 2, 3, 4, -1, 0}, want_n[8] = {0, 0, 0, 0, 0, 0, 1, 1};
  for (int p = 0; p < 8; ++p)
    for (int c = 0; c < 16; ++c) {
      const int w = want_w[p], n = want_n[p];
      const int want = w < 0 ? 0 : c + 16 * (w + 6 * n);
      EXPECT_EQ(l.window[16 * p + c], want) << "pixel " << p << " channel " << c;
    }
  EXPECT_EQ(l.tx, 128u);
  // Offset W = 2: the same positions read at w + 2: 1,2,3,4,5,6(outside),1(n=1),2(n=1).
  TensorAccess a = at({0, -1, 0}, TensorMode::im2col);
  a.im2col_offsets = {2, 0, 0};
  const Loaded lo = load(m, a);
  EXPECT_EQ(lo.window[0], 16);              // (0, 1, 0)
  EXPECT_EQ(lo.window[16 * 5], 0);          // w = 6 outside
  EXPECT_EQ(lo.window[16 * 6 + 3], 3 + 16 * 7);  // (3, 1, 1)
}

// im2col 4D (C, W, H, N): C=16 W=4 H=3 N=1, zero corners -> W in [0,4), H in [0,3).
// From (w=2, h=1), 6 pixels: (2,1) (3,1) (0,2) (1,2) (2,2) (3,2). Value = c + 16(w + 4h).
// With elementStrides[W] = 2 from (0,0): (0,0) (2,0) (0,1) (2,1) (0,2) (2,2).
// From w=1 with stride 2: (1,0) (3,0), then w=5 passes 4: reset -> 0 (next (0,1)); carry -> 0 + (5-4) = 1.
TEST(TensorIm2col, Walk4DAcrossHAndStrides) {
  auto m = im2col_map(TensorDataType::UINT8, {16, 4, 3, 1}, {0, 0}, {0, 0}, 16, 6);
  Loaded l = load(m, at({0, 2, 1, 0}, TensorMode::im2col));
  const int pw[6] = {2, 3, 0, 1, 2, 3}, ph[6] = {1, 1, 2, 2, 2, 2};
  for (int p = 0; p < 6; ++p) EXPECT_EQ(l.window[16 * p], 16 * (pw[p] + 4 * ph[p])) << p;
  m.element_strides = {1, 2, 1, 1, 1};
  l = load(m, at({0, 0, 0, 0}, TensorMode::im2col));
  const int sw[6] = {0, 2, 0, 2, 0, 2}, sh[6] = {0, 0, 1, 1, 2, 2};
  for (int p = 0; p < 6; ++p) EXPECT_EQ(l.window[16 * p], 16 * (sw[p] + 4 * sh[p])) << p;
  l = load(m, at({0, 1, 0, 0}, TensorMode::im2col));
  EXPECT_EQ(l.window[16 * 2], 16 * (0 + 4 * 1));
  PolicySet carry;
  carry.set("im2col_wrap_stride", "carry");
  l = load(m, at({0, 1, 0, 0}, TensorMode::im2col), 0, 8192, carry);
  EXPECT_EQ(l.window[16 * 2], 16 * (1 + 4 * 1));
}

// Property: with zero offsets and zero corners, an im2col column that walks whole W rows (and whole H planes)
// equals the tile load of the box {cpp, W, H, 1} at {c, 0, 0, n}, byte for byte.
TEST(TensorIm2col, ZeroOffsetsAndCornersEqualTile) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 40; ++iter) {
    const TensorDataType t = iter % 2 ? TensorDataType::UINT16 : TensorDataType::FLOAT32;
    const unsigned esize = element_bits(t) / 8;
    const std::uint32_t cpp = 16 / esize * (1 + rng() % 2);
    const std::uint64_t C = cpp + (16 / esize) * (rng() % 2), W = 1 + rng() % 5, H = 1 + rng() % 3, N = 1 + rng() % 3;
    const std::int32_t c0 = static_cast<std::int32_t>(rng() % (C - cpp + 1));
    const std::int32_t n = static_cast<std::int32_t>(rng() % N);
    const bool planes = rng() % 2;
    const auto ppc = static_cast<std::uint32_t>(planes ? W * H : W);
    const std::int32_t h0 = planes ? 0 : static_cast<std::int32_t>(rng() % H);
    const auto im = im2col_map(t, {C, W, H, N}, {0, 0}, {0, 0}, cpp, ppc);
    const auto tile = tile_map(t, {C, W, H, N}, {cpp, static_cast<std::uint32_t>(W), planes ? static_cast<std::uint32_t>(H) : 1u, 1});
    const std::uint64_t base = rng();
    const Loaded a = load(im, at({c0, 0, h0, n}, TensorMode::im2col), base);
    const Loaded b = load(tile, at({c0, 0, h0, n}), base);
    ASSERT_EQ(a.window, b.window) << "iteration " << iter;
    ASSERT_EQ(a.tx, b.tx);
  }
}

// im2col::w: UINT16 C=8 (16 B), W=10, H=2, N=1; corners W [-1, 10). 4 pixels from (w=3, h=1), wOffset 1:
// reads w = 4..7 at h = 1: value = c + 8(w + 10h). wHalo 2 (append, default): 2 more pixels (w = 8, 9).
TEST(TensorIm2colW, OffsetAndHalo) {
  auto m = im2col_map(TensorDataType::UINT16, {8, 10, 2, 1}, {-1, 0}, {0, 0}, 8, 4);
  m.kind = EncodeKind::im2col_wide;
  m.swizzle = Swizzle::B64;
  TensorAccess a = at({0, 3, 1, 0}, TensorMode::im2col_w);
  a.w_offset = 1;
  a.w_halo = 2;
  const Loaded l = load(m, a);
  // Rows of 16 B under SWIZZLE_64B from address 0: rows 0..5 lie in lines 0..0 (96 B) -> unswizzled.
  for (int p = 0; p < 6; ++p) EXPECT_EQ(at_le(l.window, 16 * p, 2), 8u * (4 + p + 10)) << p;
  EXPECT_EQ(l.tx, 96u);
  PolicySet ignore;
  ignore.set("im2col_w_halo", "ignore");
  EXPECT_EQ(tensor_tx_bytes(m, a, ignore), 64u);
  a.w_offset = 32;
  EXPECT_THROW(load(m, a), ModelError);  // wOffset range [0, 32)
  a.w_offset = 0;
  a.mode = TensorMode::im2col_w128;
  a.w_halo = 32;
  EXPECT_THROW(load(m, a), ModelError);  // wHalo range for ::w::128 is [0, 32)
  a.w_halo = 0;
  m.wide_mode = Im2colWideMode::W128;
  EXPECT_EQ(tensor_tx_bytes(m, a), 128u * 16u);  // 128 pixels of 16 bytes
}

// A map from the wrong encode function for the mode is refused; a map the driver must reject is
// TensorMapRejected naming the rule.
TEST(TensorModes, MapKindAndRejection) {
  const auto m = tile_map(TensorDataType::UINT8, {16, 6, 2}, {16, 1, 1});
  EXPECT_THROW(load(m, at({0, 0, 0}, TensorMode::im2col)), ModelError);
  auto bad = tile_map(TensorDataType::UINT16, {16, 4}, {7, 2});
  try {
    load(bad, at({0, 0}));
    ADD_FAILURE() << "no throw";
  } catch (const TensorMapRejected& e) {
    EXPECT_EQ(e.violation.rule, "box_inner_multiple16");
    EXPECT_NE(std::string(e.what()).find("cuTensorMapEncodeTiled must reject"), std::string::npos);
  }
}

// Stores: OOB elements are not written; coordinates must be non-negative. UINT32 4 x 4, box 4 x 4 at (2, 2):
// only (2..3, 2..3) are in bounds; shared element (k0, k1) = 0xB0 + 4*k1 + k0.
TEST(TensorStore, OobNotWrittenAndCoordinatesNonNegative) {
  const auto m = tile_map(TensorDataType::UINT32, {4, 4}, {4, 4});
  std::vector<std::uint8_t> win(64);
  for (int i = 0; i < 16; ++i) store_le(win.data() + 4 * i, 4, 0xB0u + i);
  std::vector<std::uint8_t> g(64, 0);
  tensor_store(m, at({2, 2}), ByteSpan{g.data(), g.size()}, ConstByteSpan{win.data(), win.size()});
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) {
      const std::uint32_t want = (x >= 2 && y >= 2) ? 0xB0u + 4 * (y - 2) + (x - 2) : 0u;
      EXPECT_EQ(at_le(g, 4 * (4 * y + x), 4), want) << x << "," << y;
    }
  EXPECT_THROW(tensor_store(m, at({-1, 0}), ByteSpan{g.data(), g.size()}, ConstByteSpan{win.data(), win.size()}),
               ModelError);
  const auto p64 = tile_map(TensorDataType::T16U4_ALIGN16B, {128, 1}, {128, 1});
  std::vector<std::uint8_t> g2(64), w2(256);
  EXPECT_THROW(tensor_store(p64, at({0, 0}), ByteSpan{g2.data(), g2.size()}, ConstByteSpan{w2.data(), w2.size()}),
               ModelError);  // .b4x16_p64 is not supported in the .global.shared::cta direction
}

// im2col_no_offs store after an im2col load (zero corners, in bounds) restores the column's pixels.
TEST(TensorStore, Im2colNoOffsStoreAfterLoad) {
  const auto m = im2col_map(TensorDataType::UINT8, {16, 4, 2}, {0}, {0}, 16, 6);
  const auto src = make_index_tensor(m, 0x40);
  std::vector<std::uint8_t> win(1024, 0);
  tensor_load(m, at({0, 1, 0}, TensorMode::im2col), ConstByteSpan{src.data(), src.size()},
              ByteSpan{win.data(), win.size()});
  std::vector<std::uint8_t> dst(src.size(), 0);
  tensor_store(m, at({0, 1, 0}, TensorMode::im2col_no_offs), ByteSpan{dst.data(), dst.size()},
               ConstByteSpan{win.data(), win.size()});
  // Pixels (w, n): (1,0) (2,0) (3,0) (0,1) (1,1) (2,1) -> bytes 16(w + 4n) .. +15 restored; (0,0), (3,1) zero.
  for (int w = 0; w < 4; ++w)
    for (int n = 0; n < 2; ++n) {
      const bool stored = !((w == 0 && n == 0) || (w == 3 && n == 1));
      for (int c = 0; c < 16; ++c) {
        const std::size_t off = 16 * (w + 4 * n) + c;
        EXPECT_EQ(dst[off], stored ? src[off] : 0) << w << "," << n << "," << c;
      }
    }
  auto neg = m;
  neg.lower_corner[0] = -1;
  EXPECT_THROW(tensor_store(neg, at({0, 1, 0}, TensorMode::im2col_no_offs), ByteSpan{dst.data(), dst.size()},
                            ConstByteSpan{win.data(), win.size()}),
               ModelError);  // 'Bounding-Box Lower-Corner must be non-negative.'
}

// cp.reduce.async.bulk.tensor: add.u32 over the in-bounds part; FLOAT32 vs FLOAT32_FTZ subnormals; type checks.
TEST(TensorReduce, InBoundsOnlyAndTypeRules) {
  auto m = tile_map(TensorDataType::UINT32, {4, 2}, {4, 2});
  std::vector<std::uint8_t> win(32), g(32);
  for (int i = 0; i < 8; ++i) {
    store_le(win.data() + 4 * i, 4, 100);
    store_le(g.data() + 4 * i, 4, 0xffffffffu - i);
  }
  tensor_reduce(m, at({1, 1}), RedOp::add, ByteSpan{g.data(), g.size()}, ConstByteSpan{win.data(), win.size()});
  // In bounds: (1..3, 1) -> elements 5, 6, 7: (0xffffffff - i) + 100 wraps to 99 - i.
  for (int i = 0; i < 8; ++i) {
    const std::uint32_t orig = 0xffffffffu - i;
    const std::uint32_t want = (i >= 5) ? static_cast<std::uint32_t>(orig + 100u) : orig;
    EXPECT_EQ(at_le(g, 4 * i, 4), want) << i;
  }
  // FLOAT32: 2^-127 + 2^-127 = 2^-126 (kept, by_dtype); FLOAT32_FTZ: both inputs flush -> +0.
  m = tile_map(TensorDataType::FLOAT32, {4, 1}, {4, 1});
  for (int i = 0; i < 4; ++i) {
    store_le(win.data() + 4 * i, 4, 0x00400000u);
    store_le(g.data() + 4 * i, 4, 0x00400000u);
  }
  tensor_reduce(m, at({0, 0}), RedOp::add, ByteSpan{g.data(), 16}, ConstByteSpan{win.data(), win.size()});
  EXPECT_EQ(at_le(g, 0, 4), 0x00800000u);
  m.dtype = TensorDataType::FLOAT32_FTZ;
  for (int i = 0; i < 4; ++i) store_le(g.data() + 4 * i, 4, 0x00400000u);
  tensor_reduce(m, at({0, 0}), RedOp::add, ByteSpan{g.data(), 16}, ConstByteSpan{win.data(), win.size()});
  EXPECT_EQ(at_le(g, 0, 4), 0u);
  // INT32 min is signed: min(-1, 100) = -1.
  m = tile_map(TensorDataType::INT32, {4, 1}, {4, 1});
  store_le(g.data(), 4, 0xffffffffu);
  tensor_reduce(m, at({0, 0}), RedOp::min, ByteSpan{g.data(), 16}, ConstByteSpan{win.data(), win.size()});
  EXPECT_EQ(at_le(g, 0, 4), 0xffffffffu);
  m.dtype = TensorDataType::UINT8;
  m.box[0] = 16;
  EXPECT_THROW(tensor_reduce(m, at({0, 0}), RedOp::add, ByteSpan{g.data(), 16}, ConstByteSpan{win.data(), 32}),
               ModelError);
  m = tile_map(TensorDataType::FLOAT64, {2, 1}, {2, 1});
  EXPECT_THROW(tensor_reduce(m, at({0, 0}), RedOp::add, ByteSpan{g.data(), 16}, ConstByteSpan{win.data(), 32}),
               ModelError);  // .add.f64 is not in the tensor table
  EXPECT_EQ(tensor_reduce_type(TensorDataType::UINT64, RedOp::xor_op), ElemType::b64);
  EXPECT_EQ(tensor_reduce_type(TensorDataType::INT64, RedOp::max), ElemType::s64);
  EXPECT_FALSE(tensor_reduce_type(TensorDataType::TFLOAT32, RedOp::add).has_value());
}

// .multicast::cluster: ctaMask 0b0101 of 3 CTAs -> ranks 0 and 2 receive the box and its tx bytes, rank 1 nothing.
TEST(TensorMulticast, EveryMaskedCtaGetsTheBox) {
  const auto m = tile_map(TensorDataType::UINT16, {16, 4}, {8, 2});
  const auto g = make_index_tensor(m, 0x100);
  std::vector<Window> w(3, Window(256, kPoison));
  TensorAccess a = at({0, 1});
  a.smem_offset = 64;
  const auto tx = tensor_load_multicast(m, a, ConstByteSpan{g.data(), g.size()}, w, 0b0101);
  EXPECT_EQ(tx, (std::vector<std::uint32_t>{32, 0, 32}));
  // (x, y=1) -> 0x100 + 16 + x at 64 + 2x; (x, y=2) -> 0x100 + 32 + x at 80 + 2x.
  for (unsigned r : {0u, 2u}) {
    EXPECT_EQ(at_le(w[r], 64, 2), 0x110u);
    EXPECT_EQ(at_le(w[r], 80 + 14, 2), 0x127u);
    EXPECT_EQ(w[r][63], kPoison);
    EXPECT_EQ(w[r][96], kPoison);
  }
  for (auto b : w[1]) EXPECT_EQ(b, kPoison);
  EXPECT_THROW(tensor_load_multicast(m, a, ConstByteSpan{g.data(), g.size()}, w, 0b1000), ModelError);
}

// 5D tile: UINT8 16 x 2 x 2 x 2 x 2, box {16, 1, 1, 1, 2} at (0, 1, 0, 1, 0). Rows k4 = 0, 1 read
// (x, 1, 0, 1, k4): linear x + 16(1 + 2(0 + 2(1 + 2 k4))) = x + 80 + 128 k4 -> 80..95, then 208..223.
TEST(TensorTile5D, RowsOfTheOutermostDimension) {
  const auto m = tile_map(TensorDataType::UINT8, {16, 2, 2, 2, 2}, {16, 1, 1, 1, 2});
  const Loaded l = load(m, at({0, 1, 0, 1, 0}));
  for (int x = 0; x < 16; ++x) {
    EXPECT_EQ(l.window[x], 80 + x);
    EXPECT_EQ(l.window[16 + x], 208 + x);
  }
  EXPECT_EQ(l.tx, 32u);
}

// 5D im2col (C, W, H, D, N) = (16, 2, 2, 2, 1), zero corners, 8 pixels from the origin: the walk is W, then H,
// then D, so pixel p = w + 2h + 4d and channel c of it holds 16p + c: the window reads 0..127 in order.
// With offsets {W 1, H 0, D 1}: pixel 0 reads (1, 0, 1) = 16(1 + 4) = 80; pixel 1 reads w = 2 (outside) -> 0;
// pixel 4 reads d = 2 (outside) -> 0; pixel 2 (w 0, h 1, d 0) reads (1, 1, 1) = 16 * 7 = 112.
TEST(TensorIm2col, Walk5D) {
  const auto m = im2col_map(TensorDataType::UINT8, {16, 2, 2, 2, 1}, {0, 0, 0}, {0, 0, 0}, 16, 8);
  const Loaded l = load(m, at({0, 0, 0, 0, 0}, TensorMode::im2col));
  for (int i = 0; i < 128; ++i) EXPECT_EQ(l.window[i], i) << i;
  TensorAccess a = at({0, 0, 0, 0, 0}, TensorMode::im2col);
  a.im2col_offsets = {1, 0, 1};
  const Loaded o = load(m, a);
  EXPECT_EQ(o.window[0], 80);
  EXPECT_EQ(o.window[16], 0);
  EXPECT_EQ(o.window[64], 0);
  EXPECT_EQ(o.window[32], 112);
  a.im2col_offsets = {32, 0, 0};  // 5D offsets are 5-bit
  EXPECT_THROW(load(m, a), ModelError);
}

// The window a case needs (tensor_smem_extent / _any). UINT32 box 4 x 33 under swizzle 64B: 16-byte rows, narrower
// than the 64-byte span. Dense rows (the default layout): 33 x 16 = 528 bytes, to the span 576, to the 128-byte
// line 640. Rows padded to the span (swizzle_narrow_box=pad_to_span): 33 x 64 = 2112, to the line 2176 — the bytes
// a device laying the box out that way writes, which the window must own. A load under either layout leaves every
// byte from its extent on untouched.
TEST(TensorExtent, NarrowSwizzledRowsPaddedToTheSpan) {
  auto m = tile_map(TensorDataType::UINT32, {64, 64}, {4, 33});
  m.swizzle = Swizzle::B64;
  const TensorAccess a = at({0, 0});
  PolicySet pad;
  ASSERT_TRUE(pad.set("swizzle_narrow_box", "pad_to_span"));
  EXPECT_EQ(tensor_smem_extent(m, a), 640u);
  EXPECT_EQ(tensor_smem_extent(m, a, pad), 2176u);
  EXPECT_EQ(tensor_smem_extent_any(m, a), 2176u);
  for (const PolicySet& p : {PolicySet{}, pad}) {
    const Loaded l = load(m, a, 0, 8192, p);
    const std::uint32_t e = tensor_smem_extent(m, a, p);
    for (std::size_t i = e; i < l.window.size(); ++i) ASSERT_EQ(l.window[i], kPoison) << "byte " << i << " of " << e;
    EXPECT_TRUE(std::any_of(l.window.begin() + (e - 128), l.window.begin() + e, [](std::uint8_t b) { return b != kPoison; }))
        << "the extent's last line holds box bytes";
  }
  // Without a swizzle no policy moves a byte: the extent is the dense box, 33 x 16.
  m.swizzle = Swizzle::NONE;
  EXPECT_EQ(tensor_smem_extent_any(m, a), 528u);
}

// tensor.cpp: an im2col_no_offs store checks the corners of the spatial dimensions only (rank - 2 of them); a 3-D
// map's unused second corner pair is not read (mutant: `s + 2 < rank` -> `s + 1 < rank` refused this store). C 16, W
// 4, N 2, six pixels of 16 channels from (c 0, w 1, n 0): the same bytes with or without the unused corner.
TEST(TensorStore, Im2colReadsOnlySpatialCorners) {
  TensorMapParams m = im2col_map(EncodeKind::im2col, TensorDataType::UINT8, 3, {16, 4, 2, 1, 1}, {16, 64, 0, 0},
                                 16, 6);
  m.global_address = 1u << 20;
  std::vector<std::uint8_t> win(1024);
  for (std::size_t i = 0; i < win.size(); ++i) win[i] = static_cast<std::uint8_t>(i * 7 + 1);
  std::vector<std::uint8_t> plain(tensor_global_bytes(m), 0), with_unused(plain);
  tensor_store(m, at({0, 1, 0}, TensorMode::im2col_no_offs), ByteSpan{plain.data(), plain.size()},
               ConstByteSpan{win.data(), win.size()});
  TensorMapParams u = m;
  u.upper_corner[1] = 5;
  u.lower_corner[1] = -3;
  EXPECT_NO_THROW(tensor_store(u, at({0, 1, 0}, TensorMode::im2col_no_offs),
                               ByteSpan{with_unused.data(), with_unused.size()}, ConstByteSpan{win.data(), win.size()}));
  EXPECT_EQ(plain, with_unused);
}

// POLICIES.md, im2col_start_outside_box=trap: a W/H/D start outside [lowerCorner, globalDim + upperCorner) traps;
// the prediction names the coordinate and that box. W dim 20, corners -1/-1: box [-1, 19); start W = 19.
// Catches tensor_access_trap's im2col_start_outside_box message with its box emptied.
TEST(TensorIm2col, StartTrapNamesTheBox) {
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

// The chapter, restrictions on the .global.shared::cta direction: 'The bounding box along the D, W and H dimensions
// must stay within the tensor boundaries. This implies: Bounding-Box Lower-Corner must be non-negative. Bounding-Box
// Upper-Corner must be non-positive.' -- for every spatial dimension, not only W. Rank-4 UINT8 map (C 16, W 4, H 3,
// N 1): corners {W 0, H -1} or {W 0, H +1} are valid maps but refused for an im2col_no_offs store.
// Catches check_store_access stopping (a break) after the first spatial dimension.
TEST(TensorStore, CornersCheckedInEverySpatialDimension) {
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
// Catches tensor_reduce's message without ' beyond the window'.
TEST(TensorReduce, WindowOverrunNamesTheByte) {
  const auto m = tile_map(TensorDataType::UINT32, {8, 1}, {8, 1});
  std::vector<std::uint8_t> g(32, 0), win(16, 0);
  const std::string e = error_of([&] {
    tensor_reduce(m, at({0, 0}), RedOp::add, ByteSpan{g.data(), g.size()}, ConstByteSpan{win.data(), win.size()});
  });
  EXPECT_NE(e.find("tensor reduce reads shared byte 16 beyond the window"), std::string::npos) << e;
}

// NOTES (open, the model's reading): the im2col walk steps N by elementStrides[N] when W wraps. UINT8 C=16 W=4 N=4,
// zero corners, elementStrides {1, 1, 2}, 6 pixels from (w=0, n=0): (0,0) (1,0) (2,0) (3,0), then n += 2: (0,2)
// (1,2). Value = c + 16(w + 4n).
// Catches im2col_box's 'element_strides[rank - 1]' turned into '[rank / 1]' (the unused fourth stride, 1).
TEST(TensorIm2col, WalkStepsNByItsElementStride) {
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
