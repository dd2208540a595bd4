// The device-side outcome key, shuffle and permutation (gpu/litmus_device.hpp) checked on the host
// (tests/test_gpu_tier.py compiles it with the host compiler): prints one line per check, exit 1 on a failure.
#include <cstdio>
#include <set>
#include <string>

#include "litmus_device.hpp"

static int failures = 0;
static void check(bool ok, const char* what) {
  std::printf("%s %s\n", ok ? "ok" : "FAIL", what);
  failures += !ok;
}

int main() {
  // pack/unpack: every field round-trips, a value >= 255 saturates, a hang is the hang key whatever the values
  uint32_t v[7] = {0, 1, 13, 254, 255, 1000, 7};
  uint64_t k = lit_key_pack(v, 7, false);
  bool rt = true;
  for (int i = 0; i < 7; ++i) rt &= lit_key_field(k, i) == (v[i] < 255 ? v[i] : kLitKeyOverflow);
  check(rt, "lit_key_pack/lit_key_field round-trip 7 fields, saturating at 255");
  check((k & kLitKeyHang) == 0, "a key of values never has the hang bit");
  check(lit_key_pack(v, 7, true) == kLitKeyHang, "a hang is the hang key alone");
  uint32_t a[2] = {1, 0}, b[2] = {0, 1};
  check(lit_key_pack(a, 2, false) != lit_key_pack(b, 2, false), "the order of the fields matters");
  check(lit_key_pack(a, 1, false) == 1u, "one field: its value");
  // the shuffle: the lanes of one CTA are distinct, in range, and change with the iteration
  unsigned char tcta[4] = {0, 0, 1, 0};
  bool distinct = true, differs = false;
  for (uint32_t it = 0; it < 200; ++it) {
    int lanes[4], lanes2[4];
    lit_lanes(1, it, 5, 0, tcta, 4, 256, lanes);
    lit_lanes(1, it + 1, 5, 0, tcta, 4, 256, lanes2);
    std::set<int> s = {lanes[0], lanes[1], lanes[3]};
    distinct &= s.size() == 3 && lanes[2] == -1 && *s.begin() >= 0 && *s.rbegin() < 256;
    differs |= lanes[0] != lanes2[0];
  }
  check(distinct, "lit_lanes: the test threads of a CTA get distinct lanes in 0..255; others -1");
  check(differs, "lit_lanes: the shuffle changes with the iteration");
  // the environments' placements: one warp per test thread (distinct warps, rotating), or lanes 0.. of one warp
  bool warps_ok = true, rotates = false, fixed_ok = true;
  for (uint32_t g = 0; g < 200; ++g) {
    int lanes[4], fixed[4], first[4];
    lit_lanes_mode(kShuffleWarps, 1, 0, g, 0, tcta, 4, 256, lanes);
    lit_lanes_mode(kShuffleWarps, 1, 0, 0, 0, tcta, 4, 256, first);
    std::set<int> w = {lanes[0] / 32, lanes[1] / 32, lanes[3] / 32};
    warps_ok &= w.size() == 3 && lanes[2] == -1 && *w.rbegin() < 8;
    rotates |= lanes[0] / 32 != first[0] / 32;
    lit_lanes_mode(kShuffleFixed, 1, 0, g, 0, tcta, 4, 256, fixed);
    fixed_ok &= fixed[0] == 0 && fixed[1] == 1 && fixed[2] == -1 && fixed[3] == 2;
  }
  check(warps_ok, "lit_lanes_mode(kShuffleWarps): each test thread of a CTA in its own warp");
  check(rotates, "lit_lanes_mode(kShuffleWarps): the warps change with the instance");
  check(fixed_ok, "lit_lanes_mode(kShuffleFixed): the test threads of a CTA at lanes 0, 1, 2");
  // the permutation: a permutation, and every order appears over instances
  std::set<std::string> orders;
  bool perm_ok = true;
  for (uint32_t g = 0; g < 600; ++g) {
    uint32_t p[3];
    lit_perm(9, 0, g, p, 3);
    std::set<uint32_t> s(p, p + 3);
    perm_ok &= s.size() == 3 && *s.rbegin() == 2;
    orders.insert(std::to_string(p[0]) + std::to_string(p[1]) + std::to_string(p[2]));
  }
  check(perm_ok, "lit_perm: a permutation of 0..n-1");
  check(orders.size() == 6, "lit_perm: all 6 orders of 3 locations appear over 600 instances");
  return failures ? 1 : 0;
}
