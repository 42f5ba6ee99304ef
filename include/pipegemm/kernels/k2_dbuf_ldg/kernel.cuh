// k2 double buffer staged through registers (seed 004 step 3, the LDG variant).
//
// Two smem slots. While the warps compute k_tile t out of slot t%2, every thread already has
// the LDG.128 of k_tile t+1 in flight into registers; after the MMAs it stores them (STS) into
// the other slot and one barrier publishes them. The global latency hides behind a whole
// k_tile of MMAs, at the price of registers to hold the tile in flight, and the STS still
// costs issue slots of the warps that compute.
#pragma once

#include <cute/tensor.hpp>

#include "pipegemm/kernels/common/smem_tiles.cuh"
#include "pipegemm/pipeline/ring_state.cuh"

namespace pipegemm::kernels::k2 {

using namespace cute;

template <class Ops, int BM, int BN, int BK, int WM, int WN, class Name>
struct DoubleBufferLdgConfig : common::SmemTileConfig<Ops, BM, BN, BK, /*STAGES=*/2, WM, WN, Name> {};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads)
    k2_dbuf_ldg_kernel(typename Cfg::TD* __restrict__ Dptr, const typename Cfg::TA* __restrict__ Aptr,
                       const typename Cfg::TA* __restrict__ Bptr, int M, int N, int K, int lda, int ldb,
                       int ldd) {
  using TA = typename Cfg::TA;
  using TD = typename Cfg::TD;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  TA* smem_a = reinterpret_cast<TA*>(smem_raw);
  TA* smem_b = smem_a + cosize(typename Cfg::SmemLayoutA{});
  const int tid = threadIdx.x;
  const int bn_idx = blockIdx.x, bm_idx = blockIdx.y;

  Tensor mA = make_tensor(make_gmem_ptr(Aptr), make_shape(M, K), make_stride(int64_t(lda), Int<1>{}));  // (M,K)
  Tensor mB = make_tensor(make_gmem_ptr(Bptr), make_shape(N, K), make_stride(int64_t(ldb), Int<1>{}));  // (N,K)
  Tensor mD = make_tensor(make_gmem_ptr(Dptr), make_shape(M, N), make_stride(int64_t(ldd), Int<1>{}));  // (M,N)
  Tensor gA = local_tile(mA, make_tile(Int<BM>{}, Int<BK>{}), make_coord(bm_idx, _));  // (BM,BK,k_tiles)
  Tensor gB = local_tile(mB, make_tile(Int<BN>{}, Int<BK>{}), make_coord(bn_idx, _));  // (BN,BK,k_tiles)
  Tensor gD = local_tile(mD, make_tile(Int<BM>{}, Int<BN>{}), make_coord(bm_idx, bn_idx));  // (BM,BN)
  Tensor sA = make_tensor(make_smem_ptr(smem_a), typename Cfg::SmemLayoutA{});  // (BM,BK,2)
  Tensor sB = make_tensor(make_smem_ptr(smem_b), typename Cfg::SmemLayoutB{});  // (BN,BK,2)
  Tensor cA = make_identity_tensor(make_shape(Int<BM>{}, Int<BK>{}));  // (BM,BK) -> (m,k)
  Tensor cB = make_identity_tensor(make_shape(Int<BN>{}, Int<BK>{}));  // (BN,BK) -> (n,k)
  Tensor cD = make_identity_tensor(make_shape(Int<BM>{}, Int<BN>{}));  // (BM,BN) -> (m,n)

  typename Cfg::TiledMma tiled_mma;
  auto thr_mma = tiled_mma.get_slice(tid);
  Tensor tCrA = thr_mma.partition_fragment_A(gA(_, _, 0));  // (MMA,MMA_M,k_blocks)
  Tensor tCrB = thr_mma.partition_fragment_B(gB(_, _, 0));  // (MMA,MMA_N,k_blocks)
  Tensor tCrD = thr_mma.partition_fragment_C(gD);           // (MMA,MMA_M,MMA_N)
  clear(tCrD);

  auto s2r_a = make_tiled_copy_A(typename Cfg::S2RAtom{}, tiled_mma);
  auto s2r_thr_a = s2r_a.get_slice(tid);
  Tensor tAsA = s2r_thr_a.partition_S(sA);         // (CPY,CPY_M,k_blocks,2)
  Tensor tCrA_view = s2r_thr_a.retile_D(tCrA);     // (CPY,CPY_M,k_blocks)
  auto s2r_b = make_tiled_copy_B(typename Cfg::S2RAtom{}, tiled_mma);
  auto s2r_thr_b = s2r_b.get_slice(tid);
  Tensor tBsB = s2r_thr_b.partition_S(sB);         // (CPY,CPY_N,k_blocks,2)
  Tensor tCrB_view = s2r_thr_b.retile_D(tCrB);     // (CPY,CPY_N,k_blocks)

  // G2R2S: the cp.async tiled copy's thread/vector layout, used with 16-byte LDG and STS.
  typename Cfg::G2SCopy g2s;
  auto g2s_thr = g2s.get_slice(tid);
  Tensor tAgA = g2s_thr.partition_S(gA);    // (CPY,CPY_M,CPY_K,k_tiles)
  Tensor tAsA_w = g2s_thr.partition_D(sA);  // (CPY,CPY_M,CPY_K,2)
  Tensor tAcA = g2s_thr.partition_S(cA);    // (CPY,CPY_M,CPY_K) -> (m,k)
  Tensor tArA = make_fragment_like(tAsA_w(_, _, _, 0));  // (CPY,CPY_M,CPY_K) k_tile in flight
  Tensor tBgB = g2s_thr.partition_S(gB);    // (CPY,CPY_N,CPY_K,k_tiles)
  Tensor tBsB_w = g2s_thr.partition_D(sB);  // (CPY,CPY_N,CPY_K,2)
  Tensor tBcB = g2s_thr.partition_S(cB);    // (CPY,CPY_N,CPY_K) -> (n,k)
  Tensor tBrB = make_fragment_like(tBsB_w(_, _, _, 0));  // (CPY,CPY_N,CPY_K)
  const typename Cfg::VecAtom vec;

  const int m_limit = M - bm_idx * BM, n_limit = N - bn_idx * BN;
  const int k_tiles = (K + BK - 1) / BK;
  pipeline::RingState<2> read_slot;   // slot the MMAs read
  pipeline::RingState<2> write_slot;  // slot the next STS fills

  // ===== PROLOGUE =====================================================================
  // k_tile 0: LDG -> STS into slot 0 and publish it. Nothing to overlap with yet.
  common::g2r_vectors(vec, tAgA(_, _, _, 0), tArA, tAcA, m_limit, K);
  common::g2r_vectors(vec, tBgB(_, _, _, 0), tBrB, tBcB, n_limit, K);
  copy(vec, tArA, tAsA_w(_, _, _, write_slot.index));
  copy(vec, tBrB, tBsB_w(_, _, _, write_slot.index));
  ++write_slot;
  __syncthreads();

  // ===== MAINLOOP =====================================================================
  // LDG of k_tile+1 into registers, then the MMAs of k_tile from smem (the loads fly under
  // them), then STS into the other slot and one barrier. One barrier is enough: the slot
  // written here was last read in the previous iteration, which ended with a barrier.
#pragma unroll 1
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    const bool has_next = k_tile + 1 < k_tiles;
    if (has_next) {
      const int k_limit = K - (k_tile + 1) * BK;
      common::g2r_vectors(vec, tAgA(_, _, _, k_tile + 1), tArA, tAcA, m_limit, k_limit);
      common::g2r_vectors(vec, tBgB(_, _, _, k_tile + 1), tBrB, tBcB, n_limit, k_limit);
    }
    common::mma_k_tile(tiled_mma, s2r_a, tAsA(_, _, _, read_slot.index), tCrA_view, tCrA, s2r_b,
                       tBsB(_, _, _, read_slot.index), tCrB_view, tCrB, tCrD);
    ++read_slot;
    // Keep the STS after the MMAs: without this point ptxas hoists them into the first
    // k_block to free the staging registers (~250 live), and the warp then stalls on the LDG
    // after a few HMMAs instead of a whole k_tile (seed 004 step 7: loads reordered against
    // compute). Not for FFMA: there the same point makes NVVM sink the LDGs below the FFMAs.
    if constexpr (Cfg::Ops::kTensorCore) __syncwarp();
    if (has_next) {
      copy(vec, tArA, tAsA_w(_, _, _, write_slot.index));
      copy(vec, tBrB, tBsB_w(_, _, _, write_slot.index));
      ++write_slot;
    }
    __syncthreads();
  }

  // ===== DRAIN ========================================================================
  // Nothing in flight: the last k_tile's LDGs were consumed by the last STS.

  // ===== EPILOGUE =====================================================================
  common::epilogue_direct<TD>(thr_mma, tCrD, gD, cD, m_limit, n_limit);
}

}  // namespace pipegemm::kernels::k2
