// k4 multistage: an N-stage cp.async ring (seed 000 kernel 09), generalized and finished.
//
// What it adds to the seed kernel (seed_kernel.cuh, kept faithful beside it):
//   - any M, N, K (in 16-byte vectors): predicated, zero-filling cp.async at every edge;
//   - STAGES 2..8, CTA tile and warp layout from the config;
//   - the epilogue of 000 section 7.2: registers -> shared (padded, conflict-free) -> 16-byte
//     coalesced global stores;
//   - swizzled CTA order (raster_tile): GROUP row tiles per column tile, for L2 reuse;
//   - one CTA per SM by design (__launch_bounds__(threads, 1)): a large tile, the ring and
//     the MMA/ldmatrix overlap hide latency instead of occupancy;
//   - 64-bit row strides (as in every rung): M * lda may exceed 2^31 elements.
#pragma once

#include <cute/tensor.hpp>

#include "pipegemm/kernels/common/smem_tiles.cuh"
#include "pipegemm/pipeline/ring_state.cuh"

namespace pipegemm::kernels::k4 {

using namespace cute;

template <class Ops, int BM, int BN, int BK, int STAGES, int WM, int WN, int RASTER_GROUP, class Name>
struct MultistageConfig : common::SmemTileConfig<Ops, BM, BN, BK, STAGES, WM, WN, Name> {
  using Base = common::SmemTileConfig<Ops, BM, BN, BK, STAGES, WM, WN, Name>;
  static constexpr int kRasterGroup = RASTER_GROUP;
  // The epilogue's staging tile reuses the drained ring; the CTA asks for the larger of both.
  static constexpr int kEpilogueBytes = BM * (BN + 8) * int(sizeof(typename Ops::TD));
  static constexpr int kSmemBytes = Base::kRingBytes > kEpilogueBytes ? Base::kRingBytes : kEpilogueBytes;
  static_assert(STAGES >= 2 && STAGES <= 8, "a ring of 2..8 slots (cp_async_wait<STAGES-2>)");
  static_assert(RASTER_GROUP >= 1, "at least one row tile per group");
  static_assert(kSmemBytes <= common::kSmemPerBlockOptin, "ring and epilogue tile must fit the smem opt-in");
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads, 1)
    k4_multistage_kernel(typename Cfg::TD* __restrict__ Dptr, const typename Cfg::TA* __restrict__ Aptr,
                         const typename Cfg::TA* __restrict__ Bptr, int M, int N, int K, int lda,
                         int ldb, int ldd) {
  using TA = typename Cfg::TA;
  using TD = typename Cfg::TD;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  TA* smem_a = reinterpret_cast<TA*>(smem_raw);
  TA* smem_b = smem_a + cosize(typename Cfg::SmemLayoutA{});
  const int tid = threadIdx.x;
  const common::TileCoord tile = common::raster_tile(
      int(blockIdx.x), (M + BM - 1) / BM, (N + BN - 1) / BN, Cfg::kRasterGroup);

  Tensor mA = make_tensor(make_gmem_ptr(Aptr), make_shape(M, K), make_stride(int64_t(lda), Int<1>{}));  // (M,K)
  Tensor mB = make_tensor(make_gmem_ptr(Bptr), make_shape(N, K), make_stride(int64_t(ldb), Int<1>{}));  // (N,K)
  Tensor gA = local_tile(mA, make_tile(Int<BM>{}, Int<BK>{}), make_coord(tile.m, _));  // (BM,BK,k_tiles)
  Tensor gB = local_tile(mB, make_tile(Int<BN>{}, Int<BK>{}), make_coord(tile.n, _));  // (BN,BK,k_tiles)
  Tensor sA = make_tensor(make_smem_ptr(smem_a), typename Cfg::SmemLayoutA{});  // (BM,BK,STAGES)
  Tensor sB = make_tensor(make_smem_ptr(smem_b), typename Cfg::SmemLayoutB{});  // (BN,BK,STAGES)
  Tensor cA = make_identity_tensor(make_shape(Int<BM>{}, Int<BK>{}));  // (BM,BK) -> (m,k)
  Tensor cB = make_identity_tensor(make_shape(Int<BN>{}, Int<BK>{}));  // (BN,BK) -> (n,k)

  typename Cfg::TiledMma tiled_mma;
  auto thr_mma = tiled_mma.get_slice(tid);
  Tensor tCrA = thr_mma.partition_fragment_A(sA(_, _, 0));  // (MMA,MMA_M,k_blocks)
  Tensor tCrB = thr_mma.partition_fragment_B(sB(_, _, 0));  // (MMA,MMA_N,k_blocks)
  Tensor tCrD = partition_fragment_C(tiled_mma, Shape<Int<BM>, Int<BN>>{});  // (MMA,MMA_M,MMA_N)
  clear(tCrD);

  auto s2r_a = make_tiled_copy_A(typename Cfg::S2RAtom{}, tiled_mma);
  auto s2r_thr_a = s2r_a.get_slice(tid);
  Tensor tAsA = s2r_thr_a.partition_S(sA);         // (CPY,CPY_M,k_blocks,STAGES)
  Tensor tCrA_view = s2r_thr_a.retile_D(tCrA);     // (CPY,CPY_M,k_blocks)
  auto s2r_b = make_tiled_copy_B(typename Cfg::S2RAtom{}, tiled_mma);
  auto s2r_thr_b = s2r_b.get_slice(tid);
  Tensor tBsB = s2r_thr_b.partition_S(sB);         // (CPY,CPY_N,k_blocks,STAGES)
  Tensor tCrB_view = s2r_thr_b.retile_D(tCrB);     // (CPY,CPY_N,k_blocks)

  typename Cfg::G2SCopy g2s;
  auto g2s_thr = g2s.get_slice(tid);
  Tensor tAgA = g2s_thr.partition_S(gA);    // (CPY,CPY_M,CPY_K,k_tiles)
  Tensor tAsA_w = g2s_thr.partition_D(sA);  // (CPY,CPY_M,CPY_K,STAGES)
  Tensor tAcA = g2s_thr.partition_S(cA);    // (CPY,CPY_M,CPY_K) -> (m,k)
  Tensor tBgB = g2s_thr.partition_S(gB);    // (CPY,CPY_N,CPY_K,k_tiles)
  Tensor tBsB_w = g2s_thr.partition_D(sB);  // (CPY,CPY_N,CPY_K,STAGES)
  Tensor tBcB = g2s_thr.partition_S(cB);    // (CPY,CPY_N,CPY_K) -> (n,k)
  const typename Cfg::G2SAtom g2s_atom;

  const int m_limit = M - tile.m * BM, n_limit = N - tile.n * BN;
  const int k_tiles = (K + BK - 1) / BK;
  int k_tile_next = 0;                    // next k_tile to fetch from global
  pipeline::RingState<STAGES> smem_read;  // slot the MMAs consume
  pipeline::RingState<STAGES> smem_write; // slot the next cp.async group fills

  // One k_tile -> the write slot as one cp.async group (empty past the last k_tile, so the
  // group count that cp_async_wait<STAGES-2> relies on stays one per k_tile).
  auto fetch_k_tile = [&]() {
    if (k_tile_next < k_tiles) {
      const int k_limit = K - k_tile_next * BK;
      common::g2s_cp_async(g2s_atom, tAgA(_, _, _, k_tile_next), tAsA_w(_, _, _, smem_write.index), tAcA,
                           m_limit, k_limit);
      common::g2s_cp_async(g2s_atom, tBgB(_, _, _, k_tile_next), tBsB_w(_, _, _, smem_write.index), tBcB,
                           n_limit, k_limit);
      ++smem_write;
    }
    ++k_tile_next;
    cp_async_fence();
  };

  // ===== PROLOGUE =====================================================================
  // Fill STAGES-1 slots, one group each; the last slot stays free for the first mainloop
  // fetch. Wait only for the oldest group, then load k_block 0 of slot 0 into registers so
  // the mainloop starts with an MMA.
  CUTE_UNROLL
  for (int s = 0; s < STAGES - 1; ++s) fetch_k_tile();
  cp_async_wait<STAGES - 2>();
  __syncthreads();
  constexpr int k_blocks = decltype(size<2>(tCrA))::value;  // BK / MMA_K
  copy(s2r_a, tAsA(_, _, 0, smem_read.index), tCrA_view(_, _, 0));
  copy(s2r_b, tBsB(_, _, 0, smem_read.index), tCrB_view(_, _, 0));

  // ===== MAINLOOP =====================================================================
  // Three streams overlap: the cp.async group of k_tile+STAGES-1 (issued at k_block 0) flies
  // under this k_tile's MMAs; the ldmatrix of k_block+1 is issued before k_block's MMAs; at
  // the last k_block, wait<STAGES-2> + one barrier make the next slot visible (and retire the
  // slot just read, which the next fetch overwrites), and its k_block 0 is prefetched.
#pragma unroll 1
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    CUTE_UNROLL
    for (int k_block = 0; k_block < k_blocks; ++k_block) {
      const int k_block_next = (k_block + 1) % k_blocks;
      if (k_block == k_blocks - 1) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        ++smem_read;
      }
      copy(s2r_a, tAsA(_, _, k_block_next, smem_read.index), tCrA_view(_, _, k_block_next));
      copy(s2r_b, tBsB(_, _, k_block_next, smem_read.index), tCrB_view(_, _, k_block_next));
      if (k_block == 0) fetch_k_tile();
      gemm(tiled_mma, tCrD, tCrA(_, _, k_block), tCrB(_, _, k_block), tCrD);
    }
  }

  // ===== DRAIN ========================================================================
  // The trailing groups are empty fences; wait for all of them and for every warp's last
  // ldmatrix, so the epilogue may reuse the ring's shared memory.
  cp_async_wait<0>();
  __syncthreads();

  // ===== EPILOGUE =====================================================================
  // Registers -> padded smem tile in the MMA layout -> 16-byte row segments -> global,
  // predicated on the M/N edges. Overlaps nothing inside the CTA; the next CTA on this SM
  // starts its prologue as soon as this one exits.
  common::epilogue_smem<TD, BM, BN, Cfg::kNumThreads>(
      thr_mma, tCrD, reinterpret_cast<TD*>(smem_raw),
      Dptr + int64_t(tile.m) * BM * ldd + int64_t(tile.n) * BN, ldd, m_limit, n_limit);
}

}  // namespace pipegemm::kernels::k4
