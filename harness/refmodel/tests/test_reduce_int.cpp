// Integer and bitwise reductions, hand-worked from the chapter's and PTX atom's formulas.
#include <gtest/gtest.h>

#include "ptxcts/ref/reduce.hpp"

using namespace ptxcts::ref;

namespace {
std::uint64_t red(const char* op, std::uint64_t old_v, std::uint64_t src) {
  const auto r = parse_reduce_op(op);
  EXPECT_TRUE(r.has_value()) << op;
  return reduce_element(*r, old_v, src);
}
}  // namespace

TEST(ReduceInt, AddWraps) {
  // 0xffffffff + 2 = 0x1_00000001, modulo 2^32 -> 1.
  EXPECT_EQ(red("add.u32", 0xffffffffu, 2), 1u);
  // s32: 0x7fffffff (INT_MAX) + 1 wraps to 0x80000000 (INT_MIN) -- two's complement, no saturation.
  EXPECT_EQ(red("add.s32", 0x7fffffffu, 1), 0x80000000u);
  // s32: -1 + -1 = -2 = 0xfffffffe.
  EXPECT_EQ(red("add.s32", 0xffffffffu, 0xffffffffu), 0xfffffffeu);
  // u64: 2^64 - 1 + 3 = 2 mod 2^64.
  EXPECT_EQ(red("add.u64", 0xffffffffffffffffull, 3), 2u);
  // Upper bits beyond the element width are ignored: old 0x1_00000005 is the u32 5.
  EXPECT_EQ(red("add.u32", 0x100000005ull, 1), 6u);
}

TEST(ReduceInt, IncFormula) {
  // inc: old >= src ? 0 : old + 1 -- results stay in [0..src].
  EXPECT_EQ(red("inc.u32", 0, 5), 1u);           // 0 < 5 -> 1
  EXPECT_EQ(red("inc.u32", 4, 5), 5u);           // 4 < 5 -> 5
  EXPECT_EQ(red("inc.u32", 5, 5), 0u);           // 5 >= 5 -> 0
  EXPECT_EQ(red("inc.u32", 9, 5), 0u);           // 9 >= 5 -> 0 (old above the range)
  EXPECT_EQ(red("inc.u32", 0, 0), 0u);           // 0 >= 0 -> 0
  EXPECT_EQ(red("inc.u32", 0xfffffffeu, 0xffffffffu), 0xffffffffu);  // no wrap below src
  EXPECT_EQ(red("inc.u32", 0xffffffffu, 0xffffffffu), 0u);
}

TEST(ReduceInt, DecFormula) {
  // dec: (old == 0 || old > src) ? src : old - 1.
  EXPECT_EQ(red("dec.u32", 0, 7), 7u);           // old == 0 -> src
  EXPECT_EQ(red("dec.u32", 8, 7), 7u);           // 8 > 7 -> src
  EXPECT_EQ(red("dec.u32", 7, 7), 6u);           // 7 <= 7 -> 6
  EXPECT_EQ(red("dec.u32", 1, 7), 0u);           // 1 -> 0
  EXPECT_EQ(red("dec.u32", 0, 0), 0u);           // old == 0 -> src = 0
  EXPECT_EQ(red("dec.u32", 0xffffffffu, 3), 3u); // 0xffffffff > 3 -> src
}

TEST(ReduceInt, MinMaxSignedVsUnsigned) {
  // 0xffffffff is 4294967295 as u32 and -1 as s32.
  EXPECT_EQ(red("min.u32", 0xffffffffu, 1), 1u);
  EXPECT_EQ(red("max.u32", 0xffffffffu, 1), 0xffffffffu);
  EXPECT_EQ(red("min.s32", 0xffffffffu, 1), 0xffffffffu);
  EXPECT_EQ(red("max.s32", 0xffffffffu, 1), 1u);
  // INT_MIN vs INT_MAX.
  EXPECT_EQ(red("min.s32", 0x7fffffffu, 0x80000000u), 0x80000000u);
  EXPECT_EQ(red("max.s32", 0x7fffffffu, 0x80000000u), 0x7fffffffu);
  // 64-bit: 0x8000000000000000 is 2^63 unsigned, INT64_MIN signed.
  EXPECT_EQ(red("min.u64", 0x8000000000000000ull, 5), 5u);
  EXPECT_EQ(red("min.s64", 0x8000000000000000ull, 5), 0x8000000000000000ull);
  EXPECT_EQ(red("max.s64", 0xfffffffffffffffeull, 0xffffffffffffffffull), 0xffffffffffffffffull);  // -2 vs -1
  EXPECT_EQ(red("max.u64", 0x10, 0x10), 0x10u);
}

TEST(ReduceInt, Bitwise) {
  EXPECT_EQ(red("and.b32", 0xf0f0ff00u, 0x0ff0f0f0u), 0x00f0f000u);
  EXPECT_EQ(red("or.b32", 0xf0f0ff00u, 0x0ff0f0f0u), 0xfff0fff0u);
  EXPECT_EQ(red("xor.b32", 0xf0f0ff00u, 0x0ff0f0f0u), 0xff000ff0u);
  EXPECT_EQ(red("and.b64", 0xffff0000ffff0000ull, 0x0f0f0f0f0f0f0f0full), 0x0f0f00000f0f0000ull);
  EXPECT_EQ(red("or.b64", 0x8000000000000000ull, 1), 0x8000000000000001ull);
  EXPECT_EQ(red("xor.b64", 0xaaaaaaaaaaaaaaaaull, 0xffffffffffffffffull), 0x5555555555555555ull);
}

TEST(ReduceInt, ArrayReduceElementwiseLittleEndian) {
  // Two u32 elements: {1, 0xffffffff} + {2, 1} = {3, 0}.
  std::uint8_t dst[8] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  const std::uint8_t src[8] = {2, 0, 0, 0, 1, 0, 0, 0};
  reduce_array(ReduceOp{RedOp::add, ElemType::u32, false}, ByteSpan{dst, 8}, ConstByteSpan{src, 8});
  const std::uint8_t want[8] = {3, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(dst[i], want[i]) << i;
  EXPECT_THROW(reduce_array(ReduceOp{RedOp::add, ElemType::u64, false}, ByteSpan{dst, 8}, ConstByteSpan{src, 4}),
               ModelError);
  EXPECT_THROW(reduce_array(ReduceOp{RedOp::add, ElemType::u64, false}, ByteSpan{dst, 4}, ConstByteSpan{src, 4}),
               ModelError);
}
