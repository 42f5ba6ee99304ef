// The kernel schedules: how the two consumer warpgroups share the work items.
//
//   Cooperative  both consumers compute each tile, consumer c rows c * BM / 2 .. (each slot has
//                two readers); consumer 1 trails consumer 0 by `stagger` k_tiles on the first unit
//   Pingpong     the consumers take turns on whole (BM, BN) tiles -- consumer c computes the
//                CTA's work items c, c + 2, ...; the ring delivers them in order, so one consumer's
//                epilogue runs while the other's wgmma use the tensor cores (CUTLASS's ping-pong
//                schedule). Each slot has one reader.
//   BResident    the cooperative consumers over MainloopBResident: the launcher walks units row by
//                row over whole rows' worth of CTAs (pipeline::column_persistent_grid), so every
//                tile of a CTA has the same B
//
// A schedule provides the consumer's hooks the kernel calls around each tile (sm90/kernel.cuh).
#pragma once

#include "pipegemm/arch/barrier.cuh"
#include "pipegemm/sm90/named_barriers.cuh"

namespace pipegemm::sm90 {

struct Cooperative {
  static constexpr bool kPingpong = false, kColumnGrid = false;
  static constexpr int kTileConsumers = 2;  // consumers sharing a tile (each slot's readers)
  // Cooperative consumers staggered by 2 k_tiles (kStaggerBarrier): at 4096^3, BF16 bias + GELU
  // cost 1.028-1.031 of the plain GEMM against 1.040-1.043 in step, s8 0.7% faster, the plain
  // 16-bit GEMM unchanged (H200, docs/hopper.md). More would leave the
  // leading consumer too few slots ahead (stagger 3: s8 back to 0.0972 ms from 0.0963).
  // The wide tile (3 stages): 0 until measured ($PIPEGEMM_K5_STAGGER) -- a lag holds slots of a short ring.
  template <int BM>
  static constexpr int kStagger = BM > 128 ? 0 : 2;

  __device__ __forceinline__ static int first_item(int worker, int, int) { return worker; }
  __device__ __forceinline__ static int item_step(int workers) { return workers; }
  template <class State>
  __device__ __forceinline__ static void start(State&, int, int) {}
  __device__ __forceinline__ static void wait_turn(int, int, int, int) {}
  // Staggered cooperative consumers: consumer 1 starts its first unit once consumer 0 has issued
  // `stagger` k_tiles of it (id 6), meant so that each tile consumer 0's epilogue runs while
  // consumer 1 finishes its last k_tiles alone on the tensor cores, and consumer 1's while consumer
  // 0 starts the next tile. The ring bounds it: consumer 0 runs ahead on slots consumer 1 has yet to
  // release, so stagger < STAGES (the launcher clamps). Traces (ns-resolution, H100, 4096^3;
  // docs/trace.md) find the lag gone after the first tile -- both consumers wait on each slot within
  // ~10 ns of each other and start their epilogues together; setting it again at every unit
  // measured slower (H100, docs/hopper.md), so it is the first unit's only.
  // Sets stagger_kt, the k_tile after whose wgmma consumer 0 lets consumer 1 in (-1: none). A flag, not
  // seq == 0: seq is otherwise only the trace's, and keeping it live spills the general f32-D
  // kernels (ptxas, 12 bytes).
  struct ConsumerState {
    bool first_unit = true;  // until the CTA's first unit has started
  };
  __device__ __forceinline__ static void stagger_point(int& stagger_kt, ConsumerState& st, const int& c,
                                                      const int& stagger, const int& k0, const int& k1) {
    if (stagger > 0 && st.first_unit) {
      if (c == 1) arch::named_barrier_sync(kStaggerBarrier, 256);
      else stagger_kt = min(k0 + stagger, k1) - 1;
    }
    st.first_unit = false;
  }
  __device__ __forceinline__ static void pass_turn(int, int, int, int) {}
  template <class State>
  __device__ __forceinline__ static void after_tile(State&, int) {}
};

struct BResident : Cooperative {
  static constexpr bool kColumnGrid = true;
};

struct Pingpong {
  static constexpr bool kPingpong = true, kColumnGrid = false;
  static constexpr int kTileConsumers = 1;
  template <int BM>
  static constexpr int kStagger = 0;

  // Consumer c takes the CTA's items c, c + 2, ... and passes over the other's k_tiles in the ring
  // (the producer loads every item in order).
  __device__ __forceinline__ static int first_item(int worker, int workers, int c) { return worker + c * workers; }
  __device__ __forceinline__ static int item_step(int workers) { return 2 * workers; }
  template <class State>
  __device__ __forceinline__ static void start(State& r, int c, int k_tiles) {
    if (c == 1) r.skip(k_tiles);
  }
  // Wait for the turn. A full barrier's parity only tells its last two phases apart, so this
  // consumer may wait on a slot only once the slot's previous fill -- the other consumer's tile,
  // just before this one in the ring -- has been waited on.
  __device__ __forceinline__ static void wait_turn(int item, int worker, int workers, int c) {
    if (item - workers >= worker) arch::named_barrier_sync(kTurnBarrier + c, 256);
  }
  struct ConsumerState {};
  __device__ __forceinline__ static void stagger_point(int&, ConsumerState&, const int&, const int&, const int&,
                                                      const int&) {}
  // Every slot of this tile has been waited on -- the ring passes to the other consumer's next
  // tile (if there is one; its sync pairs with this arrive).
  __device__ __forceinline__ static void pass_turn(int item, int workers, int work, int c) {
    if (item + workers < work) arch::named_barrier_arrive(kTurnBarrier + (1 - c), 256);
  }
  // The other consumer's next tile.
  template <class State>
  __device__ __forceinline__ static void after_tile(State& r, int k_tiles) {
    r.skip(k_tiles);
  }
};

}  // namespace pipegemm::sm90
