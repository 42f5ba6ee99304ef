// The tile schedulers: which work items a persistent CTA (or cluster: a worker) computes, in which
// order, and which k_tiles of each.
//
//   RasterScheduler    every unit whole, worker w taking units first, first + step, ... in the
//                      banded (grouped-along-M) order of pipeline::TileScheduler, for L2 reuse
//   StreamKScheduler   pipeline::StreamKPlan's segments: whole units first, then the last wave's
//                      k_tiles shared by every worker, partial sums through a global workspace
//                      (sm90/stream_k.cuh)
//
// A work unit is one cluster's tiles -- cluster tiles stacked along M (MulticastB), or side by
// side along N (MulticastA) -- and a work item one unit of one product (item = bt * units + unit).
// A scheduler provides, for the kernel:
//   using Args                           its kernel argument (NoSchedulerArgs if none)
//   units<Cfg>(args, m_tiles, n_tiles, cluster, group)    the unit grid (a pipeline::TileScheduler)
//   for_each<Cfg>(args, worker, workers, first, step, work, k_tiles, f)
//                                        calls f(item, k0, k1, role, seq) for the worker's items
//                                        from `first` on every `step` (the ping-pong consumers
//                                        take every other one), seq counting the worker's items
// and unit_origin<Cfg> maps a unit to this CTA's tile. A grouped GEMM (experts of different M)
// implements the same two calls over its problems' concatenated units: items of problem g
// follow problem g - 1's, and the tile's origin and maps come from the problem it falls in.
#pragma once

#include "pipegemm/detail/host_device.hpp"
#include "pipegemm/pipeline/stream_k.cuh"
#include "pipegemm/pipeline/tile_scheduler.cuh"

namespace pipegemm::sm90 {

struct NoSchedulerArgs {};

// The grid of work units of a config, walked in the banded order; host and device (the launcher
// counts units with it).
template <class Cfg>
PIPEGEMM_HOST_DEVICE pipeline::TileScheduler unit_grid(int m_tiles, int n_tiles, int cluster, int group) {
  if constexpr (Cfg::kClusterN)
    return pipeline::TileScheduler(m_tiles, (n_tiles + cluster - 1) / cluster, 1, group);
  else
    return pipeline::TileScheduler(m_tiles, n_tiles, cluster, group);
}
// This CTA's tile of unit coordinates u (unit_grid's): its first row and column.
template <class Cfg>
__device__ __forceinline__ pipeline::TileCoord unit_origin(pipeline::TileCoord u, int cluster, int cta_rank) {
  if constexpr (Cfg::kClusterN)
    return {u.m * Cfg::BM, (u.n * cluster + cta_rank) * Cfg::BN};
  else
    return {(u.m * cluster + cta_rank) * Cfg::BM, u.n * Cfg::BN};
}

struct RasterScheduler {
  static constexpr bool kStreamK = false;
  using Args = NoSchedulerArgs;
  template <class Cfg>
  __device__ __forceinline__ static pipeline::TileScheduler units(const Args&, int m_tiles, int n_tiles, int cluster,
                                                                 int group) {
    return unit_grid<Cfg>(m_tiles, n_tiles, cluster, group);
  }
  template <class Cfg, class F>
  __device__ __forceinline__ static void for_each(const Args&, int worker, int workers, int first, int step, int work,
                                                  int k_tiles, F&& f) {
    for (int item = first; item < work; item += step)
      f(item, 0, k_tiles, pipeline::SegmentRole::whole, (item - worker) / workers);
  }
};

// Stream-K's kernel argument: the plan and its workspace. Slot (worker, CTA rank, consumer) holds
// one consumer's (64, BN) accumulators of the worker's `part` segment, and its flag turns 1 once
// they are written; the `finish` that adds them resets it to 0 (zero between launches:
// split_workspace zeroes the flags once).
struct StreamKArgs {
  pipeline::StreamKPlan plan;
  pipeline::TileScheduler sched;  // the kernel's, made by the host: read from the parameters, not held in registers
  int* flags;
  void* partials;
};

struct StreamKScheduler {
  static constexpr bool kStreamK = true;
  using Args = StreamKArgs;
  template <class Cfg>
  __device__ __forceinline__ static const pipeline::TileScheduler& units(const Args& sk, int, int, int, int) {
    return sk.sched;
  }
  template <class Cfg, class F>
  __device__ __forceinline__ static void for_each(const Args& sk, int worker, int, int, int, int, int, F&& f) {
    int seq = 0;
    for (pipeline::Segment g = sk.plan.first(worker); g.unit >= 0; g = sk.plan.next(worker, g))
      f(g.unit, g.k0, g.k1, g.role, seq++);
  }
};

}  // namespace pipegemm::sm90
