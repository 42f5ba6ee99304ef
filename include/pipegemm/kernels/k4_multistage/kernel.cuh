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
//   - optionally persistent (one CTA per SM walks tiles blockIdx.x, +gridDim.x, ...): the ring
//     never drains between tiles -- it fetches the next tile's first k_tiles while this tile's
//     last ones compute and its epilogue stores, so no tile pays a prologue;
//   - 64-bit row strides (as in every rung): M * lda may exceed 2^31 elements;
//   - optionally split-K (k4_splitk_kernel): blockIdx.y takes one share of K; each CTA writes
//     its fp32 accumulators to a workspace, and the last of a tile's CTAs to arrive (a counter
//     per tile) adds the shares up in split order -- the same order every run, so the result is
//     bitwise repeatable -- and runs the epilogue. For tiles too few to fill the GPU: decode
//     (M = 1..16) and thin problems.
#pragma once

#include <cute/tensor.hpp>

#include <type_traits>

#include "pipegemm/kernels/common/smem_tiles.cuh"
#include "pipegemm/pipeline/ring_state.cuh"
#include "pipegemm/pipeline/tile_scheduler.cuh"
#include "pipegemm/pipeline/trace.cuh"

namespace pipegemm::kernels::k4 {

using namespace cute;

// The split-K kernel's workspace (pipegemm/pipeline/split_k.hpp) and its share of K.
struct SplitKArgs {
  float* partials;      // (tiles, splits, fragment, threads) fp32
  int* counters;        // one per tile, zero on entry, left zero
  int k_tiles_per_split;
};

template <class Ops, int BM, int BN, int BK, int STAGES, int WM, int WN, int RASTER_GROUP, class Name,
          bool PERSISTENT = false, int MAX_SPLIT = 0>
struct MultistageConfig : common::SmemTileConfig<Ops, BM, BN, BK, STAGES, WM, WN, Name> {
  using Base = common::SmemTileConfig<Ops, BM, BN, BK, STAGES, WM, WN, Name>;
  static constexpr int kRasterGroup = RASTER_GROUP;
  static constexpr bool kPersistent = PERSISTENT;
  static constexpr int kMaxSplit = MAX_SPLIT;  // > 1: the split-K kernel (k4_splitk_kernel)
  using SplitArgs = SplitKArgs;
  // The epilogue's staging tile: after the ring when persistent (the ring is still filling with
  // the next tile), else in the drained ring; the CTA asks for what that needs.
  static constexpr int kEpilogueBytes = BM * (BN + 8) * int(sizeof(typename Ops::TD));
  static constexpr int kEpilogueOffset = PERSISTENT ? Base::kRingBytes : 0;
  static constexpr int kSmemBytes = PERSISTENT ? Base::kRingBytes + kEpilogueBytes
                                    : Base::kRingBytes > kEpilogueBytes ? Base::kRingBytes : kEpilogueBytes;
  static constexpr Mechanism kMechanism = [] {
    Mechanism m = Base::smem_mechanism(LoadPath::cp_async, PipelineKind::cp_async_ring,
                                       PERSISTENT ? TileOrder::persistent : TileOrder::swizzled,
                                       EpilogueKind::smem_staged, RASTER_GROUP);
    m.split_k = MAX_SPLIT;
    return m;
  }();
  static_assert(STAGES >= 2 && STAGES <= 8, "a ring of 2..8 slots (cp_async_wait<STAGES-2>)");
  static_assert(RASTER_GROUP >= 1, "at least one row tile per group");
  static_assert(kSmemBytes <= common::kSmemPerBlockOptin, "ring and epilogue tile must fit the smem opt-in");
  static_assert(MAX_SPLIT <= 1 || (!PERSISTENT && std::is_same_v<typename Ops::TAcc, float>),
                "split-K: one tile per CTA, fp32 partials");
};

// Split-K: this CTA's accumulators -> its slot of the tile's partials (each thread its own
// fragment, element-major so a warp's stores are contiguous), then a counter per tile. The last
// CTA to arrive sums the splits' partials in split order 0, 1, ... into tCrD and returns true
// (it runs the epilogue); the others return false. L2-coherent stores and loads (st.cg / ld.cg)
// with a fence each side of the counter: the pattern of CUDA's threadFenceReduction sample.
template <class Cfg, class Acc>
CUTE_DEVICE bool k4_split_reduce(Acc& tCrD, SplitKArgs const& split) {
  constexpr int kFrag = decltype(size(tCrD))::value;
  constexpr int kThreads = Cfg::kNumThreads;
  const int tid = threadIdx.x, splits = int(gridDim.y);
  float* tile = split.partials + int64_t(blockIdx.x) * splits * kFrag * kThreads;
  float* mine = tile + int64_t(blockIdx.y) * kFrag * kThreads;
  CUTE_UNROLL
  for (int i = 0; i < kFrag; ++i) __stcg(mine + i * kThreads + tid, float(tCrD(i)));
  __threadfence();
  __syncthreads();
  __shared__ int last;
  if (tid == 0) last = atomicAdd(split.counters + blockIdx.x, 1) == splits - 1;
  __syncthreads();
  if (!last) return false;
  __threadfence();
  // Split outer, fragment inner: each split's kFrag loads are independent and fly together, so
  // the sum waits `splits` L2 round trips, not splits x kFrag. Per element the order is the same.
  CUTE_UNROLL
  for (int i = 0; i < kFrag; ++i) tCrD(i) = 0.0f;
  for (int s = 0; s < splits; ++s) {
    const float* part = tile + int64_t(s) * kFrag * kThreads + tid;
    CUTE_UNROLL
    for (int i = 0; i < kFrag; ++i) tCrD(i) += __ldcg(part + i * kThreads);
  }
  if (tid == 0) split.counters[blockIdx.x] = 0;  // ready for the next launch
  return true;
}

// The kernel body; k4_multistage_kernel and k4_splitk_kernel are its two entry points.
template <class Cfg>
CUTE_DEVICE void k4_multistage_body(typename Cfg::TD* __restrict__ Dptr, const typename Cfg::TA* __restrict__ Aptr,
                                    const typename Cfg::TA* __restrict__ Bptr, int M, int N, int K, int lda, int ldb,
                                    int ldd, SplitKArgs const& split) {
  using TD = typename Cfg::TD;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  constexpr bool kSplitK = Cfg::kMaxSplit > 1;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const int tid = threadIdx.x;
  const int num_m = (M + BM - 1) / BM, num_n = (N + BN - 1) / BN;
  // This CTA's k_tiles: all of them, or (split-K) its share [k_begin, k_begin + k_tiles).
  const int k_begin = kSplitK ? int(blockIdx.y) * split.k_tiles_per_split : 0;
  const int k_tiles = kSplitK ? min((K + BK - 1) / BK - k_begin, split.k_tiles_per_split) : (K + BK - 1) / BK;
  // This CTA's tiles, in raster order: blockIdx.x, +gridDim.x, ... (one unless persistent; a
  // compile-time one, so the single-tile kernel keeps its registers).
  const int my_tiles =
      Cfg::kPersistent ? (num_m * num_n - int(blockIdx.x) + int(gridDim.x) - 1) / int(gridDim.x) : 1;
  auto tile_of = [&](int local) {
    return pipeline::raster_tile(int(blockIdx.x) + local * int(gridDim.x), num_m, num_n, Cfg::kRasterGroup);
  };

  // Views of tile (0,0); tile (m,n)'s are the same shifted by m*BM rows of A, n*BN rows of B.
  auto g = common::global_tiles<BM, BN, BK>(Aptr, Bptr, Dptr, M, N, K, lda, ldb, ldd, 0, 0);
  auto [sA, sB] = common::smem_ring<Cfg>(smem_raw);  // (BM,BK,STAGES), (BN,BK,STAGES)

  typename Cfg::TiledMma tiled_mma;
  auto thr_mma = tiled_mma.get_slice(tid);
  Tensor tCrA = thr_mma.partition_fragment_A(sA(_, _, 0));  // (MMA,MMA_M,k_blocks)
  Tensor tCrB = thr_mma.partition_fragment_B(sB(_, _, 0));  // (MMA,MMA_N,k_blocks)
  Tensor tCrD = partition_fragment_C(tiled_mma, Shape<Int<BM>, Int<BN>>{});  // (MMA,MMA_M,MMA_N)
  clear(tCrD);
  auto s2r = common::s2r_partition<Cfg>(tiled_mma, tid, sA, sB, tCrA, tCrB);
  auto g2s = common::g2s_partition<Cfg>(tid, g.A, sA, g.B, sB);
  const typename Cfg::G2SAtom g2s_atom;

  pipeline::RingState<STAGES> smem_read;  // slot the MMAs consume
  pipeline::RingState<STAGES> smem_write; // slot the next cp.async group fills
  // Trace (empty unless PIPEGEMM_TRACE): lane 0 of each warp records; tiles counted per CTA.
  PIPEGEMM_TRACE_LANE(trace, warp, tid / 32, tid % 32 == 0);

  // The fetch side runs STAGES-1 k_tiles ahead of the MMAs, across tile boundaries: one
  // cp.async group per call (empty past this CTA's last k_tile, so the group count that
  // cp_async_wait<STAGES-2> relies on stays one per k_tile).
  int fetch_local = 0, fetch_k = 0;
  pipeline::TileCoord fetch_tile = tile_of(0);
  auto fetch_k_tile = [&]() {
    if (fetch_local < my_tiles) {
      common::g2s_cp_async_k_tile(g2s_atom, g2s, k_begin + fetch_k, smem_write.index, M - fetch_tile.m * BM,
                                  N - fetch_tile.n * BN, K - (k_begin + fetch_k) * BK,
                                  int64_t(fetch_tile.m) * BM * lda, int64_t(fetch_tile.n) * BN * ldb);
      PIPEGEMM_TRACE_STAMP(trace, load_issued, fetch_local, fetch_k, smem_write.index);
      ++smem_write;
      if (++fetch_k == k_tiles) {
        fetch_k = 0;
        ++fetch_local;
        if constexpr (Cfg::kPersistent)
          if (fetch_local < my_tiles) fetch_tile = tile_of(fetch_local);
      }
    }
    cp_async_fence();
  };

  // ===== PROLOGUE =====================================================================
  // Fill STAGES-1 slots, one group each; the last slot stays free for the first mainloop
  // fetch. Wait only for the oldest group, then load k_block 0 of slot 0 into registers so
  // the mainloop starts with an MMA. Paid once per CTA: later tiles find their slots full.
  PIPEGEMM_TRACE_STAMP(trace, tile_begin, 0, -1, -1);
  CUTE_UNROLL
  for (int s = 0; s < STAGES - 1; ++s) fetch_k_tile();
  cp_async_wait<STAGES - 2>();
  __syncthreads();
  PIPEGEMM_TRACE_STAMP(trace, stage_full, 0, 0, smem_read.index);
  constexpr int k_blocks = decltype(size<2>(tCrA))::value;  // BK / MMA_K
  common::s2r_k_block(s2r, 0, smem_read.index);

#pragma unroll 1
  for (int local = 0; local < my_tiles; ++local) {
    const pipeline::TileCoord tile = tile_of(local);
    PIPEGEMM_TRACE_STAMP_IF(local > 0, trace, tile_begin, local, -1, -1);
    // ===== MAINLOOP ===================================================================
    // Three streams overlap: the cp.async group of k_tile+STAGES-1 (issued at k_block 0)
    // flies under this k_tile's MMAs; the ldmatrix of k_block+1 is issued before k_block's
    // MMAs; at the last k_block, wait<STAGES-2> + one barrier make the next slot visible (and
    // retire the slot just read, which the next fetch overwrites), and its k_block 0 -- the
    // next tile's first, at the end of a tile -- is prefetched.
#pragma unroll 1
    for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
      // Trace: the k_tile's MMAs are two spans, split by the wait for the next slot (whose
      // k_tile is the next tile's first at the end of a tile).
      PIPEGEMM_TRACE_STAMP(trace, mma_begin, local, k_tile, smem_read.index);
      CUTE_UNROLL
      for (int k_block = 0; k_block < k_blocks; ++k_block) {
        const int k_block_next = (k_block + 1) % k_blocks;
        if (k_block == k_blocks - 1) {
          PIPEGEMM_TRACE_STAMP(trace, mma_end, local, k_tile, smem_read.index);
          cp_async_wait<STAGES - 2>();
          __syncthreads();
          PIPEGEMM_TRACE_STAMP(trace, stage_released, local, k_tile, smem_read.index);
          ++smem_read;
          PIPEGEMM_TRACE_STAMP_IF(k_tile + 1 < k_tiles || local + 1 < my_tiles, trace, stage_full,
                                  local + (k_tile + 1 == k_tiles), (k_tile + 1) % k_tiles, smem_read.index);
          PIPEGEMM_TRACE_STAMP(trace, mma_begin, local, k_tile, (smem_read.index + STAGES - 1) % STAGES);
        }
        common::s2r_k_block(s2r, k_block_next, smem_read.index);
        if (k_block == 0) fetch_k_tile();
        common::mma_k_block(tiled_mma, tCrD, tCrA(_, _, k_block), tCrB(_, _, k_block));
      }
      PIPEGEMM_TRACE_STAMP(trace, mma_end, local, k_tile, (smem_read.index + STAGES - 1) % STAGES);
    }

    // ===== EPILOGUE ===================================================================
    // Registers -> padded smem tile in the MMA layout -> 16-byte row segments -> global,
    // predicated on the M/N edges. Not persistent: the staging tile is the ring, so drain it
    // first (the trailing groups are empty fences; the barrier retires every warp's last
    // ldmatrix). Persistent: the staging tile has its own smem and the ring keeps filling;
    // the next write to it follows at least one mainloop barrier, so all reads of it are done.
    PIPEGEMM_TRACE_STAMP(trace, epilogue_begin, local, -1, -1);
    if constexpr (!Cfg::kPersistent) {
      cp_async_wait<0>();
      __syncthreads();
    }
    if constexpr (kSplitK) {
      if (gridDim.y > 1 && !k4_split_reduce<Cfg>(tCrD, split)) {  // another CTA finishes the tile
        PIPEGEMM_TRACE_STAMP(trace, epilogue_end, local, -1, -1);
        PIPEGEMM_TRACE_STAMP(trace, tile_end, local, -1, -1);
        return;
      }
    }
    common::epilogue_smem<TD, BM, BN, Cfg::kNumThreads>(
        thr_mma, tCrD, reinterpret_cast<TD*>(smem_raw + Cfg::kEpilogueOffset),
        Dptr + int64_t(tile.m) * BM * ldd + int64_t(tile.n) * BN, ldd, M - tile.m * BM, N - tile.n * BN);
    clear(tCrD);
    PIPEGEMM_TRACE_STAMP(trace, epilogue_end, local, -1, -1);
    PIPEGEMM_TRACE_STAMP(trace, tile_end, local, -1, -1);
  }
}

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads, 1)
    k4_multistage_kernel(typename Cfg::TD* __restrict__ Dptr, const typename Cfg::TA* __restrict__ Aptr,
                         const typename Cfg::TA* __restrict__ Bptr, int M, int N, int K, int lda,
                         int ldb, int ldd) {
  k4_multistage_body<Cfg>(Dptr, Aptr, Bptr, M, N, K, lda, ldb, ldd, SplitKArgs{nullptr, nullptr, 0});
}

// grid (tiles, splits); 1 split: the plain kernel's work.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads, 1)
    k4_splitk_kernel(typename Cfg::TD* __restrict__ Dptr, const typename Cfg::TA* __restrict__ Aptr,
                     const typename Cfg::TA* __restrict__ Bptr, int M, int N, int K, int lda, int ldb, int ldd,
                     SplitKArgs split) {
  k4_multistage_body<Cfg>(Dptr, Aptr, Bptr, M, N, K, lda, ldb, ldd, split);
}

}  // namespace pipegemm::kernels::k4
