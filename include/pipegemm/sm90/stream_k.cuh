// Stream-K's partial sums (StreamKScheduler): a `part` segment leaves its consumers' accumulators
// in a global slot and raises the slot's flag; the worker whose `finish` completes the unit adds
// the parts (StreamKPlan's order) before the unit's epilogue.
#pragma once

#include <cstdint>
#include <type_traits>

#include "pipegemm/arch/barrier.cuh"
#include "pipegemm/arch/cp_async.cuh"
#include "pipegemm/arch/flag.cuh"
#include "pipegemm/arch/ld_shared.cuh"
#include "pipegemm/arch/mbarrier.cuh"
#include "pipegemm/sm90/named_barriers.cuh"
#include "pipegemm/sm90/tile_scheduler.cuh"

namespace pipegemm::sm90 {

// Slot (worker, CTA rank, consumer) -- worker = the cluster (or CTA) index.
__device__ __forceinline__ int partial_slot(int worker, int cluster_m, int cta_rank, int consumer) {
  return (worker * cluster_m + cta_rank) * 2 + consumer;
}
// A consumer's accumulators to / from a partial slot: element i of thread t at [i][t], so a warp's
// accesses are 128 contiguous bytes; 4-byte ones, because vectors would need the accumulators in
// aligned register quads (copies, spills, and waits ptxas injects around the wgmma). L2-coherent
// (st.cg / ld.cg): the slot is written on one SM and read on another.
template <class Cfg>
__device__ __forceinline__ void store_partial(const typename Cfg::TAcc (&acc)[Cfg::kAccRegs], void* slot, int t) {
  auto* v = static_cast<typename Cfg::TAcc*>(slot) + t;
#pragma unroll
  for (int i = 0; i < Cfg::kAccRegs; ++i) __stcg(v + i * 128, acc[i]);
}
// acc += the slot's sums (fp32 or exact s32), through `stage` (the consumer's share of the ring,
// idle once a finish's mainloop is done): cp.async copies the slot in, 16 bytes per thread at a
// time and no registers (besides its 128 accumulators a consumer has few to keep loads in
// flight), then each thread reads its own elements from shared memory. (ld.cg straight into the
// accumulators measured the same at 4096^3.) The consumer's 128 threads, behind named
// barrier `barrier` (both sides: the stage is free / has landed).
template <class Cfg>
__device__ __forceinline__ void add_partial(typename Cfg::TAcc (&acc)[Cfg::kAccRegs], const void* slot,
                                            uint32_t stage, int t, int barrier) {
  constexpr int kChunks = Cfg::kAccRegs * 128 * 4 / 16;  // 16-byte pieces of the slot
  static_assert(kChunks % 128 == 0, "whole rounds of the 128 threads");
  arch::named_barrier_sync(barrier, 128);
#pragma unroll 8
  for (int q = t; q < kChunks; q += 128) arch::cp_async_cg_16(stage + 16 * q, static_cast<const char*>(slot) + 16 * q);
  arch::cp_async_wait_all();
  arch::named_barrier_sync(barrier, 128);
#pragma unroll
  for (int i = 0; i < Cfg::kAccRegs; ++i) {
    const uint32_t w = arch::lds_b32(stage + 4 * (i * 128 + t));
    if constexpr (std::is_same_v<typename Cfg::TAcc, float>)
      acc[i] += __uint_as_float(w);
    else
      acc[i] += int32_t(w);
  }
}

// After a segment's mainloop: a `part` stores its sums and raises its flag (returns true: the
// segment has no epilogue); a `finish` waits for its unit's parts and adds them. A finish is its
// worker's last segment: once both consumers have drained, no load or wgmma touches the ring again,
// and each consumer stages its parts in half of it (ring: the ring's first byte).
template <class Cfg>
__device__ __forceinline__ bool stream_k_reduce(typename Cfg::TAcc (&acc)[Cfg::kAccRegs], const StreamKArgs& sk,
                                                pipeline::SegmentRole role, int item, int worker, int cluster_m,
                                                int cta_rank, int c, int tid_wg, const void* ring) {
  static_assert(Cfg::kMBlocks == 1, "a partial slot holds one m64 block");
  auto slot = [&](int w) { return partial_slot(w, cluster_m, cta_rank, c); };
  auto slot_sums = [&](int i) {
    return static_cast<char*>(sk.partials) + int64_t(i) * (Cfg::kAccRegs * 128 * sizeof(typename Cfg::TAcc));
  };
  if (role == pipeline::SegmentRole::part) {
    // The other threads' stores are ordered before thread 0's release by the barrier.
    const int mine = slot(worker);
    store_partial<Cfg>(acc, slot_sums(mine), tid_wg);
    arch::named_barrier_sync(kConsumerBarrier + c, 128);
    if (tid_wg == 0) arch::st_release_gpu(sk.flags + mine, 1);
    return true;
  }
  if (role == pipeline::SegmentRole::finish) {
    constexpr int kRingBytes = Cfg::STAGES * Cfg::kStageBytes;
    static_assert(Cfg::kAccRegs * 128 * 4 <= kRingBytes / 2, "a partial slot fits half the ring");
    const uint32_t stage = arch::smem_u32(ring) + uint32_t(c * (kRingBytes / 2));
    arch::named_barrier_sync(kBiasBarrier, 256);
    const int parts = sk.plan.parts_of_finish(worker, item);
    if (tid_wg == 0) {
      for (int j = 1; j <= parts; ++j) {
        int* flag = sk.flags + slot(worker - j);
        while (arch::ld_acquire_gpu(flag) == 0) {
        }
        *flag = 0;  // consumed: zero for the next launch
      }
    }
    for (int j = 1; j <= parts; ++j)
      add_partial<Cfg>(acc, slot_sums(slot(worker - j)), stage, tid_wg, kConsumerBarrier + c);
  }
  return false;
}

}  // namespace pipegemm::sm90
