#include "driver.hpp"

#include <cuda_runtime_api.h>

namespace ptxcts::run {

namespace {
template <class F>
std::string resolve(const char* symbol, unsigned version, F& out, bool required = true) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, &fn, version, cudaEnableDefault, &q);
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
    out = nullptr;
    if (!required) return "";
    return std::string("driver entry point ") + symbol + " (version " + std::to_string(version) +
           ") not found: " + (e != cudaSuccess ? cudaGetErrorString(e) : "symbol not provided by this driver");
  }
  out = reinterpret_cast<F>(fn);
  return "";
}
}  // namespace

std::string Driver::load() {
  std::string err;
  auto add = [&](std::string e) { if (err.empty()) err = std::move(e); };
  add(resolve("cuModuleLoadDataEx", 2010, cuModuleLoadDataEx));
  add(resolve("cuModuleUnload", 2000, cuModuleUnload));
  add(resolve("cuModuleGetFunction", 2000, cuModuleGetFunction));
  add(resolve("cuFuncSetAttribute", 9000, cuFuncSetAttribute));
  add(resolve("cuFuncGetAttribute", 2020, cuFuncGetAttribute));
  add(resolve("cuLaunchKernelEx", 11060, cuLaunchKernelEx));
  add(resolve("cuOccupancyMaxActiveClusters", 11070, cuOccupancyMaxActiveClusters));
  add(resolve("cuGetErrorName", 6000, cuGetErrorName));
  add(resolve("cuTensorMapEncodeTiled", 12000, cuTensorMapEncodeTiled));
  add(resolve("cuTensorMapEncodeIm2col", 12000, cuTensorMapEncodeIm2col));
  add(resolve("cuTensorMapEncodeIm2colWide", 12080, cuTensorMapEncodeIm2colWide, /*required=*/false));
  return err;
}

std::string Driver::error_name(CUresult r) const {
  const char* s = nullptr;
  if (cuGetErrorName && cuGetErrorName(r, &s) == CUDA_SUCCESS && s) return s;
  return "CUresult " + std::to_string(int(r));
}

}  // namespace ptxcts::run
