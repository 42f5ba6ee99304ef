// A Hopper GEMM kernel as a composition of collectives:
//
//   Sm90Gemm<Mainloop, Epilogue, Schedule, Scheduler, Name>
//     Mainloop   MainloopTmaWgmma / MainloopTmaWgmmaBatched / MainloopBResident  (sm90/mainloop.cuh)
//     Epilogue   EpilogueTmaStore / EpilogueDeferredStore (sm90/epilogue_store.cuh),
//                EpilogueFused (sm90/epilogue_fused.cuh)
//     Schedule   Cooperative / Pingpong / BResident                              (sm90/schedule.cuh)
//     Scheduler  RasterScheduler / StreamKScheduler                        (sm90/tile_scheduler.cuh)
//     Name       a tag naming the instantiation, so that its symbol names it (the variant table's)
//
// e.g. the 128x256 FP16 GEMM with clusters along M:
//   Sm90Gemm<MainloopTmaWgmma<__half, Tile<128, 256, 64>, 4>, EpilogueTmaStore<__half, 2>,
//            Cooperative, RasterScheduler, Name>
// Only the combinations below are kernels (Composes<...> is defined for them); any other has no
// specialization. Sm90Gemm derives from the parts what the kernel body and the launcher read: the
// register split, the smem layout, the mechanism.
//
// One CTA = 3 warpgroups (384 threads), one CTA per SM, persistent over work items:
//   warpgroup 0      producer: one thread issues the mainloop's TMA loads into the ring; gives
//                    registers back (setmaxnreg.dec).
//   warpgroups 1, 2  consumers: each owns 64 rows of the (BM=128, BN) tile and issues wgmma
//                    m64nBNk16 (fp32 accumulators, 128 registers per thread at BN = 256; s8:
//                    m64n256k32 into s32 accumulators, the same fragment); takes registers
//                    (setmaxnreg.inc). The wide tile (BM=256, BN=192): each owns 128 rows, two
//                    m64n192 blocks (kMBlocks) sharing each B read, 192 accumulators.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "pipegemm/arch/wgmma.cuh"
#include "pipegemm/introspect/mechanism.hpp"
#include "pipegemm/sm90/epilogue_fused.cuh"
#include "pipegemm/sm90/epilogue_store.cuh"
#include "pipegemm/sm90/mainloop.cuh"
#include "pipegemm/sm90/schedule.cuh"
#include "pipegemm/sm90/shared_storage.cuh"
#include "pipegemm/sm90/tile_scheduler.cuh"

namespace pipegemm::sm90 {

// A kernel's name tag: the variant table line's tag (an incomplete struct named after the line)
// and the form of the line it is -- FormLong (the kernel a long K runs), FormShortK (a short K's),
// FormGeneral<LA, LB> (the general form at operand layouts LA, LB: one tag per pair) -- so that
// the mangled symbol names the line and the form. kSymbol: the form's tag as it is mangled, for
// the registry's symbol patterns (src/kernels/k5_ws_tma_wgmma.cuh).
template <class Line, class Form>
struct KernelName;
struct FormLong {
  static constexpr const char* kSymbol = "8FormLong";
};
struct FormShortK {
  static constexpr const char* kSymbol = "10FormShortK";
};
struct FormGeneralKK {  // A and B K-major
  static constexpr const char* kSymbol = "13FormGeneralKK";
};
struct FormGeneralKMn {  // A K-major, B MN-major
  static constexpr const char* kSymbol = "14FormGeneralKMn";
};
struct FormGeneralMnK {  // A MN-major, B K-major
  static constexpr const char* kSymbol = "14FormGeneralMnK";
};
struct FormGeneralMnMn {  // A and B MN-major
  static constexpr const char* kSymbol = "15FormGeneralMnMn";
};
// The general form's tag at operand layouts (KMajor or MnMajor each).
template <class LayoutA, class LayoutB>
using FormGeneral =
    std::conditional_t<std::is_same_v<LayoutA, KMajor>,
                       std::conditional_t<std::is_same_v<LayoutB, KMajor>, FormGeneralKK, FormGeneralKMn>,
                       std::conditional_t<std::is_same_v<LayoutB, KMajor>, FormGeneralMnK, FormGeneralMnMn>>;
template <class Name>
struct LineOf;
template <class Line, class Form>
struct LineOf<KernelName<Line, Form>> {
  using type = Line;
};
template <class Name>
struct FormOf;
template <class Line, class Form>
struct FormOf<KernelName<Line, Form>> {
  using type = Form;
};

// The supported compositions (a type, defined only for these).
template <class Mainloop, class Epilogue, class Schedule, class Scheduler>
struct Composes;
// The TN GEMM, cooperative, either cluster axis: the tile stored in its epilogue.
template <class T, class TileT, int S, class Mc, class TD, int E>
struct Composes<MainloopTmaWgmma<T, TileT, S, Mc>, EpilogueTmaStore<TD, E>, Cooperative, RasterScheduler> {};
// ... or deferred under the next tile's mainloop.
template <class T, class TileT, int S, class TD, int E>
struct Composes<MainloopTmaWgmma<T, TileT, S, MulticastB>, EpilogueDeferredStore<TD, E>, Cooperative,
                RasterScheduler> {};
// Stream-K: a segment's sums stay in its two consumers' registers until they are stored.
template <class T, class TileT, int S, class TD, int E>
struct Composes<MainloopTmaWgmma<T, TileT, S, MulticastB>, EpilogueTmaStore<TD, E>, Cooperative, StreamKScheduler> {};
// Ping-pong hides the tile's stores under the other consumer's mainloop already: no deferred form.
template <class T, class TileT, int S, class TD, int E>
struct Composes<MainloopTmaWgmma<T, TileT, S, MulticastB>, EpilogueTmaStore<TD, E>, Pingpong, RasterScheduler> {};
// The general form: batched, either layout, the fused epilogue; cooperative (banded or stream-K)
// or ping-pong.
template <class T, class TileT, int S, class LA, class LB, class TD, int E, class Scheduler>
struct Composes<MainloopTmaWgmmaBatched<T, TileT, S, LA, LB>, EpilogueFused<TD, E>, Cooperative, Scheduler> {};
template <class T, class TileT, int S, class LA, class LB, class TD, int E>
struct Composes<MainloopTmaWgmmaBatched<T, TileT, S, LA, LB>, EpilogueFused<TD, E>, Pingpong, RasterScheduler> {};
// B-resident: the short-K form of its own, its stores deferred.
template <class T, class TileT, int S, int B, class TD, int E>
struct Composes<MainloopBResident<T, TileT, S, B>, EpilogueDeferredStore<TD, E>, BResident, RasterScheduler> {};

template <class Mainloop_, class Epilogue_, class Schedule_, class Scheduler_, class Name_ = void>
struct Sm90Gemm : Composes<Mainloop_, Epilogue_, Schedule_, Scheduler_> {
  using Mainloop = Mainloop_;
  using Epilogue = Epilogue_;
  using Schedule = Schedule_;
  using Scheduler = Scheduler_;
  using Name = Name_;
  using TA = typename Mainloop::TA;
  using TD = typename Epilogue::TD;
  static constexpr int BM = Mainloop::BM, BN = Mainloop::BN, BK = Mainloop::BK, STAGES = Mainloop::STAGES;

  static constexpr bool kInt8 = std::is_same_v<TA, int8_t>;
  using Wgmma = typename arch::WgmmaM64<TA, BN>::type;
  using TAcc = std::conditional_t<kInt8, int32_t, float>;  // accumulator registers
  static constexpr int kWgmmaM = 64, kWgmmaN = BN, kWgmmaK = Wgmma::kK;
  static constexpr bool kPingpong = Schedule::kPingpong;
  static constexpr bool kBResident = Mainloop::kBResident;
  static constexpr bool kStreamK = Scheduler::kStreamK;
  static constexpr bool kClusterN = Mainloop::kClusterN;
  static constexpr int kStagger = Schedule::template kStagger<BM>;
  static constexpr int kBSlots = Mainloop::kBSlots;  // B's smem slots: the ring's, or B-resident's k_tiles
  static constexpr int kMaxK = Mainloop::kMaxK;
  static constexpr int kConsumers = 2;                                 // consumer warpgroups
  static constexpr int kTileConsumers = Schedule::kTileConsumers;     // consumers sharing a tile
  static constexpr int kConsumerRows = BM / kTileConsumers;           // a consumer's rows of a tile
  static constexpr int kMBlocks = kConsumerRows / 64;                 // its m64 wgmma blocks (1; the wide tile 2)
  static constexpr int kNumThreads = 128 * (1 + kConsumers);          // + the producer warpgroup
  static constexpr int kKBlocks = BK / kWgmmaK;                       // wgmma k-steps per k_tile per block
  static constexpr int kAccRegs = kWgmmaM * kWgmmaN / 128;            // accumulators per thread per m64 block

  static constexpr int kStageBytesA = Mainloop::kStageBytesA;
  static constexpr int kStageBytesB = Mainloop::kStageBytesB;
  static constexpr int kStageBytes = Mainloop::kStageBytes;

  // Epilogue: per consumer, EPI_BUFS chunk buffers of (64 rows, 128 bytes) -- one 128-byte
  // swizzle span per row, the TMA store box.
  static constexpr int kEpiCols = 128 / int(sizeof(TD));
  static constexpr int kEpiChunks = BN / kEpiCols;
  static constexpr int kEpiBufBytes = kWgmmaM * 128;
  static constexpr int kEpiBufs = Epilogue::kEpiBufs;
  static constexpr bool kDeferredStore = Epilogue::kDeferredStore;
  static constexpr bool kGeneral = Epilogue::kFused;  // batched maps, the fused epilogue, either layout
  static constexpr bool kAMn = Mainloop::kAMn, kBMn = Mainloop::kBMn;
  static constexpr int kMnBox = Mainloop::kMnBox;

  // Kernel arguments beyond the maps: the general form's batch and epilogue; the scheduler's.
  using GeneralArgs = std::conditional_t<kGeneral, FusedArgs, NoSchedulerArgs>;
  using SchedulerArgs = typename Scheduler::Args;

  // Shared memory: [A slots][B slots][D chunk buffers][full barriers][empty barriers][bias]. The CTA
  // asks for the bytes up to the last barrier, not sizeof(Smem), which alignas rounds up to a
  // multiple of 1024 with a tail nothing touches; the slack re-aligns the dynamic smem base.
  using Smem = SharedStorage<TA, BM, BN, BK, STAGES, kBSlots, kConsumers, kEpiBufs, kEpiBufBytes, kPingpong ? 2 : 1>;
  // The kernels without the fused epilogue never touch the bias buffer, so they do not ask for it.
  static constexpr int kSmemUsedBytes =
      kGeneral ? int(offsetof(Smem, bias) + sizeof(Smem::bias)) : int(offsetof(Smem, empty) + sizeof(Smem::empty));
  static constexpr int kSmemBytes = 1024 /* base alignment slack */ + kSmemUsedBytes;

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
  static constexpr bool kWidePingpong = kPingpong && kMBlocks > 1 && BN > 128;
  static constexpr int kProducerRegs = kWidePingpong ? 24 : 40;
  static constexpr int kConsumerRegs = kWidePingpong ? 240 : 232;

  // The wide tile (BM = 256, cooperative, BN = 192, 3 stages): each consumer owns 128 rows as two
  // m64 blocks, both read by the same B descriptor. Per k16 the CTA's wgmma read 32 KB and TMA
  // writes 14 KB for 0.79 M MACs (59.9 B per 1000 MACs against the 128x256 tile's 62.5, by
  // `pipegemm plan`'s count), and a MAC costs 0.018 bytes of L2 reads against 0.023 (22% less;
  // 2-CTA clusters: 0.014 against 0.016). A (256 + 192)-row k_tile is 56 KB: 3 stages fit beside 6
  // chunk buffers. (Four warpgroups of 64 rows cannot compile: docs/hopper.md.) Two blocks leave
  // no room for a deferred tile or the fused epilogue (2 x 96 accumulators), and stream-K's slots
  // hold one block: those collectives assert kMBlocks == 1.
  static_assert(BM == kWgmmaM * kMBlocks * kTileConsumers && (kMBlocks == 1 || kMBlocks == 2),
                "a consumer owns 64 rows of a tile (128-row tiles, or 64 in ping-pong) or 128 (256-row tiles, "
                "or the 128-row ping-pong)");
  static_assert(kMBlocks == 1 || BN == 192 || (BN == 128 && kPingpong),
                "two m64 blocks a consumer: the wide tile 256x192 or the ping-pong 128x192 / 128x128");
  static_assert(BN == 256 || BN == 192 || ((BN == 128 || BN == 64) && !kInt8),
                "one wgmma m64n256 / m64n192 (16-bit: or m64n128, m64n64) covers the CTA tile's N");
  // The 64-wide tile: the plain ring form (the fused form's bias rows and MN-major boxes, and
  // the deferred and stream-K forms, are 128-column layouts).
  static_assert(BN >= 128 || (!kGeneral && !kStreamK && !kDeferredStore && !kBResident),
                "the 64-wide tile: the TN ring form with its epilogue's own stores");
  static_assert(!kGeneral || (kWgmmaM % kMnBox == 0 && (BN / 2) % kMnBox == 0),
                "an MN-major slot is whole boxes of 64 MN-elements (per consumer, per cluster half)");
  static_assert(!kInt8 || std::is_same_v<TD, int32_t> || std::is_same_v<TD, float>, "s8: s32 or f32 D");
  static_assert(BN / 2 <= 256 && BM <= 256, "a TMA box has at most 256 rows");
  static_assert(kStageBytesA % 1024 == 0 && kStageBytesB % 1024 == 0 && (kWgmmaM * 128) % 1024 == 0 &&
                    (BN / 2 * BK * sizeof(TA)) % 1024 == 0,
                "every wgmma operand tile starts on a 1024-byte swizzle boundary (descriptor base offset 0)");
  static_assert(sizeof(Smem::a[0]) == kStageBytesA && sizeof(Smem::b[0]) == kStageBytesB &&
                    sizeof(Smem::d[0][0]) == kEpiBufBytes,
                "a slot is one TMA box of A / of B (expect_tx counts kStageBytes); a chunk buffer one D box");
  static_assert(offsetof(Smem, full) ==
                        STAGES * kStageBytesA + kBSlots * kStageBytesB + kConsumers * kEpiBufs * kEpiBufBytes &&
                    offsetof(Smem, empty) == offsetof(Smem, full) + STAGES * sizeof(uint64_t),
                "no padding between the members: kSmemBytes counts exactly the rings, buffers and barriers");
  // One buffer only where a tile has one chunk (BN = 64, 16-bit D): its store was issued a whole
  // mainloop before the next tile's chunk waits for it to have been read; or where the stores are
  // deferred (one chunk a k_tile of the next mainloop: a k_tile apart; B-resident s5's smem).
  static_assert((kEpiBufs >= 2 || kEpiChunks == 1 || kDeferredStore) && kEpiChunks % kEpiBufs == 0,
                "chunk index mod kEpiBufs picks the buffer, the same one every tile");
  static_assert(kProducerRegs * 128 + kConsumerRegs * 128 * kConsumers <= 65536, "register file of one SM");
  static_assert(kSmemBytes <= 227 * 1024, "H100/H200: at most 227 KB of dynamic smem per CTA");
};

}  // namespace pipegemm::sm90
