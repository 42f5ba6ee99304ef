// mbarrier (sm_90): a 64-bit shared-memory barrier with an arrival count and a transaction
// (byte) count. A phase completes when both reach zero; waiters test the parity of the phase
// they expect to complete. One wrapper per instruction; the ring protocol on top of these is
// pipeline/mbarrier_pipeline.cuh.
#pragma once

#include <cstdint>

namespace pipegemm::arch {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// mbarrier.init: `arrivals` arrive-on operations complete each phase (plus any expected bytes).
__device__ __forceinline__ void mbarrier_init(uint64_t* bar, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(arrivals) : "memory");
}

// mbarrier.arrive.expect_tx: announce `bytes` that asynchronous copies will complete on this
// phase, then arrive once. The order against the copies does not matter: the tx-count may go
// transiently negative, and the phase cannot complete before this arrival.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes)
               : "memory");
}

// mbarrier.arrive on a barrier of this CTA.
__device__ __forceinline__ void mbarrier_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}

// mbarrier.arrive on the barrier at the same smem offset in CTA `cta_rank` of the cluster
// (mapa translates the address). Default (.release.cta) semantics: the slot's readers are
// wgmma operand fetches, already retired by wgmma.wait_group before this arrive; a
// .release.cluster here would cost a GPU-wide MEMBAR per k_tile.
__device__ __forceinline__ void mbarrier_arrive_cluster(uint64_t* bar, uint32_t cta_rank) {
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(smem_u32(bar)),
      "r"(cta_rank)
      : "memory");
}

// mbarrier.try_wait.parity: true once the phase with parity `parity` has completed. A fresh
// barrier is in phase 0, so waiting on parity 1 returns at once (the producer's "all empty").
__device__ __forceinline__ bool mbarrier_try_wait_parity(uint64_t* bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n.reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}"
      : "=r"(done)
      : "r"(smem_u32(bar)), "r"(parity)
      : "memory");
  return done != 0;
}

// Blocks until the phase with `parity` has completed. try_wait suspends the thread in hardware
// for a bounded time before returning false, so the loop is not a hot spin.
__device__ __forceinline__ void mbarrier_wait_parity(uint64_t* bar, uint32_t parity) {
  while (!mbarrier_try_wait_parity(bar, parity)) {
  }
}

}  // namespace pipegemm::arch
