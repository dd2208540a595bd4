// Tests added for the holes of the held-out sample seed 6 of ./ptxcts selftest-model (results/selftest/
// model-mutation-seed6.json): faults planted in harness/refmodel/src that the other model tests let through (issue
// 10, part 3). Each names the surviving mutant it kills; every expected value is derived by hand from the rule it
// checks (the chapter, cuda.h's sentence, NOTES.md), never by running the model. The seed's survivors that no test
// can kill: results/selftest/model-equivalent.json.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ptxcts/ref/copy.hpp"
#include "ptxcts/ref/reduce.hpp"
#include "ptxcts/ref/tensor.hpp"
#include "ptxcts/ref/tensormap.hpp"
#include "model_helpers.hpp"
#include "tensor_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;

namespace {

ByteSpan span(std::vector<std::uint8_t>& v) { return ByteSpan{v.data(), v.size()}; }
ConstByteSpan cspan(const std::vector<std::uint8_t>& v) { return ConstByteSpan{v.data(), v.size()}; }

std::map<std::string, std::string> details_of(const TensorMapParams& p) {
  std::map<std::string, std::string> d;
  for (const auto& r : validate_encode(p).violations) d[r.rule] = r.detail;
  return d;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ModelError& e) {
    return e.what();
  }
  return "(no ModelError)";
}

}  // namespace

// copy.cpp bulk_reduce_to_peer: `dst_off + size <= window` -> `>=`. A destination range that ends before the
// window's end is legal (four u32 into bytes 16..31 of a 64-byte window: 1 + 10 = 11 ...); one that runs past it is
// refused, naming the destination.
TEST(MutationHolesSeed6, ReduceIntoPeerRangeInsideAndPast) {
  std::vector<Window> w(2, Window(64, 0));
  for (int i = 0; i < 4; ++i) {
    store_le(w[0].data() + 4 * i, 4, 1 + i);
    store_le(w[1].data() + 16 + 4 * i, 4, 10 * (i + 1));
  }
  EXPECT_EQ(bulk_reduce_to_peer(ReduceOp{RedOp::add, ElemType::u32, false}, w, 0, 0, 1, 16, 16), 16u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(load_le(w[1].data() + 16 + 4 * i, 4), 11u * (i + 1));
  const std::string m = message_of(
      [&] { bulk_reduce_to_peer(ReduceOp{RedOp::add, ElemType::u32, false}, w, 0, 0, 1, 56, 16); });
  EXPECT_NE(m.find("destination range overflows the window"), std::string::npos) << m;
}

// copy.cpp bulk_reduce: `dst.size >= size && src.size >= size` -> `||`. A source shorter than the size is refused
// even when the destination is long enough.
TEST(MutationHolesSeed6, ReduceSourceShorterThanSize) {
  std::vector<std::uint8_t> dst(32, 0), src(16, 1);
  const std::string m = message_of([&] {
    bulk_reduce(ReduceOp{RedOp::add, ElemType::u32, false}, ReduceSite::bulk_global, span(dst), cspan(src), 32);
  });
  EXPECT_NE(m.find("a range overflows its memory space"), std::string::npos) << m;
}

// reduce.cpp: the bulk forms' f16 add with .noftz keeps subnormals whatever the tensor form's policy says
// (mutant: `if (ctx.site != ReduceSite::tensor) return keep;` -> `if (0==1)`). 2^-24 + 2^-24 = 2^-23 (0x0002), with
// tensor_half_add_subnormals set to flush.
TEST(MutationHolesSeed6, BulkHalfAddIgnoresTheTensorPolicy) {
  PolicySet p;
  std::string why;
  ASSERT_TRUE(p.set_assignment("tensor_half_add_subnormals=flush", &why)) << why;
  const auto op = parse_reduce_op("add.noftz.f16");
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(reduce_element(*op, 0x0001, 0x0001, p, ReduceContext{ReduceSite::bulk_global, false}), 0x0002u);
  // the tensor site does read it: flushed inputs and result give +0
  EXPECT_EQ(reduce_element(*op, 0x0001, 0x0001, p, ReduceContext{ReduceSite::tensor, false}), 0x0000u);
}

// tensormap.cpp: the details of two violations ("globalAddress " dropped; "spatial dimension 1 + i" -> "1 * i").
TEST(MutationHolesSeed6, ViolationDetailsNameTheirField) {
  TensorMapParams t = tile_map(TensorDataType::FLOAT32, {64, 8}, {8, 4});
  t.global_address = (1u << 20) + 8;
  EXPECT_EQ(details_of(t)["global_address_align16"], "globalAddress " + std::to_string((1u << 20) + 8));
  // interleave 32B needs 32-byte alignment: 2^20 + 16 breaks that rule alone (its detail names the address too)
  TensorMapParams il = tile_map(TensorDataType::UINT8, {64, 8, 4}, {32, 4, 2});
  il.interleave = Interleave::B32;
  il.swizzle = Swizzle::B32;
  il.global_address = (1u << 20) + 16;
  EXPECT_EQ(details_of(il)["global_address_align32_interleave"], "globalAddress " + std::to_string((1u << 20) + 16));
  // 3-D im2col (C, W, N): W = 4 with corners lower 2, upper -2: globalDim + upper - lower = 4 - 2 - 2 = 0
  TensorMapParams i = im2col_map(EncodeKind::im2col, TensorDataType::FLOAT32, 3, {4, 4, 1, 1, 1}, {16, 64, 0, 0}, 4, 1);
  i.global_address = 1u << 20;
  i.lower_corner = {2, 0, 0};
  i.upper_corner = {-2, 0, 0};
  EXPECT_EQ(details_of(i)["im2col_box_nonzero_area"], "spatial dimension 1: globalDim + upper - lower = 0");
}

// tensormap.cpp: the OOB-NaN rule's sentence, as cuda.h states it (the middle clause was dropped by the mutant).
TEST(MutationHolesSeed6, OobNanSentenceIsCudaHs) {
  std::string sentence;
  for (const auto& [name, s] : encode_rules())
    if (name == "oob_nan_float_only") sentence = s;
  EXPECT_EQ(sentence,
            "CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA can only be used when tensorDataType represents a "
            "floating-point data type, and when tensorDataType is not 16U4_ALIGN8B, 16U4_ALIGN16B, and "
            "16U6_ALIGN16B.");
}
