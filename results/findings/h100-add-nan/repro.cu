// Which NaN does cp.reduce.async.bulk .add produce? The chapter does not say. Every pair (old, src) of a set of
// special values (numbers, signed zeros, infinities, quiet and signalling NaNs of both signs with payloads) is
// reduced with add by the bulk form (its only site with a floating-point add: global.shared::cta), for f16 and bf16 (.noftz), f32 and f64, and each NaN result is compared with the rules the reference model
// names (docs/POLICIES.md: canonical, old_quieted, src_quieted, passthrough) and two more.
//
//   nvcc -std=c++17 -arch=sm_90a -o r repro.cu && ./r          sweep: one JSON line per (type, site) and pair set
//   nvcc -std=c++17 -arch=sm_90a -o r repro.cu && ./r --repro  f64, both NaN: exit 1 when the result is not the
//                                                              canonical NaN the model's default names
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define CHECK(x)                                                                \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e_));     \
      std::exit(3);                                                             \
    }                                                                           \
  } while (0)

enum Type { kF16, kBF16, kF32, kF64 };
const char* kTypeName[] = {"f16", "bf16", "f32", "f64"};
const unsigned kBytes[] = {2, 2, 4, 8};
struct Fmt { unsigned bits, mant; };  // total bits, mantissa bits
const Fmt kFmt[] = {{16, 10}, {16, 7}, {32, 23}, {64, 52}};
constexpr int kMaxPairs = 1024, kBufBytes = kMaxPairs * 8;

// The global site (bulk_group); shared memory holds the source.
template <int T>
__global__ void reduce_add(int site, const uint8_t* src, uint8_t* dst, int bytes, int* timeout) {
  extern __shared__ __align__(128) uint8_t s_src[];
  const uint32_t a_src = static_cast<uint32_t>(__cvta_generic_to_shared(s_src));
  for (int i = threadIdx.x; i < bytes; i += blockDim.x) s_src[i] = src[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    if (site == 0) {
#define G(OP) asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group." OP " [%0], [%1], %2;" \
                           ::"l"(dst), "r"(a_src), "r"(bytes) : "memory")
      if (T == kF16) G("add.noftz.f16");
      if (T == kBF16) G("add.noftz.bf16");
      if (T == kF32) G("add.f32");
      if (T == kF64) G("add.f64");
      asm volatile("cp.async.bulk.commit_group;");
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
  }
}

// ---- values and rules (host) ----
uint64_t mask(Type t) { return kFmt[t].bits == 64 ? ~0ull : ((1ull << kFmt[t].bits) - 1); }
uint64_t sign_bit(Type t) { return 1ull << (kFmt[t].bits - 1); }
uint64_t exp_mask(Type t) { return mask(t) & ~sign_bit(t) & ~((1ull << kFmt[t].mant) - 1); }
uint64_t quiet_bit(Type t) { return 1ull << (kFmt[t].mant - 1); }
bool is_nan(Type t, uint64_t v) { return (v & exp_mask(t)) == exp_mask(t) && (v & ((1ull << kFmt[t].mant) - 1)); }

struct Val { const char* name; uint64_t bits; };
std::vector<Val> values(Type t) {
  const uint64_t s = sign_bit(t), e = exp_mask(t), q = quiet_bit(t), m = (1ull << kFmt[t].mant) - 1;
  const uint64_t one = (exp_mask(t) >> 1) & exp_mask(t);  // biased exponent 0111..1 : 1.0
  return {{"+1", one},           {"-1.5", s | one | q},  {"+0", 0},           {"-0", s},
          {"+inf", e},           {"-inf", s | e},        {"+qnan_p", e | q | 5}, {"-qnan_p", s | e | q | 3},
          {"+snan_p", e | 9},    {"-snan_p", s | e | 6}, {"+qnan", e | q},    {"-qnan", s | e | q},
          {"nan_all_ones", mask(t)}, {"+snan_max", e | (m >> 1)}, {"+min_sub", 1}};
}

uint64_t canonical(Type t) { return t == kF16 || t == kBF16 ? 0x7fff : t == kF32 ? 0x7fffffffull : 0x7fffffffffffffffull; }
uint64_t neg_qnan(Type t) { return sign_bit(t) | exp_mask(t) | quiet_bit(t); }
// The rules, for a pair whose result is a NaN; invalid = inf + (-inf).
uint64_t rule(int r, Type t, uint64_t o, uint64_t s) {
  bool no = is_nan(t, o), ns = is_nan(t, s);
  switch (r) {
    case 0: return canonical(t);                                                            // canonical
    case 1: return no ? o | quiet_bit(t) : ns ? s | quiet_bit(t) : canonical(t);            // old_quieted
    case 2: return ns ? s | quiet_bit(t) : no ? o | quiet_bit(t) : canonical(t);            // src_quieted
    case 3: return ns ? s : no ? o : neg_qnan(t);                                           // passthrough
    case 4: return no ? o : ns ? s : neg_qnan(t);                                           // old_passthrough
    case 5: return ns ? s | quiet_bit(t) : no ? o | quiet_bit(t) : neg_qnan(t);             // src_quieted_neg
    case 6: return no ? o | quiet_bit(t) : ns ? s | quiet_bit(t) : neg_qnan(t);             // old_quieted_neg
  }
  return 0;
}
const char* kRuleName[] = {"canonical", "old_quieted", "src_quieted", "passthrough", "old_passthrough",
                           "src_quieted_neg", "old_quieted_neg"};
constexpr int kRules = 7;

uint64_t load(const std::vector<uint8_t>& b, Type t, int i) {
  uint64_t v = 0;
  std::memcpy(&v, b.data() + i * kBytes[t], kBytes[t]);
  return v;
}
void store(std::vector<uint8_t>& b, Type t, int i, uint64_t v) { std::memcpy(b.data() + i * kBytes[t], &v, kBytes[t]); }

template <int T>
std::vector<uint8_t> run(int site, const std::vector<uint8_t>& old, const std::vector<uint8_t>& src, int bytes,
                         int* timeouts) {
  uint8_t *d_src, *d_dst;
  int* d_to;
  CHECK(cudaMalloc(&d_src, kBufBytes));
  CHECK(cudaMalloc(&d_dst, kBufBytes));
  CHECK(cudaMalloc(&d_to, sizeof(int)));
  CHECK(cudaMemset(d_to, 0, sizeof(int)));
  CHECK(cudaMemcpy(d_src, src.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_dst, old.data(), bytes, cudaMemcpyHostToDevice));
  reduce_add<T><<<1, 128, kBufBytes>>>(site, d_src, d_dst, bytes, d_to);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<uint8_t> out(kBufBytes);
  CHECK(cudaMemcpy(out.data(), d_dst, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(timeouts, d_to, sizeof(int), cudaMemcpyDeviceToHost));
  cudaFree(d_src), cudaFree(d_dst), cudaFree(d_to);
  return out;
}

std::vector<uint8_t> run_type(Type t, int site, const std::vector<uint8_t>& old, const std::vector<uint8_t>& src,
                              int bytes, int* to) {
  switch (t) {
    case kF16: return run<kF16>(site, old, src, bytes, to);
    case kBF16: return run<kBF16>(site, old, src, bytes, to);
    case kF32: return run<kF32>(site, old, src, bytes, to);
    default: return run<kF64>(site, old, src, bytes, to);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool want_repro = argc > 1 && std::strcmp(argv[1], "--repro") == 0;
  if (argc > 1 && !want_repro) {
    std::fprintf(stderr, "usage: %s [--repro]\n", argv[0]);
    return 2;
  }
  int dev = 0, major = 0, minor = 0, drv = 0, rt = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    std::fprintf(stderr, "no CUDA device\n");
    return 2;
  }
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, dev));
  std::printf("# device %s (sm_%d%d), driver API %d, runtime %d\n", prop.name, major, minor, drv, rt);
  if (major < 9) {
    std::fprintf(stderr, "cp.reduce.async.bulk needs sm_90 or newer: this device is sm_%d%d\n", major, minor);
    return 2;
  }
  CHECK(cudaFuncSetAttribute(reduce_add<kF16>, cudaFuncAttributeMaxDynamicSharedMemorySize, kBufBytes));
  CHECK(cudaFuncSetAttribute(reduce_add<kBF16>, cudaFuncAttributeMaxDynamicSharedMemorySize, kBufBytes));
  CHECK(cudaFuncSetAttribute(reduce_add<kF32>, cudaFuncAttributeMaxDynamicSharedMemorySize, kBufBytes));
  CHECK(cudaFuncSetAttribute(reduce_add<kF64>, cudaFuncAttributeMaxDynamicSharedMemorySize, kBufBytes));
  int worst = 0;
  for (int ti = 0; ti < 4; ++ti) {
    const Type t = static_cast<Type>(ti);
    if (want_repro && t != kF64) continue;
    const std::vector<Val> v = values(t);
    const int n = static_cast<int>(v.size() * v.size());
    const int bytes = (n * kBytes[t] + 15) / 16 * 16;
    std::vector<uint8_t> old(kBufBytes, 0), src(kBufBytes, 0);
    for (int i = 0; i < n; ++i) store(old, t, i, v[i / v.size()].bits), store(src, t, i, v[i % v.size()].bits);
    for (int site = 0; site < 1; ++site) {  // float add exists at the global site only
      int to = 0;
      std::vector<uint8_t> out = run_type(t, site, old, src, bytes, &to);
      long nan_pairs = 0, miss[kRules] = {};
      std::string pairs;
      for (int i = 0; i < n; ++i) {
        uint64_t o = load(old, t, i), s = load(src, t, i), r = load(out, t, i);
        if (!is_nan(t, r)) continue;
        ++nan_pairs;
        char buf[200];
        std::snprintf(buf, sizeof buf, "%s[\"%s\",\"%s\",\"0x%llx\"", pairs.empty() ? "" : ",", v[i / v.size()].name,
                      v[i % v.size()].name, (unsigned long long)r);
        pairs += buf;
        for (int k = 0; k < kRules; ++k) {
          bool m = rule(k, t, o, s) != r;
          miss[k] += m;
          if (m) pairs += std::string(",\"!") + kRuleName[k] + "\"";
        }
        pairs += "]";
      }
      std::printf("{\"type\":\"%s\",\"site\":\"%s\",\"pairs\":%d,\"nan_results\":%ld,\"timeouts\":%d,\"rules\":{",
                  kTypeName[t], site ? "shared_cluster" : "global", n, nan_pairs, to);
      for (int k = 0; k < kRules; ++k) std::printf("%s\"%s\":%ld", k ? "," : "", kRuleName[k], miss[k]);
      std::printf("},\"nan_pairs\":[%s]}\n", pairs.c_str());
      if (want_repro) {
        // both operands NaN: +qnan_p (old) and -snan_p (src)
        int i = 6 * (int)v.size() + 9;
        uint64_t r = load(out, t, i);
        std::printf("add.f64 at the %s site: old 0x%llx + src 0x%llx\n  expected (model default canonical): 0x%llx\n"
                    "  actual: 0x%llx\n", site ? "shared::cluster" : "global", (unsigned long long)load(old, t, i),
                    (unsigned long long)load(src, t, i), (unsigned long long)canonical(t), (unsigned long long)r);
        if (r != canonical(t)) worst = 1;
      }
    }
  }
  return worst;
}
