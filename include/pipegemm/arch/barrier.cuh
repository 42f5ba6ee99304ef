// Thread-block cluster identity and barriers, and CTA-level named barriers.
#pragma once

#include <cstdint>

namespace pipegemm::arch {

// %cluster_ctarank: this CTA's rank in its cluster (0 when launched without a cluster).
__device__ __forceinline__ uint32_t cluster_cta_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// %clusterid.x and %nclusterid.x: which cluster, and how many, along x.
__device__ __forceinline__ uint32_t cluster_id_x() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
  return r;
}
__device__ __forceinline__ uint32_t cluster_count_x() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
  return r;
}

// barrier.cluster.arrive.release + wait.acquire: every non-exited thread of every CTA in the
// cluster. Orders barrier initialisation before remote use, and keeps a CTA's shared memory
// alive until its peers have stopped arriving on its barriers or writing into it.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// bar.sync id, n: a barrier among `n` threads (a multiple of 32) of this CTA; id 0 is
// __syncthreads(), so warpgroups use ids from 1.
__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// bar.arrive id, n: count this warp's threads in without waiting -- the signalling side of a
// one-way handoff to threads that bar.sync on the same id and count.
__device__ __forceinline__ void named_barrier_arrive(uint32_t id, uint32_t threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace pipegemm::arch
