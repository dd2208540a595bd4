// Does cuTensorMapEncodeIm2col refuse an interleaved im2col map that the documented rules (cuda.h) allow? The
// exploration of seed 20261129 (results/explore/2026-11-28T04-50-56.537Z-sm_90-explore-3189) drew one: UINT8, rank
// 4, interleave 16B, 64 channels per pixel. This program encodes that map as drawn, then changes one parameter at
// a time to find the one the refusal depends on; no kernel runs.
//
//   nvcc -std=c++17 -o r repro.cu -lcuda && ./r            every variant: one line each, then the verdict
//   nvcc -std=c++17 -o r repro.cu -lcuda && ./r --repro    the drawn map alone: exit 1 when the driver refuses it
//   ./r --grid                                              the bounding box against W and H, every corner of -3..3
//
// Exit 0: ran (and, with --repro, the map was accepted); 1: --repro and the map was refused; 2: no usable device.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Map {
  CUtensorMapDataType dt = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  unsigned es = 1, rank = 4;
  cuuint64_t dims[5] = {1, 1, 3, 1, 1};
  cuuint64_t strides[4] = {16, 16, 48, 48};
  int lower[3] = {-1, 0, 0}, upper[3] = {0, -2, 0};
  unsigned channels = 64, pixels = 8;
  CUtensorMapInterleave inter = CU_TENSOR_MAP_INTERLEAVE_16B;
  CUtensorMapSwizzle swz = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion l2 = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  unsigned gaddr = 1216;  // bytes past a 1024-aligned allocation (the drawn case's global address)
};

CUdeviceptr g_buf = 0;  // 1 MiB, 1024-aligned

CUresult encode(const Map& m) {
  cuuint32_t es[5] = {1, 1, 1, 1, 1};
  CUtensorMap t;
  return cuTensorMapEncodeIm2col(&t, m.dt, m.rank, reinterpret_cast<void*>(g_buf + m.gaddr), m.dims, m.strides,
                                 m.lower, m.upper, m.channels, m.pixels, es, m.inter, m.swz, m.l2,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

const char* name(CUresult r) {
  const char* s = nullptr;
  cuGetErrorName(r, &s);
  return s ? s : "?";
}

std::string describe(const Map& m) {
  char b[512];
  std::snprintf(b, sizeof b,
                "rank %u dims [%llu,%llu,%llu,%llu,%llu] strides [%llu,%llu,%llu] lower [%d,%d,%d] upper [%d,%d,%d] "
                "channels %u pixels %u interleave %d swizzle %d l2 %d gaddr %u es %u",
                m.rank, (unsigned long long)m.dims[0], (unsigned long long)m.dims[1], (unsigned long long)m.dims[2],
                (unsigned long long)m.dims[3], (unsigned long long)m.dims[4], (unsigned long long)m.strides[0],
                (unsigned long long)m.strides[1], (unsigned long long)m.strides[2], m.lower[0], m.lower[1],
                m.lower[2], m.upper[0], m.upper[1], m.upper[2], m.channels, m.pixels, int(m.inter), int(m.swz),
                int(m.l2), m.gaddr, m.es);
  return b;
}

int n_ok = 0, n_refused = 0;
void variant(const char* axis, const std::string& value, const Map& m) {
  const CUresult r = encode(m);
  (r == CUDA_SUCCESS ? n_ok : n_refused)++;
  std::printf("%-10s %-22s %-28s %s\n", axis, value.c_str(), name(r), describe(m).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const bool repro = argc > 1 && !std::strcmp(argv[1], "--repro");
  const bool grid = argc > 1 && !std::strcmp(argv[1], "--grid");
  if (argc > 1 && !repro && !grid) { std::fprintf(stderr, "usage: %s [--repro | --grid]\n", argv[0]); return 2; }
  CUdevice dev;
  CUcontext ctx;
  int major = 0, drv = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS) { std::fprintf(stderr, "no CUDA device\n"); return 2; }
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDriverGetVersion(&drv);
  char dname[256] = "?";
  cuDeviceGetName(dname, sizeof dname, dev);
  if (major < 9) { std::fprintf(stderr, "%s is sm_%d0: tensor maps need sm_90 or newer\n", dname, major); return 2; }
  if (cuCtxCreate(&ctx, nullptr, 0, dev) != CUDA_SUCCESS || cuMemAlloc(&g_buf, 1 << 20) != CUDA_SUCCESS) {
    std::fprintf(stderr, "cannot make a context and 1 MiB on %s\n", dname);
    return 2;
  }
  std::printf("# %s, CUDA driver API %d\n", dname, drv);
  const Map drawn;
  // The documented rules (cuda.h, cuTensorMapEncodeIm2col) the drawn map meets: rank 3-5; globalAddress 16-byte
  // aligned (32 with interleave 32B); globalStrides multiples of 16 (32), each >= the dimension below it;
  // channelsPerPixel 1..256, pixelsPerColumn 1..1024; corners within [-2^15, 2^15-1] at rank 4; interleave 16B
  // with swizzle NONE; the bounding box of non-zero area (W: 1 + 0 - (-1) = 2, H: 3 + (-2) - 0 = 1).
  const CUresult r0 = encode(drawn);
  std::printf("drawn      %-22s %-28s %s\n", "as drawn", name(r0), describe(drawn).c_str());
  if (repro) {
    std::printf("expected CUDA_SUCCESS (every documented rule is met), actual %s\n", name(r0));
    return r0 == CUDA_SUCCESS ? 0 : 1;
  }
  if (grid) {
    // The bounding box against the spatial extents: W = dims[1] and H = dims[2] of 1..4, every corner of -3..3,
    // interleave 16B and (the control) NONE: "interleave W H lowerW upperW lowerH upperH verdict" (1 = accepted).
    for (int il : {1, 0})
      for (unsigned w = 1; w <= 4; ++w)
        for (unsigned h = 1; h <= 4; ++h)
          for (int lw = -3; lw <= 3; ++lw)
            for (int uw = -3; uw <= 3; ++uw)
              for (int lh = -3; lh <= 3; ++lh)
                for (int uh = -3; uh <= 3; ++uh) {
                  Map m = drawn;
                  m.inter = CUtensorMapInterleave(il);
                  m.dims[1] = w; m.dims[2] = h;
                  m.strides[1] = m.strides[0] * w; m.strides[2] = m.strides[1] * h;
                  m.lower[0] = lw; m.upper[0] = uw; m.lower[1] = lh; m.upper[1] = uh;
                  std::printf("%d %u %u %d %d %d %d %d\n", il, w, h, lw, uw, lh, uh, encode(m) == CUDA_SUCCESS);
                }
    return 0;
  }
  for (unsigned c : {1u, 2u, 4u, 8u, 16u, 32u, 48u, 64u, 96u, 128u, 256u}) { Map m = drawn; m.channels = c; variant("channels", std::to_string(c), m); }
  for (unsigned p : {1u, 2u, 4u, 7u, 8u, 16u, 64u, 256u, 1024u}) { Map m = drawn; m.pixels = p; variant("pixels", std::to_string(p), m); }
  for (int i = 0; i < 2; ++i)
    for (int v : {-2, -1, 0, 1, 2}) {
      Map m = drawn; m.lower[i] = v; variant("lower", std::to_string(i) + "=" + std::to_string(v), m);
      Map u = drawn; u.upper[i] = v; variant("upper", std::to_string(i) + "=" + std::to_string(v), u);
    }
  { Map m = drawn; m.lower[0] = m.lower[1] = 0; m.upper[0] = m.upper[1] = 0; variant("corners", "all 0", m); }
  { Map m = drawn; m.lower[0] = m.lower[1] = -1; m.upper[0] = m.upper[1] = -1; variant("corners", "all -1", m); }
  { Map m = drawn; m.lower[0] = m.lower[1] = -2; m.upper[0] = m.upper[1] = 2; variant("corners", "lower -2 upper 2", m); }
  for (int i = 0; i < 4; ++i)
    for (unsigned long long d : {1ull, 2ull, 3ull, 8ull, 64ull}) {
      Map m = drawn; m.dims[i] = d;
      if (i == 0) m.strides[0] = ((d * m.es + 15) / 16) * 16;
      for (int k = 1; k + 1 < int(m.rank); ++k) m.strides[k] = m.strides[k - 1] * m.dims[k];
      variant("dims", std::to_string(i) + "=" + std::to_string(d), m);
    }
  for (unsigned a : {1024u, 1040u, 1056u, 1088u, 1152u, 1216u, 1280u}) { Map m = drawn; m.gaddr = a; variant("gaddr", std::to_string(a), m); }
  for (int l : {0, 1, 2, 3}) { Map m = drawn; m.l2 = CUtensorMapL2promotion(l); variant("l2", std::to_string(l), m); }
  for (int s : {0, 1, 2, 3}) { Map m = drawn; m.swz = CUtensorMapSwizzle(s); variant("swizzle", std::to_string(s), m); }
  for (int i : {0, 1, 2}) {
    Map m = drawn; m.inter = CUtensorMapInterleave(i);
    if (i == 2) m.swz = CU_TENSOR_MAP_SWIZZLE_32B;
    variant("interleave", std::to_string(i), m);
  }
  for (unsigned r : {3u, 5u}) {
    Map m = drawn; m.rank = r; m.dims[3] = 1; m.dims[4] = 1; m.strides[2] = 48; m.strides[3] = 48;
    variant("rank", std::to_string(r), m);
  }
  std::printf("# %d accepted, %d refused; a parameter whose variants flip the verdict is the one the refusal depends on\n",
              n_ok, n_refused);
  return 0;
}
