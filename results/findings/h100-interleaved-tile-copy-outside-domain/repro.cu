// Standalone repro / sweep: tile copies with tensor maps of interleave 16B / 32B OUTSIDE the domain where the
// layout "chunk rows" was measured (results/findings/h100-interleaved-tile-load-overrun: loads into the CTA's own
// shared memory, coordinates inside the tensor, elementStrides 1). Measured here, byte for byte:
//   * stores  cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group       (which global bytes change, from
//     which shared offsets)
//   * reductions cp.reduce.async.bulk.tensor.Nd.global.shared::cta.{add,inc,max}.tile.bulk_group (UINT32 add/inc,
//     FLOAT16 max: which global elements change, from which shared elements)
//   * loads into a peer CTA of a cluster (shared::cluster, destination CTA rank 1 or 3) and multicast loads
//   * loads with elementStrides > 1, with coordinates partly outside the tensor (negative and past the end), with
//     OOB fill NONE and NAN_REQUEST_ZERO_FMA
//   * the ten explored cases on record (results/expectations/run.toml), verbatim.
// For each configuration it prints what the documented box predicts, what the reference model's alternative
// interleave_tile_box=chunk_rows predicts (or why the model refuses it), and what the device did.
// Build and run:
//   nvcc -std=c++17 -arch=sm_90a -o r repro.cu -lcuda && ./r            (sweep, exit 0 when it ran)
//   ./r --repro                                                           (minimal case, exit 1 = finding shown)
//   ./r --only PREFIX                                   (the configurations whose tag starts so: an explored id, overlap)
// Every configuration runs in a child process (the program re-executes itself with --from N), so a trap costs
// only its configuration; the parent never initialises CUDA.
#include <cuda.h>
#include <cuda_runtime.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// ---------------------------------------------------------------- configurations (pure host code)
enum Op { LOAD_CTA, LOAD_CLUSTER, LOAD_MCAST, STORE, RED_ADD, RED_INC, RED_MAX, NOPS };
static const char* kOp[] = {"load_cta", "load_cluster", "load_multicast", "store", "reduce_add", "reduce_inc",
                            "reduce_max"};
static const char* kInter[] = {"NONE", "16B", "32B"};
static const char* kSwz[] = {"NONE", "32B", "64B", "128B"};
static const char* kFill[] = {"NONE", "NAN_REQUEST_ZERO_FMA"};
static bool is_load(int op) { return op <= LOAD_MCAST; }
static bool is_red(int op) { return op >= RED_ADD; }

struct Cfg {
  int op; const char* dname; CUtensorMapDataType dt; unsigned es; unsigned rank; int inter, swz, fill;
  uint64_t dims[5]; uint64_t strides[4];  // strides[0] == 0: dense, each row rounded up to the interleave size
  uint32_t box[5], estr[5]; int coords[5];
  unsigned cluster, peer, mask;  // cluster size; destination CTA (LOAD_CLUSTER); ctaMask (LOAD_MCAST)
  unsigned tb_off;               // tensor base: offset inside the 64 KiB global buffer
  unsigned dst;                  // dstMem / srcMem: offset inside the 1024-aligned shared window
  const char* tag;
};

struct TypeInfo { const char* n; CUtensorMapDataType t; unsigned es; };
static const TypeInfo U8{"UINT8", CU_TENSOR_MAP_DATA_TYPE_UINT8, 1}, U16{"UINT16", CU_TENSOR_MAP_DATA_TYPE_UINT16, 2},
    U32{"UINT32", CU_TENSOR_MAP_DATA_TYPE_UINT32, 4}, F16{"FLOAT16", CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2},
    F32{"FLOAT32", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4}, F64{"FLOAT64", CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 8};

static Cfg make(int op, const TypeInfo& t, unsigned rank, int inter, int swz, const char* tag) {
  Cfg c{};
  c.op = op; c.dname = t.n; c.dt = t.t; c.es = t.es; c.rank = rank; c.inter = inter; c.swz = swz; c.fill = 0;
  for (int i = 0; i < 5; ++i) { c.dims[i] = 1; c.box[i] = 1; c.estr[i] = 1; c.coords[i] = 0; }
  for (int i = 0; i < 4; ++i) c.strides[i] = 0;
  c.cluster = 1; c.peer = 0; c.mask = 0; c.tb_off = 16384; c.dst = 1024; c.tag = tag;
  return c;
}

// The explored cases on record (results/explore/explored.jsonl), verbatim: map, access, cluster, peer, ctaMask,
// global address (its offset from 1024 kept) and smem_offset.
static void explored(std::vector<Cfg>& v) {
  struct E {
    const char* id; int op; TypeInfo t; unsigned rank; uint64_t dims[5]; uint64_t strides[4]; uint32_t box[5];
    uint32_t es[5]; int inter, swz, fill; int coords[5]; unsigned cluster, peer, mask, gaddr, smem;
  };
  const E e[] = {
      {"0x78116b0441", STORE, U32, 3, {1, 1, 18}, {16, 16}, {4, 1, 2}, {1, 1, 1}, 1, 3, 0, {0, 0, 15}, 1, 0, 0, 1024, 1408},
      {"0xd96f8fa9c1", STORE, U8, 3, {17, 14, 3}, {32, 448}, {16, 13, 2}, {1, 1, 1}, 2, 1, 0, {16, 1, 0}, 1, 0, 0, 1056, 3072},
      {"0x727894f2fd", RED_INC, U32, 4, {4, 9, 4, 1}, {16, 144, 576}, {4, 2, 3, 4}, {1, 1, 1, 8}, 1, 1, 0, {0, 0, 2, 0}, 1, 0, 0, 1024, 1024},
      {"0xc5945c75fc", RED_MAX, F16, 5, {1, 1, 2, 5, 1}, {32, 32, 64, 320}, {8, 8, 3, 4, 1}, {1, 1, 1, 1, 1}, 2, 1, 1, {0, 0, 0, 0, 0}, 1, 0, 0, 1216, 1280},
      {"0x6f46b10c94", LOAD_CLUSTER, U16, 3, {16, 24, 6}, {32, 768}, {8, 8, 2}, {1, 1, 1}, 2, 1, 0, {8, 29, 5}, 2, 1, 0, 1024, 4096},
      {"0x6c1607d137", LOAD_CLUSTER, F64, 4, {2, 19, 6, 2}, {16, 304, 1824}, {2, 6, 2, 1}, {1, 1, 1, 1}, 1, 2, 0, {0, 15, 5, 0}, 4, 1, 0, 1024, 1024},
      {"0x1777f995f4", LOAD_CLUSTER, U16, 4, {1, 1, 6, 1}, {16, 16, 96}, {8, 1, 7, 1}, {1, 1, 1, 8}, 1, 2, 0, {-24, -1, 0, 0}, 2, 0, 0, 1040, 1024},
      {"0x9612cb75ff", LOAD_MCAST, U8, 3, {1, 1, 1}, {16, 16}, {16, 1, 3}, {1, 1, 1}, 1, 1, 0, {0, 0, 0}, 2, 0, 2, 1024, 1408},
      {"0xa969fbbf17", LOAD_CTA, F16, 5, {1, 1, 9, 1, 3}, {16, 16, 144, 144}, {8, 1, 8, 2, 2}, {1, 1, 1, 2, 2}, 1, 0, 0, {0, -14, -1, -1, 0}, 1, 0, 0, 1040, 2048},
      {"0xac96d8382d", LOAD_CTA, F32, 5, {1, 3, 1, 3, 6}, {16, 48, 48, 144}, {4, 4, 1, 4, 2}, {1, 1, 1, 2, 8}, 1, 1, 1, {0, 3, 0, 0, 0}, 1, 0, 0, 1024, 3072},
      // seed 20261129: a FLOAT16 max whose rows (globalDim[0] chunks) are longer than their stride, minimal and
      // as first drawn
      {"0xa12ed5be65", RED_MAX, F16, 3, {9, 1, 24}, {32, 32}, {16, 1, 1}, {1, 1, 1}, 2, 1, 0, {0, 0, 23}, 1, 0, 0, 1024, 2048},
      {"0xa12ed5be65_first", RED_MAX, F16, 3, {16, 1, 24}, {32, 32}, {16, 2, 8}, {1, 1, 1}, 2, 1, 0, {0, 0, 23}, 1, 0, 0, 1024, 2048},
  };
  for (const E& x : e) {
    Cfg c = make(x.op, x.t, x.rank, x.inter, x.swz, x.id);
    c.fill = x.fill;
    for (unsigned i = 0; i < x.rank; ++i) { c.dims[i] = x.dims[i]; c.box[i] = x.box[i]; c.estr[i] = x.es[i]; c.coords[i] = x.coords[i]; }
    for (unsigned i = 0; i + 1 < x.rank; ++i) c.strides[i] = x.strides[i];
    c.cluster = x.cluster; c.peer = x.peer; c.mask = x.mask; c.tb_off = 16384 + (x.gaddr - 1024); c.dst = x.smem;
    v.push_back(c);
    if (x.op == RED_INC) {  // its add twin: the same map and access, sources decodable
      Cfg d = c; d.op = RED_ADD; d.tag = "explored_add_twin"; v.push_back(d);
    }
  }
}

// The sweep's tensor: dims[0] = inner bytes / element size, outer extents 8, 7, 6, 5.
static Cfg base(int op, const TypeInfo& t, unsigned rank, int inter, int swz, unsigned inner, const char* tag) {
  Cfg c = make(op, t, rank, inter, swz, tag);
  const uint64_t outer[5] = {0, 8, 7, 6, 5};
  c.dims[0] = inner / t.es; c.box[0] = inner / t.es;
  for (unsigned d = 1; d < rank; ++d) { c.dims[d] = outer[d]; c.coords[d] = 1; }
  return c;
}
// Outer box shapes: all 1, 2 along dimension 1, 2 along rank-2 (the dimension chunk rows skip), 2 along rank-1,
// the suite's shape.
static std::vector<std::vector<uint32_t>> shapes(unsigned rank, unsigned n) {
  std::vector<std::vector<uint32_t>> s;
  s.push_back(std::vector<uint32_t>(rank, 1));
  for (unsigned d : {1u, rank - 2, rank - 1}) { auto x = std::vector<uint32_t>(rank, 1); x[d] = 2; s.push_back(x); }
  s.push_back(rank == 3 ? std::vector<uint32_t>{1, 4, 3} : rank == 4 ? std::vector<uint32_t>{1, 3, 2, 2}
                                                                     : std::vector<uint32_t>{1, 2, 2, 2, 2});
  if (n < s.size()) { std::vector<std::vector<uint32_t>> t(s.begin(), s.begin() + (n - 1)); t.push_back(s.back()); return t; }
  return s;
}
static void shape_into(Cfg& c, const std::vector<uint32_t>& s) { for (unsigned d = 1; d < c.rank; ++d) c.box[d] = s[d]; }

// mode: "sweep" (all), "repro" (the first explored case), "only:PREFIX" (the configurations whose tag starts so)
static std::vector<Cfg> configs(const std::string& mode) {
  std::vector<Cfg> v;
  explored(v);
  if (mode == "repro") { v.resize(1); return v; }  // the minimal case: the explored store 0x78116b0441
  if (mode.rfind("only:", 0) == 0) {
    std::vector<Cfg> all = configs("sweep"), some;
    for (auto& c : all) if (std::string(c.tag).rfind(mode.substr(5), 0) == 0) some.push_back(c);
    return some;
  }
  // 1. stores, UINT8, inner 16 or 32 bytes (interleave NONE: the control)
  for (int inter = 0; inter < 3; ++inter)
    for (int swz : {0, 1})
      for (unsigned inner : {16u, 32u})
        for (unsigned rank = 3; rank <= 5; ++rank)
          for (auto& s : shapes(rank, inter ? 5 : 1)) { Cfg c = base(STORE, U8, rank, inter, swz, inner, "store"); shape_into(c, s); v.push_back(c); }
  // 2. reductions: add and max (UINT32 add, FLOAT16 max), inc on the suite's shape
  for (int op : {RED_ADD, RED_MAX})
    for (int inter = 0; inter < 3; ++inter)
      for (int swz : {0, 1})
        for (unsigned inner : {16u, 32u})
          for (unsigned rank = 3; rank <= 5; ++rank)
            for (auto& s : shapes(rank, inter ? 3 : 1)) {
              Cfg c = base(op, op == RED_ADD ? U32 : F16, rank, inter, swz, inner, "reduce"); shape_into(c, s); v.push_back(c);
            }
  for (int inter = 1; inter < 3; ++inter)
    for (unsigned rank = 3; rank <= 5; ++rank) {
      Cfg c = base(RED_INC, U32, rank, inter, 1, 32, "reduce"); shape_into(c, shapes(rank, 5).back()); v.push_back(c);
    }
  // 3. loads into a peer CTA (cluster 2, destination rank 1; cluster 4, destination rank 3) and into the issuing
  //    CTA through a shared::cluster address
  for (int inter = 0; inter < 3; ++inter)
    for (int swz : {0, 1})
      for (unsigned inner : {16u, 32u})
        for (unsigned rank = 3; rank <= 5; ++rank)
          for (auto& s : shapes(rank, inter ? 3 : 1)) {
            Cfg c = base(LOAD_CLUSTER, U8, rank, inter, swz, inner, "peer"); shape_into(c, s);
            c.cluster = 2; c.peer = 1; v.push_back(c);
          }
  for (int inter = 1; inter < 3; ++inter)
    for (unsigned rank = 3; rank <= 5; ++rank)
      for (unsigned peer : {0u, 3u}) {
        Cfg c = base(LOAD_CLUSTER, U8, rank, inter, 1, 32, "peer"); shape_into(c, shapes(rank, 5).back());
        c.cluster = peer ? 4 : 2; c.peer = peer; v.push_back(c);
      }
  // 4. multicast loads, ctaMask 2 (the peer only) and 3 (both CTAs)
  for (int inter = 0; inter < 3; ++inter)
    for (int swz : {0, 1})
      for (unsigned rank = 3; rank <= 5; ++rank)
        for (unsigned mask : {2u, 3u})
          for (auto& s : shapes(rank, inter ? 3 : 1)) {
            Cfg c = base(LOAD_MCAST, U8, rank, inter, swz, inter == 2 ? 32 : 16, "multicast"); shape_into(c, s);
            c.cluster = 2; c.mask = mask; v.push_back(c);
          }
  // 5. elementStrides 2 along each dimension (box 4 there), 3 along dimension 1, 8 along the last
  for (int inter = 0; inter < 3; ++inter)
    for (int swz : {0, 1})
      for (unsigned rank = 3; rank <= 5; ++rank) {
        const unsigned inner = 32;
        for (unsigned d = 0; d < rank; ++d) {
          if (inter == 0 && d == 0) continue;  // ignored without interleave
          Cfg c = base(LOAD_CTA, U8, rank, inter, swz, inner, "element_strides");
          c.estr[d] = 2;
          if (d) { c.box[d] = 4; c.coords[d] = 0; }
          v.push_back(c);
        }
        if (!inter) continue;
        Cfg c = base(LOAD_CTA, U8, rank, inter, swz, inner, "element_strides"); c.estr[1] = 3; c.box[1] = 5; c.coords[1] = 0; v.push_back(c);
        Cfg e = base(LOAD_CTA, U8, rank, inter, swz, inner, "element_strides"); e.estr[rank - 1] = 8; e.box[rank - 1] = 4; e.coords[rank - 1] = 0; v.push_back(e);
      }
  // 6. coordinates partly outside: along each dimension, negative and past the end; OOB fill NONE (UINT8) and
  //    NAN_REQUEST_ZERO_FMA (FLOAT32); loads and stores
  for (int op : {LOAD_CTA, STORE})
    for (int fill : {0, 1}) {
      if (op == STORE && fill) continue;
      for (int inter = 0; inter < 3; ++inter)
        for (int swz : {0, 1})
          for (unsigned rank = 3; rank <= 5; ++rank)
            for (unsigned d = 0; d < rank; ++d)
              for (int side : {-1, 1}) {
                if (inter == 0 && (swz || rank != 4)) continue;  // controls: rank 4, swizzle none
                const TypeInfo& t = fill ? F32 : U8;
                Cfg c = base(op, t, rank, inter, swz, 32, "oob");
                c.fill = fill;
                if (d == 0) { c.dims[0] = 32 / t.es; c.box[0] = 32 / t.es; c.coords[0] = side < 0 ? -int(16 / t.es) : int(16 / t.es); }
                else { c.box[d] = 2; c.coords[d] = side < 0 ? -1 : int(c.dims[d]) - 1; }
                v.push_back(c);
              }
    }
  // 8. rows longer than their stride: globalDim[0] of 1 to 16 (elements, or chunks under chunk_rows) over rows one
  //    chunk apart, one row at z = 0, 12 or 23 of 24 (the explored max 0xa12ed5be65); max, add and stores
  for (int op : {RED_MAX, RED_ADD, STORE})
    for (int inter = 1; inter < 3; ++inter)
      for (uint64_t d0 : {1u, 8u, 9u, 16u})
        for (int z : {0, 12, 23}) {
          const TypeInfo& t = op == RED_MAX ? F16 : op == RED_ADD ? U32 : U8;
          const unsigned chunk = inter == 2 ? 32 : 16;
          Cfg c = make(op, t, 3, inter, inter == 2 ? 1 : 0, "overlap");
          c.dims[0] = d0; c.dims[1] = 1; c.dims[2] = 24; c.strides[0] = chunk; c.strides[1] = chunk;
          c.box[0] = chunk / t.es; c.coords[2] = z;
          v.push_back(c);
        }
  // 7. an innermost start coordinate of 16 bytes, inside the tensor (loads)
  for (int inter = 1; inter < 3; ++inter)
    for (unsigned rank = 3; rank <= 5; ++rank) {
      Cfg c = base(LOAD_CTA, U8, rank, inter, 1, 64, "coord0"); c.box[0] = 32; c.coords[0] = 16; v.push_back(c);
    }
  return v;
}

// ---------------------------------------------------------------- device side
struct Params {
  int op; unsigned rank, dst, win, tx, peer, mask; int c[5]; unsigned long long budget_ns, delay_ns;
};
struct Status { unsigned completed, issued; unsigned long long wait_ns; };

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Operands: %0 shared address (dstMem or srcMem), %1 tensor map, %2 mbarrier, %3..%7 tensorCoords, %8 ctaMask.
#define OPERANDS                                                                                                 \
  ::"r"(sa), "l"(tm), "r"(mb), "r"(p.c[0]), "r"(p.c[1]), "r"(p.c[2]), "r"(p.c[3]), "r"(p.c[4]), "h"(mask16)  \
  : "memory"
#define ISSUE(R, CO)                                                                                              \
  switch (p.op) {                                                                                                 \
    case LOAD_CTA:                                                                                                \
      asm volatile("cp.async.bulk.tensor." #R "d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%0], [%1, " \
                   CO "], [%2];" OPERANDS); break;                                                                \
    case LOAD_CLUSTER:                                                                                            \
      asm volatile("cp.async.bulk.tensor." #R "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, " \
                   CO "], [%2];" OPERANDS); break;                                                                \
    case LOAD_MCAST:                                                                                              \
      asm volatile("cp.async.bulk.tensor." #R "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"        \
                   ".multicast::cluster [%0], [%1, " CO "], [%2], %8;" OPERANDS); break;                         \
    case STORE:                                                                                                   \
      asm volatile("cp.async.bulk.tensor." #R "d.global.shared::cta.tile.bulk_group [%1, " CO "], [%0];" OPERANDS); break; \
    case RED_ADD:                                                                                                 \
      asm volatile("cp.reduce.async.bulk.tensor." #R "d.global.shared::cta.add.tile.bulk_group [%1, " CO "], [%0];" OPERANDS); break; \
    case RED_INC:                                                                                                 \
      asm volatile("cp.reduce.async.bulk.tensor." #R "d.global.shared::cta.inc.tile.bulk_group [%1, " CO "], [%0];" OPERANDS); break; \
    case RED_MAX:                                                                                                 \
      asm volatile("cp.reduce.async.bulk.tensor." #R "d.global.shared::cta.max.tile.bulk_group [%1, " CO "], [%0];" OPERANDS); break; \
  }

// One kernel for every configuration: a cluster of `gridDim.x` CTAs; CTA rank 0 issues the copy. Each CTA's window
// is filled from winit (poison for loads, the source pattern for stores and reductions), and each CTA snapshots its
// window at completion (or at the timeout) and again delay_ns later.
__global__ void __launch_bounds__(256) k_copy(const __grid_constant__ CUtensorMap tmap, Params p, const uint8_t* winit,
                                              uint8_t* snap0, uint8_t* snap1, Status* st) {
  extern __shared__ uint8_t dyn[];
  __shared__ alignas(8) unsigned long long mbar;
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const uint32_t raw = (uint32_t)__cvta_generic_to_shared(dyn);
  const uint32_t pad = (1024u - (raw & 1023u)) & 1023u;  // window base 1024-aligned (the swizzle reads address bits)
  uint8_t* win = dyn + pad;
  uint32_t mb = (uint32_t)__cvta_generic_to_shared(&mbar);
  for (uint32_t i = threadIdx.x * 16; i < p.win; i += blockDim.x * 16)
    *reinterpret_cast<uint4*>(win + i) = *reinterpret_cast<const uint4*>(winit + i);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(mb), "r"(1u) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the window's generic writes before the async proxy
  __syncthreads();
  const bool load = p.op <= LOAD_MCAST;
  const bool dest = load && (p.op == LOAD_CTA ? rank == 0 : p.op == LOAD_CLUSTER ? rank == p.peer : ((p.mask >> rank) & 1));
  if (threadIdx.x == 0 && dest)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mb), "r"(p.tx) : "memory");
  cluster_sync();  // every mbarrier initialised and armed before the copy is issued
  if (threadIdx.x == 0 && rank == 0) {
    uint32_t sa = raw + pad + p.dst;
    const uint16_t mask16 = (uint16_t)p.mask;
    const uint64_t tm = reinterpret_cast<uint64_t>(&tmap);
    if (p.op == LOAD_CLUSTER) {  // the destination CTA's window and mbarrier
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(sa) : "r"(sa), "r"(p.peer));
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(mb) : "r"(mb), "r"(p.peer));
    }
    if (p.rank == 3) { ISSUE(3, "{%3, %4, %5}") }
    else if (p.rank == 4) { ISSUE(4, "{%3, %4, %5, %6}") }
    else { ISSUE(5, "{%3, %4, %5, %6, %7}") }
    if (!load) {
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
    st[rank].issued = 1;
    mb = (uint32_t)__cvta_generic_to_shared(&mbar);
  }
  if (threadIdx.x == 0 && dest) {
    const unsigned long long t0 = gtimer();
    unsigned done = 0;
    for (;;) {  // bounded wait: try_wait in a loop against a globaltimer budget
      asm volatile("{ .reg .pred q; mbarrier.try_wait.parity.shared::cta.b64 q, [%1], %2; selp.u32 %0, 1, 0, q; }"
                   : "=r"(done) : "r"(mb), "r"(0u) : "memory");
      if (done || gtimer() - t0 > p.budget_ns) break;
    }
    st[rank].completed = done; st[rank].wait_ns = gtimer() - t0;
  }
  __syncthreads();
  uint8_t* s0 = snap0 + size_t(rank) * p.win;
  uint8_t* s1 = snap1 + size_t(rank) * p.win;
  for (uint32_t i = threadIdx.x * 16; i < p.win; i += blockDim.x * 16)
    *reinterpret_cast<uint4*>(s0 + i) = *reinterpret_cast<const uint4*>(win + i);
  if (threadIdx.x == 0) { const unsigned long long t1 = gtimer(); while (gtimer() - t1 < p.delay_ns) {} }
  __syncthreads();
  for (uint32_t i = threadIdx.x * 16; i < p.win; i += blockDim.x * 16)
    *reinterpret_cast<uint4*>(s1 + i) = *reinterpret_cast<const uint4*>(win + i);
  cluster_sync();  // no CTA leaves while a peer may still write into its window
}

// ---------------------------------------------------------------- host: the two predictions
static const unsigned kG = 65536;   // global buffer: the tensor at tb_off, every offset decodable in 16 bits
static const int64_t NONE_ = -1;    // byte not written
static const int64_t FILL = 1 << 20;  // FILL | v: a constant byte v (not from the other memory)
static const int64_t CHANGED = 1 << 21;  // an element changed, source unknown (inc)

static uint32_t swz(int mode, uint32_t a) {  // the swizzle of an absolute (here: 1024-aligned window) address
  if (mode == 0) return a;
  const uint32_t bits = mode == 1 ? 1u : mode == 2 ? 3u : 7u;
  return a ^ (((a >> 7) & bits) << 4);
}
static uint64_t stride_of(const Cfg& c, unsigned i) {  // globalStrides[i-1] (bytes between index steps of dim i)
  if (c.strides[0]) return c.strides[i - 1];
  const uint64_t g = c.inter == 2 ? 32 : 16;
  uint64_t s = (c.dims[0] * c.es + g - 1) / g * g;
  for (unsigned k = 1; k < i; ++k) s *= c.dims[k];
  return s;
}
static int64_t goff(const Cfg& c, const int64_t* g) {
  int64_t o = g[0] * int64_t(c.es);
  for (unsigned i = 1; i < c.rank; ++i) o += int64_t(stride_of(c, i)) * g[i];
  return o;
}
static bool inside(const Cfg& c, const int64_t* g) {
  for (unsigned i = 0; i < c.rank; ++i) if (g[i] < 0 || g[i] >= int64_t(c.dims[i])) return false;
  return true;
}
// The OOB fill byte b of an element: zero, or for NAN_REQUEST_ZERO_FMA the pattern measured on the H100
// (oob_nan_pattern=repeat_7ff7, results/findings/h100-tf32-load-rounding): 0x7ff7 repeated.
static int64_t fill_byte(const Cfg& c, unsigned b) { return FILL | (c.fill ? (b % 2 ? 0x7f : 0xf7) : 0); }

struct Pred { std::string refused; std::vector<int64_t> map; uint64_t tx = 0; };
// map: for loads, per window byte of a destination CTA, the global buffer offset it comes from (or FILL | v);
// for stores/reductions, per global buffer byte, the window offset it comes from.
static void put(const Cfg& c, Pred& p, uint64_t logical, int64_t global_byte /* -1: OOB */, int64_t fillv) {
  const uint32_t s = swz(c.swz, c.dst + uint32_t(logical));
  if (is_load(c.op)) { if (s < p.map.size()) p.map[s] = global_byte >= 0 ? global_byte : fillv; }
  else if (global_byte >= 0 && global_byte < int64_t(p.map.size())) p.map[global_byte] = s;
}
// The documented box (the reference model's default, interleave_row_pitch=granule_16B): ceil(boxDim/elementStrides)
// elements along each dimension (elementStrides[0] ignored without interleave), rows padded to 16 bytes, dense,
// swizzled; OOB elements filled (loads) or not written (stores).
static Pred pred_doc(const Cfg& c, size_t n) {
  Pred p; p.map.assign(n, NONE_);
  uint32_t es[5], e[5];
  for (unsigned i = 0; i < 5; ++i) { es[i] = i < c.rank ? c.estr[i] : 1; if (i == 0 && c.inter == 0) es[i] = 1; e[i] = i < c.rank ? (c.box[i] + es[i] - 1) / es[i] : 1; }
  uint64_t pitch = uint64_t(e[0]) * c.es;
  if (c.inter) pitch = (pitch + 15) / 16 * 16;
  uint64_t rows = 1; for (unsigned i = 1; i < c.rank; ++i) rows *= e[i];
  for (uint64_t r = 0; r < rows; ++r) {
    int64_t g[5] = {0, 0, 0, 0, 0}; uint64_t rest = r;
    for (unsigned i = 1; i < c.rank; ++i) { g[i] = c.coords[i] + int64_t(rest % e[i]) * es[i]; rest /= e[i]; }
    for (uint32_t j = 0; j < e[0]; ++j) {
      g[0] = c.coords[0] + int64_t(j) * es[0];
      const bool in = inside(c, g);
      for (unsigned b = 0; b < c.es; ++b)
        put(c, p, r * pitch + uint64_t(j) * c.es + b, in ? int64_t(c.tb_off) + goff(c, g) + b : -1, fill_byte(c, b));
    }
  }
  p.tx = rows * e[0] * c.es;
  return p;
}
// interleave_tile_box=chunk_rows as harness/refmodel defines it: boxDim[0] x the interleave size contiguous global
// bytes per row from the row's start, rows along dimensions 1 .. rank-1 except rank-2 (dimension 1 fastest), dense
// and swizzled in shared memory, tx = the bytes written. The model refuses it with elementStrides != 1 or a row
// outside the tensor (its measured domain).
static Pred pred_chunk(const Cfg& c, size_t n) {
  Pred p;
  if (!c.inter) { p.refused = "no interleave"; return p; }
  for (unsigned i = 0; i < c.rank; ++i)
    if (c.estr[i] != 1) { p.refused = "elementStrides != 1"; return p; }
  p.map.assign(n, NONE_);
  const uint64_t row = uint64_t(c.box[0]) * (c.inter == 2 ? 32 : 16);
  std::vector<unsigned> dims;
  for (unsigned i = 1; i < c.rank; ++i) if (i != c.rank - 2) dims.push_back(i);
  uint64_t rows = 1; for (unsigned i : dims) rows *= c.box[i];
  for (uint64_t r = 0; r < rows; ++r) {
    int64_t g[5] = {0, 0, 0, 0, 0}; uint64_t rest = r;
    for (unsigned i = 0; i < c.rank; ++i) g[i] = c.coords[i];
    for (unsigned i : dims) { g[i] += int64_t(rest % c.box[i]); rest /= c.box[i]; }
    if (!inside(c, g)) { p.refused = "a row outside the tensor"; p.map.clear(); return p; }
    for (uint64_t b = 0; b < row; ++b) put(c, p, r * row + b, int64_t(c.tb_off) + goff(c, g) + int64_t(b), 0);
  }
  p.tx = rows * row;
  return p;
}

struct Cmp { long match = 0, extra = 0, missing = 0, wrong = 0; };
static Cmp compare(const std::vector<int64_t>& act, const std::vector<int64_t>& pred) {
  Cmp m;
  for (size_t i = 0; i < act.size(); ++i) {
    const int64_t a = act[i], p = i < pred.size() ? pred[i] : NONE_;
    if (a == NONE_ && p == NONE_) continue;
    if (a == p || (a == CHANGED && p != NONE_)) ++m.match;
    else if (p == NONE_) ++m.extra;
    else if (a == NONE_) ++m.missing;
    else ++m.wrong;
  }
  return m;
}
static bool exact(const Cmp& m) { return m.extra == 0 && m.missing == 0 && m.wrong == 0; }
static std::string cmp_json(const char* name, const Pred& p, const std::vector<int64_t>& act) {
  char b[256];
  if (!p.refused.empty()) { snprintf(b, sizeof b, ",\"%s\":{\"refused\":\"%s\"}", name, p.refused.c_str()); return b; }
  long n = 0; for (int64_t x : p.map) n += x != NONE_;
  if (act.empty()) {  // nothing measured (a trap): the prediction alone
    snprintf(b, sizeof b, ",\"%s\":{\"bytes\":%ld,\"tx\":%llu}", name, n, (unsigned long long)p.tx);
    return b;
  }
  const Cmp m = compare(act, p.map);
  snprintf(b, sizeof b, ",\"%s\":{\"bytes\":%ld,\"tx\":%llu,\"exact\":%s,\"match\":%ld,\"extra\":%ld,\"missing\":%ld,\"wrong\":%ld}",
           name, n, (unsigned long long)p.tx, exact(m) ? "true" : "false", m.match, m.extra, m.missing, m.wrong);
  return b;
}

// Runs of the actual map, in logical (unswizzled) shared offsets from dstMem: loads [smem, global - tensor base,
// len] or [smem, "fill:vv", len]; stores/reductions [global - tensor base, smem, len] (smem "changed" for inc).
static std::string runs_json(const Cfg& c, const std::vector<int64_t>& act, int cap, int* nruns) {
  struct B { long key; int64_t val; };
  std::vector<B> bs;
  for (size_t i = 0; i < act.size(); ++i) {
    if (act[i] == NONE_) continue;
    if (is_load(c.op)) {
      const long l = long(swz(c.swz, uint32_t(i))) - long(c.dst);
      bs.push_back({l, act[i] & FILL ? act[i] : act[i] - int64_t(c.tb_off)});
    } else {
      int64_t v = act[i];
      if (!(v & (FILL | CHANGED)) && v >= 0) v = long(swz(c.swz, uint32_t(v))) - long(c.dst);
      bs.push_back({long(i) - long(c.tb_off), v});
    }
  }
  std::sort(bs.begin(), bs.end(), [](const B& a, const B& b) { return a.key < b.key; });
  std::string s; int n = 0;
  for (size_t i = 0; i < bs.size();) {
    size_t j = i + 1;
    const bool special = bs[i].val & (FILL | CHANGED);
    while (j < bs.size() && bs[j].key == bs[j - 1].key + 1 &&
           (special ? bs[j].val == bs[i].val : bs[j].val == bs[j - 1].val + 1)) ++j;
    if (n < cap) {
      char b[96];
      if (bs[i].val & FILL) snprintf(b, sizeof b, "[%ld,\"fill:%02x\",%zu]", bs[i].key, unsigned(bs[i].val & 0xff), j - i);
      else if (bs[i].val & CHANGED) snprintf(b, sizeof b, "[%ld,\"changed\",%zu]", bs[i].key, j - i);
      else snprintf(b, sizeof b, "[%ld,%lld,%zu]", bs[i].key, (long long)bs[i].val, j - i);
      s += (n ? "," : "") + std::string(b);
    }
    ++n; i = j;
  }
  *nruns = n;
  return s;
}

// ---------------------------------------------------------------- child: run configurations from N on
static std::string cfg_json(size_t idx, const Cfg& c) {
  auto arr = [&](auto* a) { std::string s = "["; for (unsigned i = 0; i < c.rank; ++i) s += (i ? "," : "") + std::to_string(a[i]); return s + "]"; };
  uint64_t st[4]; for (unsigned i = 1; i < c.rank; ++i) st[i - 1] = stride_of(c, i);
  std::string stj = "["; for (unsigned i = 1; i < c.rank; ++i) stj += (i > 1 ? "," : "") + std::to_string(st[i - 1]); stj += "]";
  char b[768];
  snprintf(b, sizeof b, "{\"idx\":%zu,\"set\":\"%s\",\"op\":\"%s\",\"dtype\":\"%s\",\"rank\":%u,\"interleave\":\"%s\","
           "\"swizzle\":\"%s\",\"oob_fill\":\"%s\",\"dims\":%s,\"strides\":%s,\"box\":%s,\"element_strides\":%s,"
           "\"coords\":%s,\"cluster\":%u,\"peer\":%u,\"cta_mask\":%u,\"tensor_base\":%u,\"smem_offset\":%u",
           idx, c.tag, kOp[c.op], c.dname, c.rank, kInter[c.inter], kSwz[c.swz], kFill[c.fill], arr(c.dims).c_str(),
           stj.c_str(), arr(c.box).c_str(), arr(c.estr).c_str(), arr(c.coords).c_str(), c.cluster, c.peer, c.mask,
           c.tb_off, c.dst);
  return b;
}

static int child(size_t from, const std::string& mode) {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) { printf("#error no CUDA device\n"); return 2; }
  int optin = 0;
  cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  const unsigned win_load = ((unsigned)optin - 2048u) & ~1023u;  // loads: the largest window (overruns land in it)
  const unsigned win_store = 48u << 10;  // stores/reductions: every window offset fits the sources' encodings
  if (cudaError_t e = cudaFuncSetAttribute(k_copy, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(win_load + 1024))) {
    printf("#error cudaFuncSetAttribute(%u bytes): %s (a binary built for another architecture?)\n", win_load + 1024,
           cudaGetErrorName(e));
    return 2;
  }
  uint8_t *gbuf, *winit, *s0, *s1; Status* st;
  cudaMalloc(&gbuf, 2 * kG); cudaMalloc(&winit, win_load); cudaMalloc(&s0, 4 * size_t(win_load));
  cudaMalloc(&s1, 4 * size_t(win_load)); cudaMalloc(&st, 4 * sizeof(Status));
  const std::vector<Cfg> cs = configs(mode);
  const bool repro = mode == "repro";
  int rc = 0;
  bool prev_timeout = false;  // an earlier launch of this process timed out (its transfer may still be pending)
  for (size_t idx = from; idx < cs.size(); ++idx) {
    const Cfg& c = cs[idx];
    std::string line = cfg_json(idx, c) + (prev_timeout ? ",\"after_timeout\":true" : ",\"after_timeout\":false");
    CUtensorMap tm; memset(&tm, 0, sizeof tm);
    cuuint64_t dims[5], strides[4]; cuuint32_t box[5], es[5];
    for (unsigned i = 0; i < c.rank; ++i) { dims[i] = c.dims[i]; box[i] = c.box[i]; es[i] = c.estr[i]; if (i) strides[i - 1] = stride_of(c, i); }
    CUresult er = cuTensorMapEncodeTiled(&tm, c.dt, c.rank, gbuf + c.tb_off, dims, strides, box, es,
                                         (CUtensorMapInterleave)c.inter, (CUtensorMapSwizzle)c.swz,
                                         CU_TENSOR_MAP_L2_PROMOTION_NONE, (CUtensorMapFloatOOBfill)c.fill);
    const char* en = "?"; cuGetErrorName(er, &en);
    line += std::string(",\"encode\":\"") + en + "\"";
    if (er != CUDA_SUCCESS) { printf("%s,\"outcome\":\"encode_refused\"}\n", line.c_str()); fflush(stdout); continue; }
    const bool load = is_load(c.op);
    const unsigned win = load ? win_load : win_store;
    const size_t span = load ? win : kG;
    const Pred doc = pred_doc(c, span), chunk = pred_chunk(c, span);
    Params p{c.op, c.rank, c.dst, win, (unsigned)doc.tx, c.peer, c.mask, {0}, 20000000ull, 200000ull};
    for (int i = 0; i < 5; ++i) p.c[i] = c.coords[i];
    const unsigned ncta = c.cluster;
    std::vector<uint8_t> hw(win), hg(kG);
    // One launch: global buffer from g (all kG bytes), every window from w; returns the final windows (per CTA),
    // the windows at completion, the global buffer and the status.
    auto launch = [&](const std::vector<uint8_t>& g, const std::vector<uint8_t>& w, unsigned tx, std::vector<uint8_t>& at0,
                      std::vector<uint8_t>& at1, std::vector<uint8_t>& gout, std::vector<Status>& so) -> cudaError_t {
      cudaMemcpy(gbuf, g.data(), kG, cudaMemcpyHostToDevice);
      cudaMemcpy(winit, w.data(), win, cudaMemcpyHostToDevice);
      cudaMemset(st, 0, 4 * sizeof(Status));
      cudaMemset(s0, 0, 4 * size_t(win)); cudaMemset(s1, 0, 4 * size_t(win));
      p.tx = tx;
      cudaLaunchConfig_t lc = {};
      lc.gridDim = dim3(ncta); lc.blockDim = dim3(256); lc.dynamicSmemBytes = win + 1024;
      cudaLaunchAttribute at[1];
      at[0].id = cudaLaunchAttributeClusterDimension;
      at[0].val.clusterDim.x = ncta; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
      lc.attrs = at; lc.numAttrs = 1;
      cudaError_t e = cudaLaunchKernelEx(&lc, k_copy, tm, p, (const uint8_t*)winit, s0, s1, st);
      if (e == cudaSuccess) e = cudaDeviceSynchronize();
      if (e == cudaSuccess) e = cudaGetLastError();
      if (e != cudaSuccess) return e;
      at0.resize(size_t(ncta) * win); at1.resize(size_t(ncta) * win); gout.resize(kG); so.resize(ncta);
      cudaMemcpy(at0.data(), s0, at0.size(), cudaMemcpyDeviceToHost);
      cudaMemcpy(at1.data(), s1, at1.size(), cudaMemcpyDeviceToHost);
      cudaMemcpy(gout.data(), gbuf, kG, cudaMemcpyDeviceToHost);
      cudaMemcpy(so.data(), st, ncta * sizeof(Status), cudaMemcpyDeviceToHost);
      return cudaGetLastError();
    };
    std::string res;
    std::vector<std::vector<int64_t>> act(ncta);  // loads: per CTA window; stores: act[0] over the global buffer
    bool completed = true; long late = 0, odd = 0;
    std::vector<long> per_cta(ncta, 0);
    cudaError_t e = cudaSuccess;
    std::vector<uint8_t> A0, A1, AG, B0, B1, BG, C0, C1, CG;
    std::vector<Status> sa, sb, sc;
    if (load) {
      // Three launches: global byte i = i & 0xff (windows poisoned 0x00), i >> 8 (poison 0xff), (i & 0xff) ^ 0x5a
      // (poison 0x00). A written byte is a global byte (source i spelled by the first two) or, where the first and
      // third agree, a constant the device made (the OOB fill).
      std::vector<uint8_t> g1(kG), g2(kG), g3(kG), w0(win, 0x00), wf(win, 0xff);
      for (unsigned i = 0; i < kG; ++i) { g1[i] = uint8_t(i); g2[i] = uint8_t(i >> 8); g3[i] = uint8_t(i) ^ 0x5a; }
      e = launch(g1, w0, doc.tx, A0, A1, AG, sa);
      if (e == cudaSuccess) e = launch(g2, wf, doc.tx, B0, B1, BG, sb);
      if (e == cudaSuccess) e = launch(g3, w0, doc.tx, C0, C1, CG, sc);
      if (e == cudaSuccess)
        for (unsigned k = 0; k < ncta; ++k) {
          act[k].assign(win, NONE_);
          const size_t o = size_t(k) * win;
          for (unsigned i = 0; i < win; ++i) {
            const uint8_t a = A1[o + i], b = B1[o + i], cc = C1[o + i];
            if (A0[o + i] != a || B0[o + i] != b) ++late;
            if (a == 0x00 && b == 0xff && cc == 0x00) continue;
            ++per_cta[k];
            if (a == cc) { act[k][i] = FILL | a; if (b != a) ++odd; }
            else { act[k][i] = int64_t(a) | int64_t(b) << 8; if (cc != (a ^ 0x5a)) ++odd; }
          }
        }
    } else if (!is_red(c.op)) {
      // Stores, three launches: window byte i = i & 0xff (global poisoned 0x00), i >> 8 (poison 0xff), 0x80
      // (poison 0x00). A written global byte's source is the window offset the first two spell.
      std::vector<uint8_t> w1(win), w2(win), w3(win, 0x80), p0(kG, 0x00), pf(kG, 0xff);
      for (unsigned i = 0; i < win; ++i) { w1[i] = uint8_t(i); w2[i] = uint8_t(i >> 8); }
      e = launch(p0, w1, 0, A0, A1, AG, sa);
      if (e == cudaSuccess) e = launch(pf, w2, 0, B0, B1, BG, sb);
      if (e == cudaSuccess) e = launch(p0, w3, 0, C0, C1, CG, sc);
      if (e == cudaSuccess) {
        act[0].assign(kG, NONE_);
        for (unsigned i = 0; i < kG; ++i) {
          const uint8_t a = AG[i], b = BG[i], cc = CG[i];
          if (a == 0x00 && b == 0xff && cc == 0x00) continue;
          ++per_cta[0];
          if (cc == 0x80) act[0][i] = int64_t(a) | int64_t(b) << 8;
          else { act[0][i] = FILL | a; ++odd; }
        }
      }
    } else {
      // Reductions, one launch, per element. UINT32 add: global 0, window element at offset i holds 0x40000000 | i
      // (the result spells its source). FLOAT16 max: global 0xfc00 (-inf), window element at i holds 0x0400 + i/2
      // (positive normal halves order as integers). UINT32 inc: global 0 becomes 1 where an element is reduced.
      std::vector<uint8_t> w(win), g(kG);
      const unsigned esz = c.op == RED_MAX ? 2 : 4;
      for (unsigned i = 0; i < win; i += esz) {
        const uint32_t v = c.op == RED_MAX ? 0x0400u + i / 2 : 0x40000000u | i;
        memcpy(&w[i], &v, esz);
      }
      for (unsigned i = 0; i < kG; i += 2) { const uint16_t v = c.op == RED_MAX ? 0xfc00 : 0; memcpy(&g[i], &v, 2); }
      e = launch(g, w, 0, A0, A1, AG, sa);
      if (e == cudaSuccess) {
        act[0].assign(kG, NONE_);
        for (unsigned o = 0; o < kG; o += esz) {
          uint32_t v = 0, init = c.op == RED_MAX ? 0xfc00u : 0u;
          memcpy(&v, &AG[o], esz);
          if (v == init) continue;
          per_cta[0] += esz;
          for (unsigned b = 0; b < esz; ++b) {
            if (c.op == RED_INC) act[0][o + b] = v == 1 ? CHANGED : (FILL | AG[o + b]);
            else if (c.op == RED_ADD) act[0][o + b] = (v & 0xc0000000u) == 0x40000000u ? int64_t(v & 0xffff) + b : (FILL | AG[o + b]);
            else act[0][o + b] = v >= 0x0400 && v < 0x7c00 ? int64_t(v - 0x0400) * 2 + b : (FILL | AG[o + b]);
          }
        }
      }
    }
    if (e != cudaSuccess) {
      printf("%s%s%s,\"outcome\":\"trap\",\"error\":\"%s\"}\n", line.c_str(), cmp_json("documented", doc, {}).c_str(),
             cmp_json("chunk_rows", chunk, {}).c_str(), cudaGetErrorName(e));
      fflush(stdout);
      return 3;  // the context is gone: the parent goes on from idx + 1 in a fresh process
    }
    // Compare: loads on each destination CTA (other CTAs must stay untouched); stores on the global buffer.
    std::vector<int64_t> cmp_act;  // the destination's map (first destination CTA for loads)
    std::string dests = "[";
    long stray = 0;  // bytes written in a CTA that is not a destination
    if (load) {
      bool first = true;
      for (unsigned k = 0; k < ncta; ++k) {
        const bool d = c.op == LOAD_CTA ? k == 0 : c.op == LOAD_CLUSTER ? k == c.peer : ((c.mask >> k) & 1);
        if (!d) { stray += per_cta[k]; continue; }
        const Status& s1 = sa[k]; const Status& s2 = sb[k]; const Status& s3 = sc[k];
        completed = completed && s1.completed && s2.completed && s3.completed;
        if (first) { cmp_act = act[k]; first = false; }
        else if (act[k] != cmp_act) ++odd;  // multicast: every destination gets the same bytes
        dests += std::string(dests.size() > 1 ? "," : "") + std::to_string(k);
      }
    } else {
      cmp_act = act[0];
    }
    dests += "]";
    prev_timeout |= !completed;
    const Cmp md = compare(cmp_act, doc.map);
    const bool doc_ok = exact(md) && completed;
    const bool chunk_ok = chunk.refused.empty() && exact(compare(cmp_act, chunk.map));
    long written = 0; for (int64_t x : cmp_act) written += x != NONE_;
    int txw = -1;  // loads: does the phase complete when expect_tx is the number of bytes written?
    if (load && !doc_ok && written > 0) {
      std::vector<uint8_t> g1(kG), w0(win, 0), X0, X1, XG; std::vector<Status> sx;
      for (unsigned i = 0; i < kG; ++i) g1[i] = uint8_t(i);
      if (launch(g1, w0, (unsigned)written, X0, X1, XG, sx) != cudaSuccess) {
        printf("%s,\"outcome\":\"trap\",\"error\":\"tx_written relaunch\"}\n", line.c_str()); fflush(stdout); return 3;
      }
      txw = 1;
      for (unsigned k = 0; k < ncta; ++k) {
        const bool d = c.op == LOAD_CTA ? k == 0 : c.op == LOAD_CLUSTER ? k == c.peer : ((c.mask >> k) & 1);
        if (d && !sx[k].completed) txw = 0;
      }
      prev_timeout |= txw == 0;
    }
    const char* outcome = doc_ok ? "documented" : chunk_ok && (!load || txw == 1) ? "chunk_rows"
                          : !completed ? "timeout_other" : "other";
    int nruns = 0;
    const std::string runs = runs_json(c, cmp_act, 96, &nruns);
    char b[640];
    snprintf(b, sizeof b, ",\"outcome\":\"%s\",\"completed\":%s,\"destinations\":%s,\"written\":%ld,"
             "\"stray_bytes\":%ld,\"late_bytes\":%ld,\"odd_bytes\":%ld,\"tx_written_completes\":%s,\"nruns\":%d",
             outcome, load ? (completed ? "true" : "false") : "null", dests.c_str(), written, stray, late, odd,
             txw < 0 ? "null" : txw ? "true" : "false", nruns);
    printf("%s%s%s%s,\"runs\":[%s]}\n", line.c_str(), cmp_json("documented", doc, cmp_act).c_str(),
           cmp_json("chunk_rows", chunk, cmp_act).c_str(), b, runs.c_str());
    fflush(stdout);
    if (repro) {
      rc = doc_ok ? 0 : 1;
      // expected (documented box) vs actual global bytes of the first store launch (window byte i = i & 0xff,
      // global poisoned 0x00), from 64 bytes before the tensor base
      printf("# global memory from the tensor base - 64 (store launch: window byte i = i & 0xff, global poison 0x00;"
             " dstMem/srcMem at window offset %u)\n", c.dst);
      std::vector<uint8_t> want(kG, 0);
      for (unsigned i = 0; i < kG; ++i) if (doc.map[i] >= 0 && !(doc.map[i] & FILL)) want[i] = uint8_t(doc.map[i]);
      long hi = 0; for (unsigned i = 0; i < kG; ++i) if (cmp_act[i] != NONE_ || doc.map[i] != NONE_) hi = i;
      for (long l = long(c.tb_off) - 64; l <= std::min<long>(hi + 32, kG - 32); l += 32) {
        std::string w, g; char h[4];
        for (long k = l; k < l + 32; ++k) { snprintf(h, sizeof h, "%02x", want[k]); w += h; snprintf(h, sizeof h, "%02x", AG[k]); g += h; }
        printf("# %+6ld expected %s\n#        actual   %s%s\n", l - long(c.tb_off), w.c_str(), g.c_str(), w != g ? "  <- differs" : "");
      }
    }
  }
  return rc;
}

// ---------------------------------------------------------------- parent (never touches CUDA)
static double now_s() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static double g_deadline = 1e300;  // the sweep stops (and says so) when it runs past its time budget

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
  std::string buf; char tmp[8192]; bool killed = false;
  for (;;) {
    pollfd pf{fd[0], POLLIN, 0};
    int wait_ms = idle_s * 1000;
    const double left_ms = (g_deadline - now_s()) * 1000.0;
    if (left_ms < wait_ms) wait_ms = left_ms < 1.0 ? 1 : int(left_ms);
    const int r = poll(&pf, 1, wait_ms);
    if (r == 0 || now_s() > g_deadline) { kill(pid, SIGKILL); killed = true; break; }  // hangs, or out of time
    if (r < 0) continue;
    const ssize_t n = read(fd[0], tmp, sizeof tmp);
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
  const cudaError_t e = cudaGetDeviceCount(&ndev);
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

int main(int argc, char** argv) {
  bool repro = false;
  std::string only;  // --only PREFIX: the configurations whose tag starts with PREFIX (an explored id, "overlap")
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--info")) return info_child();
    if (!strcmp(argv[i], "--from") && i + 2 < argc) return child(strtoull(argv[i + 1], nullptr, 10), argv[i + 2]);
    if (!strcmp(argv[i], "--repro")) repro = true;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--list")) {  // the configurations and both predictions, no device needed
      const std::vector<Cfg> cs = configs("sweep");
      for (size_t k = 0; k < cs.size(); ++k) {
        const size_t span = is_load(cs[k].op) ? 240u << 10 : kG;
        const Pred d = pred_doc(cs[k], span), ch = pred_chunk(cs[k], span);
        printf("%s%s%s}\n", cfg_json(k, cs[k]).c_str(), cmp_json("documented", d, d.map).c_str(),
               cmp_json("chunk_rows", ch, ch.map).c_str());
      }
      return 0;
    } else { fprintf(stderr, "usage: %s [--repro | --list | --only PREFIX]\n", argv[0]); return 2; }
  }
  const char* self = "/proc/self/exe";
  char path[4096]; const ssize_t n = readlink(self, path, sizeof path - 1);
  if (n > 0) { path[n] = 0; self = path; }
  std::vector<std::string> lines;
  int rc = run_child(self, {"--info"}, lines, 60);
  for (auto& l : lines) { if (l.rfind("#error ", 0) == 0) fprintf(stderr, "%s\n", l.c_str() + 7); else printf("%s\n", l.c_str()); }
  if (rc != 0) { fprintf(stderr, "device check failed (exit %d): needs an NVIDIA GPU of sm_90 or newer\n", rc); return 2; }
  const std::string mode = repro ? "repro" : only.empty() ? "sweep" : "only:" + only;
  const std::vector<Cfg> cs = configs(mode);
  g_deadline = now_s() + 200.0;  // the sweep's budget: about 3 minutes on an H100
  bool stopped = false;
  size_t next = 0; int finding = 0;
  unsigned n_doc = 0, n_chunk = 0, n_other = 0, n_tother = 0, n_trap = 0, n_refused = 0, n_lost = 0;
  while (next < cs.size()) {
    lines.clear();
    const size_t before = next;
    rc = run_child(self, {"--from", std::to_string(next), mode}, lines, 10);
    for (auto& l : lines) {
      if (l.rfind("{\"idx\":", 0) != 0) { fprintf(l.rfind("#error", 0) == 0 ? stderr : stdout, "%s\n", l.c_str()); continue; }
      printf("%s\n", l.c_str()); fflush(stdout);
      next = strtoull(l.c_str() + 7, nullptr, 10) + 1;
      if (l.find("\"outcome\":\"documented\"") != std::string::npos) ++n_doc;
      else if (l.find("\"outcome\":\"chunk_rows\"") != std::string::npos) ++n_chunk;
      else if (l.find("\"outcome\":\"other\"") != std::string::npos) ++n_other;
      else if (l.find("\"outcome\":\"timeout_other\"") != std::string::npos) ++n_tother;
      else if (l.find("\"outcome\":\"trap\"") != std::string::npos) ++n_trap;
      else if (l.find("\"outcome\":\"encode_refused\"") != std::string::npos) ++n_refused;
    }
    if (rc == 2) { fprintf(stderr, "child could not set up the device\n"); return 2; }
    if (now_s() > g_deadline) { stopped = true; break; }
    if (rc == 0 || rc == 1) finding |= rc;
    if (rc == 3) finding = 1;
    if (next < cs.size() && (next == before || rc < 0)) {  // the child died or hung without reporting `next`
      printf("%s,\"outcome\":\"%s\",\"child_rc\":%d}\n", cfg_json(next, cs[next]).c_str(),
             rc == -2 ? "process_timeout" : rc == -1 ? "child_killed_by_signal" : "child_exited", rc);
      ++n_lost; ++next; finding = 1;
    }
  }
  printf("{\"summary\":{\"configs\":%zu,\"documented\":%u,\"chunk_rows\":%u,\"other\":%u,\"timeout_other\":%u,"
         "\"trap\":%u,\"encode_refused\":%u,\"lost\":%u,\"stopped_early_at\":%s}}\n",
         cs.size(), n_doc, n_chunk, n_other, n_tother, n_trap, n_refused, n_lost,
         stopped ? std::to_string(next).c_str() : "null");
  printf("# documented = the phase completed (loads) and the bytes are the documented box's, exactly; chunk_rows =\n"
         "# the bytes are those of interleave_tile_box=chunk_rows (loads: and the phase completes with expect_tx = the\n"
         "# bytes written); runs = loads [smem from dstMem (unswizzled), global from tensor base, len], stores and\n"
         "# reductions [global from tensor base, smem from srcMem (unswizzled), len]\n");
  if (repro) {
    printf("# repro: the explored store 0x78116b0441 (UINT32 3D, interleave 16B, swizzle 128B, box 4x1x2 at (0,0,15)):\n"
           "# documented: 8 bytes written (x = 0 of rows z = 15, 16: globalDim[0] is 1).\n# %s\n",
           finding ? "FINDING SHOWN: the device wrote other global bytes (see the lines above)"
                   : "not shown: the device wrote the documented box");
    return finding ? 1 : 0;
  }
  return 0;
}
