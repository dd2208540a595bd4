// Drawing helpers of the exploration tier (explore_tensor.cpp, explore_bulk.cpp): choices weighted toward
// boundaries, and the one-step simplifications a shrinker proposes for a number.
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "json.hpp"
#include "util.hpp"

namespace ptxcts::run::draw {

// A deep copy: Json values share their arrays and objects when copied, and a simplification must never change
// the parameters it started from.
inline Json clone(const Json& j) { return Json::parse(j.dump()); }

inline bool chance(Rng& r, unsigned percent) { return r.below(100) < percent; }

template <typename T>
T pick(Rng& r, std::initializer_list<T> v) {
  return *(v.begin() + r.below(v.size()));
}

// A value in [lo, hi]: half the time one of `edges` (clamped into the range), otherwise log-uniform, so small
// values and the range's ends are both reached.
inline uint64_t edgy(Rng& r, uint64_t lo, uint64_t hi, std::initializer_list<uint64_t> edges = {}) {
  if (hi <= lo) return lo;
  if (edges.size() && chance(r, 50)) return std::clamp(pick(r, edges), lo, hi);
  unsigned bits = 0;
  while (bits < 63 && (uint64_t(1) << bits) <= hi - lo) ++bits;
  uint64_t cap = uint64_t(1) << r.below(bits + 1);
  return lo + std::min(hi - lo, r.below(cap));
}

// Smaller values than v (down to `floor`, in steps of `unit`), for the shrinker: the floor, then v minus half,
// a quarter, an eighth ... of the distance, then one unit less. Nearest the floor first.
inline std::vector<uint64_t> smaller(uint64_t v, uint64_t floor, uint64_t unit = 1) {
  std::vector<uint64_t> out;
  if (v <= floor) return out;
  auto add = [&](uint64_t x) {
    x = std::max(floor, x / unit * unit);
    if (x < v && std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  };
  add(floor);
  for (uint64_t d = (v - floor) / 2; d >= unit; d /= 2) add(v - d);
  add(v - unit);
  return out;
}

}  // namespace ptxcts::run::draw
