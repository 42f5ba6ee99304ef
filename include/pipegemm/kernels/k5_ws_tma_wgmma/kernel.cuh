// k5: the Hopper pipeline -- TMA + wgmma + mbarrier, warp-specialized and persistent.
//
//   D (M,N) = A (M,K) * B (N,K)^T, D row-major, fp32 accumulation (s8: exact s32); A and B
//   K-major, or (the general form, 16-bit types) either of them MN-major, read by wgmma
//   transposed from the same ring.
//
// One CTA = 3 warpgroups (384 threads), one CTA per SM, persistent over output tiles:
//   warpgroup 0      producer: one thread issues TMA loads of A (BM,BK) and B (BN,BK) into a
//                    ring of STAGES smem slots (128-byte swizzle), full/empty mbarriers per slot;
//                    gives registers back (setmaxnreg.dec).
//   warpgroups 1, 2  consumers: each owns 64 rows of the (BM=128, BN=256) tile and issues
//                    wgmma m64n256k16 (fp32 accumulators, 128 registers per thread; s8:
//                    m64n256k32 into s32 accumulators, the same fragment) straight
//                    from the swizzled slots; takes registers (setmaxnreg.inc). The wide
//                    tile (BM=256, BN=192): each owns 128 rows, two m64n192 blocks (kMBlocks)
//                    sharing each B read, 192 accumulators. The epilogue
//                    converts, stmatrix-es 64-column chunks into smem and TMA-stores them.
//                    Ping-pong (kPingpong): each consumer computes whole (64, 256) tiles of
//                    its own, in turns, so one's epilogue overlaps the other's mainloop.
//                    Cooperative, consumer 1 runs kStagger k_tiles behind consumer 0, so each
//                    one's epilogue overlaps the other's last (or first) wgmma of a tile.
// Cluster of cluster_m CTAs (1 or 2, chosen at launch) along M: both CTAs need the same B tile,
// so each loads half of it and multicasts it to both; every consumer releases its slot in
// both CTAs. With kClusterN (the wide tile's _cluster1x2) the pair sits along N and shares A the
// same way. Tiles are visited in a banded (grouped-along-M) order for L2 reuse.
// Edges: TMA zero-fills loads outside (M,N,K) -- a K tail adds zeros -- and clips stores.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "pipegemm/arch/barrier.cuh"
#include "pipegemm/arch/cp_async.cuh"
#include "pipegemm/arch/fence.cuh"
#include "pipegemm/arch/flag.cuh"
#include "pipegemm/arch/griddep.cuh"
#include "pipegemm/arch/ld_global.cuh"
#include "pipegemm/arch/ld_shared.cuh"
#include "pipegemm/arch/mbarrier.cuh"
#include "pipegemm/arch/setmaxnreg.cuh"
#include "pipegemm/arch/stmatrix.cuh"
#include "pipegemm/arch/tma.cuh"
#include "pipegemm/arch/wgmma.cuh"
#include "pipegemm/kernels/common/epilogue.cuh"
#include "pipegemm/pipeline/mbarrier_pipeline.cuh"
#include "pipegemm/mechanism.hpp"
#include "pipegemm/pipeline/ring_state.cuh"
#include "pipegemm/pipeline/stream_k.cuh"
#include "pipegemm/pipeline/tile_scheduler.cuh"
#include "pipegemm/pipeline/trace.cuh"

namespace pipegemm::kernels::k5 {

// The CTA's shared memory, in this order. alignas(1024): the 128-byte swizzle repeats every 8
// rows of 128 bytes, so each ring, the chunk buffers, and (by the sizes K5Config asserts) every
// slot and buffer inside them start on a swizzle period -- wgmma descriptor base offset 0.
template <class TA, int BM, int BN, int BK, int STAGES, int B_SLOTS, int CONSUMERS, int EPI_BUFS, int EPI_BUF_BYTES,
          int BIAS_BUFS>
struct K5Smem {
  alignas(1024) TA a[STAGES][BM * BK];                          // (BM,BK,STAGES), 128B-swizzled (load_operand)
  alignas(1024) TA b[B_SLOTS][BN * BK];                         // (BN,BK,B_SLOTS): the ring's, or B-resident's k_tiles
  alignas(1024) uint8_t d[CONSUMERS][EPI_BUFS][EPI_BUF_BYTES];  // (64,128 B, kEpiBufs, kConsumers)
  uint64_t full[STAGES];                                        // mbarriers: slot landed
  uint64_t empty[STAGES];                                       // mbarriers: slot released
  // General form: the tile's bias (per row: its BM rows; per column: its BN columns in
  // kBiasStride-padded quarters, bias_slot()); ping-pong: one per consumer (each its own tile).
  alignas(16) float bias[BIAS_BUFS][BN + 16];
};

// The single template parameter of the k5 family. TIn: __half or __nv_bfloat16 (A and B), TOut:
// TIn or float (D); or TIn int8_t (BK = 128: a K row is still one 128-byte span), TOut int32_t or
// float (the exact s32 sums, converted) -- the plain form only. EPI_BUFS: epilogue chunk buffers per consumer warpgroup -- 2 lets a
// chunk's store drain while the next is written; 4 (with 3 stages, for short K) holds a whole
// fp16 tile, so the consumers return to the mainloop while all of its stores are in flight.
// DEFERRED_STORE (16-bit D only): the epilogue only packs the accumulators into 64 registers
// (the general form: once alpha, C, bias and activation are applied);
// the tile is written out one chunk per k_tile during the next tile's mainloop, under its
// wgmma, so the tensor cores do not idle through the stores (registers: 128 + 64 < 232); with the
// kernel's chunk_parts P ($PIPEGEMM_K5_CHUNK_PARTS) 1/P of a chunk a k_tile.
// GENERAL_: the full semantics (K5General below): batched rank-3 tensor maps, alpha, beta * C,
// bias and activation applied to the fp32 accumulators before the cast. false: the seeds' TN
// GEMM, its machine code as before the semantics existed.
// A_MN_ / B_MN_ (general form only): the operand is MN-major in memory (M- or N-contiguous: NN,
// NT, TT). Its slot then holds (rows/64) TMA boxes of (64 MN-elements, BK K rows), each a run of
// 128-byte K rows, and wgmma reads it transposed (imm-trans = 1) -- no copy, the same ring.
// BM_ = 256 (cooperative, plain form, BN = 192, 3 stages): each consumer owns 128 rows as two m64
// blocks (kMBlocks = 2), both read by the same B descriptor. Per k16 the CTA's wgmma read 32 KB and
// TMA writes 14 KB for 0.79 M MACs (59.9 B per 1000 MACs against the 128x256 tile's 62.5, by
// `pipegemm plan`'s count), and a MAC costs 0.018 bytes of L2 reads against 0.023 (22% less; 2-CTA
// clusters: 0.014 against 0.016). A (256 + 192)-row k_tile is 56 KB: 3 stages fit beside 6 chunk
// buffers. (Four warpgroups of 64 rows cannot compile: docs/hopper.md.)
// PINGPONG_ (plain form): the two consumers take turns on whole (BM = 64, BN) tiles instead of
// sharing a (128, BN) one -- consumer c computes the CTA's work items c, c + 2, ...; the ring
// delivers them in order, so one consumer's epilogue runs while the other's wgmma use the tensor
// cores (CUTLASS's ping-pong schedule). Each slot has one reader. BN = 64 (m64n64, 32 accumulators,
// plain TN only): the small tile for M = 65..256 rows, where 128-row tiles leave most SMs idle;
// its one 64-column chunk a tile needs one chunk buffer (EPI_BUFS = 1).
// B_RESIDENT_ (plain form, K <= kMaxK, N <= kBResidentNTiles * BN: tall-skinny, short-K problems):
// every tile of a CTA has the same n (the launcher walks units row by row -- raster group 1 -- over
// a grid of whole rows' worth, so CTA c's tiles sit in column c % n_tiles), so its B is loaded once
// -- k_tile kt into B slot kt, with the CTA's first tile's A k_tiles -- and stays; afterwards the
// ring carries A alone. A tile then moves its A in and its D out and nothing else (the ring form
// re-reads B, 2/3 of its bytes, every tile); with n_tiles > 1 the CTAs of one row of tiles read its
// A panel at about the same time (the L2 serves all but the first).
// Measured level with the ring form on the memory-bound suite (H200, docs/hopper.md): the
// L2 re-reads of B were not the limit. What was: A's loads take ~3 us from issue to landing on
// the seed shape (docs/trace/), and a ring of 4 slots holds 2.5 of A's k_tiles in flight on
// average -- 40 KB a SM, ~1.7 TB/s of A. B_SLOTS_ sizes B's part apart from the ring:
// B_SLOTS_ k_tiles (K <= B_SLOTS_ * BK), so a short K leaves the smem to a deeper ring of A --
// 8 stages beside K <= 128 (2 B slots) on a 256-wide tile, 10 on a 128-wide one.
// STREAM_K_ (cooperative, not deferred): the work is walked as pipeline::StreamKPlan's segments --
// whole units first, then the last wave's k_tiles shared by every worker (pipeline/stream_k.cuh),
// partial sums through a global workspace (K5StreamK).
// CLUSTER_N_ (plain ring form): a cluster's CTAs sit side by side along N (a "1x2" cluster) and
// multicast A -- each loads BM / cluster of its rows for both -- where the default stacks them along
// M and multicasts B. Whichever operand a k_tile holds more of is the one to share: the wide tile's
// A (256 rows) against its B (192).
template <class TIn, class TOut, int BM_ = 128, int BN_ = 256, int BK_ = 64, int STAGES_ = 4, int EPI_BUFS_ = 2,
          bool DEFERRED_STORE_ = false, bool GENERAL_ = false, bool A_MN_ = false, bool B_MN_ = false,
          bool PINGPONG_ = false, bool B_RESIDENT_ = false, bool STREAM_K_ = false, bool CLUSTER_N_ = false,
          int B_SLOTS_ = 0>
struct K5Config {
  using TA = TIn;
  using TD = TOut;
  static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_;

  static constexpr bool kInt8 = std::is_same_v<TIn, int8_t>;
  using Wgmma = typename arch::WgmmaM64<TIn, BN_>::type;
  using TAcc = std::conditional_t<kInt8, int32_t, float>;  // accumulator registers
  static constexpr int kWgmmaM = 64, kWgmmaN = BN, kWgmmaK = Wgmma::kK;
  static constexpr bool kPingpong = PINGPONG_;
  static constexpr bool kBResident = B_RESIDENT_;
  static constexpr bool kStreamK = STREAM_K_;
  static constexpr bool kClusterN = CLUSTER_N_;
  // Cooperative consumers staggered by 2 k_tiles (kStaggerBarrier): at 4096^3, BF16 bias + GELU
  // cost 1.028-1.031 of the plain GEMM against 1.040-1.043 in step, s8 0.7% faster, the plain
  // 16-bit GEMM unchanged (H200, docs/hopper.md). More would leave the
  // leading consumer too few slots ahead (stagger 3: s8 back to 0.0972 ms from 0.0963).
  // The wide tile (3 stages): 0 until measured ($PIPEGEMM_K5_STAGGER) -- a lag holds slots of a short ring.
  static constexpr int kStagger = PINGPONG_ || BM_ > 128 ? 0 : 2;
  // B's smem slots: the ring's STAGES, or (B-resident) B_SLOTS_ k_tiles of the whole B (0: STAGES).
  static constexpr int kBSlots = B_RESIDENT_ && B_SLOTS_ > 0 ? B_SLOTS_ : STAGES_;
  static constexpr int kBSlotsArg = B_SLOTS_;  // the template argument as given (the symbol's mangling)
  static constexpr int kMaxK = B_RESIDENT_ ? kBSlots * BK_ : 0;  // B-resident: B's k_tiles live in the B slots
  static constexpr int kBResidentNTiles = 4;  // B-resident: columns of tiles (a divisor of 132 SMs each)
  static constexpr int kConsumers = 2;                       // consumer warpgroups
  static constexpr int kTileConsumers = kPingpong ? 1 : 2;   // consumers sharing a tile (each slot's readers)
  static constexpr int kConsumerRows = BM / kTileConsumers;  // a consumer's rows of a tile
  static constexpr int kMBlocks = kConsumerRows / 64;        // its m64 wgmma blocks (1; the wide tile 2)
  static constexpr int kNumThreads = 128 * (1 + kConsumers); // + the producer warpgroup
  static constexpr int kKBlocks = BK / kWgmmaK;              // wgmma k-steps per k_tile per block
  static constexpr int kAccRegs = kWgmmaM * kWgmmaN / 128;   // accumulators per thread per m64 block

  static constexpr int kStageBytesA = BM * BK * int(sizeof(TA));
  static constexpr int kStageBytesB = BN * BK * int(sizeof(TA));
  static constexpr int kStageBytes = kStageBytesA + kStageBytesB;  // expect_tx per slot

  // Epilogue: per consumer, EPI_BUFS chunk buffers of (64 rows, 128 bytes) -- one 128-byte
  // swizzle span per row, the TMA store box.
  static constexpr int kEpiCols = 128 / int(sizeof(TD));
  static constexpr int kEpiChunks = BN / kEpiCols;
  static constexpr int kEpiBufBytes = kWgmmaM * 128;
  static constexpr int kEpiBufs = EPI_BUFS_;
  static constexpr bool kDeferredStore = DEFERRED_STORE_;
  static constexpr bool kGeneral = GENERAL_;
  static constexpr bool kAMn = A_MN_, kBMn = B_MN_;
  static constexpr int kMnBox = 128 / int(sizeof(TA));  // MN-elements of an MN-major box (one 128-byte row)

  // Shared memory: [A slots][B slots][D chunk buffers][full barriers][empty barriers][bias]. The CTA
  // asks for the bytes up to the last barrier, not sizeof(Smem), which alignas rounds up to a
  // multiple of 1024 with a tail nothing touches; the slack re-aligns the dynamic smem base.
  using Smem = K5Smem<TA, BM, BN, BK, STAGES, kBSlots, kConsumers, kEpiBufs, kEpiBufBytes, kPingpong ? 2 : 1>;
  // The plain kernel never touches the bias buffer, so it does not ask for it.
  static constexpr int kSmemUsedBytes =
      GENERAL_ ? int(offsetof(Smem, bias) + sizeof(Smem::bias)) : int(offsetof(Smem, empty) + sizeof(Smem::empty));
  static constexpr int kSmemBytes = 1024 /* base alignment slack */ + kSmemUsedBytes;
  static_assert(kSmemBytes <= 227 * 1024, "one CTA per SM: at most 227 KB of dynamic shared memory");

  // TMA loads into a full/empty mbarrier ring, one producer and kConsumers wgmma warpgroups,
  // persistent CTAs in the banded tile order, stmatrix + TMA-store epilogue.
  static constexpr Mechanism kMechanism = [] {
    Mechanism m;
    m.load = LoadPath::tma;
    m.mma = MmaKind::wgmma;
    m.pipeline = PipelineKind::mbarrier_ring;
    m.order = TileOrder::persistent;
    m.epilogue = EpilogueKind::stmatrix_tma;
    m.warp_specialized = true;
    m.consumers = kConsumers;
    m.pingpong = kPingpong;
    m.stagger = kStagger;
    m.stream_k = kStreamK;
    m.cluster_n = kClusterN;
    return m;
  }();

  // One thread issues TMA, the rest idle; a consumer holds 128 accumulators (192 with two m64n192
  // blocks) + addressing + epilogue. The 128x192 ping-pong's turn-taking state spilled 12 bytes
  // beside 192 accumulators at 232: it takes 240, the producer 24.
  static constexpr bool kWidePingpong = PINGPONG_ && kMBlocks > 1 && BN > 128;
  static constexpr int kProducerRegs = kWidePingpong ? 24 : 40;
  static constexpr int kConsumerRegs = kWidePingpong ? 240 : 232;

  static_assert(BM == kWgmmaM * kMBlocks * kTileConsumers && (kMBlocks == 1 || kMBlocks == 2),
                "a consumer owns 64 rows of a tile (128-row tiles, or 64 in ping-pong) or 128 (256-row tiles, "
                "or the 128-row ping-pong)");
  static_assert(kMBlocks == 1 || ((BN == 192 || (BN == 128 && PINGPONG_)) && !GENERAL_ && !B_RESIDENT_ && !STREAM_K_ &&
                                   !DEFERRED_STORE_),
                "two m64 blocks a consumer: the wide tile 256x192 or the ping-pong 128x192 / 128x128, the plain "
                "ring form (2 x 96 accumulators leave no room for a deferred tile or the general epilogue -- the "
                "epilogue code handles one block; stream-K's slots hold one block)");
  static_assert(!kPingpong || !DEFERRED_STORE_, "ping-pong hides the tile's stores under the other consumer's mainloop already");
  static_assert(!B_RESIDENT_ || (!GENERAL_ && !PINGPONG_), "B-resident: the plain cooperative form");
  static_assert(B_SLOTS_ == 0 || B_RESIDENT_, "B slots apart from the ring: B-resident only");
  static_assert(!CLUSTER_N_ || (!GENERAL_ && !PINGPONG_ && !B_RESIDENT_ && !STREAM_K_),
                "clusters along N: the plain ring form (cooperative, tiles walked in the unit order)");
  static_assert(!STREAM_K_ || (!PINGPONG_ && !B_RESIDENT_ && !DEFERRED_STORE_),
                "stream-K: the cooperative ring form (a segment's sums stay in its consumers' registers)");
  static_assert(BN == 256 || BN == 192 || ((BN == 128 || BN == 64) && !kInt8),
                "one wgmma m64n256 / m64n192 (16-bit: or m64n128, m64n64) covers the CTA tile's N");
  static_assert(BN >= 128 || (!GENERAL_ && !STREAM_K_ && !DEFERRED_STORE_ && !B_RESIDENT_),
                "the 64-wide tile: the plain ring form (the general form's bias rows and MN-major boxes are "
                "128-column layouts)");
  static_assert(BK * sizeof(TA) == 128, "a K-major row of a slot is exactly one 128-byte swizzle span");
  static_assert(GENERAL_ || (!A_MN_ && !B_MN_), "MN-major operands are the general form's (the plain kernel is TN)");
  static_assert(!GENERAL_ || (kWgmmaM % kMnBox == 0 && (BN / 2) % kMnBox == 0),
                "an MN-major slot is whole boxes of 64 MN-elements (per consumer, per cluster half)");
  static_assert(!kInt8 || (!GENERAL_ && (std::is_same_v<TOut, int32_t> || std::is_same_v<TOut, float>)),
                "s8: the plain TN form, s32 or f32 D (integer wgmma reads K-major tiles only)");
  static_assert(BN / 2 <= 256 && BM <= 256, "a TMA box has at most 256 rows");
  static_assert(kStageBytesA % 1024 == 0 && kStageBytesB % 1024 == 0 && (kWgmmaM * 128) % 1024 == 0 &&
                    (BN / 2 * BK * sizeof(TA)) % 1024 == 0,
                "every wgmma operand tile starts on a 1024-byte swizzle boundary (descriptor base offset 0)");
  static_assert(sizeof(Smem::a[0]) == kStageBytesA && sizeof(Smem::b[0]) == kStageBytesB &&
                    sizeof(Smem::d[0][0]) == kEpiBufBytes,
                "a slot is one TMA box of A / of B (expect_tx counts kStageBytes); a chunk buffer one D box");
  static_assert(offsetof(Smem, full) == STAGES * kStageBytesA + kBSlots * kStageBytesB + kConsumers * kEpiBufs * kEpiBufBytes &&
                    offsetof(Smem, empty) == offsetof(Smem, full) + STAGES * sizeof(uint64_t),
                "no padding between the members: kSmemBytes counts exactly the rings, buffers and barriers");
  // One buffer only where a tile has one chunk (BN = 64, 16-bit D): its store was issued a whole
  // mainloop before the next tile's chunk waits for it to have been read; or where the stores are
  // deferred (one chunk a k_tile of the next mainloop: a k_tile apart; B-resident s5's smem).
  static_assert((kEpiBufs >= 2 || kEpiChunks == 1 || DEFERRED_STORE_) && kEpiChunks % kEpiBufs == 0,
                "chunk index mod kEpiBufs picks the buffer, the same one every tile");
  static_assert(kStageBytes < (1 << 20), "mbarrier tx-count range");
  static_assert(!kDeferredStore || sizeof(TD) == 2, "a deferred fp32 tile would need 128 more registers");
  static_assert(kProducerRegs * 128 + kConsumerRegs * 128 * kConsumers <= 65536, "register file of one SM");
  static_assert(kSmemBytes <= 227 * 1024, "H100/H200: at most 227 KB of dynamic smem per CTA");
};

// What the general form (kGeneral) takes beyond the tensor maps: the batch (each operand's map
// is rank 3; a broadcast operand's has one matrix and is always read at product 0) and the
// epilogue. The plain form takes an empty one.
template <bool kGeneral>
struct K5General {};
template <>
struct K5General<true> {
  int batch;
  int a_bcast, b_bcast;  // 1: the operand is the same matrix for every product
  common::EpilogueArgs epi;
};

// Stream-K (kStreamK): the plan and its workspace. Slot (worker, CTA rank, consumer) -- worker =
// the cluster (or CTA) index -- holds one consumer's (64, BN) accumulators of the worker's `part`
// segment, and its flag turns 1 once they are written; the `finish` that adds them resets it to 0
// (zero between launches: split_workspace zeroes the flags once).
template <bool kStreamK>
struct K5StreamK {};
template <>
struct K5StreamK<true> {
  pipeline::StreamKPlan plan;
  pipeline::TileScheduler sched;  // the kernel's, made by the host: read from the parameters, not held in registers
  int* flags;
  void* partials;
};
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

// The bias of a tile goes through shared memory: each consumer warpgroup's 128 threads load
// BN / 128 elements each (row m0 + t or column n0 + t; zero past the edge) when the tile starts,
// hold their bits through the mainloop -- the loads' latency hides under the wgmma (early,
// volatile loads: plain ones were sunk to their use) -- and store them to smem.bias before the
// epilogue. Loaded element by element in the epilogue, the 64 bias values a thread needs cost 4%
// of a 4096^3 GEMM (H200), more than the GELU.
// When: under the mainloop (after k_tile kBiasStageKt's wgmma is issued), so the epilogue only
// reads it. Cooperative: both consumers store the same tile's same bits into one buffer (no smem
// for two), each behind its own barrier, so neither waits for the other -- a barrier of all 256
// held them in lockstep at every tile's epilogue. A consumer past k_tile STAGES of a
// tile has had that slot refilled, so the other consumer released the tile's first slot: its
// previous epilogue has read the buffer. Ping-pong: each consumer its own buffer, from k_tile 0.
// A cooperative tile of at most STAGES k_tiles (short K) stages in the epilogue, behind the
// 256-thread barrier kBiasBarrier.
constexpr int kBiasBarrier = 3;  // named barrier of the 256 consumer threads (1, 2: each consumer's)
template <class Cfg>
constexpr int kBiasStageKt = Cfg::kPingpong ? 0 : Cfg::STAGES;
// A column's slot: the fragment's thread with lane % 4 = q reads columns 8j + 2q + {0, 1} (every
// j), so quarter q holds them contiguously -- 16-byte loads -- in a row of kBiasStride floats,
// padded so that the four quarters start on different banks.
template <int BN>
constexpr int kBiasStride = BN / 4 + 4;
template <int BN>
__host__ __device__ constexpr int bias_slot(int col) {
  return (col % 8) / 2 * kBiasStride<BN> + 2 * (col / 8) + col % 2;
}
// The layout apply_epilogue reads: every column its own slot inside BN + 16 floats, and quarter q
// holding columns 8j + 2q + {0, 1} for j = 0, 1, ... at slots 2j, 2j + 1 of its row (16-byte loads
// of two n8 blocks' pairs).
template <int BN>
__host__ __device__ constexpr bool bias_slots_as_read() {
  for (int c = 0; c < BN; ++c) {
    const int q = (c % 8) / 2, j = c / 8;
    if (bias_slot<BN>(c) != q * kBiasStride<BN> + 2 * j + c % 2 || bias_slot<BN>(c) >= BN + 16) return false;
    for (int d = 0; d < c; ++d)
      if (bias_slot<BN>(d) == bias_slot<BN>(c)) return false;
  }
  return kBiasStride<BN> % 4 == 0 && (kBiasStride<BN> / 4) % 2 == 1;  // 16-byte rows, quarters on different banks
}
// Ping-pong: named barrier kTurnBarrier + c hands the ring to consumer c (ids 4, 5).
constexpr int kTurnBarrier = 4;
// Staggered cooperative consumers: consumer 1 starts its first unit once consumer 0 has issued
// `stagger` k_tiles of it (id 6), meant so that each tile consumer 0's epilogue runs while consumer
// 1 finishes its last k_tiles alone on the tensor cores, and consumer 1's while consumer 0 starts
// the next tile. The ring bounds it: consumer 0 runs ahead on slots consumer 1 has yet to release,
// so stagger < STAGES (the launcher clamps). Traces (ns-resolution, H100, 4096^3; docs/trace.md) find
// the lag gone after the first tile -- both consumers wait on each slot within ~10 ns of each other
// and start their epilogues together; setting it again at every unit measured slower (H100,
// docs/hopper.md), so it is the first unit's only.
constexpr int kStaggerBarrier = 6;
template <class Cfg>
__device__ __forceinline__ uint32_t load_tile_bias(const common::EpilogueArgs& e, int m0, int n0, int M, int N, int t) {
  if (!e.bias) return 0;
  const bool col = e.bias_mode == Bias::per_col;
  const int i = col ? n0 + t : m0 + t;
  if (!(col ? i < N : t < Cfg::BM && i < M)) return 0;  // 0 bits: 0.0 in every type
  if (e.bias_type == DType::f32) return arch::ld_global_nc_b32(static_cast<const float*>(e.bias) + i);
  return arch::ld_global_nc_early_b16(static_cast<const uint16_t*>(e.bias) + i);
}
// By `threads` threads sharing named barrier `barrier` (a consumer's 128 under the mainloop, or
// both consumers' 256 after a short one): the first barrier waits until all of them have read
// the previous tile's bias, the second until this tile's is complete. Thread t (of its consumer)
// stores elements t, t + 128, ..., scaled by `scale` (the GELU takes v / 2: apply_epilogue), per
// column in their bias_slot.
template <int BN, int N>
__device__ __forceinline__ void stage_tile_bias(float* sbias, const uint32_t (&bits)[N], DType type, bool per_col,
                                                float scale, int t, int barrier, int threads) {
  float v[N];
#pragma unroll
  for (int j = 0; j < N; ++j)
    v[j] = scale * (type == DType::f32   ? __uint_as_float(bits[j])
                    : type == DType::f16 ? __half2float(__ushort_as_half(uint16_t(bits[j])))
                                         : __bfloat162float(__ushort_as_bfloat16(uint16_t(bits[j]))));
  arch::named_barrier_sync(barrier, threads);
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const int i = t + j * 128;
    arch::sts_f32(arch::smem_u32(sbias + (per_col ? bias_slot<BN>(i) : i)), v[j]);
  }
  arch::named_barrier_sync(barrier, threads);
}

// C's pairs of adjacent columns can be loaded whole: ldc and the batch stride even (in elements),
// the pointer aligned to a pair, and N even -- a pair starting at column N - 1 would read one
// element past the row (past C's end on its last row): the packed form takes odd N.
__device__ __forceinline__ bool c_pairs_aligned(const common::EpilogueArgs& e, int N) {
  const int64_t pair_bytes = e.c_type == DType::f32 ? 8 : 4;
  return reinterpret_cast<uintptr_t>(e.c) % pair_bytes == 0 && e.ldc % 2 == 0 && e.stride_c % 2 == 0 && N % 2 == 0;
}
// n8 blocks of C read per batch of pair loads (2 per block in flight a thread): 8 (four rounds
// of L2 latency a 64x256 consumer tile). A build knob (-DPIPEGEMM_K5_C_GROUP=16) so that 16 and
// 32 can be timed without a variant per value. At most the tile's blocks, and 16 for an f32 C
// (8-byte pairs): at 32, ptxas spilled 56-76 bytes there; none at 16, nor for 16-bit C at 32
// (ptxas -v).
#ifndef PIPEGEMM_K5_C_GROUP
#define PIPEGEMM_K5_C_GROUP 8
#endif
template <class Cfg, class TC>
constexpr int kCGroup = std::min(Cfg::kAccRegs / 4, sizeof(TC) == 4 ? std::min(PIPEGEMM_K5_C_GROUP, 16) : PIPEGEMM_K5_C_GROUP);
// acc += beta * C for the thread's elements, C (of type TC: f32 or D's) at c for (r0, c0) and
// c + row8 for (r0 + 8, c0): groups of G n8 blocks, each one batch of 2G pair loads, then the FMAs.
template <class Cfg, class TC, int G>
__device__ __forceinline__ void add_c_pairs(float (&acc)[Cfg::kAccRegs], const TC* c, int64_t row8, float beta, int r0,
                                            int c0, int M, int N) {
  using Pair = std::conditional_t<sizeof(TC) == 4, float2, uint32_t>;
  constexpr int kBlocks = Cfg::kAccRegs / 4;
  static_assert(kBlocks % G == 0, "whole groups");
#pragma unroll
  for (int g = 0; g < kBlocks; g += G) {
    Pair v[G][2];
#pragma unroll
    for (int jj = 0; jj < G; ++jj)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int col = c0 + 8 * (g + jj);
        v[jj][h] = r0 + 8 * h < M && col < N ? *reinterpret_cast<const Pair*>(c + h * row8 + 8 * (g + jj)) : Pair{};
      }
#pragma unroll
    for (int jj = 0; jj < G; ++jj)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float2 f;
        if constexpr (sizeof(TC) == 4) {
          f = v[jj][h];
        } else if constexpr (std::is_same_v<TC, __half>) {
          f = __half22float2(*reinterpret_cast<const __half2*>(&v[jj][h]));
        } else {
          f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&v[jj][h]));
        }
        float* a = &acc[4 * (g + jj) + 2 * h];
        a[0] = fmaf(beta, f.x, a[0]);
        a[1] = fmaf(beta, f.y, a[1]);
      }
    // One group of loads in flight at a time (the registers they take are the limit).
    asm volatile("" ::: "memory");
  }
}

// alpha, beta * C, bias, activation on a consumer warpgroup's (64, BN) fp32 accumulators:
// thread (warp w, lane l) holds acc[4j + 2h + q] = row 16w + 8h + l/4, column 8j + 2(l%4) + q
// (arch/wgmma.cuh); row0/col0 is the fragment's first element in D, bt the product; sbias the
// tile's bias (stage_tile_bias, scaled by bias_scale(e)), srow0 the fragment's first row in the
// CTA tile. Phases, each one loop over the accumulators behind one uniform branch: alpha and C;
// the scale and the bias in one FFMA; the activation. C reads are predicated on the M/N
// edges (the TMA store clips the rest), one element at a time: grouping them into arrays (16 or
// 64 values) spilled 1-2 KB under the launch bound's 168 registers, which ptxas allocates
// whatever setmaxnreg gives the consumers later.
// The GELU (tanh form) works on v / 2 (common::gelu_tanh_of_half): the bias is staged halved.
__device__ __forceinline__ float bias_scale(const common::EpilogueArgs& e) {
  return e.act == Activation::gelu_tanh ? 0.5f : 1.f;
}

template <class Cfg>
__device__ __forceinline__ void apply_epilogue(float (&acc)[Cfg::kAccRegs], const common::EpilogueArgs& e, int row0,
                                               int col0, int bt, int M, int N, int tid_wg, const float* sbias,
                                               int srow0) {
  constexpr int kBlocks = Cfg::kAccRegs / 4;  // n8 blocks
  const int lane = tid_wg % 32;
  const int r0 = row0 + 16 * (tid_wg / 32) + (lane >> 2);
  const int c0 = col0 + 2 * (lane & 3);
  float scale = e.alpha;  // applied with the bias below, or here before beta C
  if (e.c && e.alpha != 1.f) {
#pragma unroll
    for (int i = 0; i < Cfg::kAccRegs; ++i) acc[i] *= e.alpha;
  }
  if (e.c) scale = 1.f;
  constexpr DType kDType = sizeof(typename Cfg::TD) == 4                        ? DType::f32
                           : std::is_same_v<typename Cfg::TD, __half> ? DType::f16
                                                                        : DType::bf16;
  if (e.c && e.c_type == kDType && c_pairs_aligned(e, N)) {
    // C in D's type: a thread's elements come in pairs of adjacent columns (q = 0, 1; N even),
    // one 4-byte (16-bit) or 8-byte (f32) load per pair, 16 of them in flight per group of 8 n8
    // blocks, so a tile waits for C about once per group rather than once per element
    // (element loads made beta C cost 19% at 4096^3, H200). An f32 C under a 16-bit D takes
    // the element loads below: with both pair types in the kernel, ptxas spilled.
    const int64_t c_row = int64_t(bt) * e.stride_c + int64_t(r0) * e.ldc + c0;  // (r0, c0); row r0 + 8: + 8 ldc
    add_c_pairs<Cfg, typename Cfg::TD, kCGroup<Cfg, typename Cfg::TD>>(acc, static_cast<const typename Cfg::TD*>(e.c) + c_row,
                                                                       8 * e.ldc, e.beta, r0, c0, M, N);
  } else if (e.c) {
#pragma unroll
    for (int j = 0; j < kBlocks; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int q = 0; q < 2; ++q) {
          const int r = r0 + 8 * h, col = c0 + 8 * j + q;
          if (r < M && col < N)
            acc[4 * j + 2 * h + q] =
                fmaf(e.beta, common::load_as_float(e.c, int64_t(bt) * e.stride_c + int64_t(r) * e.ldc + col, e.c_type),
                     acc[4 * j + 2 * h + q]);
        }
  }
  // v = scale * acc + bias in one FFMA; for the GELU, v / 2 (its bias staged halved).
  const float s = scale * bias_scale(e);
  if (e.bias) {  // zeros past the edges (load_tile_bias)
    if (e.bias_mode == Bias::per_col) {
      static_assert(kBlocks % 2 == 0, "two n8 blocks' bias pairs per 16-byte load");
      const uint32_t q_row = arch::smem_u32(sbias + (lane & 3) * kBiasStride<Cfg::BN>);
#pragma unroll
      for (int j = 0; j < kBlocks; j += 2) {
        const float4 b = arch::lds_v4_f32(q_row + 4 * 2 * j);  // columns 8j + 2q + {0,1}, 8(j+1) + 2q + {0,1}
        acc[4 * j + 0] = fmaf(acc[4 * j + 0], s, b.x), acc[4 * j + 1] = fmaf(acc[4 * j + 1], s, b.y);
        acc[4 * j + 2] = fmaf(acc[4 * j + 2], s, b.x), acc[4 * j + 3] = fmaf(acc[4 * j + 3], s, b.y);
        acc[4 * j + 4] = fmaf(acc[4 * j + 4], s, b.z), acc[4 * j + 5] = fmaf(acc[4 * j + 5], s, b.w);
        acc[4 * j + 6] = fmaf(acc[4 * j + 6], s, b.z), acc[4 * j + 7] = fmaf(acc[4 * j + 7], s, b.w);
      }
    } else {
      const float b0 = arch::lds_f32(arch::smem_u32(sbias + srow0 + r0 - row0));
      const float b1 = arch::lds_f32(arch::smem_u32(sbias + srow0 + r0 - row0 + 8));
#pragma unroll
      for (int j = 0; j < kBlocks; ++j) {
        acc[4 * j + 0] = fmaf(acc[4 * j + 0], s, b0), acc[4 * j + 1] = fmaf(acc[4 * j + 1], s, b0);
        acc[4 * j + 2] = fmaf(acc[4 * j + 2], s, b1), acc[4 * j + 3] = fmaf(acc[4 * j + 3], s, b1);
      }
    }
  } else if (s != 1.f) {
#pragma unroll
    for (int i = 0; i < Cfg::kAccRegs; ++i) acc[i] *= s;
  }
  switch (e.act) {  // one loop per activation: the switch is outside the accumulators
    case Activation::relu:
#pragma unroll
      for (int i = 0; i < Cfg::kAccRegs; ++i) acc[i] = common::activate(acc[i], Activation::relu);
      break;
    case Activation::gelu_tanh:  // acc holds v / 2
#pragma unroll
      for (int i = 0; i < Cfg::kAccRegs; ++i) acc[i] = common::gelu_tanh_of_half(acc[i]);
      break;
    case Activation::gelu_erf:
#pragma unroll
      for (int i = 0; i < Cfg::kAccRegs; ++i) acc[i] = common::activate(acc[i], Activation::gelu_erf);
      break;
    default: break;
  }
}

using common::pack_pair;

// A 4-byte D element's bits from an accumulator: f32 from f32 or (converted) s32, s32 as is.
template <class TD, class TAcc>
__device__ __forceinline__ uint32_t d_bits(TAcc v) {
  if constexpr (std::is_same_v<TD, float>) return __float_as_uint(float(v));
  else return uint32_t(v);
}

// Writes chunk `CH` (kEpiCols columns) of a consumer's (64, BN) accumulator tile into a
// (64 rows, 128 bytes) smem buffer in the TMA 128-byte swizzle: 16-byte unit u of row r lives
// at unit u ^ (r % 8). Rows 8h..8h+7 of one 8x8 matrix land in 8 distinct bank groups.
template <class Cfg, int CH>
__device__ __forceinline__ void write_d_chunk(const typename Cfg::TAcc (&acc)[Cfg::kAccRegs], uint8_t* buf, int warp,
                                              int lane) {
  using TD = typename Cfg::TD;
  const uint32_t base = arch::smem_u32(buf);
  if constexpr (sizeof(TD) == 2) {
    // 64 columns = 8 n8 blocks; one stmatrix.x4 stores blocks (j, j+1) x row halves (0, 1).
    const int mi = lane >> 3;                        // which of the 4 matrices this lane addresses
    const int row = 16 * warp + 8 * (mi & 1) + (lane & 7);
#pragma unroll
    for (int jp = 0; jp < 4; ++jp) {
      constexpr int j0 = CH * 8;
      const int j = j0 + 2 * jp;
      const int unit = 2 * jp + (mi >> 1);             // 16-byte unit (8 columns) inside the row
      const uint32_t addr = base + row * 128 + ((unit ^ (row & 7)) << 4);
      arch::stmatrix_x4(addr, pack_pair<TD>(acc[4 * j + 0], acc[4 * j + 1]),
                        pack_pair<TD>(acc[4 * j + 2], acc[4 * j + 3]),
                        pack_pair<TD>(acc[4 * j + 4], acc[4 * j + 5]),
                        pack_pair<TD>(acc[4 * j + 6], acc[4 * j + 7]));
    }
  } else {
    // 4-byte D (f32, s32): 32 columns = 4 n8 blocks; each lane stores its two adjacent columns
    // (8 bytes) -- s32 sums as they are, or converted to f32.
#pragma unroll
    for (int jj = 0; jj < 4; ++jj) {
      const int j = CH * 4 + jj;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = 16 * warp + 8 * h + (lane >> 2);
        const int unit = 2 * jj + ((lane & 3) >> 1);
        uint8_t* p = buf + row * 128 + ((unit ^ (row & 7)) << 4) + (lane & 1) * 8;
        if constexpr (std::is_same_v<typename Cfg::TAcc, float>)
          *reinterpret_cast<float2*>(p) = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
        else
          *reinterpret_cast<uint2*>(p) = make_uint2(d_bits<TD>(acc[4 * j + 2 * h]), d_bits<TD>(acc[4 * j + 2 * h + 1]));
      }
    }
  }
}

// The accumulators as TD pairs in the order stmatrix takes them: packed[2j] = row half 0 and
// packed[2j+1] = row half 1 of n8 block j, i.e. packed[i] = (acc[2i], acc[2i+1]).
template <class Cfg>
__device__ __forceinline__ void pack_accumulators(const float (&acc)[Cfg::kAccRegs],
                                                  uint32_t (&packed)[Cfg::kAccRegs / 2]) {
#pragma unroll
  for (int i = 0; i < Cfg::kAccRegs / 2; ++i) packed[i] = pack_pair<typename Cfg::TD>(acc[2 * i], acc[2 * i + 1]);
}

// write_d_chunk for already packed 16-bit values (the same addresses and swizzle); stmatrix
// JP0 .. JP1-1 of the chunk's four (a part of it: store_d_chunk's PARTS).
template <class Cfg, int CH, int JP0 = 0, int JP1 = 4>
__device__ __forceinline__ void write_d_chunk_packed(const uint32_t (&packed)[Cfg::kAccRegs / 2], uint8_t* buf,
                                                     int warp, int lane) {
  static_assert(sizeof(typename Cfg::TD) == 2, "stmatrix stores 16-bit elements");
  const uint32_t base = arch::smem_u32(buf);
  const int mi = lane >> 3;
  const int row = 16 * warp + 8 * (mi & 1) + (lane & 7);
#pragma unroll
  for (int jp = JP0; jp < JP1; ++jp) {
    const int j = CH * 8 + 2 * jp;
    const int unit = 2 * jp + (mi >> 1);
    const uint32_t addr = base + row * 128 + ((unit ^ (row & 7)) << 4);
    arch::stmatrix_x4(addr, packed[2 * j], packed[2 * j + 1], packed[2 * j + 2], packed[2 * j + 3]);
  }
}

// Calls f(std::integral_constant<int, ch>) for a run-time ch: register arrays are indexed
// only with compile-time constants.
template <class F, int... CH>
__device__ __forceinline__ void with_chunk_index(int ch, F&& f, std::integer_sequence<int, CH...>) {
  ((ch == CH ? f(std::integral_constant<int, CH>{}) : void()), ...);
}

// Part PART of PARTS of epilogue chunk CH of a consumer warpgroup. The first part waits until
// the buffer's previous TMA store (the one kEpiBufs chunks ago, possibly of the previous tile)
// has read it; each part writes its share of the chunk (write_part(buf)); the last makes the
// chunk visible to the async proxy and lets one thread store it. PARTS > 1 spreads a deferred
// chunk's stmatrix over PARTS k_tiles of the next mainloop.
template <class Cfg, int CH, int PART = 0, int PARTS = 1, class WritePart>
__device__ __forceinline__ void store_d_chunk(WritePart&& write_part, uint8_t* d_bufs, const CUtensorMap* tmap_d,
                                              int m0, int n0, int consumer, int tid_wg, int bt = 0) {
  uint8_t* buf = d_bufs + (CH % Cfg::kEpiBufs) * Cfg::kEpiBufBytes;
  if constexpr (PART == 0) {
    if (tid_wg == 0) arch::tma_store_wait_read<Cfg::kEpiBufs - 1>();
    arch::named_barrier_sync(1 + consumer, 128);
  }
  write_part(buf);
  if constexpr (PART == PARTS - 1) {
    arch::fence_proxy_async_smem();
    arch::named_barrier_sync(1 + consumer, 128);
    if (tid_wg == 0) {
      if constexpr (Cfg::kGeneral)
        arch::tma_store_3d(tmap_d, buf, n0 + CH * Cfg::kEpiCols, m0, bt);
      else
        arch::tma_store_2d(tmap_d, buf, n0 + CH * Cfg::kEpiCols, m0);
      arch::tma_store_commit_group();
    }
  }
}

template <class Cfg, int... CH>
__device__ __forceinline__ void store_d_tile(const typename Cfg::TAcc (&acc)[Cfg::kAccRegs], uint8_t* d_bufs,
                                             const CUtensorMap* tmap_d, int m0, int n0, int consumer, int tid_wg,
                                             std::integer_sequence<int, CH...>, int bt = 0) {
  (store_d_chunk<Cfg, CH>([&](uint8_t* buf) { write_d_chunk<Cfg, CH>(acc, buf, tid_wg / 32, tid_wg % 32); },
                          d_bufs, tmap_d, m0, n0, consumer, tid_wg, bt),
   ...);
}

// One operand's part of a slot (general form: rank-3 maps, product bt), `rows` rows of A or B
// from row0 at K offset k0. K-major: one box (BK, rows). MN-major: rows / 64 boxes of (64 of
// MN, BK of K), one after another. mask != 0 multicasts to the cluster's CTAs in it.
template <class Cfg, bool MN>
__device__ __forceinline__ void load_operand(typename Cfg::TA* dst, const CUtensorMap* map, int k0, int row0, int rows,
                                             int bt, uint64_t* full, uint16_t mask) {
  auto load = [&](typename Cfg::TA* d, int c0, int c1) {
    if (mask)
      arch::tma_load_3d_multicast(d, map, c0, c1, bt, full, mask);
    else
      arch::tma_load_3d(d, map, c0, c1, bt, full);
  };
  if constexpr (MN) {
    for (int j = 0; j < rows / Cfg::kMnBox; ++j) load(dst + j * Cfg::kMnBox * Cfg::BK, row0 + j * Cfg::kMnBox, k0);
  } else {
    load(dst, k0, row0);
  }
}

// The wgmma descriptor of an operand tile in a slot (its layout as load_operand wrote it).
template <class Cfg, bool MN>
__device__ __forceinline__ uint64_t operand_desc(const typename Cfg::TA* tile) {
  if constexpr (MN)
    return arch::wgmma_desc_mnmajor_sw128(tile, uint32_t(Cfg::kMnBox * Cfg::BK * sizeof(typename Cfg::TA)));
  else
    return arch::wgmma_desc_kmajor_sw128(tile);
}

// v, which the compiler can no longer derive from its source: what is computed from it is
// computed again where it is used rather than kept (see the wide tile's schedule in the consumers).
__device__ __forceinline__ int opaque(int v) {
  asm volatile("" : "+r"(v));
  return v;
}

// The grid of work units: a unit is one cluster's tiles -- cluster tiles stacked along M (B
// multicast), or side by side along N (kClusterN, A multicast) -- walked in the banded order.
// Host and device: the launcher counts units with it.
template <class Cfg>
PIPEGEMM_HOST_DEVICE pipeline::TileScheduler k5_schedule(int m_tiles, int n_tiles, int cluster, int group) {
  if constexpr (Cfg::kClusterN)
    return pipeline::TileScheduler(m_tiles, (n_tiles + cluster - 1) / cluster, 1, group);
  else
    return pipeline::TileScheduler(m_tiles, n_tiles, cluster, group);
}
// This CTA's tile of unit coordinates u (k5_schedule's): its first row and column.
template <class Cfg>
__device__ __forceinline__ pipeline::TileCoord k5_tile_origin(pipeline::TileCoord u, int cluster, int cta_rank) {
  if constexpr (Cfg::kClusterN)
    return {u.m * Cfg::BM, (u.n * cluster + cta_rank) * Cfg::BN};
  else
    return {(u.m * cluster + cta_rank) * Cfg::BM, u.n * Cfg::BN};
}

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kNumThreads, 1)
    k5_ws_tma_wgmma_kernel(const __grid_constant__ CUtensorMap tmap_a,  // A (M,K), box (BK, BM); MN-major (64, BK)
                           const __grid_constant__ CUtensorMap tmap_b,  // B (N,K), box (BK, BN/cluster_m); MN-major (64, BK)
                           const __grid_constant__ CUtensorMap tmap_d,  // D (M,N), box (kEpiCols, 64)
                           int M, int N, int K, int cluster_m, int raster_group, int stagger, int chunk_parts,
                           const K5General<Cfg::kGeneral> general,  // rank-3 maps (batch) when kGeneral
                           const K5StreamK<Cfg::kStreamK> sk) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using TA = typename Cfg::TA;
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
    if constexpr (Cfg::kStreamK) return sk.sched;
    else return k5_schedule<Cfg>(m_tiles, n_tiles, cluster_m, raster_group);
  }();
  // The work: every product's units, product by product (one product: the units).
  int work = sched.total;
  if constexpr (Cfg::kGeneral) work *= general.batch;

  // ============================== PROLOGUE ==============================
  // Barrier init by one thread, published to the copy engine and the peer CTA, then the roles
  // split and registers move from the producer to the consumers. There is no explicit fill:
  // the producer starts at phase 1, so its first STAGES acquires pass at once and it runs
  // STAGES k_tiles ahead while the consumers wait on the first full barrier.
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
      const int b_rows = BN / cluster_m;  // rows of B this CTA loads (and multicasts)
      const uint16_t mask = uint16_t((1u << cluster_m) - 1);
      // One unit's k_tiles [k0, k1) (the whole K unless stream-K); seq counts the CTA's units.
      auto produce = [&](int item, int k0, int k1, int seq) {
        const int unit = Cfg::kGeneral ? item % sched.total : item;
        const pipeline::TileCoord o = k5_tile_origin<Cfg>(sched.coords(unit), cluster_m, int(cta_rank));
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
          TA* b_dst = sB + w.index * (BN * BK) + int(cta_rank) * b_rows * BK;
          if constexpr (Cfg::kBResident) {
            // B's k_tile kt goes into B slot kt with the first tile's A (the same full barrier), once.
            const bool first = item == cluster_idx;
            arch::tma_load_2d(sA + w.index * (BM * BK), &tmap_a, kt * BK, m0, full);
            if (first) arch::tma_load_2d(sB + kt * (BN * BK), &tmap_b, kt * BK, n0, full);  // the CTA's one n
            pipe.producer_commit(w, first ? Cfg::kStageBytes : Cfg::kStageBytesA);
            PIPEGEMM_TRACE_STAMP(trace, load_issued, seq, kt, w.index);
            ++w;
            continue;
          }
          if constexpr (Cfg::kGeneral) {
            load_operand<Cfg, Cfg::kAMn>(sA + w.index * (BM * BK), &tmap_a, kt * BK, m0, BM, bt_a, full, 0);
            load_operand<Cfg, Cfg::kBMn>(b_dst, &tmap_b, kt * BK, n0 + int(cta_rank) * b_rows, b_rows, bt_b, full,
                                         cluster_m == 1 ? uint16_t(0) : mask);
          } else if constexpr (Cfg::kClusterN) {  // A's rows split over the cluster, B this CTA's own
            const int a_rows = BM / cluster_m;    // rows of A this CTA loads (and multicasts)
            if (cluster_m == 1)
              arch::tma_load_2d(sA + w.index * (BM * BK), &tmap_a, kt * BK, m0, full);
            else
              arch::tma_load_2d_multicast(sA + w.index * (BM * BK) + int(cta_rank) * a_rows * BK, &tmap_a, kt * BK,
                                          m0 + int(cta_rank) * a_rows, full, mask);
            arch::tma_load_2d(sB + w.index * (BN * BK), &tmap_b, kt * BK, n0, full);
          } else {
            arch::tma_load_2d(sA + w.index * (BM * BK), &tmap_a, kt * BK, m0, full);
            if (cluster_m == 1)
              arch::tma_load_2d(b_dst, &tmap_b, kt * BK, n0, full);
            else
              arch::tma_load_2d_multicast(b_dst, &tmap_b, kt * BK, n0 + int(cta_rank) * b_rows, full, mask);
          }
          pipe.producer_commit(w, Cfg::kStageBytes);  // A + both halves of B land here
          PIPEGEMM_TRACE_STAMP(trace, load_issued, seq, kt, w.index);
          ++w;
        }
        PIPEGEMM_TRACE_STAMP(trace, tile_end, seq, -1, -1);
      };
      if constexpr (Cfg::kStreamK) {
        int seq = 0;
        for (pipeline::Segment g = sk.plan.first(cluster_idx); g.unit >= 0; g = sk.plan.next(cluster_idx, g))
          produce(g.unit, g.k0, g.k1, seq++);
      } else {
        for (int item = cluster_idx; item < work; item += cluster_cnt)
          produce(item, 0, k_tiles, (item - cluster_idx) / cluster_cnt);
      }
    }
    __syncwarp();
  } else {
    // ============================== CONSUMERS ==============================
    arch::setmaxnreg_inc<Cfg::kConsumerRegs>();
    const int c = wg - 1;           // rows kConsumerRows c .. of the CTA tile; ping-pong: every other tile
    // Trace: thread 0 of each consumer records (tiles as the producer counts them).
    PIPEGEMM_TRACE_LANE(trace, consumer, c, tid_wg == 0);
    const int row_c = Cfg::kPingpong ? 0 : Cfg::kConsumerRows * c;  // the consumer's first row in the tile
    // Each consumer's 128 threads stage the tile's bias (stage_tile_bias).
    constexpr int kBiasPerThread = Cfg::BN / 128;
    static_assert(!Cfg::kGeneral || (Cfg::BM <= Cfg::BN + 16 && Cfg::BN % 128 == 0),
                  "a per-row bias fits the bias row; whole elements per thread");
    static_assert(!Cfg::kGeneral || bias_slots_as_read<Cfg::BN>(), "the per-column bias layout apply_epilogue reads");
    if (tid_wg == 0) arch::tma_prefetch_descriptor(&tmap_d);
    uint8_t* d_bufs = sD + c * Cfg::kEpiBufs * Cfg::kEpiBufBytes;
    // Per m64 block mb (rows row_c + 64 mb): a (64,BN) fp32 (s8: s32) fragment, layout in arch/wgmma.cuh.
    // The forms with one block (all but the wide tile) use blk[0], named acc.
    typename Cfg::TAcc blk[Cfg::kMBlocks][Cfg::kAccRegs];
    auto& acc = blk[0];
#pragma unroll
    for (int mb = 0; mb < Cfg::kMBlocks; ++mb)
#pragma unroll
      for (int i = 0; i < Cfg::kAccRegs; ++i) blk[mb][i] = 0;
    State r;                        // consumers start at phase 0: wait for the first fill
    // Deferred store: the previous tile's D, packed, waiting to be written out under this
    // tile's wgmma (one chunk per k_tile).
    uint32_t pending[Cfg::kDeferredStore ? Cfg::kAccRegs / 2 : 1];
    bool has_pending = false;
    int pending_m0 = 0, pending_n0 = 0, pending_bt = 0;
    constexpr auto kChunkSeq = std::make_integer_sequence<int, Cfg::kEpiChunks>{};
    // chunk_parts P (1, 2, 4): each chunk of the pending tile is spread over P k_tiles, 4 / P of
    // its four stmatrix a k_tile, its fence, barrier and TMA store with the last part.
    const int pending_steps = chunk_parts * Cfg::kEpiChunks;
    auto store_pending_part = [&](auto step, auto parts) {  // chunk step / P, part step % P
      constexpr int P = decltype(parts)::value, CH = decltype(step)::value / P, PART = decltype(step)::value % P;
      if constexpr (Cfg::kDeferredStore && CH < Cfg::kEpiChunks)
        store_d_chunk<Cfg, CH, PART, P>(
            [&](uint8_t* buf) {
              write_d_chunk_packed<Cfg, CH, 4 / P * PART, 4 / P * (PART + 1)>(pending, buf, tid_wg / 32, tid_wg % 32);
            },
            d_bufs, &tmap_d, pending_m0, pending_n0, c, tid_wg, pending_bt);
    };
    auto store_pending_chunk = [&](int ch) {  // a whole chunk
      with_chunk_index(ch, [&](auto c1) { store_pending_part(c1, std::integral_constant<int, 1>{}); }, kChunkSeq);
    };
    constexpr auto kStepSeq = std::make_integer_sequence<int, 4 * Cfg::kEpiChunks>{};
    auto store_pending = [&](int step) {  // the pending tile's step: a chunk or a part of one
      if (chunk_parts == 4)
        with_chunk_index(step, [&](auto st) { store_pending_part(st, std::integral_constant<int, 4>{}); }, kStepSeq);
      else if (chunk_parts == 2)
        with_chunk_index(step, [&](auto st) { store_pending_part(st, std::integral_constant<int, 2>{}); }, kStepSeq);
      else
        store_pending_chunk(step);
    };
    // The pending tile's steps from `step` on with no mainloop to hide under (a short mainloop's
    // epilogue, the CTA's last tile): the chunk in progress part by part, then whole chunks --
    // parts there would only add barriers (one commit group a chunk either way).
    auto flush_pending = [&](int step) {
      for (; step % chunk_parts != 0 && step < pending_steps; ++step) store_pending(step);
      for (int ch = step / chunk_parts; ch < Cfg::kEpiChunks; ++ch) store_pending_chunk(ch);
    };

    // The wide tile: its schedule made again here from opaque M, N, so that the divisions' results
    // are not live across setmaxnreg beside 192 accumulators (ptxas spilled two of them, 8 bytes).
    const pipeline::TileScheduler csched = [&] {
      if constexpr (Cfg::kMBlocks > 1)
        return k5_schedule<Cfg>((opaque(M) + BM - 1) / BM, (opaque(N) + BN - 1) / BN, opaque(cluster_m),
                                raster_group);
      else
        return sched;
    }();
    if constexpr (Cfg::kMBlocks > 1) work = csched.total;
    // Ping-pong: consumer c takes the CTA's items c, c + 2, ... and passes over the other's k_tiles
    // in the ring (the producer loads every item in order).
    const int first_item = Cfg::kPingpong ? cluster_idx + c * cluster_cnt : cluster_idx;
    const int item_step = Cfg::kPingpong ? 2 * cluster_cnt : cluster_cnt;
    if (Cfg::kPingpong && c == 1) r.skip(k_tiles);
    bool first_unit = true;  // stagger: consumer 1 waits for consumer 0 on the first one only
    // One unit's k_tiles [k0, k1) in its role (stream-K; otherwise whole), seq counting the CTA's units.
    auto consume = [&](int item, int k0, int k1, pipeline::SegmentRole role, int seq) {
      const int unit = Cfg::kGeneral ? item % csched.total : item;
      const int bt = Cfg::kGeneral ? item / csched.total : 0;  // the product
      (void)bt;
      const pipeline::TileCoord o = k5_tile_origin<Cfg>(csched.coords(unit), cluster_m, int(cta_rank));
      const int m0 = o.m, n0 = o.n;
      PIPEGEMM_TRACE_STAMP(trace, tile_begin, seq, -1, -1);
      // This thread's elements of the tile's bias (their bits), staged under the mainloop (kBiasStageKt).
      uint32_t bias_v[kBiasPerThread > 0 ? kBiasPerThread : 1] = {};  // the 64-wide tile: plain, unused
      if constexpr (Cfg::kGeneral) {
        if (role != pipeline::SegmentRole::part) {  // a part has no epilogue
#pragma unroll
          for (int j = 0; j < kBiasPerThread; ++j)
            bias_v[j] = load_tile_bias<Cfg>(general.epi, m0, n0, M, N, tid_wg + j * 128);
        }
      }

      // Ping-pong: wait for the turn. A full barrier's parity only tells its last two phases
      // apart, so this consumer may wait on a slot only once the slot's previous fill -- the
      // other consumer's tile, just before this one in the ring -- has been waited on.
      if constexpr (Cfg::kPingpong) {
        if (item - cluster_cnt >= cluster_idx) arch::named_barrier_sync(kTurnBarrier + c, 256);
      }
      // Stagger (cooperative): consumer 0 lets consumer 1 in after issuing k_tile stagger_kt. A flag,
      // not seq == 0: seq is otherwise only the trace's, and keeping it live spills the general
      // f32-D kernels (ptxas, 12 bytes).
      int stagger_kt = -1;
      if (!Cfg::kPingpong && stagger > 0 && first_unit) {
        if (c == 1) arch::named_barrier_sync(kStaggerBarrier, 256);
        else stagger_kt = min(k0 + stagger, k1) - 1;
      }
      first_unit = false;

      // ============================== MAINLOOP ==============================
      // wgmma of k_tile kt runs while the copy engine fills slots kt+1 .. kt+STAGES-1; one
      // wgmma group stays in flight, so slot kt-1 goes back to the producer as soon as the
      // group of kt has been issued and that of kt-1 has retired.
      State prev = r;
      for (int kt = k0; kt < k1; ++kt) {
        // Trace: the wait's clocks now, its stamps written after the k_tile's wgmma are issued.
        PIPEGEMM_TRACE_CLOCK(t_wait);
        pipe.consumer_wait(r);
        PIPEGEMM_TRACE_CLOCK(t_full);
        // Consumer c's rows of A start row_c * BK elements into the slot in either layout; block mb
        // 64 rows (64 * BK elements, 8 KB) further.
        const uint64_t desc_a = operand_desc<Cfg, Cfg::kAMn>(sA + r.index * (BM * BK) + row_c * BK);
        constexpr uint64_t kBlockStepA = (64 * BK * sizeof(TA)) >> 4;
        const uint64_t desc_b = operand_desc<Cfg, Cfg::kBMn>(sB + (Cfg::kBResident ? kt : r.index) * (BN * BK));
        constexpr uint64_t kStepA = Cfg::kAMn ? arch::kWgmmaDescMnK16Step : arch::kWgmmaDescK16Step;
        constexpr uint64_t kStepB = Cfg::kBMn ? arch::kWgmmaDescMnK16Step : arch::kWgmmaDescK16Step;
        arch::wgmma_fence();
#pragma unroll
        for (int kb = 0; kb < Cfg::kKBlocks; ++kb)
#pragma unroll
          for (int mb = 0; mb < Cfg::kMBlocks; ++mb)
            Cfg::Wgmma::template mma<Cfg::kAMn, Cfg::kBMn>(blk[mb], desc_a + mb * kBlockStepA + kb * kStepA,
                                                           desc_b + kb * kStepB, kt > k0 || kb > 0);
        arch::wgmma_commit_group();
        if (kt == stagger_kt) arch::named_barrier_arrive(kStaggerBarrier, 256);
        if constexpr (Cfg::kGeneral) {  // the tile's bias into smem while this k_tile's wgmma runs
          if (general.epi.bias && role != pipeline::SegmentRole::part && kt == k0 + kBiasStageKt<Cfg> &&
              k1 - k0 > kBiasStageKt<Cfg>)
            stage_tile_bias<Cfg::BN>(smem.bias[Cfg::kPingpong ? c : 0], bias_v, general.epi.bias_type,
                                     general.epi.bias_mode == Bias::per_col, bias_scale(general.epi), tid_wg, 1 + c,
                                     128);
        }
        PIPEGEMM_TRACE_STAMP_AT(trace, stage_wait, t_wait, seq, kt, r.index);
        PIPEGEMM_TRACE_STAMP_AT(trace, stage_full, t_full, seq, kt, r.index);
        PIPEGEMM_TRACE_STAMP_AT(trace, mma_begin, t_full, seq, kt, r.index);
        if constexpr (Cfg::kDeferredStore) {
          if (has_pending && kt - k0 < pending_steps) store_pending(kt - k0);
        }
        arch::wgmma_wait_group<1>();
        if (kt > k0) {  // group kt-1 has retired (its slot goes back at once: no stage_released stamp)
          PIPEGEMM_TRACE_STAMP(trace, mma_end, seq, kt - 1, prev.index);
          pipe.consumer_release(prev, tid_wg);
        }
        prev = r;
        ++r;
      }
      // Ping-pong: every slot of this tile has been waited on -- the ring passes to the other
      // consumer's next tile (if there is one; its sync pairs with this arrive).
      if constexpr (Cfg::kPingpong) {
        if (item + cluster_cnt < work) arch::named_barrier_arrive(kTurnBarrier + (1 - c), 256);
      }
      // ============================== DRAIN ==============================
      // The last group retires; its slot is released so the producer, already loading the
      // next tile's k_tiles, can reuse it while this warpgroup runs the epilogue.
      arch::wgmma_wait_group<0>();
#pragma unroll
      for (int mb = 0; mb < Cfg::kMBlocks; ++mb) arch::wgmma_fence_operands(blk[mb]);
      PIPEGEMM_TRACE_STAMP(trace, mma_end, seq, k1 - 1, prev.index);
      pipe.consumer_release(prev, tid_wg);
      if constexpr (Cfg::kPingpong) r.skip(k_tiles);  // the other consumer's next tile

      // ============================== STREAM-K ==============================
      // A `part` leaves its sums in its slot and raises the flag; a `finish` adds its unit's parts
      // (StreamKPlan's order), then runs the unit's epilogue.
      if constexpr (Cfg::kStreamK) {
        auto slot = [&](int worker) { return partial_slot(worker, cluster_m, int(cta_rank), c); };
        auto slot_sums = [&](int i) {
          return static_cast<char*>(sk.partials) + int64_t(i) * (Cfg::kAccRegs * 128 * sizeof(typename Cfg::TAcc));
        };
        if (role == pipeline::SegmentRole::part) {
          // The other threads' stores are ordered before thread 0's release by the barrier.
          const int mine = slot(cluster_idx);
          store_partial<Cfg>(acc, slot_sums(mine), tid_wg);
          arch::named_barrier_sync(1 + c, 128);
          if (tid_wg == 0) arch::st_release_gpu(sk.flags + mine, 1);
          PIPEGEMM_TRACE_STAMP(trace, tile_end, seq, -1, -1);
          return;
        }
        if (role == pipeline::SegmentRole::finish) {
          // A finish is its worker's last segment: once both consumers have drained, no load or
          // wgmma touches the ring again, and each consumer stages its parts in half of it.
          constexpr int kRingBytes = STAGES * Cfg::kStageBytes;
          static_assert(Cfg::kAccRegs * 128 * 4 <= kRingBytes / 2, "a partial slot fits half the ring");
          const uint32_t stage = arch::smem_u32(&smem.a[0][0]) + uint32_t(c * (kRingBytes / 2));
          arch::named_barrier_sync(kBiasBarrier, 256);
          const int parts = sk.plan.parts_of_finish(cluster_idx, item);
          if (tid_wg == 0) {
            for (int j = 1; j <= parts; ++j) {
              int* flag = sk.flags + slot(cluster_idx - j);
              while (arch::ld_acquire_gpu(flag) == 0) {
              }
              *flag = 0;  // consumed: zero for the next launch
            }
          }
          for (int j = 1; j <= parts; ++j) add_partial<Cfg>(acc, slot_sums(slot(cluster_idx - j)), stage, tid_wg, 1 + c);
        }
      }

      // ============================== EPILOGUE ==============================
      // fp32 -> TD, stmatrix into a swizzled chunk buffer, one thread TMA-stores the chunk.
      // The store drains while the next chunk is written and while the next tile's mainloop
      // runs; a buffer is rewritten only after its previous store has read it (wait_group.read).
      // Deferred store: only the fp32 -> TD packing happens here; the chunks are written and
      // stored under the next tile's first k_tiles of wgmma (see the MAINLOOP).
      PIPEGEMM_TRACE_STAMP(trace, epilogue_begin, seq, -1, -1);
      // Deferred: the chunks of the previous tile a short mainloop had no k_tile for go out first
      // (the general epilogue's temporaries have no room beside a pending tile).
      if constexpr (Cfg::kDeferredStore) {
        if (has_pending)
          flush_pending(k1 - k0);
      }
      if constexpr (Cfg::kGeneral) {
        float* sbias = smem.bias[Cfg::kPingpong ? c : 0];
        if (general.epi.bias && k1 - k0 <= kBiasStageKt<Cfg>)  // short K: not staged under the mainloop
          stage_tile_bias<Cfg::BN>(sbias, bias_v, general.epi.bias_type, general.epi.bias_mode == Bias::per_col,
                                   bias_scale(general.epi), tid_wg, kBiasBarrier, 256);
        apply_epilogue<Cfg>(acc, general.epi, m0 + row_c, n0, bt, M, N, tid_wg, sbias, row_c);
      }
      if constexpr (Cfg::kDeferredStore) {  // then this tile becomes pending
        pack_accumulators<Cfg>(acc, pending);
        pending_m0 = m0 + row_c;
        pending_n0 = n0;
        pending_bt = bt;
        has_pending = true;
      } else {
#pragma unroll
        for (int mb = 0; mb < Cfg::kMBlocks; ++mb)  // a block's chunks reuse the buffers in turn, like a tile's
          store_d_tile<Cfg>(blk[mb], d_bufs, &tmap_d, m0 + row_c + 64 * mb, n0, c, tid_wg, kChunkSeq, bt);
      }
      PIPEGEMM_TRACE_STAMP(trace, epilogue_end, seq, -1, -1);
      PIPEGEMM_TRACE_STAMP(trace, tile_end, seq, -1, -1);
    };
    if constexpr (Cfg::kStreamK) {
      int seq = 0;
      for (pipeline::Segment g = sk.plan.first(cluster_idx); g.unit >= 0; g = sk.plan.next(cluster_idx, g))
        consume(g.unit, g.k0, g.k1, g.role, seq++);
    } else {
      for (int item = first_item; item < work; item += item_step)
        consume(item, 0, k_tiles, pipeline::SegmentRole::whole, (item - cluster_idx) / cluster_cnt);
    }
    if constexpr (Cfg::kDeferredStore) {  // the last tile has no next mainloop to hide under
      if (has_pending)
        flush_pending(0);
    }
    if (tid_wg == 0) arch::tma_store_wait_all<0>();  // smem stays alive until the stores are done
  }
  // Keep this CTA's barriers and smem alive until the peer has stopped arriving and writing.
  if (cluster_m > 1) arch::cluster_sync();
#else
  __trap();  // built for sm_90a only; check_variant() refuses other GPUs before a launch
#endif
}

}  // namespace pipegemm::kernels::k5
