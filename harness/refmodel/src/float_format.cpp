#include "ptxcts/ref/float_format.hpp"

namespace ptxcts::ref {

namespace {

// v / 2^s rounded to nearest, ties to even.
std::uint64_t rne_shift_right(std::uint64_t v, unsigned s) {
  if (s == 0) return v;
  if (s >= 64) return 0;  // callers keep v < 2^60, so v / 2^64 < 1/2
  const std::uint64_t q = v >> s;
  const std::uint64_t rem = v & ((std::uint64_t{1} << s) - 1);
  const std::uint64_t half = std::uint64_t{1} << (s - 1);
  if (rem > half || (rem == half && (q & 1))) return q + 1;
  return q;
}

unsigned msb(std::uint64_t v) {
  unsigned p = 0;
  while (v >>= 1) ++p;
  return p;
}

std::uint64_t nan_result(FloatFormat f, std::uint64_t a, std::uint64_t b, AddNan nan) {
  const bool an = fp_is_nan(f, a), bn = fp_is_nan(f, b);
  switch (nan) {
    case AddNan::canonical: break;
    case AddNan::old_quieted:
      if (an) return fp_quiet(f, a);
      if (bn) return fp_quiet(f, b);
      break;
    case AddNan::src_quieted:
      if (bn) return fp_quiet(f, b);
      if (an) return fp_quiet(f, a);
      break;
    case AddNan::passthrough:
      // A NaN operand's bits unchanged (not quieted, sign kept); both NaN: the source's; an invalid operation
      // (inf - inf): the negative quiet NaN with zero payload.
      if (bn) return b;
      if (an) return a;
      return f.sign_mask() | (f.exp_field_max() << f.man_bits) | f.quiet_bit();
  }
  return f.canonical_nan();
}

}  // namespace

bool fp_is_nan(FloatFormat f, std::uint64_t x) {
  return ((x >> f.man_bits) & f.exp_field_max()) == f.exp_field_max() && (x & f.man_mask()) != 0;
}
bool fp_is_inf(FloatFormat f, std::uint64_t x) {
  return ((x >> f.man_bits) & f.exp_field_max()) == f.exp_field_max() && (x & f.man_mask()) == 0;
}
bool fp_is_zero(FloatFormat f, std::uint64_t x) { return (x & (f.sign_mask() - 1)) == 0; }
bool fp_is_subnormal(FloatFormat f, std::uint64_t x) {
  return ((x >> f.man_bits) & f.exp_field_max()) == 0 && (x & f.man_mask()) != 0;
}
std::uint64_t fp_quiet(FloatFormat f, std::uint64_t nan) { return nan | f.quiet_bit(); }
std::uint64_t fp_flush(FloatFormat f, std::uint64_t x) { return fp_is_subnormal(f, x) ? (x & f.sign_mask()) : x; }

std::uint64_t fp_add_rne(FloatFormat f, std::uint64_t a, std::uint64_t b, AddNan nan) {
  const std::uint64_t smask = f.sign_mask();
  const std::uint64_t all = (smask << 1) - 1;
  a &= all;
  b &= all;
  if (fp_is_nan(f, a) || fp_is_nan(f, b)) return nan_result(f, a, b, nan);
  const bool ai = fp_is_inf(f, a), bi = fp_is_inf(f, b);
  if (ai && bi) return ((a ^ b) & smask) ? nan_result(f, a, b, nan) : a;  // inf - inf is invalid
  if (ai) return a;
  if (bi) return b;
  const bool az = fp_is_zero(f, a), bz = fp_is_zero(f, b);
  if (az && bz) return (a & b & smask);  // round-to-nearest: -0 + -0 = -0, otherwise +0
  if (az) return b;
  if (bz) return a;

  // Order by magnitude so that the difference of significands is non-negative.
  if ((a & (smask - 1)) < (b & (smask - 1))) {
    const std::uint64_t t = a;
    a = b;
    b = t;
  }
  const std::uint64_t sign = a & smask;
  const bool subtract = ((a ^ b) & smask) != 0;
  const unsigned M = f.man_bits;
  constexpr unsigned G = 3;  // guard, round and sticky positions below the significand
  auto decode = [&](std::uint64_t x, std::int64_t& e, std::uint64_t& sig) {
    const std::uint64_t field = (x >> M) & f.exp_field_max();
    sig = x & f.man_mask();
    if (field == 0) {
      e = 1;  // subnormal: same scale as the smallest normal, no implicit bit
    } else {
      e = static_cast<std::int64_t>(field);
      sig |= std::uint64_t{1} << M;
    }
  };
  std::int64_t ea, eb;
  std::uint64_t sa, sb;
  decode(a, ea, sa);
  decode(b, eb, sb);
  const std::uint64_t A = sa << G;
  std::uint64_t B = sb << G;
  const std::uint64_t shift = static_cast<std::uint64_t>(ea - eb);
  if (shift >= 63) {
    B = B != 0 ? 1 : 0;
  } else if (shift > 0) {
    const bool sticky = (B & ((std::uint64_t{1} << shift) - 1)) != 0;
    B = (B >> shift) | (sticky ? 1 : 0);
  }
  const std::uint64_t R = subtract ? A - B : A + B;
  if (R == 0) return 0;  // exact cancellation gives +0 under round-to-nearest

  // Value = R * 2^(ea - bias - M - G). Normalised biased exponent of the result:
  const std::int64_t p = static_cast<std::int64_t>(msb(R));
  std::int64_t E = ea + p - static_cast<std::int64_t>(M + G);
  if (E >= 1) {
    const std::int64_t sh = p - static_cast<std::int64_t>(M);
    std::uint64_t sig = sh > 0 ? rne_shift_right(R, static_cast<unsigned>(sh)) : (R << static_cast<unsigned>(-sh));
    if (sig >> (M + 1)) {  // rounding carried into a new bit
      sig >>= 1;
      ++E;
    }
    if (static_cast<std::uint64_t>(E) >= f.exp_field_max()) return sign | (f.exp_field_max() << M);  // overflow
    return sign | (static_cast<std::uint64_t>(E) << M) | (sig & f.man_mask());
  }
  // Subnormal result: fraction = R * 2^(ea - 1 - G); a carry into bit M yields the smallest normal.
  const std::int64_t s = static_cast<std::int64_t>(G) + 1 - ea;
  const std::uint64_t frac = s > 0 ? rne_shift_right(R, static_cast<unsigned>(s)) : (R << static_cast<unsigned>(-s));
  return sign | frac;
}

int fp_compare(FloatFormat f, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t smask = f.sign_mask();
  auto key = [&](std::uint64_t x) -> std::int64_t {
    const auto mag = static_cast<std::int64_t>(x & (smask - 1));
    return (x & smask) ? -mag : mag;
  };
  const std::int64_t ka = key(a), kb = key(b);
  return ka < kb ? -1 : (ka > kb ? 1 : 0);
}

}  // namespace ptxcts::ref
