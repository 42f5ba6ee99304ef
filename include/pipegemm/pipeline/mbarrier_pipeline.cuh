// The full/empty mbarrier ring of a warp-specialized pipeline (Hopper rung).
//
//   full[stage]   completes when the stage's bytes have landed (armed by the producer with
//                 expect_tx, completed by the copy engine's complete_tx);
//   empty[stage]  completes when every consumer that reads the stage has released it; with a
//                 cluster whose producers multicast into each other's smem, the consumers of
//                 every CTA in the cluster release every CTA's slot.
//
// Producer:  producer_acquire(w)  -> issue copies on full_barrier(w) -> producer_commit(w, bytes); ++w
// Consumer:  consumer_wait(r)     -> read the stage                  -> consumer_release(r);       ++r
//
// The producer's RingState starts at phase 1 (make_producer_start_state): on fresh barriers
// a wait for the phase with parity 1 returns at once, so the first STAGES acquires pass.
#pragma once

#include <cstdint>

#include "pipegemm/arch/mbarrier.cuh"
#include "pipegemm/pipeline/ring_state.cuh"

namespace pipegemm::pipeline {

template <int STAGES>
struct MbarrierPipeline {
  using State = RingState<STAGES>;
  uint64_t* full;   // [STAGES] in shared memory
  uint64_t* empty;  // [STAGES] in shared memory
  int cluster_ctas; // CTAs whose consumers release each slot (1 = no multicast)

  // One thread initialises; the caller then fences (fence_mbarrier_init_cluster) and syncs the
  // cluster (or CTA) before anyone waits or arrives. `consumers_per_cta`: arrivals per CTA
  // that release a slot (one elected thread per consumer warpgroup).
  __device__ void init(int consumers_per_cta) const {
    for (int s = 0; s < STAGES; ++s) {
      arch::mbarrier_init(&full[s], 1);  // the producer's arrive.expect_tx
      arch::mbarrier_init(&empty[s], uint32_t(consumers_per_cta * cluster_ctas));
    }
  }

  __device__ uint64_t* full_barrier(const State& s) const { return &full[s.index]; }

  // Wait until every consumer (of every CTA the copies reach) has released the slot.
  __device__ void producer_acquire(const State& s) const { arch::mbarrier_wait_parity(&empty[s.index], s.phase); }

  // The slot is full once `bytes` (this CTA's share of all copies landing in it) complete.
  __device__ void producer_commit(const State& s, uint32_t bytes) const {
    arch::mbarrier_arrive_expect_tx(&full[s.index], bytes);
  }

  // Wait until the slot's data has landed.
  __device__ void consumer_wait(const State& s) const { arch::mbarrier_wait_parity(&full[s.index], s.phase); }

  // Called by all 128 threads of a consumer warpgroup after its reads of the slot completed
  // (wgmma_wait_group): thread i < cluster_ctas releases the slot of CTA rank i.
  __device__ void consumer_release(const State& s, int thread_in_warpgroup) const {
    if (cluster_ctas == 1) {
      if (thread_in_warpgroup == 0) arch::mbarrier_arrive(&empty[s.index]);
    } else if (thread_in_warpgroup < cluster_ctas) {
      arch::mbarrier_arrive_cluster(&empty[s.index], uint32_t(thread_in_warpgroup));
    }
  }
};

}  // namespace pipegemm::pipeline
