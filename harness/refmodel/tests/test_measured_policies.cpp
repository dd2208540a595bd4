// The alternatives measured on a device (docs/POLICIES.md, column "measured on a device"): each computes what its
// sentence states, and the measured alternative of a policy is the first deviation the run tier tries. Expected
// values come from the alternatives' sentences; the tf32 values and the interleaved layout are also what the
// H100's sweeps printed (results/findings/h100-tf32-load-rounding, h100-interleaved-tile-load-overrun).
#include <gtest/gtest.h>

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
  const std::vector<BoxPiece> box = tensor_box(m, a, rows);
  ASSERT_EQ(box.size(), 2u);
  EXPECT_EQ(box[0].smem_off, 0u);
  EXPECT_EQ(box[0].global_off, 144u);
  EXPECT_EQ(box[0].data_bytes, 256u);
  EXPECT_EQ(box[1].smem_off, 256u);
  EXPECT_EQ(box[1].global_off, 272u);
  EXPECT_EQ(tensor_tx_bytes(m, a, rows), 512u);  // the device credits the bytes it writes
  EXPECT_EQ(tensor_tx_bytes(m, a), 32u);          // the documented box: 16 x 1 x 2 bytes
  // 32B interleave: 32-byte chunks; rank 4 iterates dimensions 1 and 3
  TensorMapParams m4 = tile_map(T::UINT8, {32, 8, 7, 6}, {32, 2, 3, 2});
  m4.interleave = Interleave::B32;
  m4.swizzle = Swizzle::B32;
  a.coords = {0, 1, 1, 1, 0};
  EXPECT_EQ(tensor_tx_bytes(m4, a, rows), 32u * 32u * 2u * 2u);
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
