// Where an expected trap's time goes (the run tier's trap phase, RUNNING.md "Overlap"): a device experiment that
// needs only the CUDA toolkit. Each scenario forks worker processes that make their context, module and tensor map,
// wait for a common start, launch one kernel and report, in CLOCK_MONOTONIC nanoseconds: the launch, the moment the
// synchronisation returned (the kernel's error), and, after the chosen ending, the moment it was done. The parent
// adds when each process had ended (waitpid). A watcher process, where asked, launches an empty kernel over and over
// on a GPU and reports the longest gap between two completions while the others trap: whether a trap stalls other
// contexts, and other GPUs.
//
//   nvcc -std=c++17 -arch=sm_90a -o trap_cost harness/run/trap_cost.cu -lcuda && ./trap_cost
//
// Kinds of fault: tma (a 1-D FLOAT32 tile load at innermost coordinate 101, 404 bytes: cudaErrorIllegalInstruction
// on the H100, as the run tier's tensor_coord_alignment=16B_trap cases), trap (PTX trap: cudaErrorLaunchFailure),
// calm (the same load at coordinate 96: no fault, the control). Endings: exit (_exit at once, as a run-tier worker),
// hold (stay alive until every process of the scenario has its error, then _exit), reset (cudaDeviceReset, then a
// fresh context in the same process runs the calm kernel: whether a process can outlive its trap).
// Output: one line per scenario (medians and maxima in ms), then a line per process with --verbose.
#include <cuda.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

int fcntl_nonblock(int fd) { return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

int64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

__global__ void tile_load(const __grid_constant__ CUtensorMap tmap, int x, int fault, int* status) {
  __shared__ alignas(128) float box[64];
  __shared__ alignas(8) uint64_t mbar;
  if (fault) asm volatile("trap;");
  const uint32_t s_box = static_cast<uint32_t>(__cvta_generic_to_shared(box));
  const uint32_t s_mbar = static_cast<uint32_t>(__cvta_generic_to_shared(&mbar));
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(s_mbar));
  asm volatile("fence.mbarrier_init.release.cluster;");
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(s_mbar), "r"(256) : "memory");
  asm volatile("cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
               ::"r"(s_box), "l"(&tmap), "r"(x), "r"(s_mbar) : "memory");
  uint32_t done = 0;
  for (int i = 0; i < (1 << 22) && !done; ++i)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(s_mbar) : "memory");
  *status = done ? 1 : 2;
}

__global__ void empty_kernel() {}

struct Env {
  CUtensorMap map{};
  float* global = nullptr;
  int* status = nullptr;
};

bool make_env(Env& e) {
  if (cudaError_t m = cudaMalloc(&e.global, 4096 * 4); m != cudaSuccess || cudaMalloc(&e.status, 4) != cudaSuccess) {
    fprintf(stderr, "trap_cost: worker: cudaMalloc: %s\n", cudaGetErrorString(m));
    return false;
  }
  cuuint64_t dim[1] = {4096};
  cuuint64_t stride[1] = {4096 * 4};   // not read for rank 1; the driver refuses a null array
  cuuint32_t box[1] = {64}, es[1] = {1};
  CUresult r = cuTensorMapEncodeTiled(&e.map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 1, e.global, dim, stride, box, es,
                                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                      CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) fprintf(stderr, "trap_cost: worker: cuTensorMapEncodeTiled: error %d\n", int(r));
  return r == CUDA_SUCCESS;
}

// A worker: ready -> wait for "go" on fd_go -> launch -> sync -> ending; reports on fd_out:
// "<launch> <error_at> <ended_at> <cuda error>" (ended_at: when the ending finished; -1 where it failed).
void worker(int gpu, const std::string& kind, const std::string& ending, int fd_go, int fd_out, int fd_release) {
  alarm(30);   // a process that hangs ends here; the parent reads its missing line as zeros
  cudaSetDevice(gpu);
  Env e;
  if (!make_env(e)) _exit(3);
  cudaFuncSetAttribute(tile_load, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);
  tile_load<<<1, 1>>>(e.map, 0, 0, e.status);   // warm: module loaded, first launch made
  if (cudaError_t w = cudaDeviceSynchronize(); w != cudaSuccess) {
    fprintf(stderr, "trap_cost: worker: the warm-up load: %s\n", cudaGetErrorString(w));
    _exit(3);
  }
  if (write(fd_out, "R", 1) != 1) _exit(3);
  char c;
  if (read(fd_go, &c, 1) != 1) _exit(3);
  const int64_t t0 = now_ns();
  const int x = kind == "tma" ? 101 : 96;
  tile_load<<<1, 1>>>(e.map, x, kind == "trap", e.status);
  const cudaError_t err = cudaDeviceSynchronize();
  const int64_t t1 = now_ns();
  int64_t t2 = -1;
  if (ending == "hold") {
    char line[96];
    int n = snprintf(line, sizeof line, "E %lld %d\n", (long long)t1, int(err));
    if (write(fd_out, line, n) != n) _exit(3);
    if (read(fd_release, &c, 1) != 1) _exit(3);
  } else if (ending == "reset") {
    cudaDeviceReset();
    Env f;
    bool ok = make_env(f);
    tile_load<<<1, 1>>>(f.map, 96, 0, f.status);
    ok = ok && cudaDeviceSynchronize() == cudaSuccess;
    t2 = ok ? now_ns() : -1;
  }
  char line[160];
  int n = snprintf(line, sizeof line, "D %lld %lld %lld %d\n", (long long)t0, (long long)t1, (long long)t2, int(err));
  if (write(fd_out, line, n) != n) _exit(3);
  _exit(0);
}

// The watcher: empty kernels on `gpu` until fd_stop is readable; reports the longest gap between completions.
void watcher(int gpu, int fd_out, int fd_stop) {
  alarm(60);
  cudaSetDevice(gpu);
  empty_kernel<<<1, 1>>>();
  if (cudaDeviceSynchronize() != cudaSuccess) _exit(3);
  if (write(fd_out, "R", 1) != 1) _exit(3);
  int64_t last = now_ns(), worst = 0;
  int64_t launches = 0;
  fcntl_nonblock(fd_stop);
  for (;;) {
    char c;
    if (read(fd_stop, &c, 1) == 1) break;
    empty_kernel<<<1, 1>>>();
    if (cudaDeviceSynchronize() != cudaSuccess) break;
    const int64_t t = now_ns();
    worst = std::max(worst, t - last);
    last = t;
    ++launches;
  }
  char line[96];
  int n = snprintf(line, sizeof line, "W %lld %lld\n", (long long)worst, (long long)launches);
  if (write(fd_out, line, n) != n) _exit(3);
  _exit(0);
}

}  // namespace

struct Proc {
  pid_t pid;
  int out, go, release;
  int64_t launch = 0, error_at = 0, ended = -1, reaped = 0;
  int err = -1;
};

static double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

static std::string read_line(int fd) {
  std::string s;
  char c;
  while (read(fd, &c, 1) == 1 && c != '\n') s += c;
  return s;
}

// One scenario: procs[i] runs on gpus[i]; a watcher on watch_gpu (-1: none).
static void scenario(const char* name, const std::vector<int>& gpus, const std::string& kind,
                     const std::string& ending, int watch_gpu, bool verbose) {
  std::vector<Proc> ps;
  for (int g : gpus) {
    int o[2], gp[2], rl[2];
    if (pipe(o) || pipe(gp) || pipe(rl)) { perror("pipe"); exit(3); }
    pid_t pid = fork();
    if (pid == 0) {
      close(o[0]); close(gp[1]); close(rl[1]);
      worker(g, kind, ending, gp[0], o[1], rl[0]);
    }
    close(o[1]); close(gp[0]); close(rl[0]);
    ps.push_back({pid, o[0], gp[1], rl[1]});
  }
  int wo[2] = {-1, -1}, ws[2] = {-1, -1};
  pid_t wpid = -1;
  if (watch_gpu >= 0) {
    if (pipe(wo) || pipe(ws)) { perror("pipe"); exit(3); }
    wpid = fork();
    if (wpid == 0) {
      close(wo[0]); close(ws[1]);
      watcher(watch_gpu, wo[1], ws[0]);
    }
    close(wo[1]); close(ws[0]);
    char c;
    if (read(wo[0], &c, 1) != 1) { fprintf(stderr, "%s: the watcher did not start\n", name); }
  }
  for (auto& p : ps) {
    char c;
    if (read(p.out, &c, 1) != 1) { fprintf(stderr, "%s: a worker did not start\n", name); exit(3); }
  }
  usleep(200000);   // the watcher's gaps before the start are a baseline
  const int64_t start = now_ns();
  for (auto& p : ps)
    if (write(p.go, "g", 1) != 1) exit(3);
  if (ending == "hold") {
    for (auto& p : ps) {
      std::string l = read_line(p.out);
      long long t1; int e;
      if (sscanf(l.c_str(), "E %lld %d", &t1, &e) == 2) { p.error_at = t1; p.err = e; }
    }
    for (auto& p : ps)
      if (write(p.release, "r", 1) != 1) exit(3);
  }
  for (auto& p : ps) {
    std::string l = read_line(p.out);
    long long t0, t1, t2; int e;
    if (sscanf(l.c_str(), "D %lld %lld %lld %d", &t0, &t1, &t2, &e) == 4) {
      p.launch = t0; p.error_at = t1; p.ended = t2; p.err = e;
    }
  }
  for (size_t left = ps.size(); left > 0; --left) {
    int st;
    pid_t pid = waitpid(-1, &st, 0);
    if (pid == wpid) { ++left; continue; }
    for (auto& p : ps)
      if (p.pid == pid) p.reaped = now_ns();
  }
  const int64_t all_done = now_ns();
  std::string watch = "-";
  if (wpid > 0) {
    if (write(ws[1], "s", 1) != 1) exit(3);
    std::string l = read_line(wo[0]);
    long long worst, n;
    if (sscanf(l.c_str(), "W %lld %lld", &worst, &n) == 2) {
      char b[64];
      snprintf(b, sizeof b, "%.1f ms over %lld kernels", worst / 1e6, n);
      watch = b;
    }
    waitpid(wpid, nullptr, 0);
  }
  std::vector<double> to_err, to_reaped, ended;
  std::string errs;
  for (auto& p : ps) {
    to_err.push_back((p.error_at - start) / 1e6);
    to_reaped.push_back((p.reaped - p.error_at) / 1e6);
    if (p.ended > 0) ended.push_back((p.ended - p.error_at) / 1e6);
    errs += (errs.empty() ? "" : ",") + std::to_string(p.err);
  }
  printf("%-22s kind %-5s ending %-5s procs %2zu | error after go: median %7.1f max %7.1f ms | process gone after its "
         "error: median %7.1f max %7.1f ms | all gone %7.1f ms | reset+calm kernel %s | watcher gap %s | errors %s\n",
         name, kind.c_str(), ending.c_str(), ps.size(), median(to_err), *std::max_element(to_err.begin(), to_err.end()),
         median(to_reaped), *std::max_element(to_reaped.begin(), to_reaped.end()), (all_done - start) / 1e6,
         ended.empty() ? "-" : (std::to_string(median(ended)) + " ms").c_str(), watch.c_str(), errs.c_str());
  if (verbose)
    for (auto& p : ps)
      printf("    pid %d error after go %.1f ms, gone %.1f ms after its error, err %d\n", p.pid,
             (p.error_at - start) / 1e6, (p.reaped - p.error_at) / 1e6, p.err);
  fflush(stdout);
  for (auto& p : ps) { close(p.out); close(p.go); close(p.release); }
  if (wpid > 0) { close(wo[0]); close(ws[1]); }
}

// The device is queried in a child: CUDA made in the parent would not survive the fork of the workers.
static int query_device(int* count) {
  int fd[2];
  if (pipe(fd)) return 3;
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    int n = 0, drv = 0;
    cudaDeviceProp prop{};
    char line[256];
    int len;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
      len = snprintf(line, sizeof line, "0 trap_cost: no CUDA device\n");
    } else {
      cudaGetDeviceProperties(&prop, 0);
      cudaDriverGetVersion(&drv);
      len = snprintf(line, sizeof line, "%d %d # %s (sm_%d%d), %d GPU(s), CUDA driver %d\n", n, prop.major, prop.name,
                     prop.major, prop.minor, n, drv);
    }
    if (write(fd[1], line, len) != len) _exit(3);
    _exit(0);
  }
  close(fd[1]);
  std::string l = read_line(fd[0]);
  close(fd[0]);
  waitpid(pid, nullptr, 0);
  int major = 0, used = 0;
  if (sscanf(l.c_str(), "%d %d %n", count, &major, &used) < 2 || *count == 0) {
    fprintf(stderr, "trap_cost: no CUDA device\n");
    return 2;
  }
  if (major < 9) {
    fprintf(stderr, "trap_cost: %s: the tile load needs sm_90\n", l.c_str() + used);
    return 2;
  }
  printf("%s\n", l.c_str() + used);
  fflush(stdout);
  return 0;
}

int main(int argc, char** argv) {
  bool verbose = argc > 1 && std::strcmp(argv[1], "--verbose") == 0;
  int n = 0;
  if (int rc = query_device(&n)) return rc;
  const int other = n > 1 ? 1 : 0;
  auto rep = [](int k, int g) { return std::vector<int>(k, g); };
  scenario("calm x1", rep(1, 0), "calm", "exit", -1, verbose);
  scenario("calm x8", rep(8, 0), "calm", "exit", 0, verbose);
  scenario("tma x1", rep(1, 0), "tma", "exit", -1, verbose);
  scenario("tma x1 watched", rep(1, 0), "tma", "exit", 0, verbose);
  if (n > 1) scenario("tma x1 watch other", rep(1, 0), "tma", "exit", other, verbose);
  scenario("trap x1", rep(1, 0), "trap", "exit", -1, verbose);
  scenario("tma x8", rep(8, 0), "tma", "exit", -1, verbose);
  scenario("tma x8 hold", rep(8, 0), "tma", "hold", -1, verbose);
  scenario("tma x1 reset", rep(1, 0), "tma", "reset", -1, verbose);
  scenario("tma x8 reset", rep(8, 0), "tma", "reset", -1, verbose);
  scenario("trap x8", rep(8, 0), "trap", "exit", -1, verbose);
  if (n > 1) {
    std::vector<int> split;
    for (int i = 0; i < 8; ++i) split.push_back(i % 2);
    scenario("tma x8 over 2 GPUs", split, "tma", "exit", -1, verbose);
    scenario("tma x4 on GPU0 only", rep(4, 0), "tma", "exit", -1, verbose);
  }
  scenario("tma x16", rep(16, 0), "tma", "exit", -1, verbose);
  return 0;
}
