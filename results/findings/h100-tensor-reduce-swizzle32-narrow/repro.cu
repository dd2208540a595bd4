// Standalone repro / sweep: tensor reductions (cp.reduce.async.bulk.tensor, tile, shared::cta -> global) with
// swizzle 32B that change global bytes the documentation does not name. The global old values are the identity of
// the operation (bf16 max: -inf 0xff80; u64 and / min: all ones), so a reduced element holds the shared-memory
// value; every shared-memory element encodes its own offset (bf16 at offset o: bits 0x0100 + o/2; u64 at offset o:
// 0x5A00000000000000 | o), so each changed global element names the shared offset it came from.
//   nvcc -std=c++17 -arch=sm_90a -o r repro.cu -lcuda && ./r            (sweep, exit 0 when it ran)
//   ./r --repro     (the two explored cases: expected vs actual per element; exit 1 = finding shown)
// Documented expectation: only in-bounds box elements are reduced, element (x, row r) from shared offset
// swizzle(smem_offset + r * boxDim[0] * elemsize + x * elemsize) (dense box, swizzle on the address bits
// 4..6 ^ 7..9, CUTLASS Swizzle<B,4,3>). The alternative pad_to_span (rows padded to the swizzle span) is reported
// too. Each configuration runs in a child process (re-executing itself with --from N); the parent never touches CUDA.
#include <cuda.h>
#include <cuda_runtime.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

// ---------------------------------------------------------------- configurations (pure host code)
enum Op { MAX_BF16_2D = 0, AND_B64_4D = 1, MIN_U64_4D = 2 };
static const char* kOp[] = {"max.bf16.2d", "and.b64.4d", "min.u64.4d"};
static const char* kSwz[] = {"NONE", "32B", "64B", "128B"};
struct Cfg {
  const char* tag; int op; unsigned es, rank; int swz, oob; uint64_t dims[4], strides[3]; uint32_t box[4];
  int coords[4]; unsigned smem_off, gbase;
};

static Cfg make(const char* tag, int op, int swz, unsigned d0, unsigned box_bytes, unsigned gbase, unsigned smem_off) {
  Cfg c{tag, op, op == MAX_BF16_2D ? 2u : 8u, op == MAX_BF16_2D ? 2u : 4u, swz, op == MAX_BF16_2D ? 1 : 0,
        {}, {}, {}, {}, smem_off, gbase};
  const uint64_t s0 = std::max<uint64_t>(16, (d0 * c.es + 15) / 16 * 16);
  if (op == MAX_BF16_2D) {  // explored case A: dims [1,4] strides [16] box [8,3] coords (0,2)
    c.dims[0] = d0; c.dims[1] = 4; c.strides[0] = s0; c.box[0] = box_bytes / 2; c.box[1] = 3;
    c.coords[0] = 0; c.coords[1] = 2;
  } else {                  // explored case B: dims [1,1,7,3] strides [16,32,256] box [2,1,2,1] coords (0,0,3,0)
    const uint64_t d[4] = {d0, 1, 7, 3}; const uint32_t b[4] = {box_bytes / 8, 1, 2, 1}; const int co[4] = {0, 0, 3, 0};
    for (int i = 0; i < 4; ++i) { c.dims[i] = d[i]; c.box[i] = b[i]; c.coords[i] = co[i]; }
    c.strides[0] = s0; c.strides[1] = 2 * s0; c.strides[2] = 16 * s0;
  }
  return c;
}

static std::vector<Cfg> configs(bool repro_only) {
  std::vector<Cfg> v;
  v.push_back(make("explored.A", MAX_BF16_2D, 1, 1, 16, 1024, 5120));
  v.push_back(make("explored.B", AND_B64_4D, 1, 1, 16, 1040, 1920));
  if (repro_only) return v;
  for (int op = 0; op < 3; ++op)
    for (int swz = 0; swz < 4; ++swz)
      for (unsigned bb : {16u, 32u, 64u})
        for (unsigned gb : {1024u, 1040u})
          for (unsigned d0 = 1; d0 <= 9; ++d0) {
            unsigned so = op == MAX_BF16_2D ? 5120 : 1920;
            if (swz >= 2) so = (so + 1023) / 1024 * 1024;  // 64B / 128B swizzle: a 1024-aligned source
            v.push_back(make("sweep", op, swz, d0, bb, gb, so));
          }
  return v;
}

static uint32_t swz_addr(int swz, uint32_t a) {
  const uint32_t line = a >> 7;
  return swz == 1 ? a ^ ((line & 1) << 4) : swz == 2 ? a ^ ((line & 3) << 4) : swz == 3 ? a ^ ((line & 7) << 4) : a;
}

// ---------------------------------------------------------------- device side
struct Params { int op; unsigned smem_off, win; int c[4]; };
struct Status { unsigned done; };

__global__ void __launch_bounds__(256) k_reduce(const __grid_constant__ CUtensorMap tmap, Params p, Status* st) {
  extern __shared__ uint8_t dyn[];
  const uint32_t raw = (uint32_t)__cvta_generic_to_shared(dyn);
  const uint32_t pad = (1024u - (raw & 1023u)) & 1023u;  // window base 1024-aligned (swizzle uses address bits)
  uint8_t* win = dyn + pad;
  if (p.op == MAX_BF16_2D)
    for (uint32_t o = threadIdx.x * 2; o < p.win; o += blockDim.x * 2)
      *reinterpret_cast<uint16_t*>(win + o) = uint16_t(0x0100u + o / 2);  // finite positive bf16 naming o
  else
    for (uint32_t o = threadIdx.x * 8; o < p.win; o += blockDim.x * 8)
      *reinterpret_cast<unsigned long long*>(win + o) = 0x5A00000000000000ull | o;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the threads' writes before the async proxy reads
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint32_t src = raw + pad + p.smem_off;
    const uint64_t tm = reinterpret_cast<uint64_t>(&tmap);
    if (p.op == MAX_BF16_2D)
      asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group [%0, {%1, %2}], [%3];"
                   ::"l"(tm), "r"(p.c[0]), "r"(p.c[1]), "r"(src) : "memory");
    else if (p.op == AND_B64_4D)
      asm volatile("cp.reduce.async.bulk.tensor.4d.global.shared::cta.and.tile.bulk_group [%0, {%1, %2, %3, %4}], [%5];"
                   ::"l"(tm), "r"(p.c[0]), "r"(p.c[1]), "r"(p.c[2]), "r"(p.c[3]), "r"(src) : "memory");
    else
      asm volatile("cp.reduce.async.bulk.tensor.4d.global.shared::cta.min.tile.bulk_group [%0, {%1, %2, %3, %4}], [%5];"
                   ::"l"(tm), "r"(p.c[0]), "r"(p.c[1]), "r"(p.c[2]), "r"(p.c[3]), "r"(src) : "memory");
    // wait_group has no timeout of its own: a hang here is caught by the parent's per-child time limit
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    st->done = 1;
  }
}

// ---------------------------------------------------------------- child: run configurations from N on
static const unsigned kBuf = 16384, kWin = 32768;

static std::string cfg_json(size_t idx, const Cfg& c) {
  auto arr = [&](auto* a, unsigned n) { std::string s = "["; for (unsigned i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(a[i]); return s + "]"; };
  char b[768];
  snprintf(b, sizeof b, "{\"idx\":%zu,\"set\":\"%s\",\"op\":\"%s\",\"swizzle\":\"%s\",\"oob_fill\":\"%s\",\"dims\":%s,"
           "\"strides\":%s,\"box\":%s,\"box_bytes_inner\":%u,\"coords\":%s,\"smem_offset\":%u,\"global_base\":%u",
           idx, c.tag, kOp[c.op], kSwz[c.swz], c.oob ? "NAN_REQUEST_ZERO_FMA" : "NONE", arr(c.dims, c.rank).c_str(),
           arr(c.strides, c.rank - 1).c_str(), arr(c.box, c.rank).c_str(), c.box[0] * c.es,
           arr(c.coords, c.rank).c_str(), c.smem_off, c.gbase);
  return b;
}

// global offset (from the tensor base) -> shared offset (from smem_offset) of every in-bounds box element
static std::map<long, long> expected(const Cfg& c, bool pad_to_span) {
  std::map<long, long> m;
  const uint32_t span = c.swz == 0 ? 0 : 16u << c.swz;
  const uint32_t pitch = std::max(c.box[0] * c.es, pad_to_span ? span : 0u);
  uint32_t rows = 1; for (unsigned i = 1; i < c.rank; ++i) rows *= c.box[i];
  for (uint32_t r = 0; r < rows; ++r) {
    long g = 0; bool in = true; uint32_t rest = r;
    for (unsigned i = 1; i < c.rank; ++i) {
      const long gi = c.coords[i] + long(rest % c.box[i]); rest /= c.box[i];
      in &= gi >= 0 && gi < long(c.dims[i]); g += gi * long(c.strides[i - 1]);
    }
    for (uint32_t x = 0; x < c.box[0]; ++x) {
      const long gx = c.coords[0] + long(x);
      if (!in || gx < 0 || gx >= long(c.dims[0])) continue;
      m[g + gx * long(c.es)] = long(swz_addr(c.swz, c.smem_off + r * pitch + x * c.es)) - long(c.smem_off);
    }
  }
  return m;
}
static std::string hex(const uint8_t* p, unsigned n) {
  std::string s; char b[4];
  for (unsigned i = 0; i < n; ++i) { snprintf(b, sizeof b, "%02x", p[i]); s += b; if (i % 2 == 1 && i + 1 < n) s += ' '; }
  return s;
}

static int child(size_t from, bool repro) {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) { printf("#error no CUDA device\n"); return 2; }
  if (cudaError_t e = cudaFuncSetAttribute(k_reduce, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kWin + 1024))) {
    printf("#error cudaFuncSetAttribute: %s (a binary built for another architecture?)\n", cudaGetErrorName(e));
    return 2;
  }
  uint8_t* gbuf; Status* st;
  cudaMalloc(&gbuf, kBuf); cudaMalloc(&st, sizeof(Status));
  std::vector<uint8_t> init(kBuf), after(kBuf);
  const std::vector<Cfg> cs = configs(repro);
  int rc = 0;
  for (size_t idx = from; idx < cs.size(); ++idx) {
    const Cfg& c = cs[idx];
    std::string line = cfg_json(idx, c);
    CUtensorMap tm; memset(&tm, 0, sizeof tm);
    cuuint64_t dims[4], strides[3]; cuuint32_t box[4], es[4] = {1, 1, 1, 1};
    for (unsigned i = 0; i < c.rank; ++i) { dims[i] = c.dims[i]; box[i] = c.box[i]; if (i) strides[i - 1] = c.strides[i - 1]; }
    CUresult er = cuTensorMapEncodeTiled(&tm, c.op == MAX_BF16_2D ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_UINT64,
                                         c.rank, gbuf + c.gbase, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                         (CUtensorMapSwizzle)c.swz, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                         (CUtensorMapFloatOOBfill)c.oob);
    const char* en = "?"; cuGetErrorName(er, &en);
    line += std::string(",\"encode\":\"") + en + "\"";
    if (er != CUDA_SUCCESS) { printf("%s,\"outcome\":\"encode_refused\"}\n", line.c_str()); fflush(stdout); continue; }
    for (unsigned i = 0; i < kBuf; ++i) init[i] = c.op == MAX_BF16_2D ? (i % 2 ? 0xff : 0x80) : 0xff;  // identity olds
    cudaMemcpy(gbuf, init.data(), kBuf, cudaMemcpyHostToDevice);
    cudaMemset(st, 0, sizeof(Status));
    cudaDeviceSynchronize();
    Params p{c.op, c.smem_off, kWin, {c.coords[0], c.coords[1], c.coords[2], c.coords[3]}};
    k_reduce<<<1, 256, kWin + 1024>>>(tm, p, st);
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
      printf("%s,\"outcome\":\"trap\",\"error\":\"%s\"}\n", line.c_str(), cudaGetErrorName(e)); fflush(stdout);
      return 3;  // the context is gone: the parent goes on from idx + 1 in a fresh process
    }
    cudaMemcpy(after.data(), gbuf, kBuf, cudaMemcpyDeviceToHost);
    std::map<long, long> act;  // global offset from the tensor base -> shared offset from smem_offset (-1: undecodable)
    std::map<long, std::string> raw;
    for (unsigned i = 0; i < kBuf; i += c.es) {
      if (!memcmp(&after[i], &init[i], c.es)) continue;
      const long g = long(i) - long(c.gbase);
      long o = -1;
      if (c.op == MAX_BF16_2D) {
        const unsigned b = after[i] | (after[i + 1] << 8);
        if (b >= 0x100 && b < 0x7f80) o = 2 * long(b - 0x100);
      } else {
        unsigned long long v; memcpy(&v, &after[i], 8);
        if ((v >> 56) == 0x5A) o = long(v & 0xffffffffull);
      }
      act[g] = o < 0 ? -1 : o - long(c.smem_off);
      if (o < 0) raw[g] = hex(&after[i], c.es);
    }
    const std::map<long, long> doc = expected(c, false), pad = expected(c, true);
    std::string ch, ex;
    for (auto& [g, o] : act) ch += (ch.empty() ? "" : ",") + ("[" + std::to_string(g) + "," + (o < 0 && raw.count(g) ? "\"raw " + raw[g] + "\"" : std::to_string(o)) + "]");
    for (auto& [g, o] : doc) ex += (ex.empty() ? "" : ",") + ("[" + std::to_string(g) + "," + std::to_string(o) + "]");
    long extra = 0, missing = 0, wrong = 0;
    for (auto& [g, o] : act) { auto it = doc.find(g); if (it == doc.end()) ++extra; else if (it->second != o) ++wrong; }
    for (auto& [g, o] : doc) missing += act.count(g) == 0;
    const bool mdoc = act == doc, mpad = act == pad;
    printf("%s,\"outcome\":\"%s\",\"matches_documented\":%s,\"matches_pad_to_span\":%s,\"extra_elements\":%ld,"
           "\"missing_elements\":%ld,\"wrong_source\":%ld,\"changed_goff_src\":[%s],\"documented_goff_src\":[%s]}\n",
           line.c_str(), mdoc ? "ok" : "differs", mdoc ? "true" : "false", mpad ? "true" : "false", extra, missing,
           wrong, ch.c_str(), ex.c_str());
    if (repro) {
      // expected vs actual global bytes, 16 per line, where either holds a reduced element
      std::vector<uint8_t> want = init;
      for (auto& [g, o] : doc) {
        const uint32_t a = c.smem_off + uint32_t(o);
        if (c.op == MAX_BF16_2D) { const unsigned b = 0x100 + a / 2; want[c.gbase + g] = uint8_t(b); want[c.gbase + g + 1] = uint8_t(b >> 8); }
        else { const unsigned long long v = 0x5A00000000000000ull | a; memcpy(&want[c.gbase + g], &v, 8); }
      }
      printf("# %s: %s, swizzle %s, box inner %u B, global base %u, smem offset %u\n", c.tag, kOp[c.op],
             kSwz[c.swz], c.box[0] * c.es, c.gbase, c.smem_off);
      for (unsigned l = 0; l < kBuf; l += 16) {
        if (!memcmp(&want[l], &init[l], 16) && !memcmp(&after[l], &init[l], 16)) continue;
        printf("#   global %+5ld expected %s\n#                actual %s%s\n", long(l) - long(c.gbase),
               hex(&want[l], 16).c_str(), hex(&after[l], 16).c_str(), memcmp(&want[l], &after[l], 16) ? "   <- differs" : "");
      }
      for (auto& [g, o] : act)
        if (!doc.count(g) || doc.at(g) != o)
          printf("#   element at global %+ld: documented %s, device wrote %s\n", g,
                 doc.count(g) ? ("shared +" + std::to_string(doc.at(g))).c_str() : "unchanged (not an in-bounds box element)",
                 o < 0 ? ("undecodable " + raw[g]).c_str() : ("the value of shared +" + std::to_string(o)).c_str());
      for (auto& [g, o] : doc)
        if (!act.count(g)) printf("#   element at global %+ld: documented shared +%ld, device left it unchanged\n", g, o);
      if (!mdoc) rc = 1;
    }
    fflush(stdout);
  }
  return rc;
}

// ---------------------------------------------------------------- parent (never touches CUDA)
static int run_child(const char* self, std::vector<std::string> args, std::vector<std::string>& lines, int idle_s) {
  int fd[2];
  if (pipe(fd) != 0) { perror("pipe"); exit(2); }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1); close(fd[0]); close(fd[1]);
    std::vector<char*> av{const_cast<char*>(self)};
    for (auto& a : args) av.push_back(const_cast<char*>(a.c_str()));
    av.push_back(nullptr);
    execv(self, av.data()); _exit(127);
  }
  close(fd[1]);
  std::string buf; char tmp[4096]; bool killed = false;
  for (;;) {
    pollfd pf{fd[0], POLLIN, 0};
    int r = poll(&pf, 1, idle_s * 1000);
    if (r == 0) { kill(pid, SIGKILL); killed = true; break; }  // no line for idle_s seconds: the child hangs
    if (r < 0) continue;
    ssize_t n = read(fd[0], tmp, sizeof tmp);
    if (n <= 0) break;
    buf.append(tmp, size_t(n));
    size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) { lines.push_back(buf.substr(0, nl)); buf.erase(0, nl + 1); }
  }
  close(fd[0]);
  int status = 0; waitpid(pid, &status, 0);
  if (killed) return -2;
  if (WIFSIGNALED(status)) return -1;
  return WEXITSTATUS(status);
}

static int info_child() {
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) { printf("#error no CUDA device (%s)\n", cudaGetErrorName(e)); return 2; }
  cudaDeviceProp pr; cudaGetDeviceProperties(&pr, 0);
  int drv = 0, rt = 0; cudaDriverGetVersion(&drv); cudaRuntimeGetVersion(&rt);
  char kmod[256] = "unknown";
  if (FILE* f = fopen("/proc/driver/nvidia/version", "r")) {
    if (fgets(kmod, sizeof kmod, f)) kmod[strcspn(kmod, "\n")] = 0;
    fclose(f);
  }
  for (char* q = kmod; *q; ++q) if (*q == '"' || *q == '\\' || *q == '\t') *q = ' ';
  printf("{\"device\":\"%s\",\"cc\":\"%d.%d\",\"driver_cuda_version\":%d,\"runtime_version\":%d,\"kernel_module\":\"%s\"}\n",
         pr.name, pr.major, pr.minor, drv, rt, kmod);
  if (pr.major < 9) { printf("#error needs sm_90 or newer: this device is sm_%d%d\n", pr.major, pr.minor); return 2; }
  return 0;
}

static std::string field(const std::string& l, const char* key) {  // the string value of "key":"..." in a line
  const std::string k = std::string("\"") + key + "\":\"";
  size_t a = l.find(k);
  if (a == std::string::npos) return "";
  a += k.size();
  return l.substr(a, l.find('"', a) - a);
}

int main(int argc, char** argv) {
  bool repro = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--info")) return info_child();
    if (!strcmp(argv[i], "--from") && i + 2 < argc) return child(strtoull(argv[i + 1], nullptr, 10), !strcmp(argv[i + 2], "repro"));
    if (!strcmp(argv[i], "--repro")) repro = true;
    else { fprintf(stderr, "usage: %s [--repro]\n", argv[0]); return 2; }
  }
  const char* self = "/proc/self/exe";
  char path[4096]; ssize_t n = readlink(self, path, sizeof path - 1);
  if (n > 0) { path[n] = 0; self = path; }
  std::vector<std::string> lines;
  int rc = run_child(self, {"--info"}, lines, 60);
  for (auto& l : lines) { if (l.rfind("#error ", 0) == 0) fprintf(stderr, "%s\n", l.c_str() + 7); else printf("%s\n", l.c_str()); }
  if (rc != 0) { fprintf(stderr, "device check failed (exit %d)\n", rc); return 2; }
  const std::vector<Cfg> cs = configs(repro);
  std::vector<std::string> outcome(cs.size(), "lost");
  size_t next = 0; bool shown = false;
  while (next < cs.size()) {
    lines.clear();
    const size_t before = next;
    rc = run_child(self, {"--from", std::to_string(next), repro ? "repro" : "sweep"}, lines, 30);
    for (auto& l : lines) {
      if (l.rfind("{\"idx\":", 0) != 0) { printf("%s\n", l.c_str()); continue; }  // '#' lines: the repro's bytes
      printf("%s\n", l.c_str()); fflush(stdout);
      const size_t i = strtoull(l.c_str() + 7, nullptr, 10);
      if (i < cs.size()) {
        outcome[i] = field(l, "outcome");
        if (outcome[i] == "trap") outcome[i] += ":" + field(l, "error");
        if (outcome[i] == "differs" && l.find("\"matches_pad_to_span\":true") != std::string::npos) outcome[i] = "pad_to_span";
      }
      next = i + 1;
    }
    if (rc == 2) { fprintf(stderr, "child could not set up the device\n"); return 2; }
    if (next < cs.size() && (next == before || rc < 0)) {  // the child died or hung without reporting `next`
      const char* why = rc == -2 ? "process_timeout" : rc == -1 ? "child_killed_by_signal" : "child_exited";
      printf("%s,\"outcome\":\"%s\",\"child_rc\":%d}\n", cfg_json(next, cs[next]).c_str(), why, rc);
      outcome[next] = why; ++next;
    }
  }
  for (size_t i = 0; i < cs.size(); ++i) shown |= repro && outcome[i] != "ok";
  // summary: per (op, swizzle, inner box bytes, global base) the outcome for dims[0] = 1..9 in order
  printf("# outcome per dims[0] = 1..9: o ok (documented), p matches pad_to_span only, D differs from both,\n"
         "# r encode refused, T trap, ? lost\n# %-11s %-5s %-9s %-6s %s\n", "op", "swz", "box_inner", "gbase", "dims[0]=1..9");
  for (size_t i = 0; i < cs.size();) {
    if (std::string(cs[i].tag) != "sweep") { ++i; continue; }
    std::string s;
    const size_t j0 = i;
    for (; i < cs.size() && i < j0 + 9; ++i) {
      const std::string& o = outcome[i];
      s += o == "ok" ? 'o' : o == "pad_to_span" ? 'p' : o == "differs" ? 'D' : o == "encode_refused" ? 'r' : o.rfind("trap", 0) == 0 ? 'T' : '?';
    }
    printf("# %-11s %-5s %-9u %-6u %s\n", kOp[cs[j0].op], kSwz[cs[j0].swz], cs[j0].box[0] * cs[j0].es, cs[j0].gbase, s.c_str());
  }
  unsigned cnt[6] = {0};
  for (auto& o : outcome) ++cnt[o == "ok" ? 0 : o == "pad_to_span" ? 1 : o == "differs" ? 2 : o == "encode_refused" ? 3 : o.rfind("trap", 0) == 0 ? 4 : 5];
  printf("{\"summary\":{\"configs\":%zu,\"ok\":%u,\"pad_to_span\":%u,\"differs\":%u,\"encode_refused\":%u,\"trap\":%u,\"lost\":%u}}\n",
         cs.size(), cnt[0], cnt[1], cnt[2], cnt[3], cnt[4], cnt[5]);
  if (!repro) return 0;
  printf("# %s\n", shown ? "FINDING SHOWN: the device reduced elements other than the documented in-bounds ones (above)"
                         : "not shown: both cases reduced exactly the documented in-bounds elements");
  return shown ? 1 : 0;
}
