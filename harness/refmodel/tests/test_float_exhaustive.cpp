// Exhaustive checks of the integer soft-float in the model against independent computations:
//  * f16 and bf16 add / min / max over every operand pair of a sampled grid (about 1400 patterns per type:
//    every 61st magnitude with both signs, all specials, and dense blocks around 1.0, the subnormal/normal boundary and half an
//    ulp of 1.0, where ties occur), against double arithmetic plus rounding code written here (ldexp +
//    nearbyint in round-to-nearest mode).
//    Why double is exact enough: an f16 sum is exact in double (exponents span 2^-24..2^15, 40 bits < 53).
//    A bf16 sum is exact in double unless the exponents differ by more than ~45; then the smaller operand
//    is below 2^-36 of the larger's bf16 ulp, so the double-rounded sum and the exact sum round to the same
//    bf16 value (no bf16 rounding boundary lies in between). Hence double + one final rounding is correct.
//  * f32 and f64 add over a million random pairs each against the host FPU (IEEE binary32/binary64,
//    round-to-nearest-even, subnormals kept), with the flush alternatives applied by hand.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "ptxcts/ref/reduce.hpp"

using namespace ptxcts::ref;

namespace {

struct Fmt {
  int exp_bits, man_bits;
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
};
constexpr Fmt kHalf{5, 10}, kBfloat{8, 7};

bool is_nan16(Fmt f, std::uint32_t x) {
  const std::uint32_t e = (x >> f.man_bits) & ((1u << f.exp_bits) - 1);
  return e == (1u << f.exp_bits) - 1 && (x & ((1u << f.man_bits) - 1)) != 0;
}

double to_double(Fmt f, std::uint32_t x) {
  const bool neg = (x >> 15) & 1;
  const int e = static_cast<int>((x >> f.man_bits) & ((1u << f.exp_bits) - 1));
  const double frac = static_cast<double>(x & ((1u << f.man_bits) - 1));
  double v;
  if (e == (1 << f.exp_bits) - 1)
    v = frac == 0 ? INFINITY : NAN;
  else if (e == 0)
    v = std::ldexp(frac, 1 - f.bias() - f.man_bits);
  else
    v = std::ldexp(frac + std::ldexp(1.0, f.man_bits), e - f.bias() - f.man_bits);
  return neg ? -v : v;
}

// Round a double to the 16-bit format, nearest-even, with overflow to infinity.
std::uint32_t from_double(Fmt f, double x) {
  const std::uint32_t sign = std::signbit(x) ? 0x8000u : 0u;
  const std::uint32_t inf = ((1u << f.exp_bits) - 1) << f.man_bits;
  if (std::isinf(x)) return sign | inf;
  const double a = std::fabs(x);
  if (a == 0) return sign;
  const int emin = 1 - f.bias(), emax = f.bias();
  int e = std::ilogb(a);
  if (e < emin) e = emin;
  double n = std::nearbyint(std::ldexp(a, f.man_bits - e));  // a / ulp, rounded half to even
  const double top = std::ldexp(1.0, f.man_bits + 1);
  if (n >= top) {
    n /= 2;
    ++e;
  }
  if (e > emax) return sign | inf;
  const auto ni = static_cast<std::uint32_t>(n);
  if (ni < (1u << f.man_bits)) return sign | ni;  // subnormal (or zero) at e == emin
  return sign | (static_cast<std::uint32_t>(e + f.bias()) << f.man_bits) | (ni - (1u << f.man_bits));
}

std::uint32_t oracle_add(Fmt f, double da, double db) {
  const double s = da + db;
  if (std::isnan(s)) return 0x7fff;  // canonical NaN (policy default)
  return from_double(f, s);
}

// min/max with the default policies: NaN operand treated as missing (both NaN: canonical); -0 < +0.
std::uint32_t oracle_minmax(Fmt f, bool is_max, std::uint32_t a, std::uint32_t b, double x, double y) {
  const bool an = is_nan16(f, a), bn = is_nan16(f, b);
  if (an && bn) return 0x7fff;
  if (an) return b;
  if (bn) return a;
  if (x == y) {
    if (x != 0 || a == b) return a;
    const bool a_neg = (a >> 15) & 1;
    return (is_max != a_neg) ? a : b;
  }
  return ((x > y) == is_max) ? a : b;
}

std::vector<std::uint32_t> grid(Fmt f) {
  std::set<std::uint32_t> g;
  for (std::uint32_t v = 0; v < 0x8000; v += 61) g.insert(v);  // both signs added below
  const std::uint32_t one = static_cast<std::uint32_t>(f.bias()) << f.man_bits;
  const std::uint32_t min_normal = 1u << f.man_bits;
  const std::uint32_t half_ulp_of_one = static_cast<std::uint32_t>(f.bias() - f.man_bits - 1) << f.man_bits;
  const std::uint32_t inf = ((1u << f.exp_bits) - 1) << f.man_bits;
  for (std::uint32_t base : {0u, one, min_normal - 32, half_ulp_of_one, inf - 32})
    for (std::uint32_t k = 0; k < 32; ++k) g.insert(base + k);
  for (std::uint32_t v : {inf, inf + 1, inf | (1u << (f.man_bits - 1)), 0x7fffu}) g.insert(v);
  std::vector<std::uint32_t> out;
  for (std::uint32_t v : g) {
    out.push_back(v & 0x7fff);
    out.push_back((v & 0x7fff) | 0x8000);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void exhaustive(Fmt f, ElemType t) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  const std::vector<std::uint32_t> g = grid(f);
  ASSERT_GT(g.size(), 1200u);
  const ReduceOp add{RedOp::add, t, true}, mn{RedOp::min, t, false}, mx{RedOp::max, t, false};
  std::size_t inexact = 0, ties = 0, failures = 0;
  std::vector<double> d(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) d[i] = to_double(f, g[i]);
  for (std::size_t i = 0; i < g.size(); ++i)
    for (std::size_t j = 0; j < g.size(); ++j) {
      const std::uint32_t a = g[i], b = g[j];
      const std::uint64_t got_add = reduce_element(add, a, b);
      const std::uint32_t want_add = oracle_add(f, d[i], d[j]);
      const std::uint64_t got_min = reduce_element(mn, a, b), got_max = reduce_element(mx, a, b);
      const std::uint32_t want_min = oracle_minmax(f, false, a, b, d[i], d[j]);
      const std::uint32_t want_max = oracle_minmax(f, true, a, b, d[i], d[j]);
      if (got_add != want_add || got_min != want_min || got_max != want_max) {
        if (++failures <= 10)
          ADD_FAILURE() << to_string(t) << " a=0x" << std::hex << a << " b=0x" << b << " add got 0x" << got_add
                        << " want 0x" << want_add << " min got 0x" << got_min << " want 0x" << want_min
                        << " max got 0x" << got_max << " want 0x" << want_max;
      }
      const double s = d[i] + d[j];
      if (std::isfinite(s) && to_double(f, want_add) != s) {
        ++inexact;
        // A tie: the exact sum lies halfway between two neighbours.
        const std::uint32_t r = want_add;
        const double lo = to_double(f, r), other = to_double(f, (s > lo) == !(r & 0x8000) ? r + 1 : r - 1);
        if (std::isfinite(other) && std::fabs(s - lo) == std::fabs(other - s)) ++ties;
      }
    }
  EXPECT_EQ(failures, 0u);
  // The grid must exercise rounding, including ties to even, or the comparison proves little.
  EXPECT_GT(inexact, 10000u);
  EXPECT_GT(ties, 100u);
}

}  // namespace

TEST(FloatExhaustive, F16AddMinMaxOverSampledGrid) { exhaustive(kHalf, ElemType::f16); }
TEST(FloatExhaustive, BF16AddMinMaxOverSampledGrid) { exhaustive(kBfloat, ElemType::bf16); }

namespace {

template <typename U, typename F>
F bits_to(U u) {
  F f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
template <typename F, typename U>
U to_bits(F f) {
  U u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Random pairs whose exponents are close enough to interact (and some far apart), plus subnormals.
template <typename U>
std::pair<U, U> random_pair(std::mt19937_64& rng, int man_bits, int exp_bits) {
  const U man_mask = (U{1} << man_bits) - 1;
  const int emax = (1 << exp_bits) - 2;
  std::uniform_int_distribution<int> ed(0, emax), dd(-30, 30), kind(0, 9);
  auto make = [&](int e) -> U {
    if (e < 0) e = 0;
    if (e > emax) e = emax;
    const U sign = (rng() & 1) ? U{1} << (man_bits + exp_bits) : U{0};
    return sign | (static_cast<U>(e) << man_bits) | (static_cast<U>(rng()) & man_mask);
  };
  const int ea = kind(rng) == 0 ? 0 : ed(rng);
  const int k = kind(rng);
  const int eb = k == 0 ? 0 : (k < 7 ? ea + dd(rng) : ed(rng));
  return {make(ea), make(eb)};
}

}  // namespace

TEST(FloatExhaustive, F32AddAgainstHostFpu) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  std::mt19937_64 rng(20261122);
  const ReduceOp op{RedOp::add, ElemType::f32, false};
  PolicySet keep, flush;
  keep.set("f32_add_subnormals", "keep");
  std::size_t failures = 0, subnormal_inputs = 0;
  auto flushed = [](std::uint32_t x) { return ((x & 0x7f800000u) == 0) ? (x & 0x80000000u) : x; };
  for (int i = 0; i < 1000000; ++i) {
    const auto [a, b] = random_pair<std::uint32_t>(rng, 23, 8);
    const float s = bits_to<std::uint32_t, float>(a) + bits_to<std::uint32_t, float>(b);
    const std::uint32_t want_keep = std::isnan(s) ? 0x7fffffffu : to_bits<float, std::uint32_t>(s);
    const float sf = bits_to<std::uint32_t, float>(flushed(a)) + bits_to<std::uint32_t, float>(flushed(b));
    const std::uint32_t want_flush = std::isnan(sf) ? 0x7fffffffu : flushed(to_bits<float, std::uint32_t>(sf));
    if ((a & 0x7f800000u) == 0 && (a & 0x7fffffu)) ++subnormal_inputs;
    const std::uint64_t got_keep = reduce_element(op, a, b, keep), got_flush = reduce_element(op, a, b, flush);
    if ((got_keep != want_keep || got_flush != want_flush) && ++failures <= 10)
      ADD_FAILURE() << std::hex << "a=0x" << a << " b=0x" << b << " keep got 0x" << got_keep << " want 0x"
                    << want_keep << " flush got 0x" << got_flush << " want 0x" << want_flush;
  }
  EXPECT_EQ(failures, 0u);
  EXPECT_GT(subnormal_inputs, 10000u);
}

TEST(FloatExhaustive, F64AddAgainstHostFpu) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  std::mt19937_64 rng(7);
  const ReduceOp op{RedOp::add, ElemType::f64, false};
  std::size_t failures = 0;
  for (int i = 0; i < 1000000; ++i) {
    const auto [a, b] = random_pair<std::uint64_t>(rng, 52, 11);
    const double s = bits_to<std::uint64_t, double>(a) + bits_to<std::uint64_t, double>(b);
    const std::uint64_t want = std::isnan(s) ? 0x7fffffffffffffffull : to_bits<double, std::uint64_t>(s);
    const std::uint64_t got = reduce_element(op, a, b);
    if (got != want && ++failures <= 10)
      ADD_FAILURE() << std::hex << "a=0x" << a << " b=0x" << b << " got 0x" << got << " want 0x" << want;
  }
  EXPECT_EQ(failures, 0u);
}
