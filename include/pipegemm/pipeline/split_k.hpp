// Split-K: how many CTAs share one output tile's K, and the workspace they meet in. One plan for
// the launchers, the kernels and auto's cost model; plain C++ (CPU-tested).
//
// Splits fill the GPU when the output tiles alone would leave SMs idle (decode and thin
// problems: 1x4096x14336 has 64 tiles of 16x64 for 132 SMs x 3 CTAs): as many whole waves of
// CTAs as the slots (SMs x CTAs per SM) hold, at most max_split, each split at least
// kMinKTilesPerSplit k_tiles so the ring's prologue stays a small share of its work.
//
// The workspace of one launch: `counters`, one int per output tile, zero at launch (the last CTA
// of a tile to arrive reduces and resets its counter, so the next launch finds it zero again), and
// `partials`, the splits' fp32 sums (each kernel's own order within: k4 (tiles, splits, fragment,
// threads), skinny (tiles, splits, its store order), k5 stream-K one accumulator set per CTA slot).
// The launcher carves both from the call's scratch (src/kernels/split_k.hpp): counters from the
// part that reads zero, partials from the rest.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pipegemm::pipeline {

inline constexpr int kMinKTilesPerSplit = 4;

struct SplitPlan {
  int splits = 1;
  int k_tiles_per_split = 0;  // every split but the last has this many; none is empty
  int64_t tiles = 0;          // output tiles (BM x BN)
};

inline SplitPlan split_plan(int64_t m, int64_t n, int64_t k, int bm, int bn, int bk, int max_split, int64_t slots) {
  SplitPlan p;
  p.tiles = ((m + bm - 1) / bm) * ((n + bn - 1) / bn);
  const int64_t k_tiles = (k + bk - 1) / bk;
  int64_t want = p.tiles < slots ? slots / p.tiles : 1;
  if (want > max_split) want = max_split;
  if (want > k_tiles / kMinKTilesPerSplit) want = k_tiles / kMinKTilesPerSplit;
  if (want < 1) want = 1;
  p.k_tiles_per_split = int((k_tiles + want - 1) / want);
  p.splits = int((k_tiles + p.k_tiles_per_split - 1) / p.k_tiles_per_split);
  return p;
}

// A thin kernel's plan (skinny: `tiles` CTAs of W rows, k_tiles of `k_tile` elements, a CTA's
// `warps` warps taking its k_tiles in turn). The split count minimises a modelled time, waves x
// (rounds of a CTA + kRampRounds), over 1..max_split with each split at least one k_tile per
// warp: whole waves matter -- 1792 tiles over 528 slots is 3.4 waves, the last 40% full, and
// splitting each tile in two packs them into 7 half-length waves (3.5 whole ones) where the
// fixed ramp (the first loads' DRAM latency, the partials' reduction) stays small.
inline SplitPlan thin_split_plan(int64_t tiles, int64_t k, int k_tile, int warps, int max_split, int64_t slots) {
  constexpr int64_t kRampRounds = 2;  // a CTA's fixed cost, in rounds of its warps' k_tiles
  SplitPlan p;
  p.tiles = tiles;
  const int64_t k_tiles = (k + k_tile - 1) / k_tile;
  slots = slots > 0 ? slots : 1;
  int64_t limit = k_tiles / warps;
  if (limit > max_split) limit = max_split;
  if (limit < 1) limit = 1;
  int64_t best_s = 1, best_cost = -1;
  for (int64_t s = 1; s <= limit; ++s) {
    const int64_t per = (k_tiles + s - 1) / s;
    if ((s - 1) * per >= k_tiles) continue;  // an empty split
    const int64_t waves = (tiles * s + slots - 1) / slots;
    const int64_t cost = waves * ((per + warps - 1) / warps + kRampRounds);
    if (best_cost < 0 || cost < best_cost) best_cost = cost, best_s = s;
  }
  p.k_tiles_per_split = int((k_tiles + best_s - 1) / best_s);
  p.splits = int((k_tiles + p.k_tiles_per_split - 1) / p.k_tiles_per_split);
  return p;
}

// One launch's workspace (above), as the kernels receive it.
struct SplitWorkspace {
  int* counters = nullptr;  // one per tile, zero at launch, left zero
  float* partials = nullptr;
};
// Its two parts in bytes, for `tiles` counters and `partial_floats` partial sums.
struct SplitWorkspaceBytes {
  size_t counters = 0, partials = 0;
};
constexpr SplitWorkspaceBytes split_workspace_parts(int64_t tiles, size_t partial_floats) {
  return {size_t(tiles) * sizeof(int), partial_floats * sizeof(float)};
}

}  // namespace pipegemm::pipeline
