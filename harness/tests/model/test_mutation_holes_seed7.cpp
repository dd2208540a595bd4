// Tests added for the holes of the held-out sample seed 7 of ./ptxcts selftest-model (results/selftest/
// model-mutation-seed7.json): faults planted in harness/refmodel/src that the other model tests let through (issue
// 10, part 3). Each names the surviving mutant it kills; every expected value is derived by hand from the rule it
// checks, never by running the model. The seed's survivors that no test can kill: results/selftest/
// model-equivalent.json.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ptxcts/ref/tensor.hpp"
#include "ptxcts/ref/tensormap.hpp"
#include "model_helpers.hpp"
#include "tensor_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;

// tensor_box.cpp: the refusal of a box above 16 MiB says how many bytes it needs ("the box needs " dropped by the
// mutant). FLOAT32 box 256 x 256 x 65: 1,024-byte rows, 256 x 65 of them = 17,039,360 bytes.
TEST(MutationHolesSeed7, BoxAbove16MiBSaysItsBytes) {
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

// tensormap.cpp: the channelsPerPixel violation's detail names the field ("channelsPerPixel = " dropped).
TEST(MutationHolesSeed7, ChannelsPerPixelDetail) {
  TensorMapParams i = im2col_map(EncodeKind::im2col, TensorDataType::UINT8, 3, {512, 4, 2, 1, 1}, {512, 2048, 0, 0},
                                 257, 4);
  i.global_address = 1u << 20;
  std::string detail;
  for (const auto& v : validate_encode(i).violations)
    if (v.rule == "channels_per_pixel_range") detail = v.detail;
  EXPECT_EQ(detail, "channelsPerPixel = 257");
}

// tensor.cpp: an im2col_no_offs store checks the corners of the spatial dimensions only (rank - 2 of them); a
// 3-D map's unused second corner pair is not read (mutant: `s + 2 < rank` -> `s + 1 < rank` refused this store).
// C 16, W 4, N 2, six pixels of 16 channels from (c 0, w 1, n 0): the same bytes with or without the unused corner.
TEST(MutationHolesSeed7, Im2colStoreReadsOnlySpatialCorners) {
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
