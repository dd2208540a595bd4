// Floating-point reductions: hand-worked vectors for rounding, subnormals, NaN and signed zero, under each
// policy alternative. Bit patterns: f16 1.0 = 0x3c00 (exp 15, frac 0), bf16 1.0 = 0x3f80, f32 1.0 = 0x3f800000.
#include <gtest/gtest.h>

#include "ptxcts/ref/reduce.hpp"

using namespace ptxcts::ref;

namespace {
std::uint64_t red(const char* op, std::uint64_t a, std::uint64_t b, const char* policy = nullptr,
                  ReduceContext ctx = ReduceContext{}) {
  PolicySet p;
  if (policy) {
    std::string why;
    EXPECT_TRUE(p.set_assignment(policy, &why)) << why;
  }
  const auto r = parse_reduce_op(op);
  EXPECT_TRUE(r.has_value()) << op;
  return reduce_element(*r, a, b, p, ctx);
}
}  // namespace

TEST(ReduceFloat, F32RoundsToNearestEven) {
  // 1.0 + 2^-24: exactly half an ulp of 1.0 (ulp 2^-23) -> tie -> even (1.0, fraction 0).
  EXPECT_EQ(red("add.f32", 0x3f800000u, 0x33800000u), 0x3f800000u);
  // (1 + 2^-23) + 2^-24: tie between fraction 1 and 2 -> even 2.
  EXPECT_EQ(red("add.f32", 0x3f800001u, 0x33800000u), 0x3f800002u);
  // 1.0 + 1.0 = 2.0 (exp+1).
  EXPECT_EQ(red("add.f32", 0x3f800000u, 0x3f800000u), 0x40000000u);
  // FLT_MAX + FLT_MAX overflows to +inf.
  EXPECT_EQ(red("add.f32", 0x7f7fffffu, 0x7f7fffffu), 0x7f800000u);
  // 1.0 + (-1.0) = +0 under round-to-nearest.
  EXPECT_EQ(red("add.f32", 0x3f800000u, 0xbf800000u), 0x00000000u);
  // -0 + -0 = -0; -0 + +0 = +0.
  EXPECT_EQ(red("add.f32", 0x80000000u, 0x80000000u), 0x80000000u);
  EXPECT_EQ(red("add.f32", 0x80000000u, 0x00000000u), 0x00000000u);
  // 3.0 (0x40400000) + -1.5 (0xbfc00000) = 1.5 (0x3fc00000): subtraction with renormalisation.
  EXPECT_EQ(red("add.f32", 0x40400000u, 0xbfc00000u), 0x3fc00000u);
}

// The chapter: 'The current implementation of cp.reduce.async.bulk.add.f32 flushes subnormal inputs and
// results to sign-preserving zero.' Vector 1: old = 2^-126 (0x00800000, smallest normal), src = -2^-149
// (0x80000001, smallest negative subnormal). Exact sum 2^-126 - 2^-149 = 0x007fffff, a subnormal.
//   flush:         src -> -0; 2^-126 + -0 = 0x00800000 (normal, kept)
//   keep:          0x007fffff
//   flush_inputs:  as flush for the input -> 0x00800000
//   flush_results: 0x007fffff is subnormal -> +0 (its sign) = 0x00000000
TEST(ReduceFloat, F32SubnormalPolicies) {
  const std::uint64_t a = 0x00800000u, b = 0x80000001u;
  EXPECT_EQ(red("add.f32", a, b), 0x00800000u);  // default: flush
  EXPECT_EQ(red("add.f32", a, b, "f32_add_subnormals=flush"), 0x00800000u);
  EXPECT_EQ(red("add.f32", a, b, "f32_add_subnormals=keep"), 0x007fffffu);
  EXPECT_EQ(red("add.f32", a, b, "f32_add_subnormals=flush_inputs"), 0x00800000u);
  EXPECT_EQ(red("add.f32", a, b, "f32_add_subnormals=flush_results"), 0x00000000u);
  // Vector 2, sign preservation: -3*2^-149 (0x80000003) + -2^-149 (0x80000001).
  //   flush: -0 + -0 = -0 (0x80000000); keep: -4*2^-149 = 0x80000004; flush_results: 0x80000004 -> -0.
  EXPECT_EQ(red("add.f32", 0x80000003u, 0x80000001u), 0x80000000u);
  EXPECT_EQ(red("add.f32", 0x80000003u, 0x80000001u, "f32_add_subnormals=keep"), 0x80000004u);
  EXPECT_EQ(red("add.f32", 0x80000003u, 0x80000001u, "f32_add_subnormals=flush_results"), 0x80000000u);
  // Vector 3: two subnormals whose sum is normal: 0x00400000 + 0x00400000 = 2^-127 + 2^-127 = 2^-126.
  //   keep: 0x00800000; flush: both inputs -> +0 -> 0x00000000.
  EXPECT_EQ(red("add.f32", 0x00400000u, 0x00400000u, "f32_add_subnormals=keep"), 0x00800000u);
  EXPECT_EQ(red("add.f32", 0x00400000u, 0x00400000u), 0x00000000u);
}

// .add.noftz.f32 (PTX ISA 9.4): "preserves input and result subnormals" whatever f32_add_subnormals says.
TEST(ReduceFloat, F32NoftzKeepsSubnormalsUnderEveryPolicy) {
  for (const char* p : {static_cast<const char*>(nullptr), "f32_add_subnormals=flush",
                        "f32_add_subnormals=flush_inputs", "f32_add_subnormals=flush_results"}) {
    SCOPED_TRACE(p ? p : "default");
    EXPECT_EQ(red("add.noftz.f32", 0x00800000u, 0x80000001u, p), 0x007fffffu);
    EXPECT_EQ(red("add.noftz.f32", 0x00400000u, 0x00400000u, p), 0x00800000u);
  }
  std::string why;
  EXPECT_TRUE(reduce_op_allowed(ReduceSite::bulk_global, *parse_reduce_op("add.noftz.f32", &why), &why)) << why;
  EXPECT_FALSE(reduce_op_allowed(ReduceSite::tensor, *parse_reduce_op("add.noftz.f32", &why), &why));
  EXPECT_FALSE(reduce_op_allowed(ReduceSite::bulk_global, *parse_reduce_op("add.noftz.u32", &why), &why));
}

// The tensor form: by_dtype -> FLOAT32 keeps, FLOAT32_FTZ flushes (vector 3 above).
TEST(ReduceFloat, TensorF32SubnormalPolicy) {
  const ReduceContext f32{ReduceSite::tensor, false}, ftz{ReduceSite::tensor, true};
  EXPECT_EQ(red("add.f32", 0x00400000u, 0x00400000u, nullptr, f32), 0x00800000u);
  EXPECT_EQ(red("add.f32", 0x00400000u, 0x00400000u, nullptr, ftz), 0x00000000u);
  EXPECT_EQ(red("add.f32", 0x00400000u, 0x00400000u, "tensor_f32_add_subnormals=flush", f32), 0x00000000u);
  EXPECT_EQ(red("add.f32", 0x00400000u, 0x00400000u, "tensor_f32_add_subnormals=keep", ftz), 0x00800000u);
  // The bulk policy does not reach the tensor site.
  EXPECT_EQ(red("add.f32", 0x00400000u, 0x00400000u, "f32_add_subnormals=flush", f32), 0x00800000u);
}

TEST(ReduceFloat, F16NoftzKeepsSubnormalsAndRoundsToEven) {
  // f16 subnormal 2^-24 (0x0001) + 2^-24 = 2^-23 (0x0002): .noftz keeps subnormals.
  EXPECT_EQ(red("add.noftz.f16", 0x0001, 0x0001), 0x0002u);
  // Largest subnormal 0x03ff + smallest subnormal 0x0001 = 0x0400, the smallest normal 2^-14.
  EXPECT_EQ(red("add.noftz.f16", 0x03ff, 0x0001), 0x0400u);
  // 1.0 + 2^-11 (0x1000: exp 4 -> 2^(4-15) = 2^-11): half an ulp (ulp 2^-10) -> tie -> even 1.0.
  EXPECT_EQ(red("add.noftz.f16", 0x3c00, 0x1000), 0x3c00u);
  // (1 + 2^-10) (0x3c01) + 2^-11: tie between fractions 1 and 2 -> 2 (0x3c02).
  EXPECT_EQ(red("add.noftz.f16", 0x3c01, 0x1000), 0x3c02u);
  // 65504 (0x7bff) + 16 (0x4c00) = 65520: halfway to 65536 (out of range); 0x3ff is odd -> rounds up -> +inf.
  EXPECT_EQ(red("add.noftz.f16", 0x7bff, 0x4c00), 0x7c00u);
  // 65504 + 15.9375 (0x4bf8) is below the halfway point -> 65504.
  EXPECT_EQ(red("add.noftz.f16", 0x7bff, 0x4bf8), 0x7bffu);
  // 1.0 + -1.0 = +0; -0 + -0 = -0.
  EXPECT_EQ(red("add.noftz.f16", 0x3c00, 0xbc00), 0x0000u);
  EXPECT_EQ(red("add.noftz.f16", 0x8000, 0x8000), 0x8000u);
}

TEST(ReduceFloat, BF16NoftzRounding) {
  // bf16: 8 significand bits. 1.0 (0x3f80) + 2^-8 (0x3b80: exp 119 -> 2^-8) is half an ulp (2^-7) -> even 1.0.
  EXPECT_EQ(red("add.noftz.bf16", 0x3f80, 0x3b80), 0x3f80u);
  // (1 + 2^-7) (0x3f81) + 2^-8 -> tie -> even fraction 2 (0x3f82).
  EXPECT_EQ(red("add.noftz.bf16", 0x3f81, 0x3b80), 0x3f82u);
  // bf16 subnormals kept: 0x0001 (2^-133) + 0x0001 = 0x0002.
  EXPECT_EQ(red("add.noftz.bf16", 0x0001, 0x0001), 0x0002u);
  // 2.0 (0x4000) + 3.0 (0x4040) = 5.0 (0x40a0).
  EXPECT_EQ(red("add.noftz.bf16", 0x4000, 0x4040), 0x40a0u);
}

TEST(ReduceFloat, TensorHalfAddSubnormalPolicy) {
  const ReduceContext t{ReduceSite::tensor, false};
  EXPECT_EQ(red("add.f16", 0x0001, 0x0001, nullptr, t), 0x0002u);
  EXPECT_EQ(red("add.f16", 0x0001, 0x0001, "tensor_half_add_subnormals=flush", t), 0x0000u);
  EXPECT_EQ(red("add.bf16", 0x8001, 0x8001, "tensor_half_add_subnormals=flush", t), 0x8000u);
}

TEST(ReduceFloat, F64RoundsToNearestEven) {
  // 1.0 + 2^-53 (0x3ca0000000000000): half an ulp of 1.0 -> even 1.0.
  EXPECT_EQ(red("add.f64", 0x3ff0000000000000ull, 0x3ca0000000000000ull), 0x3ff0000000000000ull);
  EXPECT_EQ(red("add.f64", 0x3ff0000000000001ull, 0x3ca0000000000000ull), 0x3ff0000000000002ull);
  // Subnormals are kept for f64: 0x1 + 0x1 = 0x2.
  EXPECT_EQ(red("add.f64", 1, 1), 2u);
  // DBL_MAX + DBL_MAX = +inf.
  EXPECT_EQ(red("add.f64", 0x7fefffffffffffffull, 0x7fefffffffffffffull), 0x7ff0000000000000ull);
}

TEST(ReduceFloat, AddNanPolicies) {
  // f32 signalling NaN 0x7f800001 + 1.0.
  EXPECT_EQ(red("add.f32", 0x7f800001u, 0x3f800000u), 0x7fffffffu);  // canonical
  EXPECT_EQ(red("add.f32", 0x7f800001u, 0x3f800000u, "f32_add_nan=old_quieted"), 0x7fc00001u);
  EXPECT_EQ(red("add.f32", 0x3f800000u, 0xff800002u, "f32_add_nan=old_quieted"), 0xffc00002u);  // old not NaN
  EXPECT_EQ(red("add.f32", 0x7fc00005u, 0xffc00006u, "f32_add_nan=src_quieted"), 0xffc00006u);
  // +inf + -inf is invalid: a NaN with no NaN operand -> canonical under every alternative.
  EXPECT_EQ(red("add.f32", 0x7f800000u, 0xff800000u, "f32_add_nan=old_quieted"), 0x7fffffffu);
  EXPECT_EQ(red("add.f32", 0x7f800000u, 0x7f800000u), 0x7f800000u);
  EXPECT_EQ(red("add.noftz.f16", 0x7c01, 0x3c00), 0x7fffu);
  EXPECT_EQ(red("add.noftz.f16", 0x7c01, 0x3c00, "f16_add_nan=old_quieted"), 0x7e01u);
  EXPECT_EQ(red("add.noftz.bf16", 0x3f80, 0xff81, "bf16_add_nan=src_quieted"), 0xffc1u);
  EXPECT_EQ(red("add.f64", 0x7ff0000000000001ull, 0), 0x7fffffffffffffffull);
}

// passthrough (what the H100 does for cp.reduce.async.bulk .add.f64, run 1): a NaN operand's bits unchanged --
// a signalling NaN stays signalling, the sign and payload stay; both NaN: the source's; inf - inf: the negative
// quiet NaN with zero payload.
TEST(ReduceFloat, AddNanPassthrough) {
  const char* f64 = "f64_add_nan=passthrough";
  EXPECT_EQ(red("add.f64", 0, 0x7ff0000000000001ull, f64), 0x7ff0000000000001ull);
  EXPECT_EQ(red("add.f64", 0, 0xfff8000000000000ull, f64), 0xfff8000000000000ull);
  EXPECT_EQ(red("add.f64", 0xfff090a2111ed0b2ull, 0x3ff0000000000000ull, f64), 0xfff090a2111ed0b2ull);  // old NaN
  EXPECT_EQ(red("add.f64", 0x7ff0000000000001ull, 0x7ff8000000000000ull, f64), 0x7ff8000000000000ull);  // both: src
  EXPECT_EQ(red("add.f64", 0x7ff8000000000000ull, 0x7ff0000000000001ull, f64), 0x7ff0000000000001ull);
  EXPECT_EQ(red("add.f64", 0x7ff0000000000000ull, 0xfff0000000000000ull, f64), 0xfff8000000000000ull);  // inf-inf
  EXPECT_EQ(red("add.f64", 0x3ff0000000000000ull, 0x3ff0000000000000ull, f64), 0x4000000000000000ull);  // no NaN
  // The f64 policy does not reach f32; f32/f16 under their own passthrough.
  EXPECT_EQ(red("add.f32", 0x7f800001u, 0x3f800000u, f64), 0x7fffffffu);
  EXPECT_EQ(red("add.f32", 0x7f800001u, 0x3f800000u, "f32_add_nan=passthrough"), 0x7f800001u);
  EXPECT_EQ(red("add.f32", 0x7f800000u, 0xff800000u, "f32_add_nan=passthrough"), 0xffc00000u);
  EXPECT_EQ(red("add.noftz.f16", 0x3c00, 0xfc01, "f16_add_nan=passthrough"), 0xfc01u);
  EXPECT_EQ(red("add.noftz.bf16", 0x7f80, 0xff80, "bf16_add_nan=passthrough"), 0xffc0u);
}

// min/max .f16/.bf16: NaN = 0x7e00 (quiet), sNaN = 0x7c01; bf16 quiet NaN 0x7fc0.
TEST(ReduceFloat, HalfMinMaxNanPolicies) {
  EXPECT_EQ(red("min.f16", 0x7e00, 0x3c00), 0x3c00u);  // other_operand: the non-NaN
  EXPECT_EQ(red("max.f16", 0x3c00, 0x7c01), 0x3c00u);
  EXPECT_EQ(red("min.f16", 0x7e00, 0xfe00), 0x7fffu);  // both NaN -> canonical
  EXPECT_EQ(red("min.f16", 0x7e00, 0x3c00, "f16_minmax_nan=canonical_nan"), 0x7fffu);
  EXPECT_EQ(red("min.f16", 0x7c01, 0x3c00, "f16_minmax_nan=old_quieted"), 0x7e01u);
  EXPECT_EQ(red("min.f16", 0x7c01, 0xfc02, "f16_minmax_nan=src_quieted"), 0xfe02u);
  EXPECT_EQ(red("max.f16", 0x7c01, 0x3c00, "f16_minmax_nan=src_quieted"), 0x7e01u);  // src not NaN -> old's
  EXPECT_EQ(red("max.bf16", 0x7fc1, 0x3f80), 0x3f80u);
  EXPECT_EQ(red("max.bf16", 0x7fc1, 0x3f80, "bf16_minmax_nan=canonical_nan"), 0x7fffu);
  // The f16 policy does not reach bf16.
  EXPECT_EQ(red("max.bf16", 0x7fc1, 0x3f80, "f16_minmax_nan=canonical_nan"), 0x3f80u);
}

TEST(ReduceFloat, HalfMinMaxSignedZeroPolicies) {
  // old = +0 (0x0000), src = -0 (0x8000).
  EXPECT_EQ(red("min.f16", 0x0000, 0x8000), 0x8000u);  // ordered: -0 < +0
  EXPECT_EQ(red("max.f16", 0x0000, 0x8000), 0x0000u);
  EXPECT_EQ(red("min.f16", 0x0000, 0x8000, "f16_minmax_signed_zero=old"), 0x0000u);
  EXPECT_EQ(red("max.f16", 0x8000, 0x0000, "f16_minmax_signed_zero=old"), 0x8000u);
  EXPECT_EQ(red("min.f16", 0x0000, 0x8000, "f16_minmax_signed_zero=src"), 0x8000u);
  EXPECT_EQ(red("max.f16", 0x0000, 0x8000, "f16_minmax_signed_zero=src"), 0x8000u);
  EXPECT_EQ(red("min.bf16", 0x8000, 0x0000), 0x8000u);
  EXPECT_EQ(red("max.bf16", 0x8000, 0x0000, "bf16_minmax_signed_zero=src"), 0x0000u);
  // Ordinary ordering: -2 (0xc000) < -1 (0xbc00) < subnormal 0x0001 < 1 (0x3c00) < +inf.
  EXPECT_EQ(red("min.f16", 0xbc00, 0xc000), 0xc000u);
  EXPECT_EQ(red("max.f16", 0x0001, 0xbc00), 0x0001u);
  EXPECT_EQ(red("max.f16", 0x7c00, 0x3c00), 0x7c00u);
  EXPECT_EQ(red("min.bf16", 0xff80, 0x3f80), 0xff80u);  // -inf
}

// reduce.cpp: the bulk forms' f16 add with .noftz keeps subnormals whatever the tensor form's policy says (mutant:
// `if (ctx.site != ReduceSite::tensor) return keep;` -> `if (0==1)`). 2^-24 + 2^-24 = 2^-23 (0x0002), with
// tensor_half_add_subnormals set to flush.
TEST(ReduceFloat, BulkHalfAddIgnoresTheTensorPolicy) {
  PolicySet p;
  std::string why;
  ASSERT_TRUE(p.set_assignment("tensor_half_add_subnormals=flush", &why)) << why;
  const auto op = parse_reduce_op("add.noftz.f16");
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(reduce_element(*op, 0x0001, 0x0001, p, ReduceContext{ReduceSite::bulk_global, false}), 0x0002u);
  // the tensor site does read it: flushed inputs and result give +0
  EXPECT_EQ(reduce_element(*op, 0x0001, 0x0001, p, ReduceContext{ReduceSite::tensor, false}), 0x0000u);
}
