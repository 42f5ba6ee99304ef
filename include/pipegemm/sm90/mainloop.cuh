// The mainloop collectives: TMA loads of A (BM,BK) and B (BN,BK) k_tiles into a ring of STAGES
// smem slots (128-byte swizzle, full/empty mbarriers per slot), issued by one producer thread
// (load), and wgmma of the consumer warpgroups straight from the swizzled slots (mma).
//
//   MainloopTmaWgmma<TIn, Tile, STAGES, Multicast>       the TN GEMM: rank-2 maps, K-major A and B
//   MainloopTmaWgmmaBatched<TIn, Tile, STAGES, LA, LB>   the general form: rank-3 maps (batch), each
//                                                        operand K- or MN-major (LA, LB)
//   MainloopBResident<TIn, Tile, STAGES, B_SLOTS>        B loaded once per CTA and kept; the ring
//                                                        carries A alone
//
// Clusters: a cluster of 2 CTAs shares one operand -- each loads half of it and multicasts it to
// both, and every consumer releases its slot in both CTAs. MulticastB (the default) stacks the
// CTAs along M (both need the same B tile); MulticastA sets them side by side along N (a "1x2"
// cluster). Whichever operand a k_tile holds more of is the one to share: the wide tile's A (256
// rows) against its B (192). Edges: TMA zero-fills loads outside (M,N,K) -- a K tail adds zeros.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <type_traits>

#include "pipegemm/arch/tma.cuh"
#include "pipegemm/arch/wgmma.cuh"

namespace pipegemm::sm90 {

// The CTA tile.
template <int BM_, int BN_, int BK_>
struct Tile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_;
};

// An operand's order in memory: K-contiguous, or M- / N-contiguous. An MN-major slot holds
// (rows / 64) TMA boxes of (64 MN-elements, BK K rows), each a run of 128-byte K rows, and wgmma
// reads it transposed (imm-trans = 1) -- no copy, the same ring.
struct KMajor {
  static constexpr bool kMn = false;
};
struct MnMajor {
  static constexpr bool kMn = true;
};

// The operand a 2-CTA cluster shares.
struct MulticastB {};  // CTAs stacked along M
struct MulticastA {};  // CTAs side by side along N

// What every mainloop shares: the operand type and the slot geometry.
template <class TIn, class TileT, int STAGES_>
struct MainloopTraits {
  using TA = TIn;
  static constexpr int BM = TileT::BM, BN = TileT::BN, BK = TileT::BK, STAGES = STAGES_;
  static constexpr int kStageBytesA = BM * BK * int(sizeof(TA));
  static constexpr int kStageBytesB = BN * BK * int(sizeof(TA));
  static constexpr int kStageBytes = kStageBytesA + kStageBytesB;  // expect_tx per slot
  static constexpr int kMnBox = 128 / int(sizeof(TA));  // MN-elements of an MN-major box (one 128-byte row)
  static_assert(BK * sizeof(TA) == 128, "a K-major row of a slot is exactly one 128-byte swizzle span");
  static_assert(kStageBytes < (1 << 20), "mbarrier tx-count range");
};

// What a producer's loads need: the rings, the maps, and the CTA's part of the shared operand.
template <class TA>
struct LoadContext {
  TA* sA;
  TA* sB;
  const CUtensorMap* tmap_a;
  const CUtensorMap* tmap_b;
  int cluster_m;  // CTAs of the cluster
  int cta_rank;
  int b_rows;     // rows of B this CTA loads (and multicasts): BN / cluster_m
  uint16_t mask;  // the cluster's CTAs
};

template <class TIn, class TileT, int STAGES_, class Multicast = MulticastB>
struct MainloopTmaWgmma : MainloopTraits<TIn, TileT, STAGES_> {
  using Base = MainloopTraits<TIn, TileT, STAGES_>;
  using typename Base::TA;
  using Base::BM, Base::BN, Base::BK;
  static constexpr bool kBatched = false, kAMn = false, kBMn = false, kBResident = false;
  static constexpr bool kClusterN = std::is_same_v<Multicast, MulticastA>;
  static constexpr int kBSlots = STAGES_;
  static constexpr int kMaxK = 0;
  __device__ __forceinline__ static int b_slot(int index, int) { return index; }

  // k_tile kt of the tile at (m0, n0) into slot `index`; returns the bytes that land on `full`.
  __device__ __forceinline__ static uint32_t load(const LoadContext<TA>& x, int index, int kt, int m0, int n0, int,
                                                  int, uint64_t* full, bool) {
    if constexpr (kClusterN) {         // A's rows split over the cluster, B this CTA's own
      const int a_rows = BM / x.cluster_m;  // rows of A this CTA loads (and multicasts)
      if (x.cluster_m == 1)
        arch::tma_load_2d(x.sA + index * (BM * BK), x.tmap_a, kt * BK, m0, full);
      else
        arch::tma_load_2d_multicast(x.sA + index * (BM * BK) + x.cta_rank * a_rows * BK, x.tmap_a, kt * BK,
                                    m0 + x.cta_rank * a_rows, full, x.mask);
      arch::tma_load_2d(x.sB + index * (BN * BK), x.tmap_b, kt * BK, n0, full);
    } else {
      TA* b_dst = x.sB + index * (BN * BK) + x.cta_rank * x.b_rows * BK;
      arch::tma_load_2d(x.sA + index * (BM * BK), x.tmap_a, kt * BK, m0, full);
      if (x.cluster_m == 1)
        arch::tma_load_2d(b_dst, x.tmap_b, kt * BK, n0, full);
      else
        arch::tma_load_2d_multicast(b_dst, x.tmap_b, kt * BK, n0 + x.cta_rank * x.b_rows, full, x.mask);
    }
    return Base::kStageBytes;  // A + both halves of B land here
  }
};

// One operand's part of a slot (rank-3 maps, product bt), `rows` rows of A or B from row0 at K
// offset k0. K-major: one box (BK, rows). MN-major: rows / 64 boxes of (64 of MN, BK of K), one
// after another. mask != 0 multicasts to the cluster's CTAs in it.
template <class ML, bool MN>
__device__ __forceinline__ void load_operand(typename ML::TA* dst, const CUtensorMap* map, int k0, int row0, int rows,
                                             int bt, uint64_t* full, uint16_t mask) {
  auto load = [&](typename ML::TA* d, int c0, int c1) {
    if (mask)
      arch::tma_load_3d_multicast(d, map, c0, c1, bt, full, mask);
    else
      arch::tma_load_3d(d, map, c0, c1, bt, full);
  };
  if constexpr (MN) {
    for (int j = 0; j < rows / ML::kMnBox; ++j) load(dst + j * ML::kMnBox * ML::BK, row0 + j * ML::kMnBox, k0);
  } else {
    load(dst, k0, row0);
  }
}

template <class TIn, class TileT, int STAGES_, class LayoutA = KMajor, class LayoutB = KMajor>
struct MainloopTmaWgmmaBatched : MainloopTraits<TIn, TileT, STAGES_> {
  using Base = MainloopTraits<TIn, TileT, STAGES_>;
  using typename Base::TA;
  using Base::BM, Base::BN, Base::BK;
  static constexpr bool kBatched = true, kAMn = LayoutA::kMn, kBMn = LayoutB::kMn, kBResident = false;
  static constexpr bool kClusterN = false;
  static constexpr int kBSlots = STAGES_;
  static constexpr int kMaxK = 0;
  static_assert(!std::is_same_v<TIn, int8_t>, "integer wgmma reads K-major tiles only: s8 has no general form");
  __device__ __forceinline__ static int b_slot(int index, int) { return index; }

  // bt_a, bt_b: the product each operand's map is read at (0 for a broadcast operand).
  __device__ __forceinline__ static uint32_t load(const LoadContext<TA>& x, int index, int kt, int m0, int n0,
                                                  int bt_a, int bt_b, uint64_t* full, bool) {
    TA* b_dst = x.sB + index * (BN * BK) + x.cta_rank * x.b_rows * BK;
    load_operand<MainloopTmaWgmmaBatched, kAMn>(x.sA + index * (BM * BK), x.tmap_a, kt * BK, m0, BM, bt_a, full, 0);
    load_operand<MainloopTmaWgmmaBatched, kBMn>(b_dst, x.tmap_b, kt * BK, n0 + x.cta_rank * x.b_rows, x.b_rows, bt_b,
                                                full, x.cluster_m == 1 ? uint16_t(0) : x.mask);
    return Base::kStageBytes;
  }
};

// B-resident (the plain TN GEMM with K <= kMaxK, N <= kBResidentNTiles * BN: tall-skinny,
// short-K problems): every tile of a CTA has the same n (the launcher walks units row by row --
// raster group 1 -- over a grid of whole rows' worth, so CTA c's tiles sit in column c % n_tiles),
// so its B is loaded once -- k_tile kt into B slot kt, with the CTA's first tile's A k_tiles -- and
// stays; afterwards the ring carries A alone. A tile then moves its A in and its D out and nothing
// else (the ring form re-reads B, 2/3 of its bytes, every tile); with n_tiles > 1 the CTAs of one
// row of tiles read its A panel at about the same time (the L2 serves all but the first).
// Measured level with the ring form on the memory-bound suite (H200, docs/hopper.md): the
// L2 re-reads of B were not the limit. What was: A's loads take ~3 us from issue to landing on
// the seed shape (docs/trace/), and a ring of 4 slots holds 2.5 of A's k_tiles in flight on
// average -- 40 KB a SM, ~1.7 TB/s of A. B_SLOTS sizes B's part apart from the ring:
// B_SLOTS k_tiles (K <= B_SLOTS * BK), so a short K leaves the smem to a deeper ring of A --
// 8 stages beside K <= 128 (2 B slots) on a 256-wide tile, 10 on a 128-wide one. 0: STAGES.
template <class TIn, class TileT, int STAGES_, int B_SLOTS = 0>
struct MainloopBResident : MainloopTraits<TIn, TileT, STAGES_> {
  using Base = MainloopTraits<TIn, TileT, STAGES_>;
  using typename Base::TA;
  using Base::BM, Base::BN, Base::BK;
  static constexpr bool kBatched = false, kAMn = false, kBMn = false, kBResident = true;
  static constexpr bool kClusterN = false;
  static constexpr int kBSlots = B_SLOTS > 0 ? B_SLOTS : STAGES_;
  static constexpr int kMaxK = kBSlots * BK;  // B's k_tiles live in the B slots
  static constexpr int kBResidentNTiles = 4;  // columns of tiles (a divisor of 132 SMs each)
  __device__ __forceinline__ static int b_slot(int, int kt) { return kt; }

  // first: the CTA's first tile, whose slots also carry B's k_tiles (the same full barrier), once.
  __device__ __forceinline__ static uint32_t load(const LoadContext<TA>& x, int index, int kt, int m0, int n0, int,
                                                  int, uint64_t* full, bool first) {
    arch::tma_load_2d(x.sA + index * (BM * BK), x.tmap_a, kt * BK, m0, full);
    if (first) arch::tma_load_2d(x.sB + kt * (BN * BK), x.tmap_b, kt * BK, n0, full);  // the CTA's one n
    return first ? Base::kStageBytes : Base::kStageBytesA;
  }
};

// The wgmma descriptor of an operand tile in a slot (its layout as load_operand wrote it).
template <class ML, bool MN>
__device__ __forceinline__ uint64_t operand_desc(const typename ML::TA* tile) {
  if constexpr (MN)
    return arch::wgmma_desc_mnmajor_sw128(tile, uint32_t(ML::kMnBox * ML::BK * sizeof(typename ML::TA)));
  else
    return arch::wgmma_desc_kmajor_sw128(tile);
}

// The consumer's wgmma of k_tile kt (slot `index`) into its m64 blocks, one commit group. Consumer
// rows of A start row_c * BK elements into the slot in either layout; block mb 64 rows (64 * BK
// elements, 8 KB) further; every block reads the same B descriptor.
template <class Cfg>
__device__ __forceinline__ void mma_k_tile(typename Cfg::TAcc (&blk)[Cfg::kMBlocks][Cfg::kAccRegs],
                                           const typename Cfg::TA* sA, const typename Cfg::TA* sB, int index, int kt,
                                           int k0, int row_c) {
  using ML = typename Cfg::Mainloop;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
  const uint64_t desc_a = operand_desc<ML, ML::kAMn>(sA + index * (BM * BK) + row_c * BK);
  constexpr uint64_t kBlockStepA = (64 * BK * sizeof(typename Cfg::TA)) >> 4;
  const uint64_t desc_b = operand_desc<ML, ML::kBMn>(sB + ML::b_slot(index, kt) * (BN * BK));
  constexpr uint64_t kStepA = ML::kAMn ? arch::kWgmmaDescMnK16Step : arch::kWgmmaDescK16Step;
  constexpr uint64_t kStepB = ML::kBMn ? arch::kWgmmaDescMnK16Step : arch::kWgmmaDescK16Step;
  arch::wgmma_fence();
#pragma unroll
  for (int kb = 0; kb < Cfg::kKBlocks; ++kb)
#pragma unroll
    for (int mb = 0; mb < Cfg::kMBlocks; ++mb)
      Cfg::Wgmma::template mma<ML::kAMn, ML::kBMn>(blk[mb], desc_a + mb * kBlockStepA + kb * kStepA,
                                                   desc_b + kb * kStepB, kt > k0 || kb > 0);
  arch::wgmma_commit_group();
}

}  // namespace pipegemm::sm90
