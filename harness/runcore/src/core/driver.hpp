// The driver API, reached through the runtime's entry-point query so ptxcts-run links only the CUDA runtime
// (cudart) and never libcuda: module loading (cubin and PTX JIT), launch with cluster dimensions, tensor-map
// encoding. Typedefs come from cudaTypedefs.h.
#pragma once
#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>

namespace ptxcts::run {

struct Driver {
  PFN_cuModuleLoadDataEx_v2010 cuModuleLoadDataEx = nullptr;
  PFN_cuModuleUnload_v2000 cuModuleUnload = nullptr;
  PFN_cuModuleGetFunction_v2000 cuModuleGetFunction = nullptr;
  PFN_cuFuncSetAttribute_v9000 cuFuncSetAttribute = nullptr;
  PFN_cuFuncGetAttribute_v2020 cuFuncGetAttribute = nullptr;
  PFN_cuLaunchKernelEx_v11060 cuLaunchKernelEx = nullptr;
  PFN_cuOccupancyMaxActiveClusters_v11070 cuOccupancyMaxActiveClusters = nullptr;
  PFN_cuGetErrorName_v6000 cuGetErrorName = nullptr;
  PFN_cuTensorMapEncodeTiled_v12000 cuTensorMapEncodeTiled = nullptr;
  PFN_cuTensorMapEncodeIm2col_v12000 cuTensorMapEncodeIm2col = nullptr;
  PFN_cuTensorMapEncodeIm2colWide_v12080 cuTensorMapEncodeIm2colWide = nullptr;  // null on drivers before 12.8

  // Resolves every entry point; returns "" or a message naming the symbol that is missing.
  std::string load();
  std::string error_name(CUresult r) const;
};

}  // namespace ptxcts::run
