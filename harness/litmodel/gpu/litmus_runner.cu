// The litmus runner (GPU half of harness/litmodel): every generated kernel run in many parallel instances with
// stress; the thread shuffle and the location permutation are a device-side hash of (seed, iteration, instance)
// (litmus_device.hpp), so a launch needs nothing from the host; each instance's outcome is packed into a 64-bit
// key on the device, the keys are counted on the host (while the next launch runs) and decoded to outcome text
// once per distinct key. Judged by the model's labels (labels.tsv written beside the kernels by `./ptxcts litmus
// cuda`): an observed forbidden outcome (or one the model never produces): fail (a test) or killed (a mutant).
//
// Output: one JSON line per test on stdout, flushed as it finishes (the tier driver, litmodel/gpu_tier.py, reads
// them and isolates traps and hangs): {"begin": NAME} before the test, then {"test": NAME, "mutant": 0|1,
// "instances": N, "seconds": S, "verdict": "pass"|"fail"|"killed"|"survived", "hist": {OUTCOME: COUNT}} or
// {"test": NAME, "not_supported": REASON}; a last line {"end": true, ...}. A human summary goes to stderr.
// build: nvcc -gencode arch=compute_90a,code=sm_90a -std=c++17 -I gpu/ DIR/litmus_kernels.cu gpu/litmus_runner.cu
// usage: litmus-runner LABELS.tsv [--iters N] [--instances N] [--seed N] [--hang-us N] [ENVIRONMENT]
//        [--test NAME]... [--tests-file FILE] | litmus-runner --list
// ENVIRONMENT (the defaults of every run): --stress-lines N --stress-iters N --stress-pattern 0..4 (LitStressPattern)
//   --stress-threads N --blocks-per-sm N (0: as many as fit) --shuffle 0..2 (LitShuffle) --pre-iters CYCLES (a random start delay)
//   --gap-iters CYCLES (a random delay between two instructions of a test thread)
//   --stride WORDS (16..256, a multiple of 16) --meet 0|1 (the test threads of an instance meet before their start
//   delay) --prewarm 0|1 (each CTA loads the instance's global locations into L1 before the test) --test-ms N --stop-on-kill 0|1 (a mutant stops launching once killed)
// A tests file holds one run a line: `NAME[@TAG] [KEY=VALUE]...`, KEY one of lines siters pattern sthreads bps
//   shuffle pre gap stride meet prewarm ms iters stop (the options above); a run's result names it NAME@TAG (one test, many runs).
// exit 0 all pass, 1 a fail, 2 usage, 3 a malformed labels or tests file, 4 a CUDA error, 77 no sm_90 GPU.
#include <cuda.h>          // CUtensorMap and its enums (the entry point comes from the runtime: no -lcuda)
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "litmus_device.hpp"
#include "litmus_runner.hpp"

namespace {

constexpr int kBlock = 256;

#define OK(x)                                                                                           \
  do {                                                                                                  \
    cudaError_t e_ = (x);                                                                               \
    if (e_ != cudaSuccess) {                                                                            \
      std::fprintf(stderr, "litmus-runner: %s: %s\n", #x, cudaGetErrorString(e_));                     \
      std::exit(4);                                                                                     \
    }                                                                                                   \
  } while (0)

std::vector<std::string> words(const char* s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// labels.tsv: test <TAB> outcome <TAB> verdict, one outcome a line
bool read_labels(const char* path, std::map<std::string, std::map<std::string, std::string>>* out) {
  std::ifstream f(path);
  if (!f) {
    std::fprintf(stderr, "litmus-runner: %s: cannot be read\n", path);
    return false;
  }
  std::string line;
  for (int no = 1; std::getline(f, line); ++no) {
    auto a = line.find('\t'), b = line.rfind('\t');
    if (a == std::string::npos || a == b) {
      std::fprintf(stderr, "litmus-runner: %s:%d: expected TEST<TAB>OUTCOME<TAB>VERDICT\n", path, no);
      return false;
    }
    (*out)[line.substr(0, a)][line.substr(a + 1, b - a - 1)] = line.substr(b + 1);
  }
  return true;
}

// The two versions of a test's tensor map: 1-D maps of four u32 over a source of 0s (version 0) and of 1s
// (version 1): a tensor copy writes the version of the map it read.
std::string encode_maps(uint32_t* images_dev, uint32_t** sources) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn)
    return std::string("the driver entry point cuTensorMapEncodeTiled (version 12000) was not found: ") +
           (e != cudaSuccess ? cudaGetErrorString(e) : "query result " + std::to_string(int(q)));
  auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  alignas(64) CUtensorMap maps[2];
  for (int v = 0; v < 2; ++v) {
    uint32_t init[4] = {(uint32_t)v, (uint32_t)v, (uint32_t)v, (uint32_t)v};
    OK(cudaMalloc(&sources[v], 16));
    OK(cudaMemcpy(sources[v], init, 16, cudaMemcpyHostToDevice));
    // rank 1: no global stride is read (rank - 1 of them), but the array is passed, never null
    cuuint64_t dim[1] = {4}, gstride[1] = {16};
    cuuint32_t box[1] = {4}, estride[1] = {1};
    CUresult r = encode(&maps[v], CU_TENSOR_MAP_DATA_TYPE_UINT32, 1, sources[v], dim, gstride, box, estride,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
      return "cuTensorMapEncodeTiled refused the 1-D map of version " + std::to_string(v) +
             " (UINT32, 4 elements, box 4): CUresult " + std::to_string(int(r));
  }
  OK(cudaMemcpy(images_dev, maps, sizeof(maps), cudaMemcpyHostToDevice));
  return "";
}

// Before each launch: every instance's global locations at their initial values (a tensor-map location: the 32
// words of its version), in the slots of this iteration's permutation; no hang recorded.
__global__ void lit_init(Params p, const uint32_t* inits, const uint32_t* is_map, long n) {
  long g = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  uint32_t perm[kLitMaxGlobals];
  lit_perm(p.seed, p.iter, (uint32_t)g, perm, (int)p.nglobal);
  for (uint32_t i = 0; i < p.nglobal; ++i) {
    uint32_t* slot = p.gmem + (size_t)(g * p.nglobal + perm[i]) * p.gstride;
    if (is_map[i])
      for (int w = 0; w < 32; ++w) slot[w] = p.tmap_images[32 * inits[i] + w];
    else
      slot[0] = inits[i];
  }
  p.hang[g] = 0u;
  p.meet_count[g] = 0u;
}

// After each launch: every instance's outcome key (registers, then the observed locations' final values).
__global__ void lit_keys(Params p, int nregs, const uint32_t* obs, int nobs, long n, unsigned long long* keys) {
  long g = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  uint32_t perm[kLitMaxGlobals], v[kLitKeyFields];
  lit_perm(p.seed, p.iter, (uint32_t)g, perm, (int)p.nglobal);
  int k = 0;
  for (int r = 0; r < nregs && k < kLitKeyFields; ++r) v[k++] = p.regs[g * nregs + r];
  for (int o = 0; o < nobs && k < kLitKeyFields; ++o)
    v[k++] = p.gmem[(size_t)(g * p.nglobal + perm[obs[o]]) * p.gstride];
  keys[g] = lit_key_pack(v, k, p.hang[g] != 0u);
}

std::string decode(uint64_t key, const std::vector<std::string>& names) {
  if (key & kLitKeyHang) return "hang=an mbarrier phase never completes";
  std::string o;
  for (size_t i = 0; i < names.size(); ++i) {
    uint32_t f = lit_key_field(key, (int)i);
    o += (i ? " " : "") + names[i] + "=" + (f == kLitKeyOverflow ? std::string(">254") : std::to_string(f));
  }
  return o;
}

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if ((unsigned char)c < 0x20) continue;
    o += c;
  }
  return o + "\"";
}

// The environment of one run (the tuned knobs: gpu_tier.py --tune); its text is echoed in the run's result.
struct Env {
  long lines = 64, siters = 32, pattern = kStressLoadStore, sthreads = 256, bps = 0, shuffle = kShuffleRandom,
       pre = 0, gap = 0, stride = GSTRIDE_WORDS, meet = 0, prewarm = 0, ms = 0, iters = 16, stop = 0;
  // KEY=VALUE: false (with the reason in *why) when the key is unknown or the value out of range
  bool set(const std::string& kv, std::string* why) {
    auto eq = kv.find('=');
    if (eq == std::string::npos) return *why = "expected KEY=VALUE, got '" + kv + "'", false;
    std::string k = kv.substr(0, eq);
    char* end;
    long v = std::strtol(kv.c_str() + eq + 1, &end, 10);
    if (*end || eq + 1 == kv.size() || v < 0) return *why = "'" + kv + "': not a number >= 0", false;
    struct { const char* k; long* p; long lo, hi; } keys[] = {
        {"lines", &lines, 0, 4096}, {"siters", &siters, 0, 100000}, {"pattern", &pattern, 0, 4},
        {"sthreads", &sthreads, 0, 256}, {"bps", &bps, 0, 32}, {"shuffle", &shuffle, 0, 2}, {"pre", &pre, 0, 100000},
        {"gap", &gap, 0, 100000}, {"stride", &stride, 16, 256}, {"meet", &meet, 0, 1},
        {"prewarm", &prewarm, 0, 1}, {"ms", &ms, 0, 600000},
        {"iters", &iters, 1, 1000000}, {"stop", &stop, 0, 1}};
    for (auto& e : keys)
      if (k == e.k) {
        if (v < e.lo || v > e.hi || (e.p == &stride && v % 16))
          return *why = "'" + kv + "': out of range " + std::to_string(e.lo) + ".." + std::to_string(e.hi) +
                        (e.p == &stride ? " (a multiple of 16)" : ""), false;
        *e.p = v;
        return true;
      }
    return *why = "unknown key '" + k + "'", false;
  }
  std::string text() const {
    char b[320];
    std::snprintf(b, sizeof b, "lines=%ld siters=%ld pattern=%ld sthreads=%ld bps=%ld shuffle=%ld pre=%ld gap=%ld "
                  "stride=%ld meet=%ld prewarm=%ld ms=%ld iters=%ld stop=%ld", lines, siters, pattern, sthreads, bps,
                  shuffle, pre, gap, stride, meet, prewarm, ms, iters, stop);
    return b;
  }
};

struct Run {
  std::string id;   // NAME or NAME@TAG
  int kernel;
  Env env;
};

struct Args {
  const char* labels = nullptr;
  const char* tests_file = nullptr;
  long instances = 65536, seed = 1, hang_us = 1000;
  Env env;
  bool list = false;
  std::vector<std::string> only;
};

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto num = [&](long* v) {
      if (i + 1 >= argc) return false;
      char* end;
      *v = std::strtol(argv[++i], &end, 10);
      return *end == 0 && *v >= 0;
    };
    bool ok = true;
    static const std::map<std::string, std::string> env_opt = {
        {"--iters", "iters"}, {"--stress-lines", "lines"}, {"--stress-iters", "siters"},
        {"--stress-pattern", "pattern"}, {"--stress-threads", "sthreads"}, {"--blocks-per-sm", "bps"},
        {"--shuffle", "shuffle"}, {"--pre-iters", "pre"}, {"--gap-iters", "gap"}, {"--stride", "stride"},
        {"--meet", "meet"}, {"--prewarm", "prewarm"}, {"--test-ms", "ms"}, {"--stop-on-kill", "stop"}};
    if (auto e = env_opt.find(k); e != env_opt.end()) {
      std::string why;
      ok = i + 1 < argc && a.env.set(e->second + "=" + argv[++i], &why);
      if (!ok && !why.empty()) {
        std::fprintf(stderr, "litmus-runner: %s: %s\n", k.c_str(), why.c_str());
        return 2;
      }
    }
    else if (k == "--instances") ok = num(&a.instances) && a.instances > 0;
    else if (k == "--seed") ok = num(&a.seed);
    else if (k == "--hang-us") ok = num(&a.hang_us) && a.hang_us > 0 && a.hang_us < 4000000;
    else if (k == "--test" && i + 1 < argc) a.only.push_back(argv[++i]);
    else if (k == "--tests-file" && i + 1 < argc) a.tests_file = argv[++i];
    else if (k == "--list") a.list = true;
    else if (k[0] != '-' && !a.labels) a.labels = argv[i];
    else ok = false;
    if (!ok) {
      std::fprintf(stderr, "litmus-runner: bad argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (a.list) {   // the table, in run order: NAME <TAB> 0|1 (a graded mutant); needs no GPU
    for (int k = 0; k < kLitmusKernelCount; ++k) std::printf("%s\t%d\n", kLitmusKernels[k].name, kLitmusKernels[k].mutant);
    return 0;
  }
  if (!a.labels) {
    std::fprintf(stderr, "usage: litmus-runner LABELS.tsv [--iters N] [--instances N] [--seed N] [--hang-us N] "
                         "[--stress-lines N] [--stress-iters N] [--stress-pattern P] [--stress-threads N] "
                         "[--blocks-per-sm N] [--shuffle S] [--pre-iters N] [--gap-iters N] [--stride W] [--meet 0|1] [--prewarm 0|1] "
                         "[--test-ms N] "
                         "[--stop-on-kill 0|1] [--test NAME]... [--tests-file FILE] | --list\n");
    return 2;
  }
  std::map<std::string, std::map<std::string, std::string>> labels;
  if (!read_labels(a.labels, &labels)) return 3;
  if (a.tests_file) {
    std::ifstream f(a.tests_file);
    if (!f) {
      std::fprintf(stderr, "litmus-runner: %s: cannot be read\n", a.tests_file);
      return 3;
    }
    for (std::string line; std::getline(f, line);)
      if (!words(line.c_str()).empty()) a.only.push_back(line);
  }
  // the run order: the runs named (in their order), else the table's, each in the default environment
  std::map<std::string, int> by_name;
  for (int k = 0; k < kLitmusKernelCount; ++k) by_name[kLitmusKernels[k].name] = k;
  std::vector<Run> order;
  if (a.only.empty()) {
    for (int k = 0; k < kLitmusKernelCount; ++k) order.push_back({kLitmusKernels[k].name, k, a.env});
  } else {
    for (auto& line : a.only) {
      std::vector<std::string> w = words(line.c_str());
      if (w.empty()) continue;
      Run r{w[0], -1, a.env};
      auto it = by_name.find(w[0].substr(0, w[0].find('@')));
      if (it == by_name.end()) {
        std::fprintf(stderr, "litmus-runner: --test %s: no such test in this build (--list names them)\n", w[0].c_str());
        return 2;
      }
      r.kernel = it->second;
      for (size_t j = 1; j < w.size(); ++j) {
        std::string why;
        if (!r.env.set(w[j], &why)) {
          std::fprintf(stderr, "litmus-runner: %s: run '%s': %s\n", a.tests_file ? a.tests_file : "--test",
                       w[0].c_str(), why.c_str());
          return 3;
        }
      }
      order.push_back(r);
    }
  }
  int dev = 0, cc = 0, ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::fprintf(stderr, "litmus-runner: no GPU\n");
    return 77;
  }
  OK(cudaDeviceGetAttribute(&cc, cudaDevAttrComputeCapabilityMajor, dev));
  if (cc < 9) {
    std::fprintf(stderr, "litmus-runner: sm_%d0: the tests need sm_90 (clusters, bulk copies)\n", cc);
    return 77;
  }
  uint32_t *images, *sources[2];
  OK(cudaMalloc(&images, 256));
  if (std::string e = encode_maps(images, sources); !e.empty()) {
    std::fprintf(stderr, "litmus-runner: the tensor-map tests' maps: %s\n", e.c_str());
    return 4;
  }
  long max_lines = 1, max_stride = 16;
  for (auto& r : order) max_lines = std::max(max_lines, r.env.lines), max_stride = std::max(max_stride, r.env.stride);
  uint32_t* stress;
  OK(cudaMalloc(&stress, sizeof(uint32_t) * 32 * max_lines));
  OK(cudaMemset(stress, 0, sizeof(uint32_t) * 32 * max_lines));
  int smem_per_sm = 0, smem_optin = 0;
  OK(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  OK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  cudaStream_t stream;
  OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // buffers sized for the largest test, allocated once
  const long n = a.instances;
  int max_g = 1, max_r = 1;
  for (auto& r : order)
    max_g = std::max(max_g, kLitmusKernels[r.kernel].nglobal), max_r = std::max(max_r, kLitmusKernels[r.kernel].nregs);
  uint32_t *gmem, *regs, *hang, *meet, *d_inits, *d_ismap, *d_obs;
  unsigned long long* d_keys[2];
  unsigned long long* h_keys[2];
  OK(cudaMalloc(&gmem, (size_t)n * max_g * max_stride * 4));
  OK(cudaMemset(gmem, 0, (size_t)n * max_g * max_stride * 4));
  OK(cudaMalloc(&regs, sizeof(uint32_t) * n * max_r));
  OK(cudaMalloc(&hang, sizeof(uint32_t) * n));
  OK(cudaMalloc(&meet, sizeof(uint32_t) * n));
  OK(cudaMalloc(&d_inits, 4 * kLitMaxGlobals));
  OK(cudaMalloc(&d_ismap, 4 * kLitMaxGlobals));
  OK(cudaMalloc(&d_obs, 4 * kLitMaxGlobals));
  for (int b = 0; b < 2; ++b) {
    OK(cudaMalloc(&d_keys[b], sizeof(unsigned long long) * n));
    OK(cudaMallocHost(&h_keys[b], sizeof(unsigned long long) * n));
  }
  cudaEvent_t copied[2];
  OK(cudaEventCreateWithFlags(&copied[0], cudaEventDisableTiming));
  OK(cudaEventCreateWithFlags(&copied[1], cudaEventDisableTiming));

  int fails = 0, unseen_total = 0, killed = 0, mutants = 0;
  double all_instances = 0, all_secs = 0;
  for (const Run& run : order) {
    const LitmusKernel& t = kLitmusKernels[run.kernel];
    const Env& env = run.env;
    std::printf("{\"begin\": %s}\n", json_str(run.id).c_str());
    std::fflush(stdout);
    auto lab = labels.find(t.name);
    if (lab == labels.end()) {
      std::fprintf(stderr, "litmus-runner: %s: no label in %s\n", t.name, a.labels);
      return 3;
    }
    // blocks per SM: dynamic shared memory that leaves room for env.bps blocks (0: the kernel's own occupancy);
    // a cluster that no longer fits with it runs without it (the environment, not the test, gives way)
    size_t dyn = 0;
    if (env.bps > 0) {
      cudaFuncAttributes fa;
      OK(cudaFuncGetAttributes(&fa, t.fn));
      long room = (long)smem_per_sm / env.bps - 1024 - (long)fa.sharedSizeBytes;   // 1 KiB reserved per block
      dyn = (size_t)std::max(0L, std::min(room, (long)smem_optin - (long)fa.sharedSizeBytes));
      if (cudaFuncSetAttribute(t.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn) != cudaSuccess) {
        cudaGetLastError();
        dyn = 0;
      }
    }
    // a cluster size the device cannot hold: not_supported, with the reason
    cudaLaunchConfig_t probe = {};
    probe.gridDim = dim3((unsigned)t.ctas);
    probe.blockDim = dim3(kBlock);
    int clusters = 0;
    for (;;) {
      probe.dynamicSmemBytes = dyn;
      if (cudaOccupancyMaxActiveClusters(&clusters, t.fn, &probe) != cudaSuccess) cudaGetLastError(), clusters = 0;
      if (clusters > 0 || dyn == 0) break;
      dyn = 0;
    }
    if (clusters == 0) {
      std::printf("{\"test\": %s, \"not_supported\": \"no cluster of its %d CTAs fits on this device\"}\n",
                  json_str(run.id).c_str(), t.ctas);
      std::fflush(stdout);
      continue;
    }
    const long stride = std::max(env.stride, t.tmaps[0] ? 32L : 16L);   // a tensor map: 128 bytes
    std::vector<std::string> names = words(t.regs), gnames = words(t.globals), inits = words(t.inits),
                             obs = words(t.observe), tm = words(t.tmaps);
    std::vector<uint32_t> h_inits(kLitMaxGlobals, 0), h_ismap(kLitMaxGlobals, 0), h_obs(kLitMaxGlobals, 0);
    for (int i = 0; i < t.nglobal; ++i) h_inits[i] = (uint32_t)std::stoul(inits[i]);
    for (auto& w : tm) h_ismap[std::stoi(w)] = 1;
    for (size_t i = 0; i < obs.size(); ++i) {
      h_obs[i] = (uint32_t)std::stoi(obs[i]);
      names.push_back(gnames[h_obs[i]]);
    }
    OK(cudaMemcpy(d_inits, h_inits.data(), 4 * kLitMaxGlobals, cudaMemcpyHostToDevice));
    OK(cudaMemcpy(d_ismap, h_ismap.data(), 4 * kLitMaxGlobals, cudaMemcpyHostToDevice));
    OK(cudaMemcpy(d_obs, h_obs.data(), 4 * kLitMaxGlobals, cudaMemcpyHostToDevice));
    std::unordered_map<unsigned long long, long> counts;
    const unsigned small = 256, sgrid = (unsigned)((n + small - 1) / small);
    auto start = std::chrono::steady_clock::now();
    auto launch = [&](long it) {
      const int b = (int)(it & 1);
      Params p{gmem, regs, hang, stress, (uint32_t)env.lines, (uint32_t)env.siters, (uint32_t)t.nglobal,
               (uint32_t)(a.hang_us * 1000), images, (unsigned long long)a.seed, (uint32_t)it, (uint32_t)stride,
               (uint32_t)env.pattern, (uint32_t)env.sthreads, (uint32_t)env.shuffle, (uint32_t)env.pre,
               (uint32_t)env.gap, (uint32_t)env.meet, meet, (uint32_t)env.prewarm};
      lit_init<<<sgrid, small, 0, stream>>>(p, d_inits, d_ismap, n);
      void* args[] = {&p};
      OK(cudaLaunchKernel(t.fn, dim3((unsigned)(n * t.ctas)), dim3(kBlock), args, dyn, stream));
      lit_keys<<<sgrid, small, 0, stream>>>(p, t.nregs, d_obs, (int)obs.size(), n, d_keys[b]);
      OK(cudaGetLastError());
      OK(cudaMemcpyAsync(h_keys[b], d_keys[b], sizeof(unsigned long long) * n, cudaMemcpyDeviceToHost, stream));
      OK(cudaEventRecord(copied[b], stream));
    };
    // launch i+1 is queued before the keys of launch i are counted: the host never idles the GPU; no launch is
    // queued once the test has had its ms (a test whose instances hang runs fewer launches), nor, with stop=1,
    // once a mutant is killed (a key its original's labels forbid: the launch already queued is still counted)
    launch(0);
    long done_iters = 0, killed_after = 0;
    std::set<unsigned long long> judged;
    for (long it = 0; it < env.iters; ++it) {
      const double el_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      const bool more = it + 1 < env.iters && (env.ms == 0 || el_ms < env.ms) && !(env.stop && killed_after);
      if (more) {
        // buffer (it+1)&1 was last read by the count of launch it-1, done before this point
        launch(it + 1);
      }
      const int b = (int)(it & 1);
      OK(cudaEventSynchronize(copied[b]));
      const unsigned long long* keys = h_keys[b];
      // runs of one key are common (most instances agree): count a run at once
      unsigned long long last = keys[0];
      long run = 0;
      for (long g = 0; g < n; ++g) {
        if (keys[g] == last) {
          ++run;
        } else {
          counts[last] += run;
          last = keys[g];
          run = 1;
        }
      }
      counts[last] += run;
      ++done_iters;
      if (t.mutant && !killed_after)
        for (auto& kc : counts)
          if (judged.insert(kc.first).second) {
            auto v = lab->second.find(decode(kc.first, names));
            if (v == lab->second.end() || v->second == "forbidden") killed_after = done_iters;
          }
      if (!more) break;
    }
    OK(cudaStreamSynchronize(stream));
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::map<std::string, long> hist;
    for (auto& [key, c] : counts) hist[decode(key, names)] += c;
    long forbidden = 0, undefined = 0;
    for (auto& [o, c] : hist) {
      auto v = lab->second.find(o);
      if (v == lab->second.end() || v->second == "forbidden") forbidden += c;   // never produced: forbidden
      else if (v->second == "undefined") undefined += c;
    }
    int unseen = 0;
    for (auto& [o, v] : lab->second)
      if (v == "allowed" && !hist.count(o)) ++unseen;
    unseen_total += unseen;
    const bool mutant = t.mutant != 0;
    const bool fail = forbidden > 0;
    if (mutant) killed += fail, ++mutants;
    else fails += fail;
    const char* verdict = mutant ? (fail ? "killed" : "survived") : (fail ? "fail" : "pass");
    const double inst = (double)n * done_iters;
    all_instances += inst, all_secs += secs;
    std::string h;
    for (auto& [o, c] : hist) h += (h.empty() ? "" : ", ") + json_str(o) + ": " + std::to_string(c);
    std::printf("{\"test\": %s, \"mutant\": %d, \"instances\": %.0f, \"seconds\": %.6f, \"verdict\": \"%s\", "
                "\"killed_after\": %ld, \"env\": %s, \"hist\": {%s}}\n", json_str(run.id).c_str(), (int)mutant, inst,
                secs, verdict, killed_after, json_str(env.text()).c_str(), h.c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "%-52s %10.0f %9ld %9ld %6d %9.3g/s %s\n", run.id.c_str(), inst, forbidden, undefined, unseen,
                 secs > 0 ? inst / secs : 0.0, verdict);
  }
  std::printf("{\"end\": true, \"instances\": %.0f, \"seconds\": %.6f}\n", all_instances, all_secs);
  std::fflush(stdout);
  std::fprintf(stderr, "%d failing tests; %d allowed outcomes never observed; mutants: %d of %d killed; "
                       "%.3g instances/s over the launches\n", fails, unseen_total, killed, mutants,
               all_secs > 0 ? all_instances / all_secs : 0.0);
  return fails ? 1 : 0;
}
