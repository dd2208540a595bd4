// Tests added for the holes of the held-out sample seed 8 of ./ptxcts selftest-model (results/selftest/
// model-mutation-seed8.json): faults planted in harness/refmodel/src that the other model tests let through (issue
// 10, part 3). Each names the surviving mutant it kills; every expected value is derived by hand from the rule it
// checks, never by running the model. The seed's survivors that no test can kill: results/selftest/
// model-equivalent.json.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ptxcts/ref/tensor.hpp"
#include "tensor_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;

namespace {

std::vector<std::uint8_t> pattern(std::size_t n) {
  std::vector<std::uint8_t> w(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = static_cast<std::uint8_t>(i * 7 + 3);
  return w;
}

}  // namespace

// tensor.cpp, granule16_written: only a row inside the tensor along every outer dimension gets the elements past
// globalDim[0] that share its last 16-byte granule (mutant: the statement that clears rest_in for a row outside
// dimension 1 deleted, so the box's rows 2 and 3 were written past the tensor). UINT8 {20, 2}, row stride 32, box
// {16, 4} at (16, 0): the granule of a row ends at byte 32, so rows 0 and 1 get box bytes 0..15 at 16..31 and
// 48..63 (row 1 starts at 32); rows 2 and 3 lie outside dimension 1 and nothing of them is written.
TEST(MutationHolesSeed8, GranuleStoreSkipsRowsOutsideTheTensor) {
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
TEST(MutationHolesSeed8, TiledStoresIgnoreCornerFields) {
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
