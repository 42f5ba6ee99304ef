// Stream-K over a persistent kernel's last wave: which k_tiles of which work unit each worker
// (a CTA, or a cluster of them) computes, and who adds whose partial sums.
//
// `units` work units (output tiles, or cluster_m tiles that share B, of every product) of
// `k_tiles` k_tiles each, over `workers` persistent workers. When the units are not a whole
// number of waves, the last wave leaves workers idle for up to a whole unit (4096^3 in 128x256
// tiles: 512 units on 132 SMs, 3.88 waves, 4 rounds). Here the first units - sk_units units are
// data-parallel -- worker w takes units w, w + workers, ... whole -- and the k_tiles of the last
// sk_units units, laid end to end, are cut into `workers` contiguous ranges of equal length
// (+-1), one per worker, after its data-parallel units:
//
//   k-iterations of the sk units:  |unit 0 ........|unit 1 ........|unit 2 ........|
//   workers' ranges:               |w0 ......|w1 ......|w2 ......|w3 ......|w4 ....|
//
// A range cuts a unit into segments; a worker walks its range's segments backwards (the one at
// its end first, k_tiles in order inside each). Roles: `whole` (k_tiles 0..k_tiles: the normal
// epilogue), `part` (a segment short of the unit's last k_tile: its sums go to the worker's slot,
// then a flag) and `finish` (from inside the unit to its last k_tile: the finisher waits for the
// flags of workers w - 1, w - 2, ... whose ranges end inside the unit, adds their partials in
// that order -- fixed by the plan, so the result is bitwise repeatable -- and runs the
// epilogue). A worker's only possible `part` is the first segment it computes after its whole
// units, its only possible `finish` the last: a unit's parts are done early, its finisher comes
// last (backwards: a range < 1 unit would otherwise end with a part the finisher waits for
// almost a whole unit), and a finisher waits only for segments other workers start with -- no
// cycle, given every worker is resident (the persistent grid is).
//
// Plain C++, host and device: the CPU unit test checks the very code the kernel runs.
#pragma once

#include "pipegemm/detail/host_device.hpp"
#include "pipegemm/pipeline/tile_scheduler.cuh"

namespace pipegemm::pipeline {

enum class SegmentRole : int { whole = 0, part = 1, finish = 2 };

struct Segment {
  int unit;          // work unit; < 0: no more segments
  int k0, k1;        // its k_tiles [k0, k1)
  SegmentRole role;
};

struct StreamKPlan {
  int units = 0, k_tiles = 0, workers = 1;
  int sk_units = 0;  // the last sk_units units are shared along K (0: data-parallel only)

  PIPEGEMM_HOST_DEVICE int dp_units() const { return units - sk_units; }
  PIPEGEMM_HOST_DEVICE int sk_iters() const { return sk_units * k_tiles; }
  // Worker w's range of the sk units' k-iterations: [begin(w), begin(w + 1)).
  PIPEGEMM_HOST_DEVICE int begin(int w) const { return sk_iters() * w / workers; }

  PIPEGEMM_HOST_DEVICE Segment first(int w) const {
    return w < dp_units() ? whole_unit(w) : segment_ending(w, begin(w + 1));
  }
  PIPEGEMM_HOST_DEVICE Segment next(int w, const Segment& s) const {
    if (s.unit < dp_units()) {
      const int u = s.unit + workers;
      return u < dp_units() ? whole_unit(u) : segment_ending(w, begin(w + 1));
    }
    return segment_ending(w, (s.unit - dp_units()) * k_tiles + s.k0);
  }
  // The workers whose `part` segments complete unit `unit`'s `finish` at worker w: w - 1 .. w - n.
  PIPEGEMM_HOST_DEVICE int parts_of_finish(int w, int unit) const {
    const int start = (unit - dp_units()) * k_tiles;
    int n = 0;
    while (w - n - 1 >= 0 && begin(w - n) > start) ++n;
    return n;
  }

 private:
  PIPEGEMM_HOST_DEVICE Segment whole_unit(int u) const { return {u, 0, k_tiles, SegmentRole::whole}; }
  // Worker w's segment that ends at k-iteration g (exclusive), back to its unit's start or begin(w).
  PIPEGEMM_HOST_DEVICE Segment segment_ending(int w, int g) const {
    const int b = begin(w);
    if (g <= b) return {-1, 0, 0, SegmentRole::whole};
    const int t = (g - 1) / k_tiles, start = t * k_tiles;
    const int k1 = g - start, k0 = b > start ? b - start : 0;
    const SegmentRole role = k1 < k_tiles ? SegmentRole::part : k0 > 0 ? SegmentRole::finish : SegmentRole::whole;
    return {dp_units() + t, k0, k1, role};
  }
};

// The plan a launch uses (host): at most `max_workers` workers. Whole waves stay data-parallel;
// a last wave at least half full is shared by all workers (each range 0.5-1 unit), a shorter one
// joins the last whole wave (1-1.5 units each), so no unit is cut into more than three segments.
// Fewer units than workers (small problems): every unit is shared, with at most kMaxFanIn
// workers and at least kMinIters k_tiles per worker. k_tiles < kMinIters: data-parallel.
inline constexpr int kStreamKMaxFanIn = 4, kStreamKMinIters = 4;
// sk_override > 0 (tuning, $PIPEGEMM_K5_SK_UNITS): share that many of the last units instead;
// max_fan_in > 0 ($PIPEGEMM_K5_SK_FANIN): at most that many workers a unit when units < workers
// (0: kStreamKMaxFanIn).
// Either way only an sk_units whose ranges the device computes in int is taken.
inline StreamKPlan stream_k_plan(int units, int k_tiles, int max_workers, int sk_override = 0,
                                 int max_fan_in = 0) {
  StreamKPlan p;
  p.units = units;
  p.k_tiles = k_tiles;
  int w = max_workers < 1 ? 1 : max_workers;
  if (units < w) {
    long long cap = (long long)units * (max_fan_in > 0 ? max_fan_in : kStreamKMaxFanIn);
    const long long by_iters = (long long)units * k_tiles / kStreamKMinIters;
    if (by_iters < cap) cap = by_iters;
    if (cap < units) cap = units;
    if (cap < w) w = int(cap);
  }
  p.workers = w;
  int sk = 0;
  if (k_tiles < kStreamKMinIters || units <= 0) {
    p.workers = units < w ? (units > 0 ? units : 1) : w;
  } else if (units % w != 0) {
    const int full = units / w, rest = units % w;
    sk = full == 0 || 2 * rest >= w ? rest : rest + w;
  }
  // The device computes begin(w) = sk * k_tiles * w / workers in int.
  auto fits = [&](int n) { return (long long)n * k_tiles * p.workers <= 0x7fffffffLL; };
  if (fits(sk)) p.sk_units = sk;
  if (sk_override > 0 && fits(sk_override < units ? sk_override : units))
    p.sk_units = sk_override < units ? sk_override : units;
  return p;
}

}  // namespace pipegemm::pipeline
