// IEEE 754 binary formats on raw bit patterns (f16, bf16, f32, f64): classification, quieting, and
// addition rounded to nearest even, computed with integers only (no host floating point), so that the
// model's result does not depend on the host's FPU modes.
#pragma once

#include <cstdint>

#include "ptxcts/ref/policy.hpp"

namespace ptxcts::ref {

struct FloatFormat {
  unsigned exp_bits;
  unsigned man_bits;  // stored fraction bits
  constexpr unsigned bits() const { return 1 + exp_bits + man_bits; }
  constexpr std::uint64_t sign_mask() const { return std::uint64_t{1} << (exp_bits + man_bits); }
  constexpr std::uint64_t exp_field_max() const { return (std::uint64_t{1} << exp_bits) - 1; }
  constexpr std::uint64_t man_mask() const { return (std::uint64_t{1} << man_bits) - 1; }
  constexpr std::uint64_t quiet_bit() const { return std::uint64_t{1} << (man_bits - 1); }
  constexpr std::uint64_t canonical_nan() const { return (sign_mask() - 1); }  // 0x7fff, 0x7fffffff, ...
};
inline constexpr FloatFormat kF16{5, 10};
inline constexpr FloatFormat kBF16{8, 7};
inline constexpr FloatFormat kF32{8, 23};
inline constexpr FloatFormat kF64{11, 52};

bool fp_is_nan(FloatFormat f, std::uint64_t x);
bool fp_is_inf(FloatFormat f, std::uint64_t x);
bool fp_is_zero(FloatFormat f, std::uint64_t x);
bool fp_is_subnormal(FloatFormat f, std::uint64_t x);  // nonzero with a zero exponent field
std::uint64_t fp_quiet(FloatFormat f, std::uint64_t nan);
// A subnormal becomes the zero of its sign; anything else is returned unchanged.
std::uint64_t fp_flush(FloatFormat f, std::uint64_t x);

// a + b, rounded to nearest even, IEEE 754 for finite, infinite and zero operands (x + (-x) = +0,
// -0 + -0 = -0). A NaN result follows `nan` (a is the destination/old operand, b the source).
std::uint64_t fp_add_rne(FloatFormat f, std::uint64_t a, std::uint64_t b, AddNan nan);

// Three-way comparison of two non-NaN values: -1, 0, +1; +0 and -0 compare equal.
int fp_compare(FloatFormat f, std::uint64_t a, std::uint64_t b);

}  // namespace ptxcts::ref
