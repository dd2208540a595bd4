// Which interleaved tiled tensor maps does cuTensorMapEncodeTiled accept on this device? A sweep over the data
// type, interleave, swizzle and box of rank-3 maps whose every stride, address and dimension meets cuda.h's rules;
// no kernel runs.
//
//   nvcc -std=c++17 -o r repro.cu -lcuda && ./r            sweep: one line per map (tab separated), then counts
//   nvcc -std=c++17 -o r repro.cu -lcuda && ./r --repro    the minimal case: exit 1 when the driver refuses it
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

namespace {

struct DType { CUtensorMapDataType id; const char* name; unsigned bytes; };
const DType kTypes[] = {
    {CU_TENSOR_MAP_DATA_TYPE_UINT8, "UINT8", 1},     {CU_TENSOR_MAP_DATA_TYPE_UINT16, "UINT16", 2},
    {CU_TENSOR_MAP_DATA_TYPE_FLOAT16, "FLOAT16", 2}, {CU_TENSOR_MAP_DATA_TYPE_UINT32, "UINT32", 4},
    {CU_TENSOR_MAP_DATA_TYPE_FLOAT64, "FLOAT64", 8},
};
const char* kInterleave[] = {"NONE", "16B", "32B"};
const char* kSwizzle[] = {"NONE", "32B", "64B", "128B"};

const char* result_name(CUresult r) {
  const char* s = nullptr;
  cuGetErrorName(r, &s);
  return s ? s : "?";
}

void* g_base = nullptr;

// Rank 3: dims {d0, d1, 4}; strides multiples of 32 bytes covering each dimension below.
CUresult tiled(const DType& t, cuuint64_t d0, cuuint64_t d1, cuuint32_t b0, cuuint32_t b1, cuuint32_t b2, int il, int sw) {
  cuuint64_t dims[3] = {d0, d1, 4};
  cuuint64_t s0 = (d0 * t.bytes + 31) / 32 * 32;
  cuuint64_t strides[2] = {s0, s0 * d1};
  cuuint32_t box[3] = {b0, b1, b2}, es[3] = {1, 1, 1};
  CUtensorMap m;
  return cuTensorMapEncodeTiled(&m, t.id, 3, g_base, dims, strides, box, es, (CUtensorMapInterleave)il,
                                (CUtensorMapSwizzle)sw, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

}  // namespace

int main(int argc, char** argv) {
  bool repro = argc > 1 && std::strcmp(argv[1], "--repro") == 0;
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDeviceCount(&dev) != cudaSuccess || dev == 0) { std::fprintf(stderr, "no CUDA device\n"); return 2; }
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
  if (major < 9) {
    std::fprintf(stderr, "this device is sm_%d%d: tensor maps need compute capability 9.0 or higher\n", major, minor);
    return 2;
  }
  cudaMalloc(&g_base, 1 << 22);
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, 0);
  int drv = 0;
  cudaDriverGetVersion(&drv);
  std::printf("# %s (sm_%d%d), driver API %d\n", p.name, major, minor, drv);
  if (repro) {
    CUresult r = tiled(kTypes[1], 1, 1, 1, 1, 1, 1, 2);
    std::printf("cuTensorMapEncodeTiled(UINT16, rank 3, globalDim {1,1,4}, boxDim {1,1,1}, interleave 16B, swizzle "
                "64B): %s\n", result_name(r));
    return r == CUDA_SUCCESS ? 0 : 1;
  }
  unsigned ok = 0, refused = 0;
  std::printf("dtype\td0\td1\tbox0\tbox1\tbox2\tinterleave\tswizzle\tresult\n");
  for (const DType& t : kTypes)
    for (cuuint64_t d0 : {1ull, 2ull, 8ull, 16ull, 32ull, 64ull})
      for (cuuint64_t d1 : {1ull, 8ull})
        for (cuuint32_t b0 : {1u, 2u, 4u, 8u, 16u, 32u, 64u, 128u})
          for (cuuint32_t b1 : {1u, 8u})
            for (cuuint32_t b2 : {1u, 4u})
              for (int il = 0; il < 3; ++il)
                for (int sw = 0; sw < 4; ++sw) {
                  CUresult r = tiled(t, d0, d1, b0, b1, b2, il, sw);
                  (r == CUDA_SUCCESS ? ok : refused)++;
                  std::printf("%s\t%llu\t%llu\t%u\t%u\t%u\t%s\t%s\t%s\n", t.name, (unsigned long long)d0,
                              (unsigned long long)d1, b0, b1, b2, kInterleave[il], kSwizzle[sw], result_name(r));
                }
  std::printf("# %u accepted, %u refused\n", ok, refused);
  return 0;
}
