// The kernel of an Sm90Gemm composition: the warp-specialized, persistent body that runs the
// producer's loads (Mainloop::load), the consumers' wgmma (mma_k_tile) and the epilogue
// collective's hooks over the work items the tile scheduler hands out, in the schedule's turn.
//
//   D (M,N) = A (M,K) * B (N,K)^T, D row-major, fp32 accumulation (s8: exact s32).
//
// Prologue: barrier init by one thread, published to the copy engine and the peer CTA; the roles
// split and registers move from the producer to the consumers. There is no explicit fill: the
// producer starts at phase 1, so its first STAGES acquires pass at once and it runs STAGES k_tiles
// ahead while the consumers wait on the first full barrier.
// Mainloop: wgmma of k_tile kt runs while the copy engine fills slots kt+1 .. kt+STAGES-1; one
// wgmma group stays in flight, so slot kt-1 goes back to the producer as soon as the group of kt
// has been issued and that of kt-1 has retired.
// Drain: the last group retires; its slot is released so the producer, already loading the next
// tile's k_tiles, can reuse it while this warpgroup runs the epilogue.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>

#include "pipegemm/arch/barrier.cuh"
#include "pipegemm/arch/fence.cuh"
#include "pipegemm/arch/griddep.cuh"
#include "pipegemm/arch/mbarrier.cuh"
#include "pipegemm/arch/setmaxnreg.cuh"
#include "pipegemm/arch/tma.cuh"
#include "pipegemm/arch/wgmma.cuh"
#include "pipegemm/pipeline/mbarrier_pipeline.cuh"
#include "pipegemm/pipeline/ring_state.cuh"
#include "pipegemm/pipeline/stream_k.cuh"
#include "pipegemm/pipeline/tile_scheduler.cuh"
#include "pipegemm/pipeline/trace.cuh"
#include "pipegemm/sm90/gemm.cuh"
#include "pipegemm/sm90/stream_k.cuh"

namespace pipegemm::sm90 {

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads, 1)
    k5_ws_tma_wgmma_kernel(const __grid_constant__ CUtensorMap tmap_a,  // A (M,K), box (BK, BM); MN-major (64, BK)
                           const __grid_constant__ CUtensorMap tmap_b,  // B (N,K), box (BK, BN/cluster_m); MN-major (64, BK)
                           const __grid_constant__ CUtensorMap tmap_d,  // D (M,N), box (kEpiCols, 64)
                           int M, int N, int K, int cluster_m, int raster_group, int stagger, int chunk_parts,
                           const typename Cfg::GeneralArgs general,  // batch and epilogue (the general form)
                           const typename Cfg::SchedulerArgs sk) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using TA = typename Cfg::TA;
  using Mainloop = typename Cfg::Mainloop;
  using Schedule = typename Cfg::Schedule;
  using Scheduler = typename Cfg::Scheduler;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  using Pipeline = pipeline::MbarrierPipeline<STAGES>;
  using State = typename Pipeline::State;

  extern __shared__ uint8_t smem_raw[];
  auto& smem =
      *reinterpret_cast<typename Cfg::Smem*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  TA* sA = &smem.a[0][0];          // (BM,BK,STAGES), 128B-swizzled, K- or MN-major
  TA* sB = &smem.b[0][0];          // (BN,BK,STAGES), 128B-swizzled, K- or MN-major
  // (64,128 B, kEpiBufs, kConsumers). By byte offset: from &smem.d[0][0][0] NVVM folds each
  // chunk's address into other integer ops (same addresses, different and in the fp32-D
  // kernels longer SASS); the offset keeps the code of the hand-placed layout.
  uint8_t* sD = reinterpret_cast<uint8_t*>(&smem) + offsetof(typename Cfg::Smem, d);
  const Pipeline pipe{smem.full, smem.empty, cluster_m};

  const int wg = threadIdx.x / 128;
  const int tid_wg = threadIdx.x % 128;
  const uint32_t cta_rank = cluster_m > 1 ? arch::cluster_cta_rank() : 0u;
  const int cluster_idx = cluster_m > 1 ? int(arch::cluster_id_x()) : int(blockIdx.x);
  const int cluster_cnt = cluster_m > 1 ? int(arch::cluster_count_x()) : int(gridDim.x);

  const int m_tiles = (M + BM - 1) / BM;
  const int n_tiles = (N + BN - 1) / BN;
  const int k_tiles = (K + BK - 1) / BK;  // the last one may be partial: TMA fills zeros
  const pipeline::TileScheduler sched = [&] {  // units of cluster_m tiles
    return Scheduler::template units<Cfg>(sk, m_tiles, n_tiles, cluster_m, raster_group);
  }();
  // The work: every product's units, product by product (one product: the units).
  int work = sched.total;
  if constexpr (Cfg::kGeneral) work *= general.batch;

  // ============================== PROLOGUE ==============================
  if (threadIdx.x == 0) {
    pipe.init(Cfg::kTileConsumers);
    arch::fence_mbarrier_init_cluster();
  }
  if (cluster_m > 1)
    arch::cluster_sync();
  else
    __syncthreads();
  // Programmatic dependent launch (a no-op unless launched with it: detail::pdl_enabled()): the setup
  // above overlaps the previous kernel's tail; no global memory is touched before the wait. The
  // next kernel may launch at once: it takes SMs as this grid's CTAs leave them, and waits too.
  arch::griddep_wait();
  arch::griddep_launch_dependents();

  if (wg == 0) {
    // ============================== PRODUCER ==============================
    arch::setmaxnreg_dec<Cfg::kProducerRegs>();
    if (tid_wg == 0) {
      arch::tma_prefetch_descriptor(&tmap_a);
      arch::tma_prefetch_descriptor(&tmap_b);
      State w = pipeline::make_producer_start_state<STAGES>();
      // Trace (empty unless PIPEGEMM_TRACE): this thread records the producer; tiles are counted
      // per CTA (seq: the CTA's units in order).
      PIPEGEMM_TRACE_LANE(trace, producer, 0, true);
      const LoadContext<TA> ld{sA, sB, &tmap_a, &tmap_b, cluster_m, int(cta_rank), BN / cluster_m,
                               uint16_t((1u << cluster_m) - 1)};
      // One item's k_tiles [k0, k1) (the whole K unless stream-K); seq counts the CTA's items.
      auto produce = [&](int item, int k0, int k1, pipeline::SegmentRole, int seq) {
        const int unit = Cfg::kGeneral ? item % sched.total : item;
        const pipeline::TileCoord o = unit_origin<Cfg>(sched.coords(unit), cluster_m, int(cta_rank));
        const int m0 = o.m, n0 = o.n;
        int bt_a = 0, bt_b = 0;  // the product each operand's map is read at
        if constexpr (Cfg::kGeneral) {
          const int bt = item / sched.total;
          bt_a = general.a_bcast ? 0 : bt;
          bt_b = general.b_bcast ? 0 : bt;
        }
        PIPEGEMM_TRACE_STAMP(trace, tile_begin, seq, -1, -1);
        for (int kt = k0; kt < k1; ++kt) {
          pipe.producer_acquire(w);
          PIPEGEMM_TRACE_STAMP(trace, slot_free, seq, kt, w.index);
          uint64_t* full = pipe.full_barrier(w);
          pipe.producer_commit(w, Mainloop::load(ld, w.index, kt, m0, n0, bt_a, bt_b, full, item == cluster_idx));
          PIPEGEMM_TRACE_STAMP(trace, load_issued, seq, kt, w.index);
          ++w;
        }
        PIPEGEMM_TRACE_STAMP(trace, tile_end, seq, -1, -1);
      };
      Scheduler::template for_each<Cfg>(sk, cluster_idx, cluster_cnt, cluster_idx, cluster_cnt, work, k_tiles,
                                        produce);
    }
    __syncwarp();
  } else {
    // ============================== CONSUMERS ==============================
    arch::setmaxnreg_inc<Cfg::kConsumerRegs>();
    const int c = wg - 1;           // rows kConsumerRows c .. of the CTA tile; ping-pong: every other tile
    // Trace: thread 0 of each consumer records (tiles as the producer counts them).
    PIPEGEMM_TRACE_LANE(trace, consumer, c, tid_wg == 0);
    const int row_c = Cfg::kPingpong ? 0 : Cfg::kConsumerRows * c;  // the consumer's first row in the tile

    // Per m64 block mb (rows row_c + 64 mb): a (64,BN) fp32 (s8: s32) fragment, layout in arch/wgmma.cuh.
    // The forms with one block (all but the wide tile) use blk[0], named acc.
    typename Cfg::TAcc blk[Cfg::kMBlocks][Cfg::kAccRegs];
    auto& acc = blk[0];
#pragma unroll
    for (int mb = 0; mb < Cfg::kMBlocks; ++mb)
#pragma unroll
      for (int i = 0; i < Cfg::kAccRegs; ++i) blk[mb][i] = 0;
    State r;                        // consumers start at phase 0: wait for the first fill
    // The epilogue collective (its arguments: the store epilogues take the first; the deferred one
    // chunk_parts; the fused one the epilogue's arguments, the bias buffer and the bounds).
    if (tid_wg == 0) arch::tma_prefetch_descriptor(&tmap_d);
    uint8_t* d_bufs = sD + c * Cfg::kEpiBufs * Cfg::kEpiBufBytes;
    // The epilogue collective (its arguments: the deferred store chunk_parts; the fused epilogue its
    // arguments, the bias buffer and the bounds).
    using EpilogueCollective = typename Cfg::Epilogue::template Collective<Cfg>;
    typename EpilogueCollective::Registers epi_regs;
    EpilogueCollective epilogue(epi_regs, chunk_parts, general, smem, M, N);

    // The wide tile: its schedule made again here from opaque M, N, so that the divisions' results
    // are not live across setmaxnreg beside 192 accumulators (ptxas spilled two of them, 8 bytes).
    const pipeline::TileScheduler csched = [&] {
      if constexpr (Cfg::kMBlocks > 1)
        return unit_grid<Cfg>((opaque(M) + BM - 1) / BM, (opaque(N) + BN - 1) / BN, opaque(cluster_m), raster_group);
      else
        return sched;
    }();
    if constexpr (Cfg::kMBlocks > 1) work = csched.total;
    typename Schedule::ConsumerState sched_state;  // the schedule's (cooperative: the stagger's first unit)
    const int first_item = Schedule::first_item(cluster_idx, cluster_cnt, c);
    const int item_step = Schedule::item_step(cluster_cnt);
    Schedule::start(r, c, k_tiles);
    // One item's k_tiles [k0, k1) in its role (stream-K; otherwise whole), seq counting the CTA's items.
    auto consume = [&](int item, int k0, int k1, pipeline::SegmentRole role, int seq) {
      const int unit = Cfg::kGeneral ? item % csched.total : item;
      const int bt = Cfg::kGeneral ? item / csched.total : 0;  // the product
      (void)bt;
      const pipeline::TileCoord o = unit_origin<Cfg>(csched.coords(unit), cluster_m, int(cta_rank));
      const int m0 = o.m, n0 = o.n;
      PIPEGEMM_TRACE_STAMP(trace, tile_begin, seq, -1, -1);
      auto tile = epilogue.begin_tile(EpilogueContext{d_bufs, &tmap_d, c, tid_wg, row_c}, m0, n0, role);
      Schedule::wait_turn(item, cluster_idx, cluster_cnt, c);
      int stagger_kt = -1;
      Schedule::stagger_point(stagger_kt, sched_state, c, stagger, k0, k1);

      // ============================== MAINLOOP ==============================
      State prev = r;
      for (int kt = k0; kt < k1; ++kt) {
        // Trace: the wait's clocks now, its stamps written after the k_tile's wgmma are issued.
        PIPEGEMM_TRACE_CLOCK(t_wait);
        pipe.consumer_wait(r);
        PIPEGEMM_TRACE_CLOCK(t_full);
        mma_k_tile<Cfg>(blk, sA, sB, r.index, kt, k0, row_c);
        if (kt == stagger_kt) arch::named_barrier_arrive(kStaggerBarrier, 256);
        PIPEGEMM_TRACE_STAMP_AT(trace, stage_wait, t_wait, seq, kt, r.index);
        PIPEGEMM_TRACE_STAMP_AT(trace, stage_full, t_full, seq, kt, r.index);
        PIPEGEMM_TRACE_STAMP_AT(trace, mma_begin, t_full, seq, kt, r.index);
        epilogue.under_mainloop(EpilogueContext{d_bufs, &tmap_d, c, tid_wg, row_c}, tile, kt, k0, k1, role);
        arch::wgmma_wait_group<1>();
        if (kt > k0) {  // group kt-1 has retired (its slot goes back at once: no stage_released stamp)
          PIPEGEMM_TRACE_STAMP(trace, mma_end, seq, kt - 1, prev.index);
          pipe.consumer_release(prev, tid_wg);
        }
        prev = r;
        ++r;
      }
      Schedule::pass_turn(item, cluster_cnt, work, c);
      // ============================== DRAIN ==============================
      arch::wgmma_wait_group<0>();
#pragma unroll
      for (int mb = 0; mb < Cfg::kMBlocks; ++mb) arch::wgmma_fence_operands(blk[mb]);
      PIPEGEMM_TRACE_STAMP(trace, mma_end, seq, k1 - 1, prev.index);
      pipe.consumer_release(prev, tid_wg);
      Schedule::after_tile(r, k_tiles);

      // ============================== STREAM-K ==============================
      if constexpr (Scheduler::kStreamK) {
        if (stream_k_reduce<Cfg>(acc, sk, role, item, cluster_idx, cluster_m, int(cta_rank), c, tid_wg, &smem.a[0][0])) {
          PIPEGEMM_TRACE_STAMP(trace, tile_end, seq, -1, -1);
          return;
        }
      }

      // ============================== EPILOGUE ==============================
      PIPEGEMM_TRACE_STAMP(trace, epilogue_begin, seq, -1, -1);
      epilogue.end_tile(EpilogueContext{d_bufs, &tmap_d, c, tid_wg, row_c}, tile, blk, m0, n0, bt, k0, k1);
      PIPEGEMM_TRACE_STAMP(trace, epilogue_end, seq, -1, -1);
      PIPEGEMM_TRACE_STAMP(trace, tile_end, seq, -1, -1);
    };
    Scheduler::template for_each<Cfg>(sk, cluster_idx, cluster_cnt, first_item, item_step, work, k_tiles, consume);
    epilogue.finish(EpilogueContext{d_bufs, &tmap_d, c, tid_wg, row_c});
    if (tid_wg == 0) arch::tma_store_wait_all<0>();  // smem stays alive until the stores are done
  }
  // Keep this CTA's barriers and smem alive until the peer has stopped arriving and writing.
  if (cluster_m > 1) arch::cluster_sync();
#else
  __trap();  // built for sm_90a only; check_variant() refuses other GPUs before a launch
#endif
}

}  // namespace pipegemm::sm90
