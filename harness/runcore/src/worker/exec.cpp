#include "exec.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "host_faults.hpp"
#include "ptxcts/no_device.hpp"
#include "tensor_maps.hpp"
#include "util.hpp"

namespace ptxcts::run {

namespace {

constexpr size_t kAlign = 1024;
size_t up(size_t v, size_t a = kAlign) { return (v + a - 1) / a * a; }

// Errors after which the context is unusable: the kernel trapped (or the launch timed out).
bool sticky(int e) {
  switch (e) {
    case 700: case 702: case 710: case 714: case 715: case 716: case 717: case 718: case 719: case 999:
      return true;
    default:
      return false;
  }
}

}  // namespace

namespace {
// "NVRM version: NVIDIA UNIX [Open ]Kernel Module [for x86_64]  580.159.04  ..." -> "580.159.04": the first
// word after "Kernel Module" made of digits and dots; "" where there is no such file or word.
std::string driver_release() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (!f || !std::getline(f, line)) return "";
  auto at = line.find("Kernel Module");
  if (at == std::string::npos) return "";
  std::istringstream rest(line.substr(at));
  for (std::string word; rest >> word;)
    if (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0])) &&
        word.find_first_not_of("0123456789.") == std::string::npos)
      return word;
  return "";
}
}  // namespace

std::string probe_device(DeviceInfo* info) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (auto why = no_device_reason(int(e), n, cudaGetErrorName(e), cudaGetErrorString(e)); !why.empty()) return why;
  if (info) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "no CUDA device (cudaGetDeviceProperties failed)";
    info->name = p.name;
    info->major = p.major;
    info->minor = p.minor;
    info->sms = p.multiProcessorCount;
    info->cc = std::to_string(p.major) + "." + std::to_string(p.minor);
    info->sm = "sm_" + std::to_string(p.major * 10 + p.minor);
    cudaDeviceGetAttribute(&info->max_smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
    int dv = 0, rv = 0;
    cudaDriverGetVersion(&dv);
    cudaRuntimeGetVersion(&rv);
    // The driver's release (e.g. 580.159.04) is what waivers and bug reports name; the API version is its fallback.
    info->driver = driver_release();
    if (info->driver.empty()) info->driver = "api " + std::to_string(dv / 1000) + "." + std::to_string((dv % 1000) / 10);
    info->runtime = std::to_string(rv / 1000) + "." + std::to_string((rv % 1000) / 10);
  }
  return "";
}

std::string Executor::init(const std::string& load_path, const ModuleSet& mods, double case_timeout_s) {
  // The driver's JIT cache must not answer for the JIT: set before the first CUDA call creates the context.
  setenv("CUDA_CACHE_DISABLE", "1", 1);
  load_path_ = load_path;
  mods_ = mods;
  timeout_s_ = case_timeout_s;
  if (auto err = probe_device(&dev_); !err.empty()) return err;
  if (cudaSetDevice(0) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) return "cannot create a CUDA context";
  if (auto err = drv_.load(); !err.empty()) return err;
  arena_size_ = size_t(256) << 20;
  if (cudaMalloc(reinterpret_cast<void**>(&arena_), arena_size_) != cudaSuccess) return "cudaMalloc of the 256 MiB arena failed";
  return "";
}

Executor::Loaded& Executor::module_for(const std::string& path) {
  auto it = modules_.find(path);
  if (it != modules_.end()) return it->second;
  Loaded& L = modules_[path];
  std::string image;
  bool jit = load_path_ == "jit";
  try {
    image = read_file(jit ? path : mods_.cubin_of.at(path));
  } catch (const std::exception& e) {
    L.error = std::string("cannot read the module: ") + e.what();
    L.error_class = cls::compile_error;
    return L;
  }
  if (jit) image.push_back('\0');
  char errlog[16384] = {0};
  CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[2] = {errlog, reinterpret_cast<void*>(uintptr_t(sizeof errlog))};
  CUresult r = drv_.cuModuleLoadDataEx(&L.mod, image.data(), 2, opts, vals);
  if (r != CUDA_SUCCESS) {
    L.mod = nullptr;
    L.error = "cuModuleLoadDataEx (" + load_path_ + ") failed: " + drv_.error_name(r) + (errlog[0] ? ": " : "") +
              std::string(errlog).substr(0, 3000);
    // A driver without this PTX ISA version (a module rendered beyond the chapter for a newer toolchain) or
    // without code for this GPU cannot run it: not_supported, with the driver's own words.
    L.error_class = r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ? cls::not_supported
                                                                                                : cls::compile_error;
    if (sticky(int(r))) poisoned_ = true;
  }
  return L;
}

const std::string& Executor::module_path(const std::string& kernel) const {
  static const std::string none;
  auto it = mods_.module_of.find(kernel);
  return it == mods_.module_of.end() ? none : it->second;
}

void Executor::preload(const std::string& kernel) {
  auto it = mods_.module_of.find(kernel);
  if (it != mods_.module_of.end()) module_for(it->second);
}

CaseResult Executor::run(const RunCase& c, Setup& s) {
  CaseResult res;
  res.id = c.id;
  res.family = c.form->family;
  res.form = c.form->form;
  res.target = c.target;
  res.ptx = c.ptx;
  res.load_path = load_path_;
  res.details = s.info;
  double t0 = now_s();
  auto finish = [&](const char* k, std::string msg) -> CaseResult {
    res.cls = k;
    res.message = std::move(msg);
    res.duration_ms = (now_s() - t0) * 1e3;
    return res;
  };

  // Layout inside the arena, every part 1024-aligned: args | status | gsrc | gdst | smem_init | smem_out.
  const size_t win_all = size_t(s.window) * s.ranks;
  const size_t o_args = 0, o_status = 1024;
  const size_t o_gsrc = up(o_status + size_t(s.ranks) * kStatusWords * 4);
  const size_t o_gdst = up(o_gsrc + s.gsrc.size());
  const size_t o_sinit = up(o_gdst + s.gdst.size());
  const size_t o_sout = up(o_sinit + win_all);
  const size_t total = up(o_sout + win_all);
  if (total > arena_size_) return finish(cls::fail, "harness: case needs " + std::to_string(total) + " bytes of device memory, arena has " + std::to_string(arena_size_));

  uint8_t* base = arena_;
  auto addr = [&](size_t o) { return uint64_t(uintptr_t(base + o)); };
  s.w[W_SRC] = s.gsrc.empty() ? 0 : addr(o_gsrc + s.gsrc_off);
  s.w[W_DST] = s.gdst.empty() ? 0 : addr(o_gdst + s.gdst_off);
  s.w[W_SMEM_INIT] = addr(o_sinit);
  s.w[W_SMEM_OUT] = addr(o_sout);
  s.w[W_STATUS] = addr(o_status);
  s.w[W_WINDOW] = s.window;
  // A case expected to trap keeps its status words in mapped host memory: after the trap the context is gone and
  // nothing can be copied back, but these still say where its kernel stopped (frame_stop), which is how the
  // parent tells the case's own trap from a kill by another worker's (rerun_alone.hpp, trapped_as_predicted).
  volatile uint32_t* host_status = nullptr;
  const size_t status_words = size_t(s.ranks) * kStatusWords;
  if (expects_trap(c)) {
    if (mapped_status_words_ < status_words) {
      if (mapped_status_) cudaFreeHost(mapped_status_);
      mapped_status_ = nullptr;
      mapped_status_words_ = 0;
      void* p = nullptr;
      if (cudaHostAlloc(&p, std::max<size_t>(status_words, 16 * kStatusWords) * 4, cudaHostAllocMapped) == cudaSuccess) {
        mapped_status_ = static_cast<uint32_t*>(p);
        mapped_status_words_ = std::max<size_t>(status_words, 16 * kStatusWords);
      }
    }
    void* dev = nullptr;
    if (mapped_status_ && cudaHostGetDevicePointer(&dev, mapped_status_, 0) == cudaSuccess) {
      host_status = mapped_status_;
      for (size_t k = 0; k < status_words; ++k) host_status[k] = k % kStatusWords < 4 ? kStatusUnwritten : 0;
      s.w[W_STATUS] = uint64_t(uintptr_t(dev));
    }
  }
  // Harness self-tests (PTXCTS_RUN_INJECT=kind:substring): prove that a trap, a hang and a wrong byte are caught
  // and cost only their own case.
  if (s.inject == "crash") s.w[W_SMEM_OUT] = 0x8;  // the dump stores through an unmapped address: a trap
  if (s.inject == "hang") { s.w[W_WAIT_LIMIT] = 0xffffffffu; s.w[W_TX_BYTES] += 16; }  // the phase never completes

  // The tensor map is encoded against the real device address of its global tensor.
  alignas(64) CUtensorMap tmap;
  std::memset(&tmap, 0, sizeof tmap);
  if (s.tmap.kind != TensorMapSpec::None) {
    // Self-test (host_faults.hpp): PTXCTS_PLANT_HOST_FAULT perturbs the map encoded here; the model keeps s.tmap's.
    const TensorMapSpec t = planted_tensor_map(s, unsigned(dev_.major * 10 + dev_.minor), res.details);
    void* gaddr = reinterpret_cast<void*>(t.on_dst ? s.w[W_DST] : s.w[W_SRC]);
    CUresult r = CUDA_ERROR_NOT_SUPPORTED;
    if (t.kind == TensorMapSpec::Tiled) {
      r = drv_.cuTensorMapEncodeTiled(&tmap, CUtensorMapDataType(t.dtype), t.rank, gaddr, t.dims.data(),
                                      t.strides.data(), t.box.data(), t.estrides.data(),
                                      CUtensorMapInterleave(t.interleave), CUtensorMapSwizzle(t.swizzle),
                                      CUtensorMapL2promotion(t.l2promo), CUtensorMapFloatOOBfill(t.oobfill));
    } else if (t.kind == TensorMapSpec::Im2col) {
      r = drv_.cuTensorMapEncodeIm2col(&tmap, CUtensorMapDataType(t.dtype), t.rank, gaddr, t.dims.data(),
                                       t.strides.data(), t.lower.data(), t.upper.data(), t.channels, t.pixels,
                                       t.estrides.data(), CUtensorMapInterleave(t.interleave),
                                       CUtensorMapSwizzle(t.swizzle), CUtensorMapL2promotion(t.l2promo),
                                       CUtensorMapFloatOOBfill(t.oobfill));
    } else if (t.kind == TensorMapSpec::Im2colWide) {
      if (!drv_.cuTensorMapEncodeIm2colWide) return finish(cls::not_supported, "cuTensorMapEncodeIm2colWide: not provided by this driver");
      r = drv_.cuTensorMapEncodeIm2colWide(&tmap, CUtensorMapDataType(t.dtype), t.rank, gaddr, t.dims.data(),
                                           t.strides.data(), t.wide_lower, t.wide_upper, t.channels, t.pixels,
                                           t.estrides.data(), CUtensorMapInterleave(t.interleave),
                                           CUtensorMapIm2ColWideMode(t.wide_mode), CUtensorMapSwizzle(t.swizzle),
                                           CUtensorMapL2promotion(t.l2promo), CUtensorMapFloatOOBfill(t.oobfill));
    }
    res.details["tensor_map"] = t.to_json();
    res.details["encode_result"] = drv_.error_name(r);
    // The driver's verdict, judged as the re-judge of a recorded run judges it (judge_encode, judge.hpp).
    CaseResult v;
    const unsigned cc = unsigned(dev_.major * 10 + dev_.minor);
    if (judge_encode(t, tmaps::params_of(t, uint64_t(reinterpret_cast<uintptr_t>(gaddr))), cc, s.encode_only,
                     drv_.error_name(r), v)) {
      if (const Json* p = v.details.get("matched_policy")) res.details["matched_policy"] = *p;
      return finish(v.cls.c_str(), v.message);
    }
  }

  // Module and function.
  auto mit = mods_.module_of.find(c.form->kernel);
  if (mit == mods_.module_of.end())
    return finish(cls::compile_error, "kernel " + c.form->kernel + " is in no module of " + mods_.dir);
  Loaded& L = module_for(mit->second);
  if (!L.mod) return finish(L.error_class.c_str(), L.error);
  CUfunction fn = nullptr;
  CUresult r = drv_.cuModuleGetFunction(&fn, L.mod, c.form->kernel.c_str());
  if (r != CUDA_SUCCESS) {
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) return finish(cls::not_supported, "error 209: no kernel image for " + dev_.sm);
    return finish(cls::compile_error, "cuModuleGetFunction(" + c.form->kernel + "): " + drv_.error_name(r));
  }
  int& smem_set = func_smem_[c.form->kernel];
  // The default dynamic limit is 48 KiB less the kernel's static shared memory (its mbarriers): a window just
  // under 48 KiB was refused at launch (explored: bulk sizes 47,616 and 47,632). Opt in from 32 KiB on.
  if (int(s.window) > 32 * 1024 && smem_set < int(s.window)) {
    r = drv_.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(s.window));
    if (r != CUDA_SUCCESS) return finish(cls::not_supported, "window of " + std::to_string(s.window) + " B: " + drv_.error_name(r));
    smem_set = int(s.window);
  }
  if (s.cluster && s.ranks > 8) drv_.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);

  // Upload: one staging image of the whole case, one copy.
  stage_.assign(total, 0);
  std::memcpy(stage_.data() + o_args, s.w.data(), sizeof(uint64_t) * W_COUNT);
  if (!s.gsrc.empty()) std::memcpy(stage_.data() + o_gsrc, s.gsrc.data(), s.gsrc.size());
  if (!s.gdst.empty()) std::memcpy(stage_.data() + o_gdst, s.gdst.data(), s.gdst.size());
  if (!s.smem_init.empty()) std::memcpy(stage_.data() + o_sinit, s.smem_init.data(), s.smem_init.size());
  // smem_out starts poisoned: a window byte the kernel does not dump reads as 0xEE, never as an expected value.
  std::memset(stage_.data() + o_sout, 0xEE, win_all);
  cudaError_t ce = cudaMemcpy(base, stage_.data(), total, cudaMemcpyHostToDevice);
  if (ce != cudaSuccess) {
    poisoned_ = sticky(ce);
    return finish(cls::crash, std::string("upload failed: ") + cudaGetErrorName(ce));
  }

  uint64_t args_ptr = addr(o_args);
  void* params[2] = {&args_ptr, &tmap};
  CUlaunchConfig cfg{};
  cfg.gridDimX = s.ranks;
  cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = 128;
  cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.sharedMemBytes = s.window;
  cfg.hStream = nullptr;
  CUlaunchAttribute attr[1];
  if (s.cluster) {
    attr[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr[0].value.clusterDim.x = s.ranks;
    attr[0].value.clusterDim.y = attr[0].value.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  double tl = now_s();
  r = drv_.cuLaunchKernelEx(&cfg, fn, params, nullptr);
  if (r != CUDA_SUCCESS) {
    poisoned_ = sticky(int(r));
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) return finish(cls::not_supported, "error 209 at launch: no kernel image for " + dev_.sm);
    // A configuration this device cannot hold (a cluster whose CTAs with their windows cannot be resident at
    // once, a window over the opt-in limit) is not a verdict on the instruction: not_supported, with the reason.
    if (r == CUDA_ERROR_INVALID_VALUE || r == CUDA_ERROR_INVALID_CLUSTER_SIZE) {
      if (dev_.max_smem_optin > 0 && int(s.window) > dev_.max_smem_optin)
        return finish(cls::not_supported, "launch refused (" + drv_.error_name(r) + "): a window of " + std::to_string(s.window) +
                                              " B exceeds this device's " + std::to_string(dev_.max_smem_optin) + " B per CTA");
      int clusters = -1;
      if (s.cluster && drv_.cuOccupancyMaxActiveClusters(&clusters, fn, &cfg) == CUDA_SUCCESS && clusters == 0)
        return finish(cls::not_supported, "launch refused (" + drv_.error_name(r) + "): a cluster of " + std::to_string(s.ranks) +
                                              " CTAs with " + std::to_string(s.window) + " B of shared memory each cannot be resident on this device (cuOccupancyMaxActiveClusters = 0)");
    }
    return finish(cls::crash, "launch refused by the driver: " + drv_.error_name(r) + " (grid " + std::to_string(s.ranks) +
                                  (s.cluster ? ", cluster " + std::to_string(s.ranks) : "") + ", smem " + std::to_string(s.window) + ")");
  }
  // Host watchdog: the kernel's own waits are bounded (wait_limit); this catches anything else that hangs.
  int spins = 0;
  while ((ce = cudaStreamQuery(nullptr)) == cudaErrorNotReady) {
    if (now_s() - tl > timeout_s_) {
      poisoned_ = true;
      return finish(cls::timeout, "host watchdog: the kernel did not finish within " + std::to_string(int(timeout_s_)) + " s");
    }
    if (++spins > 2000) usleep(50);
  }
  res.details["kernel_ms"] = (now_s() - tl) * 1e3;
  if (ce != cudaSuccess) {
    poisoned_ = true;
    std::string what = std::string("kernel trapped: ") + cudaGetErrorName(ce) + " (" + cudaGetErrorString(ce) + ")";
    res.details["kernel_error"] = cudaGetErrorName(ce);
    if (host_status) {
      const volatile uint32_t* st = host_status + size_t(s.w[W_ISSUER] % s.ranks) * kStatusWords;
      const uint32_t w0 = st[0], w1 = st[1];
      res.details["frame_stop"] = w0 == 1                     ? frame_stop::at_end
                                  : w1 == 1 || w1 == 2        ? frame_stop::past_wait
                                  : w0 == 0 && w1 == 0        ? frame_stop::before_wait
                                  : w0 == kStatusUnwritten    ? frame_stop::not_begun
                                                              : "status words " + hex(w0) + " " + hex(w1);
    }
    // A trap only a named alternative predicts is a spec_divergence naming it (judge_trap); else a crash.
    if (s.inject.empty()) {
      CaseResult t;
      if (judge_trap(s, what, t)) {
        for (auto& k : {"matched_policy", "predicted_trap"}) res.details[k] = t.details[k];
        return finish(t.cls.c_str(), t.message);
      }
    }
    return finish(cls::crash, what);
  }
  ce = cudaMemcpy(stage_.data(), base, total, cudaMemcpyDeviceToHost);
  if (ce != cudaSuccess) {
    poisoned_ = sticky(ce);
    return finish(cls::crash, std::string("download failed: ") + cudaGetErrorName(ce));
  }
  std::vector<uint8_t> gsrc_after(stage_.begin() + long(o_gsrc), stage_.begin() + long(o_gsrc + s.gsrc.size()));
  Image actual;
  actual.gdst.assign(stage_.begin() + long(o_gdst), stage_.begin() + long(o_gdst + s.gdst.size()));
  actual.smem.assign(stage_.begin() + long(o_sout), stage_.begin() + long(o_sout + win_all));
  // Self-test: a wrong byte in what the device left, as a broken copy would leave it.
  if (s.inject == "fail" && !actual.smem.empty()) actual.smem[actual.smem.size() / 2] ^= 0x40;
  std::vector<uint32_t> status(size_t(s.ranks) * kStatusWords);
  if (host_status) {
    for (size_t k = 0; k < status.size(); ++k) status[k] = host_status[k];
  } else {
    std::memcpy(status.data(), stage_.data() + o_status, status.size() * 4);
  }
  judge(c, s, gsrc_after, actual, status, res);
  // A kernel that gave up waiting may have left a bulk copy in flight towards shared memory it no longer owns:
  // start the next case in a fresh context rather than trust this one.
  if (res.cls == cls::timeout) poisoned_ = true;
  last_actual_ = std::move(actual);
  res.duration_ms = (now_s() - t0) * 1e3;
  return res;
}

}  // namespace ptxcts::run
