// The litmus runner (GPU half of harness/litmodel): every generated kernel run in many parallel instances with
// stress, a new thread shuffle and location permutation each iteration; the histogram of every outcome; the
// judgement by the model's labels (labels.tsv written beside the kernels by `./ptxcts litmus cuda`):
//   an observed forbidden outcome: fail; an observed undefined one: reported, judges nothing; an allowed outcome
//   never observed: reported (the environment cannot show it yet); a hang the model does not allow: fail.
// build: nvcc -gencode arch=compute_90a,code=sm_90a -std=c++17 -I gpu/ DIR/litmus_kernels.cu gpu/litmus_runner.cu
// usage: litmus-runner LABELS.tsv [--iters N] [--instances N] [--stress-lines N] [--stress-iters N] [--seed N]
//        [--test NAME]... ; exit 0 all pass, 1 a fail, 2 usage, 3 a malformed labels file, 77 no sm_90 GPU.
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
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "litmus_runner.hpp"

namespace {

struct Params {   // as in the generated kernels (cuda.py PRELUDE)
  uint32_t* gmem;
  const uint32_t* gperm;
  const int* role;
  uint32_t* regs;
  uint32_t* hang;
  uint32_t* stress_buf;
  uint32_t stress_lines, stress_iters, nglobal, spin_limit;
  const uint32_t* tmap_images;
};

constexpr int kBlock = 256;
constexpr int kGStride = 64;

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
bool encode_maps(uint32_t* images_dev, uint32_t** sources) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      !fn)
    return false;
  auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  CUtensorMap maps[2];
  for (int v = 0; v < 2; ++v) {
    uint32_t init[4] = {(uint32_t)v, (uint32_t)v, (uint32_t)v, (uint32_t)v};
    OK(cudaMalloc(&sources[v], 16));
    OK(cudaMemcpy(sources[v], init, 16, cudaMemcpyHostToDevice));
    cuuint64_t dim[1] = {4};
    cuuint32_t box[1] = {4}, stride[1] = {1};
    if (encode(&maps[v], CU_TENSOR_MAP_DATA_TYPE_UINT32, 1, sources[v], dim, nullptr, box, stride,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
      return false;
  }
  OK(cudaMemcpy(images_dev, maps, sizeof(maps), cudaMemcpyHostToDevice));
  return true;
}

struct Args {
  const char* labels = nullptr;
  long iters = 100, instances = 4096, stress_lines = 64, stress_iters = 32, seed = 1;
  std::set<std::string> only;
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
    if (k == "--iters") ok = num(&a.iters);
    else if (k == "--instances") ok = num(&a.instances);
    else if (k == "--stress-lines") ok = num(&a.stress_lines);
    else if (k == "--stress-iters") ok = num(&a.stress_iters);
    else if (k == "--seed") ok = num(&a.seed);
    else if (k == "--test" && i + 1 < argc) a.only.insert(argv[++i]);
    else if (k[0] != '-' && !a.labels) a.labels = argv[i];
    else ok = false;
    if (!ok) {
      std::fprintf(stderr, "litmus-runner: bad argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (!a.labels) {
    std::fprintf(stderr, "usage: litmus-runner LABELS.tsv [--iters N] [--instances N] [--stress-lines N] "
                         "[--stress-iters N] [--seed N] [--test NAME]...\n");
    return 2;
  }
  std::map<std::string, std::map<std::string, std::string>> labels;
  if (!read_labels(a.labels, &labels)) return 3;
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
  std::mt19937_64 rng(a.seed);
  uint32_t *images, *sources[2];
  OK(cudaMalloc(&images, 256));
  if (!encode_maps(images, sources)) {
    std::fprintf(stderr, "litmus-runner: cuTensorMapEncodeTiled refused the 1-D maps of the tensor-map tests\n");
    return 4;
  }
  std::vector<uint32_t> h_images(64);
  OK(cudaMemcpy(h_images.data(), images, 256, cudaMemcpyDeviceToHost));
  uint32_t* stress;
  OK(cudaMalloc(&stress, sizeof(uint32_t) * 32 * std::max<long>(1, a.stress_lines)));
  int fails = 0, unseen_total = 0, killed = 0, mutants = 0;
  std::printf("%-48s %10s %9s %9s %9s %7s %s\n", "test", "instances", "forbidden", "undefined", "unseen", "inst/s",
              "verdict");
  for (int k = 0; k < kLitmusKernelCount; ++k) {
    const LitmusKernel& t = kLitmusKernels[k];
    if (!a.only.empty() && !a.only.count(t.name)) continue;
    auto lab = labels.find(t.name);
    if (lab == labels.end()) {
      std::fprintf(stderr, "litmus-runner: %s: no label in %s\n", t.name, a.labels);
      return 3;
    }
    // a cluster size the device cannot hold: not_supported, with the reason
    cudaLaunchConfig_t probe = {};
    probe.gridDim = dim3((unsigned)t.ctas);
    probe.blockDim = dim3(kBlock);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, t.fn, &probe) != cudaSuccess || clusters == 0) {
      cudaGetLastError();
      std::printf("%-48s not_supported: no cluster of its %d CTAs fits on this device\n", t.name, t.ctas);
      continue;
    }
    const long n = a.instances;
    std::vector<std::string> regs = words(t.regs), gnames = words(t.globals), inits = words(t.inits),
                             obs = words(t.observe), tcta = words(t.thread_cta), tm = words(t.tmaps);
    std::set<int> is_map;
    for (auto& w : tm) is_map.insert(std::stoi(w));
    uint32_t *gmem, *gperm, *out, *hang;
    int* role;
    const size_t gwords = (size_t)n * t.nglobal * kGStride + 1;
    OK(cudaMalloc(&gmem, gwords * 4));
    OK(cudaMalloc(&gperm, sizeof(uint32_t) * n * t.nglobal + 4));
    OK(cudaMalloc(&role, sizeof(int) * n * t.ctas * kBlock));
    OK(cudaMalloc(&out, sizeof(uint32_t) * n * t.nregs + 4));
    OK(cudaMalloc(&hang, sizeof(uint32_t) * n));
    std::vector<uint32_t> h_gmem(gwords), h_perm(n * t.nglobal), h_out(n * t.nregs + 1), h_hang(n);
    std::vector<int> h_role((size_t)n * t.ctas * kBlock);
    std::map<std::string, long> hist;
    auto start = std::chrono::steady_clock::now();
    for (long it = 0; it < a.iters; ++it) {
      // a new location permutation and thread shuffle per iteration (per instance)
      std::fill(h_role.begin(), h_role.end(), -1);
      for (long g = 0; g < n; ++g) {
        std::vector<uint32_t> p(t.nglobal);
        for (int i = 0; i < t.nglobal; ++i) p[i] = i;
        std::shuffle(p.begin(), p.end(), rng);
        for (int i = 0; i < t.nglobal; ++i) {
          h_perm[g * t.nglobal + i] = p[i];
          const uint32_t init = (uint32_t)std::stoul(inits[i]);
          uint32_t* slot = &h_gmem[(size_t)(g * t.nglobal + p[i]) * kGStride];
          if (is_map.count(i))
            std::copy(h_images.begin() + 32 * init, h_images.begin() + 32 * init + 32, slot);   // map version
          else
            slot[0] = init;
        }
        std::vector<int> lanes(kBlock);
        for (int c = 0; c < t.ctas; ++c) {
          for (int l = 0; l < kBlock; ++l) lanes[l] = l;
          std::shuffle(lanes.begin(), lanes.end(), rng);
          int used = 0;
          for (int th = 0; th < t.threads; ++th)
            if (std::stoi(tcta[th]) == c) h_role[((size_t)g * t.ctas + c) * kBlock + lanes[used++]] = th;
        }
      }
      OK(cudaMemcpy(gmem, h_gmem.data(), gwords * 4, cudaMemcpyHostToDevice));
      OK(cudaMemcpy(gperm, h_perm.data(), sizeof(uint32_t) * h_perm.size(), cudaMemcpyHostToDevice));
      OK(cudaMemcpy(role, h_role.data(), sizeof(int) * h_role.size(), cudaMemcpyHostToDevice));
      OK(cudaMemset(hang, 0, sizeof(uint32_t) * n));
      Params p{gmem, gperm, role, out, hang, stress, (uint32_t)a.stress_lines, (uint32_t)a.stress_iters,
               (uint32_t)t.nglobal, 1u << 20, images};
      void* args[] = {&p};
      OK(cudaLaunchKernel(t.fn, dim3((unsigned)(n * t.ctas)), dim3(kBlock), args, 0, nullptr));
      OK(cudaDeviceSynchronize());
      OK(cudaMemcpy(h_out.data(), out, sizeof(uint32_t) * n * t.nregs, cudaMemcpyDeviceToHost));
      OK(cudaMemcpy(h_hang.data(), hang, sizeof(uint32_t) * n, cudaMemcpyDeviceToHost));
      std::vector<uint32_t> fin;
      if (!obs.empty()) {
        fin.resize(gwords);
        OK(cudaMemcpy(fin.data(), gmem, gwords * 4, cudaMemcpyDeviceToHost));
      }
      for (long g = 0; g < n; ++g) {
        std::string o;
        if (h_hang[g]) {
          o = "hang=an mbarrier phase never completes";
        } else {
          for (int r = 0; r < t.nregs; ++r) o += (o.empty() ? "" : " ") + regs[r] + "=" + std::to_string(h_out[g * t.nregs + r]);
          for (auto& i : obs) {
            int gi = std::stoi(i);
            o += (o.empty() ? "" : " ") + gnames[gi] + "=" +
                 std::to_string(fin[(size_t)(g * t.nglobal + h_perm[g * t.nglobal + gi]) * kGStride]);
          }
        }
        hist[o]++;
      }
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    long forbidden = 0, undefined = 0, unknown = 0;
    for (auto& [o, c] : hist) {
      auto v = lab->second.find(o);
      if (v == lab->second.end()) unknown += c;   // an outcome the model never produced: forbidden
      else if (v->second == "forbidden") forbidden += c;
      else if (v->second == "undefined") undefined += c;
    }
    int unseen = 0;
    for (auto& [o, v] : lab->second)
      if (v == "allowed" && !hist.count(o)) ++unseen;
    unseen_total += unseen;
    // a graded mutant (its name "TEST+operator.K") is judged by its original's labels: a forbidden outcome kills it
    const bool mutant = t.mutant != 0;
    bool fail = forbidden + unknown > 0;
    if (mutant) {
      killed += fail;
      ++mutants;
    } else {
      fails += fail;
    }
    std::printf("%-48s %10ld %9ld %9ld %9d %7.2g %s\n", t.name, n * a.iters, forbidden + unknown, undefined, unseen,
                n * a.iters / secs, mutant ? (fail ? "killed" : "survived") : (fail ? "fail" : "pass"));
    for (auto& [o, c] : hist) {
      auto v = lab->second.find(o);
      std::printf("    %10ld  %-9s %s\n", c, v == lab->second.end() ? "forbidden" : v->second.c_str(), o.c_str());
    }
    cudaFree(gmem), cudaFree(gperm), cudaFree(role), cudaFree(out), cudaFree(hang);
  }
  std::printf("\n%d failing tests; %d allowed outcomes never observed; mutants: %d of %d killed\n", fails,
              unseen_total, killed, mutants);
  return fails ? 1 : 0;
}
