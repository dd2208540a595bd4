// What the generated kernels (litmodel/cuda.py) and the runner (litmus_runner.cu) share: the launch parameters,
// the per-instance, per-iteration thread shuffle and location permutation (a hash of the seed: nothing is built on
// the host per instance), and the outcome key (an instance's registers and observed locations packed into 64 bits,
// decoded to the outcome text on the host once per distinct key). Host-and-device functions: the CPU test
// tests/key_test.cpp checks them with a host compiler.
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define LIT_HD __host__ __device__ __forceinline__
#else
#define LIT_HD inline
#endif

#define GSTRIDE_WORDS 64   // the default words between two global slots (256 bytes: no two locations in a line)

// The environment of one run (MC Mutants' parallel testing environment, tuned per shape: gpu_tier.py --tune):
// how the stress threads load the memory system, where the test threads sit, how far apart the locations are.
enum LitStressPattern : uint32_t {
  kStressLoadStore = 0,   // each iteration: load a hot line, store to it (the first environment)
  kStressStore = 1,       // stores only
  kStressLoad = 2,        // loads only
  kStressWarm = 3,        // load the instance's own global locations into this SM's L1 first, then load/store
  kStressNear = 4,        // store to the other half of the lines that hold the instance's own global locations
};
enum LitShuffle : uint32_t {
  kShuffleRandom = 0,     // each test thread a random lane of its CTA
  kShuffleWarps = 1,      // each test thread in its own warp (random lane in it), the warps rotated per instance
  kShuffleFixed = 2,      // the test threads of a CTA at lanes 0, 1, ...: one warp
};

struct Params {
  uint32_t* gmem;          // the global locations: instance-major, permuted slots GSTRIDE_WORDS words apart
  uint32_t* regs;          // [instance * nregs + k]: the registers' final values
  uint32_t* hang;          // [instance]: an mbarrier wait gave up
  uint32_t* stress_buf;    // the stress lines
  uint32_t stress_lines, stress_iters, nglobal, hang_ns;
  const uint32_t* tmap_images;  // two host-encoded 1-D tensor maps (32 words each): versions 0 and 1 of a map
  unsigned long long seed;      // with iter: the shuffle and permutation of this launch
  uint32_t iter;
  uint32_t gstride;        // words between two global slots (a multiple of 16: 64-byte slots)
  uint32_t stress_pattern; // LitStressPattern
  uint32_t stress_threads; // the lanes below this that play no test thread stress; the others only keep barriers
  uint32_t shuffle;        // LitShuffle
  uint32_t pre_iters;      // each test thread starts after a random 0..pre_iters SM clock cycles
  uint32_t gap_iters;      // and waits a random 0..gap_iters SM clock cycles between two of its instructions
  uint32_t meet;           // 1: the test threads of an instance meet (a spin on meet_count) before their start delay
  uint32_t* meet_count;    // [instance]: the test threads that reached the meeting point
  uint32_t prewarm;        // 1: each CTA loads the instance's global locations into its SM's L1 before the test
};

// A test thread waits at the meeting point at most this long for the others (an instance whose clusters are not
// resident together: the thread then goes on alone; any start time is an execution the model already has).
constexpr uint32_t kLitMeetLimitNs = 20000;
// kStressNear stores to the words from here to the end of a location's 128-byte line: a copy or a plain access
// uses the first 16 bytes of its slot, so the stores share the line (and its L2 slice) but never the location.
constexpr uint32_t kLitNearWord = 16;

constexpr int kLitMaxThreads = 16;   // test threads of one test (cuda.py refuses more)
constexpr int kLitMaxGlobals = 16;   // global locations of one test (cuda.py refuses more)
constexpr int kLitKeyFields = 7;     // registers + observed locations in one key (cuda.py refuses more)
constexpr uint64_t kLitKeyHang = 1ull << 63;
constexpr uint32_t kLitKeyOverflow = 255;   // a field's value >= 255: decoded as ">254", an outcome no label has

// splitmix64's finaliser: a well-mixed 64-bit hash of x
LIT_HD uint64_t lit_mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
LIT_HD uint64_t lit_hash(uint64_t seed, uint32_t iter, uint32_t group, uint32_t a, uint32_t b) {
  return lit_mix(seed ^ lit_mix((((uint64_t)iter << 32) | group) ^ lit_mix(((uint64_t)a << 32) | b)));
}

// Thread shuffle: lanes[th] is the lane (0..block-1) that test thread th plays in CTA `cta` of instance `group`
// (-1: th is in another CTA); the lanes of one CTA are distinct.
LIT_HD void lit_lanes(uint64_t seed, uint32_t iter, uint32_t group, uint32_t cta, const unsigned char* tcta,
                      int n, int block, int* lanes) {
  for (int th = 0; th < n; ++th) {
    lanes[th] = -1;
    if (tcta[th] != cta) continue;
    for (uint32_t attempt = 0;; ++attempt) {
      int lane = (int)(lit_hash(seed, iter, group, cta * 64u + (uint32_t)th, attempt) % (uint64_t)block);
      bool used = false;
      for (int k = 0; k < th; ++k) used |= lanes[k] == lane;
      if (!used) {
        lanes[th] = lane;
        break;
      }
    }
  }
}

// The lanes of the test threads in environment `mode` (LitShuffle); kShuffleWarps with more test threads in a CTA
// than warps is kShuffleRandom.
LIT_HD void lit_lanes_mode(uint32_t mode, uint64_t seed, uint32_t iter, uint32_t group, uint32_t cta,
                           const unsigned char* tcta, int n, int block, int* lanes) {
  int in_cta = 0;
  for (int th = 0; th < n; ++th) in_cta += tcta[th] == cta;
  const int warps = block / 32;
  if (mode == kShuffleWarps && in_cta <= warps && warps > 0) {
    const uint32_t start = (uint32_t)(lit_hash(seed, iter, group, cta * 64u + 63u, 0) % (uint64_t)warps);
    int k = 0;
    for (int th = 0; th < n; ++th) {
      lanes[th] = -1;
      if (tcta[th] != cta) continue;
      const int w = (int)((start + (uint32_t)k++) % (uint32_t)warps);
      lanes[th] = 32 * w + (int)(lit_hash(seed, iter, group, cta * 64u + (uint32_t)th, 1) % 32u);
    }
    return;
  }
  if (mode == kShuffleFixed && in_cta <= block) {
    int k = 0;
    for (int th = 0; th < n; ++th) lanes[th] = tcta[th] == cta ? k++ : -1;
    return;
  }
  lit_lanes(seed, iter, group, cta, tcta, n, block, lanes);
}

// Location permutation: perm[i] is the slot (0..n-1) of global location i in instance `group` (Fisher-Yates).
LIT_HD void lit_perm(uint64_t seed, uint32_t iter, uint32_t group, uint32_t* perm, int n) {
  for (int i = 0; i < n; ++i) perm[i] = (uint32_t)i;
  for (int i = n - 1; i > 0; --i) {
    uint32_t j = (uint32_t)(lit_hash(seed, iter, group, 0xFFFF0000u + (uint32_t)i, 0) % (uint64_t)(i + 1));
    uint32_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
}

// The key of an outcome: field i (8 bits from bit 8i) the i-th value, saturated at kLitKeyOverflow; a hang is
// kLitKeyHang alone (its values say nothing).
LIT_HD uint64_t lit_key_pack(const uint32_t* values, int n, bool hang) {
  if (hang) return kLitKeyHang;
  uint64_t k = 0;
  for (int i = 0; i < n && i < kLitKeyFields; ++i)
    k |= (uint64_t)(values[i] < kLitKeyOverflow ? values[i] : kLitKeyOverflow) << (8 * i);
  return k;
}
LIT_HD uint32_t lit_key_field(uint64_t key, int i) { return (uint32_t)(key >> (8 * i)) & 0xFFu; }

#ifdef __CUDACC__
// The role of this thread in the instance: the test thread it plays, -1 a stress thread.
__device__ __forceinline__ int test_role(const Params& p, unsigned group, unsigned cta, const unsigned char* tcta,
                                         int n) {
  int lanes[kLitMaxThreads];
  lit_lanes_mode(p.shuffle, p.seed, p.iter, group, cta, tcta, n, (int)blockDim.x, lanes);
  for (int th = 0; th < n; ++th)
    if (lanes[th] == (int)threadIdx.x) return th;
  return -1;
}
__device__ __forceinline__ void global_perm(const Params& p, unsigned group, uint32_t* gp, int n) {
  lit_perm(p.seed, p.iter, group, gp, n);
}
#endif
