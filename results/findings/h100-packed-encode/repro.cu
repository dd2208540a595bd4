// Which tiled and im2col tensor maps of the packed types (16U4_ALIGN8B, 16U4_ALIGN16B, 16U6_ALIGN16B) do
// cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col accept on this device? A sweep over the parameters cuda.h
// states rules for; no kernel runs.
//
//   nvcc -std=c++17 -o r repro.cu -lcuda && ./r            sweep: one line per map (tab separated), then counts
//   nvcc -std=c++17 -o r repro.cu -lcuda && ./r --repro    the minimal case: exit 1 when the driver refuses it
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

namespace {

struct Packed { CUtensorMapDataType id; const char* name; unsigned bits; unsigned unit_bytes; };
// bits: storage bits per value; unit_bytes: the aligned unit of 16 values in memory (cuda.h's descriptions).
const Packed kPacked[] = {
    {CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B, "16U4_ALIGN8B", 4, 8},
    {CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B, "16U4_ALIGN16B", 8, 16},
    {CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B, "16U6_ALIGN16B", 8, 16},
};
const char* kSwizzle[] = {"NONE", "32B", "64B", "128B"};
const char* kL2[] = {"NONE", "L2_64B", "L2_128B", "L2_256B"};

const char* result_name(CUresult r) {
  const char* s = nullptr;
  cuGetErrorName(r, &s);
  return s ? s : "?";
}

void* g_base = nullptr;

// Row pitch of dims0 values, rounded up to 32 bytes (every stride rule of cuda.h holds for it).
cuuint64_t pitch(const Packed& t, cuuint64_t dims0) { return ((dims0 * t.bits + 7) / 8 + 31) / 32 * 32; }

CUresult tiled(const Packed& t, unsigned rank, cuuint64_t dims0, cuuint32_t box0, unsigned es0, int swizzle, int l2) {
  cuuint64_t dims[2] = {dims0, 4}, strides[1] = {pitch(t, dims0)};
  cuuint32_t box[2] = {box0, 2}, es[2] = {es0, 1};
  CUtensorMap m;
  return cuTensorMapEncodeTiled(&m, t.id, rank, g_base, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                (CUtensorMapSwizzle)swizzle, (CUtensorMapL2promotion)l2,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

CUresult im2col(const Packed& t, cuuint64_t channels_dim, unsigned channels, unsigned pixels, int swizzle) {
  cuuint64_t dims[3] = {channels_dim, 8, 2}, strides[2] = {pitch(t, channels_dim), pitch(t, channels_dim) * 8};
  int lo[1] = {0}, hi[1] = {0};
  cuuint32_t es[3] = {1, 1, 1};
  CUtensorMap m;
  return cuTensorMapEncodeIm2col(&m, t.id, 3, g_base, dims, strides, lo, hi, channels, pixels, es,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE, (CUtensorMapSwizzle)swizzle,
                                 CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
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
  cudaMalloc(&g_base, 1 << 20);
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, 0);
  int drv = 0;
  cudaDriverGetVersion(&drv);
  std::printf("# %s (sm_%d%d), driver API %d\n", p.name, major, minor, drv);
  if (repro) {
    CUresult r = tiled(kPacked[0], 1, 94, 32, 1, 0, 2);
    std::printf("cuTensorMapEncodeTiled(16U4_ALIGN8B, rank 1, globalDim {94}, boxDim {32}, swizzle NONE): %s\n",
                result_name(r));
    return r == CUDA_SUCCESS ? 0 : 1;
  }
  const cuuint64_t kDims[] = {2, 4, 8, 16, 30, 32, 62, 64, 94, 96, 126, 128, 160, 192, 256, 384, 512, 1024};
  const cuuint32_t kBox[] = {2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 160, 192, 256};
  unsigned ok = 0, refused = 0;
  std::printf("kind\tdtype\trank\tdims0\tbox0\tes0\tswizzle\tl2\tresult\n");
  for (const Packed& t : kPacked)
    for (unsigned rank = 1; rank <= 2; ++rank)
      for (cuuint64_t d : kDims)
        for (cuuint32_t b : kBox)
          for (unsigned es0 = 1; es0 <= 2; ++es0)
            for (int s = 0; s < 4; ++s)
              for (int l2 = 0; l2 < 4; l2 += 2) {
                CUresult r = tiled(t, rank, d, b, es0, s, l2);
                (r == CUDA_SUCCESS ? ok : refused)++;
                std::printf("tiled\t%s\t%u\t%llu\t%u\t%u\t%s\t%s\t%s\n", t.name, rank, (unsigned long long)d, b, es0,
                            kSwizzle[s], kL2[l2], result_name(r));
              }
  std::printf("kind\tdtype\tchannels_dim\tchannels\tpixels\tswizzle\tresult\n");
  for (const Packed& t : kPacked)
    for (cuuint64_t d : {32ull, 64ull, 128ull, 256ull, 512ull})
      for (unsigned c : {16u, 32u, 48u, 64u, 96u, 128u, 192u, 256u})
        for (unsigned px : {1u, 3u, 8u, 32u})
          for (int s = 0; s < 4; ++s) {
            CUresult r = im2col(t, d, c, px, s);
            (r == CUDA_SUCCESS ? ok : refused)++;
            std::printf("im2col\t%s\t%llu\t%u\t%u\t%s\t%s\n", t.name, (unsigned long long)d, c, px, kSwizzle[s],
                        result_name(r));
          }
  std::printf("# %u accepted, %u refused\n", ok, refused);
  return 0;
}
