// Which tensor maps do cuTensorMapEncodeIm2col and cuTensorMapEncodeTiled accept? A sweep of the parameters that
// the driver documentation (cuda.h) states rules for, set beside the documented rule; no kernel runs.
//
//   nvcc -std=c++17 -o r repro.cu -lcuda && ./r            sweep: one JSON line per map, then the summary
//   nvcc -std=c++17 -o r repro.cu -lcuda && ./r --repro    the minimal case: exit 1 when the driver refuses it
//
// Findings it checks (results/expectations/run.toml, h100-explored-driver-validator-disagreements):
//  (1) cuTensorMapEncodeIm2col refuses maps whose channelsPerPixel x element size is not a multiple of 16 bytes,
//      a rule cuda.h does not state (it states only channelsPerPixel <= 256, and 128 for two packed types);
//  (2) cuTensorMapEncodeTiled accepts interleave 32B with a swizzle other than 32B, which cuda.h forbids
//      ("When interleave is CU_TENSOR_MAP_INTERLEAVE_32B, swizzle must be CU_TENSOR_MAP_SWIZZLE_32B");
//  (3) cuTensorMapEncodeIm2col accepts a bounding box of zero or negative area, which cuda.h forbids
//      ("The bounding box specified by pixelBoxLowerCorner and pixelBoxUpperCorner must have non-zero area").
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct DType { CUtensorMapDataType id; const char* name; unsigned bytes; };
const DType kTypes[] = {
    {CU_TENSOR_MAP_DATA_TYPE_UINT8, "UINT8", 1},        {CU_TENSOR_MAP_DATA_TYPE_UINT16, "UINT16", 2},
    {CU_TENSOR_MAP_DATA_TYPE_UINT32, "UINT32", 4},      {CU_TENSOR_MAP_DATA_TYPE_INT32, "INT32", 4},
    {CU_TENSOR_MAP_DATA_TYPE_UINT64, "UINT64", 8},      {CU_TENSOR_MAP_DATA_TYPE_INT64, "INT64", 8},
    {CU_TENSOR_MAP_DATA_TYPE_FLOAT16, "FLOAT16", 2},    {CU_TENSOR_MAP_DATA_TYPE_FLOAT32, "FLOAT32", 4},
    {CU_TENSOR_MAP_DATA_TYPE_FLOAT64, "FLOAT64", 8},    {CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, "BFLOAT16", 2},
    {CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ, "FLOAT32_FTZ", 4}, {CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, "TFLOAT32", 4},
    {CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ, "TFLOAT32_FTZ", 4},
};
const char* kInterleave[] = {"NONE", "16B", "32B"};
const char* kSwizzle[] = {"NONE", "32B", "64B", "128B"};
const unsigned kSpan[] = {0, 32, 64, 128};

const char* result_name(CUresult r) {
  const char* s = nullptr;
  cuGetErrorName(r, &s);
  return s ? s : "?";
}

void* g_base = nullptr;  // a 1 MiB device buffer, 256-byte aligned: every map's global address

// One im2col map: NDHWC of the given rank, C = 256 channels, spatial dims 8, N = 2; strides dense (multiples of
// 32 bytes whatever the type, so no stride rule is involved).
CUresult encode_im2col(const DType& t, unsigned rank, unsigned channels, unsigned pixels, int interleave, int swizzle,
                       int lower, int upper) {
  cuuint64_t dims[5], strides[4];
  dims[0] = 256;
  for (unsigned i = 1; i < rank; ++i) dims[i] = (i == rank - 1) ? 2 : 8;
  strides[0] = dims[0] * t.bytes;
  for (unsigned i = 1; i + 1 < rank; ++i) strides[i] = strides[i - 1] * dims[i];
  int lo[3] = {lower, lower, lower}, hi[3] = {upper, upper, upper};
  cuuint32_t es[5] = {1, 1, 1, 1, 1};
  CUtensorMap m;
  return cuTensorMapEncodeIm2col(&m, t.id, rank, g_base, dims, strides, lo, hi, channels, pixels, es,
                                 (CUtensorMapInterleave)interleave, (CUtensorMapSwizzle)swizzle,
                                 CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

CUresult encode_tiled(const DType& t, unsigned rank, unsigned box0, int interleave, int swizzle) {
  cuuint64_t dims[5] = {256, 8, 8, 8, 2}, strides[4];
  strides[0] = dims[0] * t.bytes;
  for (unsigned i = 1; i + 1 < rank; ++i) strides[i] = strides[i - 1] * dims[i];
  cuuint32_t box[5] = {box0, 2, 2, 2, 2}, es[5] = {1, 1, 1, 1, 1};
  CUtensorMap m;
  return cuTensorMapEncodeTiled(&m, t.id, rank, g_base, dims, strides, box, es, (CUtensorMapInterleave)interleave,
                                (CUtensorMapSwizzle)swizzle, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

// The documented im2col rules this sweep can break (cuda.h, cuTensorMapEncodeIm2col), for the maps built above.
bool im2col_documented_legal(const DType& t, unsigned channels, unsigned pixels, int interleave, int swizzle, int lower,
                             int upper) {
  if (channels == 0 || channels > 256 || pixels == 0 || pixels > 1024) return false;
  if (interleave == 2 && swizzle != 1) return false;              // 32B interleave needs swizzle 32B
  if (interleave == 0 && swizzle != 0 && channels * t.bytes > kSpan[swizzle]) return false;  // inner box <= span
  // the bounding box in each spatial dimension: [lower, dim + upper) of a dimension of 8 must be non-empty
  if (8 + upper - lower <= 0) return false;
  return true;
}

int repro() {
  // Minimal case of the exploration: INT32, one channel per pixel (4 bytes), rank 4, no interleave, no swizzle.
  const DType& t = kTypes[3];
  CUresult r = encode_im2col(t, 4, 1, 8, 0, 0, 0, 0);
  std::printf("cuTensorMapEncodeIm2col(INT32, rank 4, channelsPerPixel 1, pixelsPerColumn 8, interleave NONE, "
              "swizzle NONE)\n  expected (cuda.h states no rule it breaks): CUDA_SUCCESS\n  actual: %s\n",
              result_name(r));
  CUresult r16 = encode_im2col(t, 4, 4, 8, 0, 0, 0, 0);
  std::printf("the same map with channelsPerPixel 4 (16 bytes): %s\n", result_name(r16));
  return r == CUDA_SUCCESS ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  bool want_repro = argc > 1 && std::strcmp(argv[1], "--repro") == 0;
  if (argc > 1 && !want_repro) {
    std::fprintf(stderr, "usage: %s [--repro]\n", argv[0]);
    return 2;
  }
  int dev = 0, cc_major = 0, cc_minor = 0, drv = 0, rt = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    std::fprintf(stderr, "no CUDA device: this program asks the driver to encode tensor maps and needs one\n");
    return 2;
  }
  cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&cc_minor, cudaDevAttrComputeCapabilityMinor, dev);
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, dev);
  std::printf("# device %s (sm_%d%d), driver API %d, runtime %d\n", prop.name, cc_major, cc_minor, drv, rt);
  if (cc_major < 9) {
    std::fprintf(stderr, "tensor maps need sm_90 or newer: this device is sm_%d%d\n", cc_major, cc_minor);
    return 2;
  }
  if (cudaMalloc(&g_base, 1 << 20) != cudaSuccess) {
    std::fprintf(stderr, "cudaMalloc of 1 MiB failed\n");
    return 2;
  }
  if (want_repro) return repro();

  // (1) im2col: every type x channelsPerPixel 1..256 x interleave x swizzle, rank 3/4/5, pixelsPerColumn 8.
  long total = 0, refused_legal = 0, refused_legal_not16 = 0, accepted_illegal = 0, refused_legal_16 = 0;
  long accepted_not16 = 0;
  for (const DType& t : kTypes)
    for (unsigned rank = 3; rank <= 5; ++rank)
      for (int il = 0; il < 3; ++il)
        for (int sw = 0; sw < 4; ++sw)
          for (unsigned ch = 1; ch <= 256; ++ch) {
            CUresult r = encode_im2col(t, rank, ch, 8, il, sw, 0, 0);
            bool legal = im2col_documented_legal(t, ch, 8, il, sw, 0, 0);
            bool mult16 = (ch * t.bytes) % 16 == 0;
            ++total;
            if (legal && r != CUDA_SUCCESS) {
              ++refused_legal;
              (mult16 ? refused_legal_16 : refused_legal_not16)++;
            }
            if (!legal && r == CUDA_SUCCESS) ++accepted_illegal;
            if (legal && r == CUDA_SUCCESS && !mult16) ++accepted_not16;
            if ((legal && r != CUDA_SUCCESS) || (!legal && r == CUDA_SUCCESS) || (ch <= 32 && rank == 4))
              std::printf("{\"encode\":\"im2col\",\"dtype\":\"%s\",\"rank\":%u,\"interleave\":\"%s\",\"swizzle\":\"%s\","
                          "\"channels\":%u,\"channel_bytes\":%u,\"documented\":\"%s\",\"driver\":\"%s\"}\n",
                          t.name, rank, kInterleave[il], kSwizzle[sw], ch, ch * t.bytes, legal ? "legal" : "illegal",
                          result_name(r));
          }
  // pixelsPerColumn 1..1024 at a legal channel count (16 bytes), and the bounding box's area.
  long pix_refused = 0, area_accepted_empty = 0, area_refused = 0;
  for (unsigned px = 1; px <= 1024; ++px) {
    CUresult r = encode_im2col(kTypes[7], 4, 4, px, 0, 0, 0, 0);
    if (r != CUDA_SUCCESS) {
      ++pix_refused;
      std::printf("{\"encode\":\"im2col\",\"dtype\":\"FLOAT32\",\"rank\":4,\"channels\":4,\"pixels\":%u,"
                  "\"documented\":\"legal\",\"driver\":\"%s\"}\n", px, result_name(r));
    }
  }
  long area_accepted_empty_by_il[3] = {};
  for (int il = 0; il < 3; ++il)
    for (unsigned rank = 3; rank <= 5; ++rank)
      for (int lower = -16; lower <= 15; ++lower)
        for (int upper = -16; upper <= 15; ++upper) {
          // 8 FLOAT32 channels: 32 bytes, a multiple of 16 and of either interleave size; swizzle 32B with 32B
          CUresult r = encode_im2col(kTypes[7], rank, 8, 8, il, il == 2 ? 1 : 0, lower, upper);
          bool empty = 8 + upper - lower <= 0;
          if (empty && r == CUDA_SUCCESS) ++area_accepted_empty, ++area_accepted_empty_by_il[il];
          if (!empty && r != CUDA_SUCCESS) ++area_refused;
          if (empty || r != CUDA_SUCCESS)
            std::printf("{\"encode\":\"im2col\",\"dtype\":\"FLOAT32\",\"rank\":%u,\"interleave\":\"%s\","
                        "\"lower\":%d,\"upper\":%d,\"box_extent\":%d,\"documented\":\"%s\",\"driver\":\"%s\"}\n",
                        rank, kInterleave[il], lower, upper, 8 + upper - lower, empty ? "illegal" : "legal",
                        result_name(r));
        }
  std::printf("# im2col bounding boxes of zero or negative extent accepted, by interleave: NONE %ld, 16B %ld, "
              "32B %ld\n", area_accepted_empty_by_il[0], area_accepted_empty_by_il[1], area_accepted_empty_by_il[2]);
  // (2) tiled: interleave x swizzle x type x inner box bytes 16/32/64/128, rank 3.
  long tiled_total = 0, tiled_32b_other_swizzle_accepted = 0;
  for (const DType& t : kTypes)
    for (int il = 0; il < 3; ++il)
      for (int sw = 0; sw < 4; ++sw)
        for (unsigned bytes : {16u, 32u, 64u, 128u}) {
          unsigned box0 = bytes / t.bytes;
          if (box0 == 0) continue;
          CUresult r = encode_tiled(t, 3, box0, il, sw);
          ++tiled_total;
          if (il == 2 && sw != 1 && r == CUDA_SUCCESS) ++tiled_32b_other_swizzle_accepted;
          if (il != 0)
            std::printf("{\"encode\":\"tiled\",\"dtype\":\"%s\",\"rank\":3,\"interleave\":\"%s\",\"swizzle\":\"%s\","
                        "\"box0_bytes\":%u,\"documented\":\"%s\",\"driver\":\"%s\"}\n",
                        t.name, kInterleave[il], kSwizzle[sw], bytes, (il == 2 && sw != 1) ? "illegal" : "see cuda.h",
                        result_name(r));
        }
  std::printf("# im2col maps: %ld; documented-legal refused: %ld (%ld with channelsPerPixel x size not a multiple "
              "of 16 B, %ld with it a multiple); documented-legal accepted with channel bytes not a multiple of 16: "
              "%ld; documented-illegal accepted: %ld\n",
              total, refused_legal, refused_legal_not16, refused_legal_16, accepted_not16, accepted_illegal);
  std::printf("# im2col pixelsPerColumn 1..1024 refused: %ld; bounding boxes of zero or negative extent accepted: %ld;"
              " non-empty refused: %ld\n", pix_refused, area_accepted_empty, area_refused);
  std::printf("# tiled maps: %ld; interleave 32B with a swizzle other than 32B accepted: %ld\n", tiled_total,
              tiled_32b_other_swizzle_accepted);
  cudaFree(g_base);
  return 0;
}
