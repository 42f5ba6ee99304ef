// The tile order every kernel family shares: banded ("swizzled", grouped along M) for L2 reuse.
//
// Work units form a (num_m, num_n) grid -- (BM,BN) tiles, or for k5's clusters cluster_m
// vertically adjacent tiles that share one B tile. Linear ids walk bands of `group` units along
// M: down one column of a band, then the next column, then the next band; the last band holds
// the num_m % group leftover rows (all of them when group > num_m). CTAs resident together thus
// read `group` A panels and few B panels. Example, num_m = 5, num_n = 3, group = 2:
//
//          n=0 n=1 n=2
//   m=0      0   2   4      band 0: ids 0..5
//   m=1      1   3   5
//   m=2      6   8  10      band 1: ids 6..11
//   m=3      7   9  11
//   m=4     12  13  14      band 2 (ragged, one row): ids 12..14
//
// Plain C++ (no CuTe) and host-callable, so the CPU unit test checks the very code the kernels run.
#pragma once

#include "pipegemm/detail/host_device.hpp"

namespace pipegemm::pipeline {

struct TileCoord {
  int m, n;  // work unit coordinates: row (M) and column (N) of the unit grid
};

// Unit (m, n) of linear id `pid` in [0, num_m * num_n); group >= 1. The statements are in the
// order of the former common::raster_tile, whose k4 SASS this reproduces byte for byte
// (scripts/sass_diff.py): the compiler keeps the order, so computing the remainder before
// `rows` moves instructions and registers in every k4 kernel.
PIPEGEMM_HOST_DEVICE TileCoord raster_tile(int pid, int num_m, int num_n, int group) {
  const int per_group = group * num_n;  // ids per band
  const int first_m = (pid / per_group) * group;
  const int rows = num_m - first_m < group ? num_m - first_m : group;  // the last band may be short
  const int in_group = pid % per_group;
  return {first_m + in_group % rows, in_group / rows};
}

// The order over a grid of work units of `cluster_m` tiles along M (cluster_m = 1: plain tiles),
// for persistent kernels walking ids blockIdx.x (or the cluster id), + the CTA (cluster) count.
struct TileScheduler {
  int m_units = 0, n_tiles = 0, group = 1, total = 0;

  TileScheduler() = default;
  PIPEGEMM_HOST_DEVICE TileScheduler(int m_tiles, int n_tiles_, int cluster_m, int group_)
      : m_units((m_tiles + cluster_m - 1) / cluster_m), n_tiles(n_tiles_), group(group_) {
    total = m_units * n_tiles;
  }
  // {m unit, n tile} of unit id `unit` in [0, total); tile row = m unit * cluster_m + CTA rank.
  PIPEGEMM_HOST_DEVICE TileCoord coords(int unit) const { return raster_tile(unit, m_units, n_tiles, group); }
};

// A persistent grid over a (num_m, n_tiles) grid of plain tiles walked row by row (group 1) whose
// every CTA stays in one column of tiles -- k5 B-resident, which keeps that column's B: CTA c takes
// units c, c + grid, ..., all in column c % n_tiles when the grid is a multiple of n_tiles (or
// covers every unit once). At most `resident` CTAs unless that is fewer than n_tiles.
PIPEGEMM_HOST_DEVICE int column_persistent_grid(int units, int resident, int n_tiles) {
  if (units <= resident) return units;
  const int whole_rows = resident / n_tiles * n_tiles;
  return whole_rows > n_tiles ? whole_rows : n_tiles;
}

}  // namespace pipegemm::pipeline
