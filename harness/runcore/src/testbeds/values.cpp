#include "values.hpp"

namespace ptxcts::run {

std::vector<uint64_t> edge_values(ref::ElemType t) {
  using E = ref::ElemType;
  switch (t) {
    case E::b32: case E::u32: case E::s32:
      // zero, one, the signed and unsigned wrap points, all ones, and small values around them
      return {0, 1, 2, 0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu, 0x00010000u, 0x55555555u};
    case E::b64: case E::u64: case E::s64:
      return {0, 1, 2, 0x7fffffffffffffffull, 0x8000000000000000ull, 0x8000000000000001ull, 0xfffffffffffffffeull,
              0xffffffffffffffffull, 0x00000000ffffffffull, 0x0000000100000000ull};
    case E::f16:
      // +0 -0, min/max subnormal (+-), min normal, 1, -1, max finite (+-), +-inf, qNaN, sNaN, -qNaN, payload NaN
      return {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x3c00, 0xbc00, 0x3c01, 0x7bff, 0xfbff,
              0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe00, 0x7e55};
    case E::bf16:
      return {0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x3f80, 0xbf80, 0x3f81, 0x7f7f, 0xff7f,
              0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc0, 0x7fd5};
    case E::f32:
      return {0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu, 0x00800000u,
              0x80800000u, 0x3f800000u, 0xbf800000u, 0x33800000u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u,
              0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffc00000u, 0x7fc12345u};
    case E::f64:
      return {0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull, 0x8000000000000001ull,
              0x000fffffffffffffull, 0x0010000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
              0x3ca0000000000000ull, 0x7fefffffffffffffull, 0xffefffffffffffffull, 0x7ff0000000000000ull,
              0xfff0000000000000ull, 0x7ff8000000000000ull, 0x7ff0000000000001ull, 0xfff8000000000000ull};
  }
  return {0};
}

void fill_reduce_inputs(ref::ElemType t, uint8_t* old, uint8_t* src, size_t n, Rng& rng) {
  unsigned eb = ref::elem_bytes(t);
  auto ev = edge_values(t);
  size_t i = 0;
  for (size_t a = 0; a < ev.size() && i < n; ++a)
    for (size_t b = 0; b < ev.size() && i < n; ++b, ++i) {
      ref::store_le(old + i * eb, eb, ev[a]);
      ref::store_le(src + i * eb, eb, ev[b]);
    }
  for (; i < n; ++i) {
    uint64_t x = rng.next(), y = rng.next();
    // Random floats: a third of them with small exponents (near each other and near the subnormal range),
    // so rounding and cancellation are exercised, not only huge magnitudes.
    if (ref::is_float(t) && (x % 3 == 0)) {
      if (eb == 2) { x &= 0x87ff; y &= 0x87ff; }
      if (eb == 4) { x &= 0x80ffffffull; y &= 0x80ffffffull; }
    }
    ref::store_le(old + i * eb, eb, x);
    ref::store_le(src + i * eb, eb, y);
  }
}

}  // namespace ptxcts::run
