// k4 multistage, seed form: the CuTe kernel of seed 000 ("09_multistage_gemm"), kept faithful.
//
//   D (M,N) = A (M,K) * B (N,K)^T, fp16 in and out, TN, every operand row-major.
//   128x128x32 CTA tile, STAGES = 3 ring, Swizzle<3,3,3> smem atom (8 x BK), SM80_16x8x16 mma on
//   2x2 warps (permuted to 32x32x16), cp.async 128-bit G2S, ldmatrix S2R with next-k_block
//   prefetch, prologue of STAGES-1 k_tiles, cp_async_wait<STAGES-2>, register -> global epilogue.
//
// Differences from the seed, all outside the pipeline: leading dimensions are parameters (the
// seed hard-codes K and N), the accumulator type is a config choice (fp16 as in the seed, or
// fp32 converted to fp16 in the epilogue), and the ring positions use RingState.
// Shapes must be multiples of the tile (the launcher refuses others before any launch).
#pragma once

#include <cute/tensor.hpp>

#include "pipegemm/introspect/mechanism.hpp"
#include "pipegemm/pipeline/ring_state.cuh"
#include "pipegemm/pipeline/trace.cuh"

namespace pipegemm::kernels::k4_seed {

using namespace cute;

template <class MmaOp_>
struct SeedConfig {
  using T = cute::half_t;       // A, B, D element
  using MmaOp = MmaOp_;         // SM80_16x8x16_F16F16F16F16_TN or SM80_16x8x16_F32F16F16F32_TN
  static constexpr int BM = 128;
  static constexpr int BN = 128;
  static constexpr int BK = 32;
  static constexpr int STAGES = 3;
  // The seed as written: cp.async ring, ldmatrix with next-k_block prefetch, CuTe's MMA order,
  // 2x2 warps, register -> global epilogue, 2-D grid.
  static constexpr Mechanism kMechanism = [] {
    Mechanism m;
    m.load = LoadPath::cp_async;
    m.mma = MmaKind::mma_sync;
    m.pipeline = PipelineKind::cp_async_ring;
    m.order = TileOrder::rows_by_cols;
    m.epilogue = EpilogueKind::direct;
    m.load_bytes = 16;
    m.ldmatrix = true;
    m.s2r_prefetch = true;
    m.warps_m = m.warps_n = 2;
    return m;
  }();

  // 8 rows x BK, row-major, swizzled: 8 rows = one Swizzle<3,3,3> period = one ldmatrix 8x8
  // footprint; 2^3 = 8 halves = one 128-bit vector. No bank conflicts for G2S or S2R.
  using SmemLayoutAtom = decltype(composition(
      Swizzle<3, 3, 3>{},
      make_layout(make_shape(Int<8>{}, Int<BK>{}), make_stride(Int<BK>{}, Int<1>{}))));
  using SmemLayoutA = decltype(tile_to_shape(
      SmemLayoutAtom{}, make_shape(Int<BM>{}, Int<BK>{}, Int<STAGES>{})));  // (BM,BK,STAGES)
  using SmemLayoutB = decltype(tile_to_shape(
      SmemLayoutAtom{}, make_shape(Int<BN>{}, Int<BK>{}, Int<STAGES>{})));  // (BN,BK,STAGES)

  using TiledMma = decltype(make_tiled_mma(MMA_Atom<MmaOp>{},
                                           make_layout(make_shape(Int<2>{}, Int<2>{}, Int<1>{})),
                                           Tile<Int<32>, Int<32>, Int<16>>{}));

  // G2S: cp.async.cg 16 bytes per thread; 32x4 threads x 8 halves cover a 32x32 slab per step.
  using G2SCopy = decltype(make_tiled_copy(
      Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<cute::uint128_t>, T>{},
      make_layout(make_shape(Int<32>{}, Int<4>{}), make_stride(Int<4>{}, Int<1>{})),
      make_layout(make_shape(Int<1>{}, Int<8>{}))));
  // S2R: ldmatrix.x4
  using S2RCopyAtom = Copy_Atom<SM75_U32x4_LDSM_N, T>;

  static constexpr int kNumThreads = size(TiledMma{});
  static constexpr int kSmemBytes = int((cosize(SmemLayoutA{}) + cosize(SmemLayoutB{})) * sizeof(T));
  static_assert(kNumThreads == 128, "2x2 warps");
  static_assert(kSmemBytes == 48 * 1024, "seed 000: (128x32x3) x 2 operands x 2 bytes = 48 KB");
  static_assert(STAGES >= 2, "cp_async_wait<STAGES-2> needs at least two slots");
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads)
    k4_seed_kernel(typename Cfg::T* __restrict__ Dptr, const typename Cfg::T* __restrict__ Aptr,
                   const typename Cfg::T* __restrict__ Bptr, int M, int N, int K, int lda,
                   int ldb, int ldd) {
  using T = typename Cfg::T;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;

  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* smem_a = reinterpret_cast<T*>(smem_raw);
  T* smem_b = smem_a + cosize(typename Cfg::SmemLayoutA{});

  const int tid = threadIdx.x;
  const int bn_idx = blockIdx.x;  // the seed's bx: N tiles
  const int bm_idx = blockIdx.y;  // the seed's by: M tiles

  Tensor mA = make_tensor(make_gmem_ptr(Aptr), make_shape(M, K), make_stride(lda, Int<1>{}));  // (M,K)
  Tensor mB = make_tensor(make_gmem_ptr(Bptr), make_shape(N, K), make_stride(ldb, Int<1>{}));  // (N,K)
  Tensor mD = make_tensor(make_gmem_ptr(Dptr), make_shape(M, N), make_stride(ldd, Int<1>{}));  // (M,N)

  Tensor gA = local_tile(mA, make_tile(Int<BM>{}, Int<BK>{}), make_coord(bm_idx, _));  // (BM,BK,k_tiles)
  Tensor gB = local_tile(mB, make_tile(Int<BN>{}, Int<BK>{}), make_coord(bn_idx, _));  // (BN,BK,k_tiles)
  Tensor gD = local_tile(mD, make_tile(Int<BM>{}, Int<BN>{}), make_coord(bm_idx, bn_idx));  // (BM,BN)

  Tensor sA = make_tensor(make_smem_ptr(smem_a), typename Cfg::SmemLayoutA{});  // (BM,BK,STAGES)
  Tensor sB = make_tensor(make_smem_ptr(smem_b), typename Cfg::SmemLayoutB{});  // (BN,BK,STAGES)

  typename Cfg::TiledMma tiled_mma;
  auto thr_mma = tiled_mma.get_slice(tid);
  Tensor tCrA = thr_mma.partition_fragment_A(gA(_, _, 0));  // (MMA,MMA_M,k_blocks)
  Tensor tCrB = thr_mma.partition_fragment_B(gB(_, _, 0));  // (MMA,MMA_N,k_blocks)
  Tensor tCrD = thr_mma.partition_fragment_C(gD);           // (MMA,MMA_M,MMA_N) accumulators
  clear(tCrD);

  // S2R (ldmatrix): smem views partitioned like the MMA's A/B operands.
  auto s2r_copy_a = make_tiled_copy_A(typename Cfg::S2RCopyAtom{}, tiled_mma);
  auto s2r_thr_a = s2r_copy_a.get_slice(tid);
  Tensor tAsA = s2r_thr_a.partition_S(sA);           // (CPY,CPY_M,k_blocks,STAGES)
  Tensor tCrA_view = s2r_thr_a.retile_D(tCrA);       // (CPY,CPY_M,k_blocks)
  auto s2r_copy_b = make_tiled_copy_B(typename Cfg::S2RCopyAtom{}, tiled_mma);
  auto s2r_thr_b = s2r_copy_b.get_slice(tid);
  Tensor tBsB = s2r_thr_b.partition_S(sB);           // (CPY,CPY_N,k_blocks,STAGES)
  Tensor tCrB_view = s2r_thr_b.retile_D(tCrB);       // (CPY,CPY_N,k_blocks)

  // G2S (cp.async)
  typename Cfg::G2SCopy g2s_copy;
  auto g2s_thr = g2s_copy.get_slice(tid);
  Tensor tAgA = g2s_thr.partition_S(gA);   // (CPY,CPY_M,CPY_K,k_tiles)
  Tensor tAsA_w = g2s_thr.partition_D(sA); // (CPY,CPY_M,CPY_K,STAGES)
  Tensor tBgB = g2s_thr.partition_S(gB);   // (CPY,CPY_N,CPY_K,k_tiles)
  Tensor tBsB_w = g2s_thr.partition_D(sB); // (CPY,CPY_N,CPY_K,STAGES)

  const int k_tiles = K / BK;
  int k_tile_next = 0;                         // next k_tile to fetch from global
  pipeline::RingState<STAGES> smem_read;       // slot the MMA consumes (seed: ismem_read)
  pipeline::RingState<STAGES> smem_write;      // slot the next G2S fills (seed: ismem_write)
  // Trace (empty unless PIPEGEMM_TRACE): lane 0 of each warp records; one tile per CTA (tile 0).
  PIPEGEMM_TRACE_LANE(trace, warp, tid / 32, tid % 32 == 0);
  PIPEGEMM_TRACE_STAMP(trace, tile_begin, 0, -1, -1);

  // ===== PROLOGUE =====================================================================
  // Fill STAGES-1 slots; each k_tile is one cp.async group. Leave one slot free so the
  // first mainloop G2S never overwrites a slot the MMA still reads.
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (k_tile_next < k_tiles) {
      copy(g2s_copy, tAgA(_, _, _, k_tile_next), tAsA_w(_, _, _, smem_write.index));
      copy(g2s_copy, tBgB(_, _, _, k_tile_next), tBsB_w(_, _, _, smem_write.index));
      PIPEGEMM_TRACE_STAMP(trace, load_issued, 0, k_tile_next, smem_write.index);
    }
    cp_async_fence();
    ++k_tile_next;
    ++smem_write;
  }
  cp_async_wait<STAGES - 2>();  // the oldest group (slot 0) has landed; the rest stay in flight
  __syncthreads();
  PIPEGEMM_TRACE_STAMP(trace, stage_full, 0, 0, smem_read.index);

  constexpr int k_blocks = size<2>(tCrA);  // BK / MMA_K
  // First S2R of k_block 0 so the mainloop starts with an MMA.
  copy(s2r_copy_a, tAsA(_, _, 0, smem_read.index), tCrA_view(_, _, 0));
  copy(s2r_copy_b, tBsB(_, _, 0, smem_read.index), tCrB_view(_, _, 0));

  // ===== MAINLOOP =====================================================================
  // Per k_tile: at k_block 0 issue the G2S of k_tile+STAGES-1 (overlaps every MMA of this
  // k_tile); at every k_block prefetch the next k_block S2R before this k_block's MMA; at the
  // last k_block wait for the next slot (wait<STAGES-2> + barrier) and move the read slot.
#pragma unroll 1
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    // Trace: the k_tile's MMAs are two spans, split by the wait for the next slot.
    PIPEGEMM_TRACE_STAMP(trace, mma_begin, 0, k_tile, smem_read.index);
#pragma unroll
    for (int k_block = 0; k_block < k_blocks; ++k_block) {
      const int k_block_next = (k_block + 1) % k_blocks;
      if (k_block == k_blocks - 1) {
        PIPEGEMM_TRACE_STAMP(trace, mma_end, 0, k_tile, smem_read.index);
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        PIPEGEMM_TRACE_STAMP(trace, stage_released, 0, k_tile, smem_read.index);
        ++smem_read;
        PIPEGEMM_TRACE_STAMP_IF(k_tile + 1 < k_tiles, trace, stage_full, 0, k_tile + 1, smem_read.index);
        PIPEGEMM_TRACE_STAMP(trace, mma_begin, 0, k_tile, (smem_read.index + STAGES - 1) % STAGES);
      }
      copy(s2r_copy_a, tAsA(_, _, k_block_next, smem_read.index), tCrA_view(_, _, k_block_next));
      copy(s2r_copy_b, tBsB(_, _, k_block_next, smem_read.index), tCrB_view(_, _, k_block_next));
      if (k_block == 0) {
        if (k_tile_next < k_tiles) {
          copy(g2s_copy, tAgA(_, _, _, k_tile_next), tAsA_w(_, _, _, smem_write.index));
          copy(g2s_copy, tBgB(_, _, _, k_tile_next), tBsB_w(_, _, _, smem_write.index));
          PIPEGEMM_TRACE_STAMP(trace, load_issued, 0, k_tile_next, smem_write.index);
          ++smem_write;
        }
        ++k_tile_next;
        cp_async_fence();  // always: keeps the group count that wait<STAGES-2> relies on
      }
      gemm(tiled_mma, tCrD, tCrA(_, _, k_block), tCrB(_, _, k_block), tCrD);
    }
    PIPEGEMM_TRACE_STAMP(trace, mma_end, 0, k_tile, (smem_read.index + STAGES - 1) % STAGES);
  }

  // ===== DRAIN ========================================================================
  // Nothing to compute: the last k_tile's MMAs ran in the mainloop. The trailing groups are
  // empty fences; wait for them so no cp.async is in flight when the CTA exits.
  PIPEGEMM_TRACE_STAMP(trace, epilogue_begin, 0, -1, -1);
  cp_async_wait<0>();

  // ===== EPILOGUE =====================================================================
  // The seed's simple epilogue: each thread writes its accumulators straight to global
  // (not coalesced: the MMA layout is not a store layout). fp32 accumulators are rounded.
  Tensor tDgD = thr_mma.partition_C(gD);  // (MMA,MMA_M,MMA_N) global view of tCrD
  if constexpr (std::is_same_v<typename decltype(tCrD)::value_type, T>) {
    copy(tCrD, tDgD);
  } else {
    Tensor tCrD_out = make_tensor_like<T>(tCrD);
#pragma unroll
    for (int i = 0; i < size(tCrD); ++i) tCrD_out(i) = T(tCrD(i));
    copy(tCrD_out, tDgD);
  }
  PIPEGEMM_TRACE_STAMP(trace, epilogue_end, 0, -1, -1);
  PIPEGEMM_TRACE_STAMP(trace, tile_end, 0, -1, -1);
}

}  // namespace pipegemm::kernels::k4_seed
