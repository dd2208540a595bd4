// Tile mode: element placement, element strides, OOB fill, swizzle, interleave, packed types, stores and
// reductions, tx bytes. Expected values are derived by hand in the comments from NOTES.md's formulas:
//   e_i = ceil(boxDim[i] / elementStrides[i]); g_i = coord_i + k_i * elementStrides[i];
//   off = esize * (k0 + e0*(k1 + e1*(...))); value = in bounds ? element : fill.
// The index tensor holds base + (linear index) in each element, so a value names its coordinates.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "model_helpers.hpp"
#include "tensor_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;

namespace {

// A shared window of n bytes, byte i = 7i + 3 (no two neighbours equal).
std::vector<std::uint8_t> pattern(std::size_t n) {
  std::vector<std::uint8_t> w(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = static_cast<std::uint8_t>(i * 7 + 3);
  return w;
}

}  // namespace

// UINT16 16 x 4, box 8 x 2 at (-2, 3), base 0x100. Row y=3: x=-2,-1 OOB -> 0; x=0..5 -> 0x100 + 48 + x.
// Row y=4 is beyond dims[1] = 4 -> all zero. 16 elements * 2 bytes = 32 tx bytes.
TEST(TensorTile, Load2DWithOobZeroFill) {
  const auto m = tile_map(TensorDataType::UINT16, {16, 4}, {8, 2});
  const Loaded l = load(m, at({-2, 3}), 0x100);
  const std::uint16_t want[16] = {0, 0, 0x130, 0x131, 0x132, 0x133, 0x134, 0x135, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(at_le(l.window, 2 * i, 2), want[i]) << i;
  EXPECT_EQ(l.window[32], kPoison);  // nothing beyond the box
  EXPECT_EQ(l.tx, 32u);
}

// UINT32 8 x 10, box 4 x 6, elementStrides {3, 2}: elementStrides[0] is ignored without interleave, so
// e0 = 4, e1 = ceil(6/2) = 3; at (2, 1) the rows are y = 1, 3, 5 and x = 2..5: value = 8y + x.
TEST(TensorTile, ElementStrides) {
  const auto m = tile_map(TensorDataType::UINT32, {8, 10}, {4, 6}, {3, 2});
  const Loaded l = load(m, at({2, 1}));
  const std::uint32_t want[12] = {10, 11, 12, 13, 26, 27, 28, 29, 42, 43, 44, 45};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(at_le(l.window, 4 * i, 4), want[i]) << i;
  EXPECT_EQ(l.tx, 48u);
  EXPECT_EQ(l.window[48], kPoison);
  // elementStrides[1] = 3 with boxDim[1] = 7: ceil(7/3) = 3 rows (y = 0, 3, 6).
  const auto m3 = tile_map(TensorDataType::UINT32, {8, 10}, {4, 7}, {1, 3});
  const Loaded l3 = load(m3, at({0, 0}));
  EXPECT_EQ(l3.tx, 48u);
  EXPECT_EQ(at_le(l3.window, 16, 4), 24u);  // row k1=1 -> y=3 -> 8*3 + 0
  EXPECT_EQ(at_le(l3.window, 32, 4), 48u);  // y=6
}

// UINT8 16 x 2 x 2 with padded strides {32, 96}: element (x,y,z) has linear index x + 16(y + 2z) and sits at
// byte 32y + 96z + x; the dense box 16 x 2 x 2 at the origin therefore reads back 0, 1, ..., 63.
TEST(TensorTile, Load3DWithPaddedStrides) {
  auto m = tile_map(TensorDataType::UINT8, {16, 2, 2}, {16, 2, 2});
  m.strides = {32, 96, 0, 0};
  const auto g = make_index_tensor(m, 0);
  ASSERT_EQ(g.size(), 144u);  // last element (15,1,1) at 32 + 96 + 15 = 143
  EXPECT_EQ(g[16], 0);   // padding is zero
  EXPECT_EQ(g[32], 16);  // (0,1,0)
  EXPECT_EQ(g[96], 32);  // (0,0,1)
  const Loaded l = load(m, at({0, 0, 0}));
  for (int i = 0; i < 64; ++i) EXPECT_EQ(l.window[i], i) << i;
  EXPECT_EQ(l.tx, 64u);
}

// OOB fill NAN_REQUEST_ZERO_FMA: FLOAT16 8 x 1, box 8 x 1 at x = 4: x=4..7 in bounds, x=8..11 receive the NaN.
TEST(TensorTile, OobNanFillPatternPolicy) {
  auto m = tile_map(TensorDataType::FLOAT16, {8, 1}, {8, 1});
  m.oob_fill = OobFill::NAN_REQUEST_ZERO_FMA;
  const Loaded l = load(m, at({4, 0}), 0x3c00);
  EXPECT_EQ(at_le(l.window, 0, 2), 0x3c04u);
  EXPECT_EQ(at_le(l.window, 8, 2), 0x7fffu);   // canonical
  EXPECT_EQ(at_le(l.window, 14, 2), 0x7fffu);
  PolicySet p;
  p.set("oob_nan_pattern", "quiet_positive");
  EXPECT_EQ(at_le(load(m, at({4, 0}), 0, 8192, p).window, 8, 2), 0x7e00u);
  EXPECT_EQ(oob_fill_pattern(TensorDataType::FLOAT32, OobFill::NAN_REQUEST_ZERO_FMA), 0x7fffffffu);
  p.set("oob_nan_pattern", "quiet_negative");
  EXPECT_EQ(oob_fill_pattern(TensorDataType::BFLOAT16, OobFill::NAN_REQUEST_ZERO_FMA, p), 0xffc0u);
  EXPECT_EQ(oob_fill_pattern(TensorDataType::FLOAT64, OobFill::NAN_REQUEST_ZERO_FMA, p), 0xfff8000000000000ull);
  p.set("oob_nan_pattern", "all_ones");
  EXPECT_EQ(oob_fill_pattern(TensorDataType::TFLOAT32, OobFill::NAN_REQUEST_ZERO_FMA, p), 0xffffffffu);
  EXPECT_EQ(oob_fill_pattern(TensorDataType::FLOAT32, OobFill::NONE, p), 0u);
  // repeat_7ff7 (the H100's FLOAT32 fill, run 1: 0x7ff77ff7): the 16-bit pattern over the element.
  p.set("oob_nan_pattern", "repeat_7ff7");
  EXPECT_EQ(oob_fill_pattern(TensorDataType::FLOAT32, OobFill::NAN_REQUEST_ZERO_FMA, p), 0x7ff77ff7u);
  EXPECT_EQ(oob_fill_pattern(TensorDataType::FLOAT16, OobFill::NAN_REQUEST_ZERO_FMA, p), 0x7ff7u);
  EXPECT_EQ(oob_fill_pattern(TensorDataType::FLOAT64, OobFill::NAN_REQUEST_ZERO_FMA, p), 0x7ff77ff77ff77ff7ull);
  EXPECT_EQ(at_le(load(m, at({4, 0}), 0, 8192, p).window, 8, 2), 0x7ff7u);
}

// tensor_store_oob: UINT8 tensor of 300 elements, box 256 at x = 160 (the H100 case of run 1). Elements 300..303
// share the 16-byte granule [288, 304) with the last in-bounds element; granule16_written stores them from the box
// (box elements 140..143), not_written (the default) leaves them; nothing from 304 on is written either way.
TEST(TensorTile, StoreOobGranulePolicy) {
  const auto m = tile_map(TensorDataType::UINT8, {300}, {256});
  std::vector<std::uint8_t> window(1024);
  for (std::size_t i = 0; i < window.size(); ++i) window[i] = static_cast<std::uint8_t>(i * 7 + 3);
  auto run = [&](const PolicySet& p) {
    std::vector<std::uint8_t> g(300 + 64, kPoison);
    tensor_store(m, at({160}), ByteSpan{g.data(), g.size()}, ConstByteSpan{window.data(), window.size()}, p);
    return g;
  };
  const auto def = run(PolicySet{});
  EXPECT_EQ(def[299], window[139]);
  for (int i = 300; i < 364; ++i) EXPECT_EQ(def[i], kPoison) << i;
  PolicySet p;
  ASSERT_TRUE(p.set("tensor_store_oob", "granule16_written"));
  const auto gr = run(p);
  for (int i = 0; i < 300; ++i) EXPECT_EQ(gr[i], def[i]) << i;
  for (int i = 300; i < 304; ++i) EXPECT_EQ(gr[i], window[i - 160]) << i;
  for (int i = 304; i < 364; ++i) EXPECT_EQ(gr[i], kPoison) << i;
  // A tensor whose extent fills its last granule gets nothing past its end.
  const auto m2 = tile_map(TensorDataType::UINT8, {288}, {256});
  std::vector<std::uint8_t> g2(288 + 32, kPoison);
  tensor_store(m2, at({160}), ByteSpan{g2.data(), g2.size()}, ConstByteSpan{window.data(), window.size()}, p);
  for (int i = 288; i < 320; ++i) EXPECT_EQ(g2[i], kPoison) << i;
}

// The same policy for reductions: FLOAT16 tensor of 300 elements (600 bytes, granule end 608), box 128 at 232.
// Elements 300..303 are reduced with box elements 68..71 under granule16_written (old + src), untouched otherwise.
TEST(TensorTile, ReduceOobGranulePolicy) {
  const auto m = tile_map(TensorDataType::FLOAT16, {300}, {128});
  std::vector<std::uint8_t> window(512);
  for (int i = 0; i < 256; ++i) store_le(window.data() + 2 * i, 2, 0x3c00);  // 1.0
  auto run = [&](const PolicySet& p) {
    std::vector<std::uint8_t> g(600 + 32);
    for (std::size_t i = 0; i < g.size() / 2; ++i) store_le(g.data() + 2 * i, 2, 0x3c00);
    tensor_reduce(m, at({232}), RedOp::add, ByteSpan{g.data(), g.size()}, ConstByteSpan{window.data(), window.size()},
                  p);
    return g;
  };
  const auto def = run(PolicySet{});
  EXPECT_EQ(at_le(def, 2 * 299, 2), 0x4000u);  // 1 + 1
  EXPECT_EQ(at_le(def, 2 * 300, 2), 0x3c00u);
  PolicySet p;
  ASSERT_TRUE(p.set("tensor_store_oob", "granule16_written"));
  const auto gr = run(p);
  for (int e = 300; e < 304; ++e) EXPECT_EQ(at_le(gr, 2 * e, 2), 0x4000u) << e;
  for (int e = 304; e < 316; ++e) EXPECT_EQ(at_le(gr, 2 * e, 2), 0x3c00u) << e;
}

// tensor_smem_alignment=128B_trap: a shared-memory address off a 128-byte boundary traps; 128-aligned ones do not,
// and the default (16B) predicts no trap for either.
TEST(TensorTile, SmemAlignmentPolicy) {
  const auto m = tile_map(TensorDataType::UINT8, {64, 4}, {16, 2});
  PolicySet al;
  ASSERT_TRUE(al.set("tensor_smem_alignment", "128B_trap"));
  TensorAccess a = at({0, 0});
  for (std::uint32_t off : {1024u + 16u, 1024u + 64u, 1024u + 112u}) {
    a.smem_offset = off;
    EXPECT_EQ(tensor_access_trap(m, a), "") << off;
    EXPECT_NE(tensor_access_trap(m, a, al), "") << off;
  }
  for (std::uint32_t off : {1024u, 1024u + 128u, 1024u + 384u}) {
    a.smem_offset = off;
    EXPECT_EQ(tensor_access_trap(m, a, al), "") << off;
  }
}

// Trap predictions: none under the defaults; tensor_coord_alignment=16B_trap for an innermost start that is not a
// multiple of 16 bytes; im2col_start_outside_box=trap for a W/H/D start outside [lowerCorner, dim + upperCorner).
TEST(TensorTile, TrapPolicies) {
  const auto m = tile_map(TensorDataType::FLOAT32, {64, 4}, {16, 2});
  PolicySet al;
  ASSERT_TRUE(al.set("tensor_coord_alignment", "16B_trap"));
  EXPECT_EQ(tensor_access_trap(m, at({1, 0})), "");
  EXPECT_NE(tensor_access_trap(m, at({1, 0}), al), "");
  EXPECT_NE(tensor_access_trap(m, at({-2, 0}), al), "");
  EXPECT_EQ(tensor_access_trap(m, at({4, 3}), al), "");
  EXPECT_EQ(tensor_access_trap(m, at({-4, 0}), al), "");
  TensorMapParams i = m;
  i.kind = EncodeKind::im2col;
  i.rank = 3;
  i.dims = {8, 20, 3, 1, 1};
  i.strides = dense_strides(i.dtype, 3, i.dims);
  i.lower_corner = {-1, 0, 0};
  i.upper_corner = {-1, 0, 0};
  i.channels_per_pixel = 8;
  i.pixels_per_column = 16;
  PolicySet ob;
  ASSERT_TRUE(ob.set("im2col_start_outside_box", "trap"));
  EXPECT_EQ(tensor_access_trap(i, at({4, 19, 2}, TensorMode::im2col)), "");
  EXPECT_NE(tensor_access_trap(i, at({4, 19, 2}, TensorMode::im2col), ob), "");   // W = 19 = dim + upper
  EXPECT_EQ(tensor_access_trap(i, at({4, 18, 2}, TensorMode::im2col), ob), "");
  EXPECT_EQ(tensor_access_trap(i, at({-4, -1, -1}, TensorMode::im2col), ob), "");  // W = lower corner
  EXPECT_NE(tensor_access_trap(i, at({-4, -2, 0}, TensorMode::im2col), ob), "");
  EXPECT_EQ(tensor_access_trap(i, at({4, 19, 2}, TensorMode::tile), ob), "");  // tile mode: no box rule
}

// A fully out-of-bounds box still credits its whole shared-memory size.
TEST(TensorTile, TxBytesIncludeOob) {
  const auto m = tile_map(TensorDataType::UINT16, {16, 4}, {8, 2});
  const Loaded l = load(m, at({100, -50}));
  EXPECT_EQ(l.tx, 32u);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(l.window[i], 0);
}

// Swizzle formulas of NOTES.md on hand-picked absolute addresses (line = A >> 7, chunk = bits 4..6).
TEST(TensorSwizzle, HandVectors) {
  EXPECT_EQ(swizzle_address(Swizzle::NONE, 0x1b5), 0x1b5u);
  EXPECT_EQ(swizzle_address(Swizzle::B32, 0x80), 0x90u);    // line 1: chunk 0 <-> 1
  EXPECT_EQ(swizzle_address(Swizzle::B32, 0x9f), 0x8fu);
  EXPECT_EQ(swizzle_address(Swizzle::B32, 0x100), 0x100u);  // line 2: (2 & 1) = 0
  EXPECT_EQ(swizzle_address(Swizzle::B64, 0x190), 0x1a0u);  // line 3: chunk 1 ^ 3 = 2
  EXPECT_EQ(swizzle_address(Swizzle::B128, 0x180), 0x1b0u); // line 3: chunk 0 ^ 3 = 3
  EXPECT_EQ(swizzle_address(Swizzle::B128, 0x3f7), 0x387u); // line 7: chunk 7 ^ 7 = 0, byte 7 kept
  EXPECT_EQ(swizzle_address(Swizzle::B128, 0x400), 0x400u); // line 8: pattern repeats every 1024 bytes
  EXPECT_EQ(swizzle_address(Swizzle::B128_ATOM_32B, 0x1a0), 0x1c0u);  // line 3: bits 5..6 ^= 3 -> 32B unit 1 -> 2
  EXPECT_EQ(swizzle_address(Swizzle::B128_ATOM_64B, 0x8a), 0xcau);    // line 1: bit 6 flips
  EXPECT_EQ(swizzle_address(Swizzle::B128_ATOM_64B, 0x10a), 0x10au);  // line 2: no flip
  // FLIP_8B: ATOM_32B, then the 8-byte halves swap on alternate lines (policy: odd lines by default).
  EXPECT_EQ(swizzle_address(Swizzle::B128_ATOM_32B_FLIP_8B, 0x88), 0xa0u);   // line 1: ^0x20, then ^8
  EXPECT_EQ(swizzle_address(Swizzle::B128_ATOM_32B_FLIP_8B, 0x108), 0x148u); // line 2: ^0x40 only
  PolicySet even;
  even.set("swizzle_flip_8b_rows", "even");
  EXPECT_EQ(swizzle_address(Swizzle::B128_ATOM_32B_FLIP_8B, 0x108, even), 0x140u);
  EXPECT_EQ(swizzle_address(Swizzle::B128_ATOM_32B_FLIP_8B, 0x88, even), 0xa8u);
  EXPECT_THROW(swizzle_address(Swizzle::B96, 0), ModelError);
}

// Property: each swizzle is a bijection on its period and keeps every byte in its 128-byte line.
TEST(TensorSwizzle, BijectionOnPeriod) {
  for (Swizzle s : {Swizzle::NONE, Swizzle::B32, Swizzle::B64, Swizzle::B128, Swizzle::B128_ATOM_32B,
                    Swizzle::B128_ATOM_32B_FLIP_8B, Swizzle::B128_ATOM_64B}) {
    for (const char* flip : {"odd", "even"}) {
      PolicySet p;
      p.set("swizzle_flip_8b_rows", flip);
      // Every mode's pattern repeats within 1024 bytes (line bits 7..9); check two periods.
      std::set<std::uint64_t> images;
      for (std::uint64_t a = 0; a < 2048; ++a) {
        const std::uint64_t b = swizzle_address(s, a, p);
        EXPECT_EQ(b >> 7, a >> 7) << to_string(s) << " moves 0x" << std::hex << a << " out of its line";
        EXPECT_EQ(b & 7, a & 7) << to_string(s) << " splits an 8-byte unit";
        images.insert(b);
        EXPECT_EQ(swizzle_address(s, a + 1024, p), b + 1024) << to_string(s) << " period is not 1024";
      }
      EXPECT_EQ(images.size(), 2048u) << to_string(s) << " is not a bijection";
    }
  }
}

// FLOAT32 32 x 8 box 32 x 8 (128-byte rows) with SWIZZLE_128B at smem_offset 0: element (x, y) is at
// y*128 + ((4x) ^ ((y & 7) << 4)). (0,1) -> 128 + 16 = 144; (4,1) -> 128 + (16 ^ 16) = 128; (0,7) -> 896 + 112.
// At smem_offset 128 the rows shift one line: row y uses line y+1, so (0,0) -> 128 + 16.
TEST(TensorSwizzle, SwizzledLoadUsesAbsoluteAddress) {
  auto m = tile_map(TensorDataType::FLOAT32, {32, 8}, {32, 8});
  m.swizzle = Swizzle::B128;
  const Loaded l = load(m, at({0, 0}));
  EXPECT_EQ(at_le(l.window, 144, 4), 32u);
  EXPECT_EQ(at_le(l.window, 128, 4), 36u);
  EXPECT_EQ(at_le(l.window, 896 + 112, 4), 224u);
  EXPECT_EQ(at_le(l.window, 0, 4), 0u);
  TensorAccess a = at({0, 0});
  a.smem_offset = 128;
  const Loaded l2 = load(m, a);
  EXPECT_EQ(at_le(l2.window, 128 + 16, 4), 0u);
  EXPECT_EQ(at_le(l2.window, 128, 4), 4u);  // (1,0): chunk 0 ^ 1 -> chunk 1... element 4 (chunk 1) -> chunk 0
  EXPECT_EQ(l2.window[0], kPoison);
  a.smem_offset = 16;  // the model requires 128-byte alignment with a swizzle (hardware rule open)
  EXPECT_THROW(load(m, a), ModelError);
}

// Inner box (32 B) narrower than the 64B span: dense (default) vs pad_to_span. FLOAT32 box 8 x 2 at
// smem_offset 128 (line 1, chunk ^= 1). Dense: row 1 occupies 160..191, chunks 2,3 -> 3,2: element (0,1) at 176.
// pad_to_span: row 1 starts at 128 + 64 = 192, chunk 4 -> 5: element (0,1) at 208.
TEST(TensorSwizzle, NarrowBoxPolicy) {
  auto m = tile_map(TensorDataType::FLOAT32, {8, 2}, {8, 2});
  m.swizzle = Swizzle::B64;
  TensorAccess a = at({0, 0});
  a.smem_offset = 128;
  EXPECT_EQ(at_le(load(m, a).window, 176, 4), 8u);
  PolicySet pad;
  pad.set("swizzle_narrow_box", "pad_to_span");
  EXPECT_EQ(at_le(load(m, a, 0, 8192, pad).window, 208, 4), 8u);
  EXPECT_EQ(tensor_tx_bytes(m, a, pad), 64u);  // padding is not credited
}

// Interleave 16B: UINT16 4 x 4 x 2 box 4 x 2 x 1 (8-byte rows) -> rows rounded up to 16 bytes (granule_16B):
// element (x, y) at 16y + 2x, bytes 8..15 unwritten. interleave 32B + interleave_span -> 32-byte rows.
// elementStrides[0] is honoured with interleave: es0 = 2, box0 = 4 -> x = 0, 2.
TEST(TensorTile, InterleaveRowPitchAndStride0) {
  auto m = tile_map(TensorDataType::UINT16, {4, 4, 2}, {4, 2, 1});
  m.interleave = Interleave::B16;
  m.strides = {16, 64, 0, 0};
  Loaded l = load(m, at({0, 1, 1}));
  // (x, y=1, z=1): linear 4*(1 + 4*1) + x = 20 + x.
  EXPECT_EQ(at_le(l.window, 0, 2), 20u);
  EXPECT_EQ(at_le(l.window, 6, 2), 23u);
  EXPECT_EQ(l.window[8], kPoison);
  EXPECT_EQ(at_le(l.window, 16, 2), 24u);
  m.interleave = Interleave::B32;
  m.swizzle = Swizzle::B32;
  m.strides = {32, 128, 0, 0};
  PolicySet span;
  span.set("interleave_row_pitch", "interleave_span");
  l = load(m, at({0, 1, 1}), 0, 8192, span);
  // Rows now 32 bytes apart before the 32B swizzle; row 1 (bytes 32..39) is in line 0 -> unswizzled.
  EXPECT_EQ(at_le(l.window, 32, 2), 24u);
  m.interleave = Interleave::B16;
  m.swizzle = Swizzle::NONE;
  m.strides = {16, 64, 0, 0};
  m.element_strides = {2, 1, 1, 1, 1};
  l = load(m, at({0, 1, 1}));
  EXPECT_EQ(at_le(l.window, 0, 2), 20u);
  EXPECT_EQ(at_le(l.window, 2, 2), 22u);
  EXPECT_EQ(l.tx, 8u);  // 2 x 2 x 1 elements
}

// 16U4_ALIGN16B 128 x 2, box 128 x 1 at (0, 1): row 1 holds values (128 + x) & 0xf = x & 0xf, two per byte, low
// nibble first: bytes 10 32 54 76 98 ba dc fe, repeated. Shared memory: 8 chunks of 8 data bytes + 8 zero bytes.
TEST(TensorPacked, U4Align16BLoadWithGaps) {
  auto m = tile_map(TensorDataType::T16U4_ALIGN16B, {128, 2}, {128, 1});
  const Loaded l = load(m, at({0, 1}));
  const std::uint8_t data[8] = {0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe};
  for (int c = 0; c < 8; ++c)
    for (int i = 0; i < 16; ++i) EXPECT_EQ(l.window[16 * c + i], i < 8 ? data[i] : 0) << c << "," << i;
  EXPECT_EQ(l.tx, 128u);
  PolicySet p;
  p.set("packed_tx_bytes", "global_bytes");
  EXPECT_EQ(tensor_tx_bytes(m, at({0, 1}), p), 64u);
  p.set("packed_gap_fill", "untouched");
  EXPECT_EQ(load(m, at({0, 1}), 0, 8192, p).window[8], kPoison);
  EXPECT_THROW(load(m, at({64, 0})), ModelError);  // first coordinate must be a multiple of 128
}

// 16U6_ALIGN16B: values v0..v3 = 0,1,2,3 packed LSB first: byte0 = v0 | (v1 & 3) << 6 = 0x40,
// byte1 = v1 >> 2 | (v2 & 15) << 4 = 0x20, byte2 = v2 >> 4 | v3 << 2 = 0x0c. 12 data bytes, 4-byte gap.
TEST(TensorPacked, U6Align16BLoad) {
  auto m = tile_map(TensorDataType::T16U6_ALIGN16B, {128, 1}, {128, 1});
  const Loaded l = load(m, at({0, 0}));
  EXPECT_EQ(l.window[0], 0x40);
  EXPECT_EQ(l.window[1], 0x20);
  EXPECT_EQ(l.window[2], 0x0c);
  for (int i = 12; i < 16; ++i) EXPECT_EQ(l.window[i], 0);
  // Chunk 1 (values 16..31) = global bytes 12..23: v16 = 16 -> byte 0 of the chunk = 16 | (17 & 3) << 6 = 0x50.
  EXPECT_EQ(l.window[16], 0x50);
  EXPECT_EQ(l.tx, 128u);
}

// 16U4_ALIGN8B: no gaps; 64 x 1, box 32 x 1 at x = 32 -> global bytes 16..31 (values 32..63 & 15).
TEST(TensorPacked, U4Align8BLoad) {
  auto m = tile_map(TensorDataType::T16U4_ALIGN8B, {64, 1}, {32, 1});
  const Loaded l = load(m, at({32, 0}));
  EXPECT_EQ(l.window[0], 0x10);
  EXPECT_EQ(l.window[15], 0xfe);
  EXPECT_EQ(l.window[16], kPoison);
  EXPECT_EQ(l.tx, 16u);
  EXPECT_THROW(load(m, at({31, 0})), ModelError);
}

// Property: on an in-bounds box, store after load is the identity (and writes nothing else).
TEST(TensorTile, StoreAfterLoadIsIdentity) {
  std::mt19937 rng(3);
  const TensorDataType types[] = {TensorDataType::UINT8,  TensorDataType::UINT16,  TensorDataType::UINT32,
                                  TensorDataType::INT64,  TensorDataType::FLOAT16, TensorDataType::BFLOAT16,
                                  TensorDataType::FLOAT32, TensorDataType::FLOAT64, TensorDataType::T16U6_ALIGN16B};
  const Swizzle swz[] = {Swizzle::NONE, Swizzle::B32, Swizzle::B64, Swizzle::B128, Swizzle::B128_ATOM_32B,
                         Swizzle::B128_ATOM_64B, Swizzle::B128_ATOM_32B_FLIP_8B};
  int checked = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const TensorDataType t = types[rng() % 9];
    const unsigned bits = element_bits(t);
    const bool packed = is_packed(t);
    const unsigned rank = 1 + rng() % 3;
    std::vector<std::uint64_t> dims(rank);
    std::vector<std::uint32_t> box(rank);
    std::vector<std::int32_t> c(rank);
    const Swizzle s = packed ? (rng() % 2 ? Swizzle::B128 : Swizzle::NONE) : swz[rng() % 7];
    const unsigned span = swizzle_span(s) ? swizzle_span(s) : 64;
    const unsigned max_inner = std::max(1u, span * 8 / bits / 16);  // in 16-byte units of elements
    box[0] = packed ? 128 : (16 * 8 / bits) * (1 + rng() % max_inner);
    dims[0] = packed ? 256 : box[0] + (16 * 8 / bits) * (rng() % 3);  // rows stay 16-byte multiples
    c[0] = packed ? static_cast<std::int32_t>(128 * (rng() % 2)) : static_cast<std::int32_t>(rng() % (dims[0] - box[0] + 1));
    for (unsigned i = 1; i < rank; ++i) {
      box[i] = 1 + rng() % 5;
      dims[i] = box[i] + rng() % 4;
      c[i] = static_cast<std::int32_t>(rng() % (dims[i] - box[i] + 1));
    }
    auto m = tile_map(t, dims, box);
    m.swizzle = s;
    ASSERT_FALSE(validate_encode(m).must_reject()) << validate_encode(m).violations[0].rule;
    TensorAccess a = at(c);
    a.smem_offset = 128 * (rng() % 8);
    const std::vector<std::uint8_t> src = make_index_tensor(m, rng());
    std::vector<std::uint8_t> win(65536, kPoison);
    tensor_load(m, a, ConstByteSpan{src.data(), src.size()}, ByteSpan{win.data(), win.size()});
    std::vector<std::uint8_t> dst(src.size(), 0);
    tensor_store(m, a, ByteSpan{dst.data(), dst.size()}, ConstByteSpan{win.data(), win.size()});
    // Expected, computed from the box coordinates alone: for every row of the box (dims >= 1 at c_i + k,
    // k < boxDim[i]) the bytes of x in [c0, c0 + boxDim[0]) equal the source; everything else stays zero.
    std::vector<std::uint8_t> want(src.size(), 0);
    std::uint64_t rows = 1;
    for (unsigned i = 1; i < rank; ++i) rows *= box[i];
    for (std::uint64_t r = 0; r < rows; ++r) {
      std::uint64_t off = 0, rest = r;
      for (unsigned i = 1; i < rank; ++i) {
        off += m.strides[i - 1] * (c[i] + rest % box[i]);
        rest /= box[i];
      }
      const std::uint64_t lo = off + std::uint64_t(c[0]) * bits / 8, hi = off + (std::uint64_t(c[0]) + box[0]) * bits / 8;
      for (std::uint64_t b = lo; b < hi; ++b) want[b] = src[b];
    }
    ASSERT_EQ(dst, want) << "iteration " << iter << " type " << to_string(t) << " swizzle " << to_string(s);
    ++checked;
  }
  EXPECT_EQ(checked, 300);
}

// NOTES.md: 'bytes credited to the mbarrier (complete_tx) = the box's shared-memory bytes'. A FLOAT64 box of 256 x
// 40 (tensor 256 x 40, dense: globalStrides[0] = 256 * 8 = 2048, a multiple of 16; boxDim[0] * 8 = 2048 B, a
// multiple of 16; every boxDim <= 256) is a legal tiled map, and its box is 256 * 40 * 8 = 81920 bytes (80 KiB):
// less than the shared memory of one H100 block (cudaDevAttrMaxSharedMemoryPerBlockOptin = 227 KiB on sm_90), far
// below the 16 MiB the model refuses as no device's. The box's footprint is the row pitch (2048 B) times the rows
// (40); counting dimension 0 again (x 256 = 20 MiB) refuses it.
// Catches tile_box's footprint loop 'for (unsigned i = 1; i < map.rank; ++i) footprint *= e[i]' started at 'i = 0'.
TEST(TensorBox, LargeLegalBoxIsNotRefused) {
  const auto m = tile_map(TensorDataType::FLOAT64, {256, 40}, {256, 40});
  ASSERT_TRUE(validate_encode(m).must_accept());
  std::uint32_t tx = 0;
  const std::string e = error_of([&] { tx = tensor_tx_bytes(m, at({0, 0})); });
  EXPECT_EQ(e, "(no ModelError)");
  EXPECT_EQ(tx, 81920u);
}

// tensor_box.cpp: the refusal of a box above 16 MiB says how many bytes it needs ("the box needs " dropped by the
// mutant). FLOAT32 box 256 x 256 x 65: 1,024-byte rows, 256 x 65 of them = 17,039,360 bytes.
TEST(TensorBox, Above16MiBSaysItsBytes) {
  TensorMapParams t = tile_map(TensorDataType::FLOAT32, {256, 256, 65}, {256, 256, 65});
  t.global_address = 1u << 20;
  std::string m;
  try {
    tensor_box(t, at({0, 0, 0}));
  } catch (const ModelError& e) {
    m = e.what();
  }
  EXPECT_NE(m.find("the box needs 17039360 bytes of shared memory"), std::string::npos) << m;
}

// tensor.cpp, granule16_written: only a row inside the tensor along every outer dimension gets the elements past
// globalDim[0] that share its last 16-byte granule (mutant: the statement that clears rest_in for a row outside
// dimension 1 deleted, so the box's rows 2 and 3 were written past the tensor). UINT8 {20, 2}, row stride 32, box
// {16, 4} at (16, 0): the granule of a row ends at byte 32, so rows 0 and 1 get box bytes 0..15 at 16..31 and 48..63
// (row 1 starts at 32); rows 2 and 3 lie outside dimension 1 and nothing of them is written.
TEST(TensorTile, GranuleStoreSkipsRowsOutsideTheTensor) {
  TensorMapParams m = tile_map(TensorDataType::UINT8, {20, 2}, {16, 4});
  m.strides[0] = 32;
  m.global_address = 1u << 20;
  PolicySet p;
  ASSERT_TRUE(p.set("tensor_store_oob", "granule16_written"));
  const std::vector<std::uint8_t> win = pattern(64);
  std::vector<std::uint8_t> g(128, kPoison);
  tensor_store(m, at({16, 0}), ByteSpan{g.data(), g.size()}, ConstByteSpan{win.data(), win.size()}, p);
  for (std::size_t i = 0; i < g.size(); ++i) {
    const bool row0 = i >= 16 && i < 32, row1 = i >= 48 && i < 64;
    const std::uint8_t want = row0 ? win[i - 16] : row1 ? win[16 + (i - 48)] : kPoison;
    EXPECT_EQ(g[i], want) << "global byte " << i;
  }
}

// tensor.cpp: only an im2col_no_offs store reads the pixel box corners; a tiled map has none (cuTensorMapEncodeTiled
// takes no corners), so whatever its corner fields hold, a tile store is not refused for them (mutant: `a.mode ==
// im2col_no_offs` -> `a.mode <= im2col_no_offs` checked them for tile and scatter4 stores too; the corners of
// dimensions 1 .. rank-2 are checked, so a 3-D and a 5-D map show it).
TEST(TensorTile, StoresIgnoreCornerFields) {
  for (const TensorMapParams& base : {tile_map(TensorDataType::UINT8, {64, 8, 2}, {16, 2, 2}),
                                      tile_map(TensorDataType::UINT8, {32, 2, 2, 2, 2}, {16, 2, 1, 2, 1})}) {
    TensorMapParams m = base;
    m.global_address = 1u << 20;
    TensorMapParams c = m;
    c.lower_corner = {-1, -1, -1};
    c.upper_corner = {1, 1, 1};
    const std::vector<std::uint8_t> win = pattern(64);
    const TensorAccess a = at(std::vector<std::int32_t>(m.rank, 0));
    std::vector<std::uint8_t> plain(tensor_global_bytes(m), 0), cornered(plain);
    tensor_store(m, a, ByteSpan{plain.data(), plain.size()}, ConstByteSpan{win.data(), win.size()});
    EXPECT_NO_THROW(tensor_store(c, a, ByteSpan{cornered.data(), cornered.size()},
                                 ConstByteSpan{win.data(), win.size()}));
    EXPECT_EQ(plain, cornered);
  }
}

// tensor_box.cpp: the model states boxes up to 16 MiB of shared memory (mutant: the limit halved to 8 MiB).
// 16U4_ALIGN16B box {128, 256, 129, 2}: 8 units of 16 bytes (8 data, 8 gap) per row, 256 x 129 x 2 rows = 128 x
// 66,048 = 8,454,144 bytes, above 8 MiB (8,388,608) and below 16 MiB.
TEST(TensorBox, UpTo16MiBAreStated) {
  TensorMapParams m = tile_map(TensorDataType::T16U4_ALIGN16B, {128, 256, 129, 2}, {128, 256, 129, 2});
  m.global_address = 1u << 20;
  std::uint32_t extent = 0;
  EXPECT_NO_THROW(extent = tensor_smem_extent(m, at({0, 0, 0, 0})));
  EXPECT_EQ(extent, 8454144u);
}

// POLICIES.md, tensor_coord_alignment: 'Tile and im2col tensor copies: whether the innermost start coordinate times
// the element size must be a multiple of 16 bytes'. gather4/scatter4 and im2col::w / ::w::128 are neither: under
// 16B_trap a FLOAT32 start of 1 (4 bytes) traps a tile and an im2col copy, and nothing else.
// Catches tensor_access_trap's 'a.mode == TensorMode::tile' and 'a.mode == TensorMode::im2col' turned into '>='.
TEST(TensorTrap, CoordAlignmentOnlyForTileAndIm2col) {
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
// Catches check_map_and_access with the quoted sentence emptied.
TEST(TensorPacked, FirstCoordinateRefusalQuotesTheRule) {
  const auto m = tile_map(TensorDataType::T16U4_ALIGN16B, {256, 2}, {128, 1});
  const std::string e = error_of([&] { load(m, at({64, 0})); });
  EXPECT_NE(e.find("tensorCoords[0] = 64"), std::string::npos) << e;
  EXPECT_NE(e.find("must be a multiple of 128"), std::string::npos) << e;
}

// POLICIES.md, tensor_store_oob=granule16_written: 'box elements past globalDim[0] whose bytes lie in the 16-byte
// granule holding the row's last in-bounds byte (other coordinates in bounds) are written'. UINT16 tensor 6 x 3, row
// stride 16 B (row y holds elements at 16y + 2x, x < 6; bytes 16y+12..16y+15 are padding). A store of box 8 x 2 at
// {0, 1}: the shared box rows are 16 B (box row r, element x at 16r + 2x). Rows 1 and 2 get box elements 6, 7
// (shared bytes 12..15 and 28..31) at 28..31 and 44..47 under the policy; row 0 (bytes 0..15) is never touched.
// Catches for_each_stored_piece's row loop 'i < map.rank' turned into 'i > map.rank' (the row offset of a granule
// element).
TEST(TensorTile, StoreGranuleElementsLandInTheirOwnRow) {
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

// The 16B_trap prediction names the start coordinate and its byte offset: FLOAT32 start 1 is 4 bytes.
// Catches tensor_access_trap's message without 'innermost start coordinate N is'.
TEST(TensorTrap, CoordAlignmentNamesTheStart) {
  const auto m = tile_map(TensorDataType::FLOAT32, {64, 4}, {16, 1});
  PolicySet al;
  ASSERT_TRUE(al.set("tensor_coord_alignment", "16B_trap"));
  const std::string t = tensor_access_trap(m, at({1, 0}), al);
  EXPECT_NE(t.find("innermost start coordinate 1 is 4 bytes"), std::string::npos) << t;
}

// A tensor load whose in-bounds element lies past the end of the global memory given to the model is refused with
// the sizes (ptxcts-ref prints it). UINT8 tensor of 64, box 16 at 0, only 8 bytes of memory: the box does not fit.
// Catches tensor_load_writes' message with 'tensor memory holds ' emptied.
TEST(TensorTile, LoadPastTheGlobalMemoryNamesIt) {
  const auto m = tile_map(TensorDataType::UINT8, {64}, {16});
  std::vector<std::uint8_t> g(8, 0), win(64, 0);
  const std::string e = error_of(
      [&] { tensor_load(m, at({0}), ConstByteSpan{g.data(), g.size()}, ByteSpan{win.data(), win.size()}); });
  EXPECT_EQ(e.rfind("tensor memory holds 8 bytes, the element at byte ", 0), 0u) << e;
  EXPECT_NE(e.find(" lies beyond"), std::string::npos) << e;
}
