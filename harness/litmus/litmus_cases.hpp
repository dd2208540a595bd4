// The litmus cases (litmus_cases.cu): their table, the cold buffer they read, and one run of a case on the
// current device. The chapter's sentences each case checks: litmus_cases.cu.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ptxcts::litmus {

constexpr int kThreads = 256;
constexpr int kGroups = 8;           // groups in flight per thread (cp.async) or per block (bulk)
constexpr int kChunks = 1;           // 16-byte cp.async per thread per group (8 x 1 x 256 x 16 B = 32 KiB static shared)
constexpr int kBulkBytes = 4096;     // bytes per bulk copy (one per group)

struct Case {
  const char* name;
  const char* what;
};
extern const Case kCases[6];

#define CUDA_OK(x)                                                                                     \
  do {                                                                                                 \
    cudaError_t e_ = (x);                                                                              \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "litmus: %s: %s (%s)\n", #x, cudaGetErrorString(e_), cudaGetErrorName(e_)); \
      std::exit(4);                                                                                    \
    }                                                                                                  \
  } while (0)

struct Outcome {
  unsigned long long violations = 0;
  long long checks = 0;
  double ms = 0;
  int blocks = 0;
};

// Writes the cold source buffer (n 16-byte elements derived from seed) with `blocks` blocks, not waiting for it.
void fill_cold(uint4* buf, uint64_t n, uint64_t seed, int blocks);

// Runs case `name` (a name of kCases; with `fault` its planted-fault twin) once in every block: two per SM, four
// per cluster for multicast; waits for it, and counts its checks and violations.
Outcome run_case(const std::string& name, bool fault, uint64_t seed, int iters, const uint4* cold, uint64_t n,
                 uint4* dst, int sms);

}  // namespace ptxcts::litmus
