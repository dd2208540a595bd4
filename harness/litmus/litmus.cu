// ptxcts-litmus: runs the completion-semantics stress cases (litmus_cases.cu) on an sm_90 GPU, or their
// planted-fault twins (--fault), and reports each: a table on stdout, with --json the run's document
// (litmus_report.hpp).
#include <cuda_runtime.h>

#include "ptxcts/given.hpp"
#include "ptxcts/boundary.hpp"
#include "ptxcts/no_device.hpp"
#include "ptxcts/options.hpp"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "litmus_cases.hpp"
#include "litmus_report.hpp"

using namespace ptxcts::litmus;

namespace {

int usage(const std::string& why) {
  std::fprintf(stderr, "ptxcts-litmus: %s\nusage: ptxcts-litmus [--case NAME]... [--fault] [--seed N] [--iters N] "
               "[--cold-mib N] [--json FILE] [--list]\ncases:", why.c_str());
  for (const Case& c : kCases) std::fprintf(stderr, " %s", c.name);
  std::fprintf(stderr, "\n");
  return 2;
}

bool parse_u64(const char* s, uint64_t* out) {
  if (!*s || *s == '-') return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

// Why --json PATH cannot be written, before any case runs ("" when it can): a folder, a missing or read-only
// parent folder (docs/CLI.md: where a verb will write is checked before it works).
std::string json_path_problem(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "is a folder; --json names the file the report is written to (e.g. " + path + "/litmus.json)";
    if (::access(path.c_str(), W_OK) != 0) return std::string("cannot be written: ") + std::strerror(errno);
    return "";
  }
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "its folder " + dir + " does not exist";
  if (::access(dir.c_str(), W_OK) != 0) return "its folder " + dir + " cannot be written: " + std::strerror(errno);
  return "";
}

}  // namespace

int litmus_main(int argc, char** argv) {
  std::vector<std::string> names;
  bool fault = false, list = false;
  uint64_t seed = 1, iters = 200, cold_mib = 2048;
  std::string json;
  try {
    ptxcts::OptionReader opt(std::vector<std::string>(argv + 1, argv + argc));   // --opt value and --opt=value
    while (opt.next()) {
      const std::string a = opt.name();
      if (a == "--case") {
        std::string n = opt.each();
        bool known = false;
        for (const Case& c : kCases) known |= n == c.name;
        if (!known) return usage("--case " + n + ": no such case");
        names.push_back(n);
      } else if (a == "--fault") fault = true;
      else if (a == "--list") list = true;
      else if (a == "--seed") {
        std::string v = opt.value();
        if (!parse_u64(v.c_str(), &seed)) return usage("--seed " + v + ": a non-negative integer");
      } else if (a == "--iters") {
        std::string v = opt.value();
        if (!parse_u64(v.c_str(), &iters) || iters < 1 || iters > 1000000) return usage("--iters " + v + ": 1 .. 1000000");
      } else if (a == "--cold-mib") {
        std::string v = opt.value();
        if (!parse_u64(v.c_str(), &cold_mib) || cold_mib < 64 || cold_mib > 65536)
          return usage("--cold-mib " + v + ": 64 .. 65536");
      }
      else if (a == "--json") {
        json = opt.value();
        if (json.empty()) return usage("--json '': expected a file");
        if (auto p = ptxcts::given::path_problem("--json ", json, ptxcts::given::Kind::NewFile); !p.empty()) return usage(p);
        if (auto why = json_path_problem(json); !why.empty()) return usage("--json " + json + ": " + why);
      }
      else return usage("unknown option " + opt.given());
    }
  } catch (const ptxcts::UsageError& e) {
    return usage(e.what());
  }
  if (list) {
    for (const Case& c : kCases) std::printf("%-22s %s\n", c.name, c.what);
    return 0;
  }
  if (names.empty())
    for (const Case& c : kCases) names.push_back(c.name);
  int ndev = 0;
  cudaError_t dev_status = cudaGetDeviceCount(&ndev);
  if (auto why = ptxcts::no_device_reason(int(dev_status), ndev, cudaGetErrorName(dev_status),
                                          cudaGetErrorString(dev_status)); !why.empty()) {
    std::fprintf(stderr, "litmus: skipped, no GPU here: %s: every case skipped, exit %d\n", why.c_str(),
                 ptxcts::kExitSkipped);
    return ptxcts::kExitSkipped;
  }
  // CTest's resource allocation (scripts/gpus.sh spec): "id:N,slots:1" names the device to use
  if (const char* r = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS")) {
    unsigned id = 0;
    if (std::sscanf(r, "id:%u", &id) != 1 || int(id) >= ndev) {
      std::fprintf(stderr, "litmus: CTEST_RESOURCE_GROUP_0_GPUS=%s: expected id:N with N < %d\n", r, ndev);
      return 2;
    }
    CUDA_OK(cudaSetDevice(int(id)));
  }
  cudaDeviceProp prop;
  int dev = 0;
  CUDA_OK(cudaGetDevice(&dev));
  CUDA_OK(cudaGetDeviceProperties(&prop, dev));
  if (prop.major < 9) {
    std::printf("litmus: %s is sm_%d%d; the cases need sm_90: skipped\n", prop.name, prop.major, prop.minor);
    return ptxcts::kExitSkipped;
  }
  const uint64_t n = cold_mib * 1024 * 1024 / 16;
  uint4 *cold, *dst;
  CUDA_OK(cudaMalloc(&cold, n * 16));
  CUDA_OK(cudaMalloc(&dst, uint64_t(prop.multiProcessorCount) * 2 * kGroups * kBulkBytes));
  fill_cold(cold, n, seed, prop.multiProcessorCount * 8);
  CUDA_OK(cudaDeviceSynchronize());
  std::printf("litmus: %s (%d SMs, L2 %d MiB), cold buffer %" PRIu64 " MiB, seed %" PRIu64 ", %" PRIu64
              " iterations per block%s\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, cold_mib,
              seed, iters, fault ? ", PLANTED FAULT (each case waits too little)" : "");
  std::printf("%-22s %7s %10s %14s %12s %9s  %s\n", "case", "blocks", "iters", "checks", "violations", "ms",
              fault ? "fault caught?" : "verdict");
  FILE* js = json.empty() ? nullptr : std::fopen(json.c_str(), "w");
  if (!json.empty() && !js) { std::fprintf(stderr, "litmus: --json %s: cannot write\n", json.c_str()); return 2; }
  ptxcts::litmus::Report report;
  report.device = prop.name;
  report.seed = seed;
  report.iters = iters;
  report.fault = fault;
  int bad = 0;
  for (size_t k = 0; k < names.size(); ++k) {
    Outcome o = run_case(names[k], fault, seed, int(iters), cold, n, dst, prop.multiProcessorCount);
    bool ok = fault ? o.violations > 0 : o.violations == 0;
    bad += !ok;
    std::printf("%-22s %7d %10" PRIu64 " %14lld %12llu %9.1f  %s\n", names[k].c_str(), o.blocks, iters, o.checks,
                o.violations, o.ms, fault ? (ok ? "caught" : "NOT CAUGHT") : (ok ? "pass" : "FAIL"));
    std::printf("    replay: ptxcts-litmus --case %s --seed %" PRIu64 " --iters %" PRIu64 "%s\n", names[k].c_str(),
                seed, iters, fault ? " --fault" : "");
    report.cases.push_back({names[k], o.blocks, o.checks, o.violations, o.ms, ok});
  }
  if (js) { std::fputs(ptxcts::litmus::report_json(report).c_str(), js); std::fclose(js); }
  std::printf("litmus: %zu case(s), %d %s\n", names.size(), bad,
              fault ? "planted fault(s) NOT caught" : "with violations (a wait returned early)");
  return bad ? 1 : 0;
}

// The error boundary: an exception no handler above expected is a bug of ptx-cts, reported as one line (never a
// std::terminate); docs/CLI.md, "Internal errors".
int main(int argc, char** argv) { return ptxcts::guarded_main("ptxcts-litmus", litmus_main, argc, argv); }
