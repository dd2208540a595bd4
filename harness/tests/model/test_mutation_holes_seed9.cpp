// Tests added for the holes of the held-out sample seed 9 of ./ptxcts selftest-model (results/selftest/
// model-mutation-seed9.json): faults planted in harness/refmodel/src that the other model tests let through (issue
// 10, part 3). Each names the surviving mutant it kills; every expected value is derived by hand from the rule it
// checks, never by running the model. The seed's survivors that no test can kill: results/selftest/
// model-equivalent.json. (The third hole, 128B_ATOM_32B_FLIP_8B accepted for 16U6_ALIGN16B, is covered by the
// swizzle-list test of test_refusals.cpp.)
#include <gtest/gtest.h>

#include <stdexcept>

#include "ptxcts/ref/policy.hpp"
#include "ptxcts/ref/tensor.hpp"
#include "tensor_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;

// tensor_box.cpp: the model states boxes up to 16 MiB of shared memory (mutant: the limit halved to 8 MiB).
// 16U4_ALIGN16B box {128, 256, 129, 2}: 8 units of 16 bytes (8 data, 8 gap) per row, 256 x 129 x 2 rows =
// 128 x 66,048 = 8,454,144 bytes, above 8 MiB (8,388,608) and below 16 MiB.
TEST(MutationHolesSeed9, BoxesUpTo16MiBAreStated) {
  TensorMapParams m = tile_map(TensorDataType::T16U4_ALIGN16B, {128, 256, 129, 2}, {128, 256, 129, 2});
  m.global_address = 1u << 20;
  std::uint32_t extent = 0;
  EXPECT_NO_THROW(extent = tensor_smem_extent(m, at({0, 0, 0, 0})));
  EXPECT_EQ(extent, 8454144u);
}

// policy.cpp: set_index refuses an index past the last alternative (mutant: `>=` -> `>` let the one-past index in).
TEST(MutationHolesSeed9, SetIndexRefusesOnePastTheLast) {
  for (const PolicyInfo& info : policy_catalog()) {
    PolicySet p;
    const std::size_t n = info.alternatives.size();
    EXPECT_NO_THROW(p.set_index(info.id, n - 1)) << info.name;
    EXPECT_EQ(p.index(info.id), n - 1) << info.name;
    EXPECT_THROW(p.set_index(info.id, n), std::out_of_range) << info.name;
    EXPECT_EQ(p.index(info.id), n - 1) << info.name << ": a refused index leaves the choice as it was";
  }
}
