// Completion-semantics stress ("litmus") cases of the chapter's completion mechanisms.
//
// Each case is a forbidden outcome: a correct implementation never shows it, an implementation whose wait
// returns before the groups (or the transaction count) it waits for are complete shows it with high probability,
// because the transfers are made slow on purpose: global sources at random addresses of a buffer far larger than
// L2 (cold), many groups in flight, every SM busy with several blocks. Every case runs `iters` iterations in
// every block and counts violations (zero required). Each case has a planted-fault twin (--fault) that waits too
// little, the way an early-completing wait would behave; the twin must show violations, which is the proof that
// the case can see an early return at all. Inputs derive from --seed (replayable).
//
// The chapter's sentences each case checks:
//   cp_async.wait_group     "cp.async.wait_group instruction will cause executing thread to wait till only N or
//                            fewer of the most recent cp.async-groups are pending and all the prior cp.async-groups
//                            committed by the executing threads are complete."
//   bulk.wait_group         "cp.async.bulk.wait_group instruction will cause the executing thread to wait until only
//                            N or fewer of the most recent bulk async-groups are pending and all the prior bulk
//                            async-groups committed by the executing threads are complete."
//   bulk.wait_group_read    "By default, cp.async.bulk.wait_group instruction will cause the executing thread to
//                            wait until completion of all the bulk async operations in the specified bulk
//                            async-group. ... .read indicates that the waiting has to be done until all the bulk
//                            async operations in the specified bulk async-groups have completed reading from
//                            their source locations." (so the source may be overwritten right after)
//   bulk.mbarrier           complete-tx: the mbarrier's current phase completes when all expected bytes arrived;
//                            a thread that observes the phase complete sees every byte of the transfers.
//   fence_proxy_async       "fence.proxy.async ... establishes ordering between the generic proxy and the async
//                            proxy": generic writes to shared memory, the fence, then a bulk read of them.
//   multicast               .multicast::cluster: the data and the complete-tx arrive in every CTA of ctaMask.
#include "litmus_cases.hpp"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace ptxcts::litmus {

namespace {

__host__ __device__ inline uint64_t mix(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
  return x;
}
// The value of 16-byte element i of the cold source buffer (written once by k_fill).
__host__ __device__ inline uint4 pattern(uint64_t seed, uint64_t i) {
  uint64_t a = mix(seed ^ (i * 0x9E3779B97F4A7C15ULL)), b = mix(a + i);
  return make_uint4(uint32_t(a), uint32_t(a >> 32), uint32_t(b), uint32_t(b >> 32));
}
__device__ inline bool same(uint4 a, uint4 b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__device__ inline uint32_t smem(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }

__global__ void k_fill(uint4* buf, uint64_t n, uint64_t seed) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    buf[i] = pattern(seed, i);
}

// A random element of the cold buffer for (iteration, block, thread, group, chunk).
__device__ inline uint64_t pick(uint64_t seed, int it, int t, int g, int c, uint64_t n) {
  return mix(seed + (uint64_t(it) << 40) + (uint64_t(blockIdx.x) << 24) + (uint64_t(t) << 8) + g * kChunks + c) % n;
}

template <int N>
__device__ inline void cp_async_wait_group() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }
template <int N>
__device__ inline void bulk_wait_group() { asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory"); }
template <int N>
__device__ inline void bulk_wait_group_read() { asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory"); }

// ---- cp.async.wait_group N: every byte of the groups older than the N most recent is there --------------------
template <bool Fault>
__global__ void k_cp_async_wait_group(const uint4* src, uint64_t n, uint64_t seed, int iters, unsigned long long* viol) {
  __shared__ uint4 buf[kGroups][kChunks][kThreads];
  constexpr int N = kGroups / 2;               // groups 0 .. kGroups-N-1 must be complete
  unsigned long long v = 0;
  const int t = threadIdx.x;
  for (int it = 0; it < iters; ++it) {
    for (int g = 0; g < kGroups; ++g) {
      for (int c = 0; c < kChunks; ++c)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem(&buf[g][c][t])),
                     "l"(src + pick(seed, it, t, g, c, n)) : "memory");
      asm volatile("cp.async.commit_group;" ::: "memory");
    }
    if (Fault) cp_async_wait_group<kGroups - 1>();   // the planted fault: waits for group 0 only
    else cp_async_wait_group<N>();
    for (int g = 0; g < kGroups - N; ++g)
      for (int c = 0; c < kChunks; ++c)
        if (!same(buf[g][c][t], pattern(seed, pick(seed, it, t, g, c, n)))) ++v;
    cp_async_wait_group<0>();
  }
  if (v) atomicAdd(viol, v);
}

// ---- bulk async-groups: shared::cta -> global, thread 0 issues, .read or full completion --------------------------
// Mode 0 (wait_group.read N): right after the wait, the block overwrites the sources of the completed groups; the
//   destination must still receive the data as it was before (checked after wait_group 0).
// Mode 1 (wait_group N): right after the wait, thread 0 reads the destinations of the completed groups; they must
//   hold this iteration's data.
template <int Mode, bool Fault>
__global__ void k_bulk_wait_group(uint4* dst, uint64_t seed, int iters, unsigned long long* viol) {
  constexpr int E = kBulkBytes / 16;         // uint4 per group
  __shared__ alignas(128) uint4 s[kGroups][E];
  constexpr int N = kGroups / 2;
  unsigned long long v = 0;
  uint4* d = dst + uint64_t(blockIdx.x) * kGroups * E;
  for (int it = 0; it < iters; ++it) {
    const uint64_t salt = seed ^ (uint64_t(it) << 32) ^ blockIdx.x;
    for (int i = threadIdx.x; i < kGroups * E; i += blockDim.x) s[i / E][i % E] = pattern(salt, i);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // generic writes -> the bulk copy reads them
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int g = 0; g < kGroups; ++g) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(d + g * E),
                     "r"(smem(&s[g][0])), "r"(kBulkBytes) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      }
      if (Mode == 0) {
        if (Fault) bulk_wait_group_read<kGroups>();   // the planted fault: does not wait at all
        else bulk_wait_group_read<N>();
        // Overwrite the released sources at once, last byte of the last released group first: the copy engine
        // reads them in order, so an early return shows as the new bytes in the destination.
        for (int i = (kGroups - N) * E - 1; i >= 0; --i) s[i / E][i % E] = make_uint4(~0u, ~0u, 0, 0);
      } else {
        if (Fault) bulk_wait_group<kGroups>();
        else bulk_wait_group<N>();
        // Read the completed groups' destinations at once, last byte first: the copy engine writes in order,
        // so an early return shows as the previous iteration's bytes.
        for (int i = (kGroups - N) * E - 1; i >= 0; --i)
          if (!same(d[i], pattern(salt, uint64_t(i)))) ++v;
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      bulk_wait_group<0>();
      if (Mode == 0)
        for (int i = 0; i < (kGroups - N) * E; ++i)
          if (!same(d[i], pattern(salt, uint64_t(i)))) ++v;
    }
    __syncthreads();
  }
  if (v && threadIdx.x == 0) atomicAdd(viol, v);
}

// ---- mbarrier complete_tx: kGroups bulk copies global -> shared, one mbarrier phase, every byte checked --------
__device__ inline void mbar_init(uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
}
__device__ inline void mbar_expect_tx(uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes) : "memory");
}
__device__ inline bool mbar_try_wait(uint64_t* bar, unsigned parity) {
  unsigned ok;
  asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(ok) : "r"(smem(bar)), "r"(parity) : "memory");
  return ok != 0;
}

template <bool Fault>
__global__ void k_bulk_mbarrier(const uint4* src, uint64_t n, uint64_t seed, int iters, unsigned long long* viol) {
  constexpr int E = kBulkBytes / 16;
  __shared__ alignas(128) uint4 s[kGroups][E];
  __shared__ alignas(8) uint64_t bar;
  __shared__ uint64_t base[kGroups];
  unsigned long long v = 0;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  for (int it = 0; it < iters; ++it) {
    if (threadIdx.x == 0) {
      mbar_expect_tx(&bar, kGroups * kBulkBytes);
      for (int g = 0; g < kGroups; ++g) {
        base[g] = (pick(seed, it, 0, g, 0, n / E - 1)) * E;   // a random, cold 4 KiB piece
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     ::"r"(smem(&s[g][0])), "l"(src + base[g]), "r"(kBulkBytes), "r"(smem(&bar)) : "memory");
      }
    }
    __syncthreads();
    if (!Fault)   // the planted fault: read without waiting for the phase
      while (!mbar_try_wait(&bar, it & 1)) {}
    for (int i = threadIdx.x; i < kGroups * E; i += blockDim.x)
      if (!same(s[i / E][i % E], pattern(seed, base[i / E] + i % E))) ++v;
    if (Fault)
      while (!mbar_try_wait(&bar, it & 1)) {}
    __syncthreads();
  }
  if (v) atomicAdd(viol, v);
}

// ---- fence.proxy.async: generic writes to shared, the fence, a bulk read of them ----------------------------------
template <bool Fault>
__global__ void k_fence_proxy_async(uint4* dst, uint64_t seed, int iters, unsigned long long* viol) {
  constexpr int E = kBulkBytes / 16;
  __shared__ alignas(128) uint4 s[kGroups][E];
  unsigned long long v = 0;
  uint4* d = dst + uint64_t(blockIdx.x) * kGroups * E;
  for (int it = 0; it < iters; ++it) {
    const uint64_t salt = seed ^ (uint64_t(it) << 32) ^ (uint64_t(blockIdx.x) << 8) ^ 0xf00d;
    for (int i = threadIdx.x; i < kGroups * E; i += blockDim.x) s[i / E][i % E] = pattern(salt, i);
    if (!Fault) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // the planted fault omits it
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int g = 0; g < kGroups; ++g)
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(d + g * E),
                     "r"(smem(&s[g][0])), "r"(kBulkBytes) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      bulk_wait_group<0>();
      for (int i = 0; i < kGroups * E; ++i)
        if (!same(d[i], pattern(salt, i))) ++v;
    }
    __syncthreads();
  }
  if (v && threadIdx.x == 0) atomicAdd(viol, v);
}

// ---- multicast::cluster: one copy lands in every CTA of the cluster, each waits on its own mbarrier -------------
template <bool Fault>
__global__ void k_multicast(const uint4* src, uint64_t n, uint64_t seed, int iters, unsigned long long* viol) {
  constexpr int E = kBulkBytes / 16;
  __shared__ alignas(128) uint4 s[kGroups][E];
  __shared__ alignas(8) uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), csize = cluster.num_blocks();
  unsigned long long v = 0;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster.sync();
  const uint64_t cluster_id = blockIdx.x / csize;
  for (int it = 0; it < iters; ++it) {
    uint64_t base[kGroups];
    for (int g = 0; g < kGroups; ++g)   // every CTA computes the same sources (the same cluster and iteration)
      base[g] = (mix(seed + (uint64_t(it) << 32) + (cluster_id << 8) + g) % (n / E - 1)) * E;
    if (threadIdx.x == 0) mbar_expect_tx(&bar, kGroups * kBulkBytes);
    cluster.sync();   // every CTA expects its bytes before any copy is issued
    if (rank == 0 && threadIdx.x == 0) {
      const uint16_t mask = uint16_t((1u << csize) - 1);
      for (int g = 0; g < kGroups; ++g)
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
                     " [%0], [%1], %2, [%3], %4;"
                     ::"r"(smem(&s[g][0])), "l"(src + base[g]), "r"(kBulkBytes), "r"(smem(&bar)), "h"(mask)
                     : "memory");
    }
    if (!Fault)
      while (!mbar_try_wait(&bar, it & 1)) {}
    for (int i = threadIdx.x; i < kGroups * E; i += blockDim.x)
      if (!same(s[i / E][i % E], pattern(seed, base[i / E] + i % E))) ++v;
    if (Fault)
      while (!mbar_try_wait(&bar, it & 1)) {}
    cluster.sync();   // nobody issues the next copy into a CTA that is still reading this one
  }
  if (v) atomicAdd(viol, v);
}

}  // namespace

const Case kCases[] = {
    {"cp_async.wait_group", "cp.async.wait_group N: the older groups' bytes are in shared memory at once"},
    {"bulk.wait_group", "cp.async.bulk.wait_group N: the older groups' global writes are visible at once"},
    {"bulk.wait_group_read", "cp.async.bulk.wait_group.read N: the sources may be overwritten at once"},
    {"bulk.mbarrier", "mbarrier complete_tx: every byte of the phase's bulk copies is there when it completes"},
    {"fence_proxy_async", "fence.proxy.async: generic writes to shared reach a following bulk read"},
    {"multicast", ".multicast::cluster: data and complete_tx arrive in every CTA of the cluster"},
};

void fill_cold(uint4* buf, uint64_t n, uint64_t seed, int blocks) { k_fill<<<blocks, 256>>>(buf, n, seed); }

Outcome run_case(const std::string& name, bool fault, uint64_t seed, int iters, const uint4* cold, uint64_t n,
                 uint4* dst, int sms) {
  unsigned long long* viol;
  CUDA_OK(cudaMalloc(&viol, sizeof *viol));
  CUDA_OK(cudaMemset(viol, 0, sizeof *viol));
  Outcome o;
  o.blocks = sms * 2;
  cudaEvent_t a, b;
  CUDA_OK(cudaEventCreate(&a));
  CUDA_OK(cudaEventCreate(&b));
  CUDA_OK(cudaEventRecord(a));
  constexpr int E = kBulkBytes / 16;
  if (name == "cp_async.wait_group") {
    (fault ? k_cp_async_wait_group<true> : k_cp_async_wait_group<false>)<<<o.blocks, kThreads>>>(cold, n, seed, iters, viol);
    o.checks = (long long)o.blocks * kThreads * iters * (kGroups / 2) * kChunks;
  } else if (name == "bulk.wait_group") {
    (fault ? k_bulk_wait_group<1, true> : k_bulk_wait_group<1, false>)<<<o.blocks, kThreads>>>(dst, seed, iters, viol);
    o.checks = (long long)o.blocks * iters * (kGroups / 2) * E;
  } else if (name == "bulk.wait_group_read") {
    (fault ? k_bulk_wait_group<0, true> : k_bulk_wait_group<0, false>)<<<o.blocks, kThreads>>>(dst, seed, iters, viol);
    o.checks = (long long)o.blocks * iters * (kGroups / 2) * E;
  } else if (name == "bulk.mbarrier") {
    (fault ? k_bulk_mbarrier<true> : k_bulk_mbarrier<false>)<<<o.blocks, kThreads>>>(cold, n, seed, iters, viol);
    o.checks = (long long)o.blocks * iters * kGroups * E;
  } else if (name == "fence_proxy_async") {
    (fault ? k_fence_proxy_async<true> : k_fence_proxy_async<false>)<<<o.blocks, kThreads>>>(dst, seed, iters, viol);
    o.checks = (long long)o.blocks * iters * kGroups * E;
  } else if (name == "multicast") {
    const int csize = 4;
    o.blocks = (sms / csize) * csize;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(o.blocks);
    cfg.blockDim = dim3(kThreads);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = csize;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    CUDA_OK(cudaLaunchKernelEx(&cfg, fault ? k_multicast<true> : k_multicast<false>, cold, n, seed, iters, viol));
    o.checks = (long long)o.blocks * iters * kGroups * E;
  }
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaEventRecord(b));
  CUDA_OK(cudaEventSynchronize(b));
  float ms = 0;
  CUDA_OK(cudaEventElapsedTime(&ms, a, b));
  o.ms = ms;
  CUDA_OK(cudaMemcpy(&o.violations, viol, sizeof *viol, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(viol));
  return o;
}

}  // namespace ptxcts::litmus
