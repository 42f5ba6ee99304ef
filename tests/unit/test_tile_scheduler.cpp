// The shared tile order (pipeline/tile_scheduler.cuh), on the CPU: the header the kernels run is
// compiled here as plain C++.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "pipegemm/pipeline/tile_scheduler.cuh"

namespace {

using pipegemm::pipeline::raster_tile;
using pipegemm::pipeline::TileCoord;
using pipegemm::pipeline::TileScheduler;

// The documented order written out independently: bands of `group` rows (the last one
// shorter), inside a band column by column, inside a column row by row.
std::vector<TileCoord> band_order(int num_m, int num_n, int group) {
  std::vector<TileCoord> order;
  for (int first_m = 0; first_m < num_m; first_m += group)
    for (int n = 0; n < num_n; ++n)
      for (int m = first_m; m < first_m + group && m < num_m; ++m) order.push_back({m, n});
  return order;
}

TEST(TileScheduler, WorkedExampleFromTheHeader) {
  // num_m = 5, num_n = 3, group = 2: id of unit (m, n), as drawn in tile_scheduler.cuh.
  const int id_of[5][3] = {{0, 2, 4}, {1, 3, 5}, {6, 8, 10}, {7, 9, 11}, {12, 13, 14}};
  for (int m = 0; m < 5; ++m)
    for (int n = 0; n < 3; ++n) {
      const TileCoord c = raster_tile(id_of[m][n], 5, 3, 2);
      EXPECT_EQ(c.m, m) << "id " << id_of[m][n];
      EXPECT_EQ(c.n, n) << "id " << id_of[m][n];
    }
}

TEST(TileScheduler, PermutationInBandOrderForManyShapes) {
  // group > num_m (one band), group dividing num_m, ragged last bands, one row or column.
  for (int num_m = 1; num_m <= 13; ++num_m)
    for (int num_n = 1; num_n <= 7; ++num_n)
      for (int group = 1; group <= 16; ++group) {
        const std::vector<TileCoord> want = band_order(num_m, num_n, group);
        ASSERT_EQ(int(want.size()), num_m * num_n);
        std::vector<int> hits(num_m * num_n, 0);
        for (int pid = 0; pid < num_m * num_n; ++pid) {
          const TileCoord c = raster_tile(pid, num_m, num_n, group);
          ASSERT_TRUE(c.m >= 0 && c.m < num_m && c.n >= 0 && c.n < num_n)
              << num_m << "x" << num_n << " group " << group << " pid " << pid;
          ++hits[c.m * num_n + c.n];
          EXPECT_EQ(c.m, want[pid].m) << num_m << "x" << num_n << " group " << group << " pid " << pid;
          EXPECT_EQ(c.n, want[pid].n) << num_m << "x" << num_n << " group " << group << " pid " << pid;
        }
        for (int h : hits) ASSERT_EQ(h, 1) << num_m << "x" << num_n << " group " << group;
      }
}

TEST(TileScheduler, LimitsAreRowMajorAndColumnMajor) {
  for (int pid = 0; pid < 6 * 4; ++pid) {
    const TileCoord row_major = raster_tile(pid, 6, 4, 1);  // group 1: a band is one row
    EXPECT_EQ(row_major.m, pid / 4);
    EXPECT_EQ(row_major.n, pid % 4);
    const TileCoord col_major = raster_tile(pid, 6, 4, 8);  // group >= num_m: one band
    EXPECT_EQ(col_major.m, pid % 6);
    EXPECT_EQ(col_major.n, pid / 6);
  }
}

TEST(TileScheduler, ClusterUnitsCoverEveryTileOnce) {
  // k5: a unit is cluster_m vertically adjacent tiles; CTA rank r of the cluster takes tile row
  // m_unit * cluster_m + r. A ragged last unit sticks out by (cluster_m - m_tiles % cluster_m)
  // rows, which TMA clips.
  for (int cluster_m = 1; cluster_m <= 2; ++cluster_m)
    for (int m_tiles = 1; m_tiles <= 9; ++m_tiles)
      for (int n_tiles = 1; n_tiles <= 5; ++n_tiles)
        for (int group = 1; group <= 6; ++group) {
          const TileScheduler sched(m_tiles, n_tiles, cluster_m, group);
          const int m_units = (m_tiles + cluster_m - 1) / cluster_m;
          ASSERT_EQ(sched.m_units, m_units);
          ASSERT_EQ(sched.total, m_units * n_tiles);
          std::vector<int> hits(m_units * cluster_m * n_tiles, 0);
          for (int unit = 0; unit < sched.total; ++unit) {
            const TileCoord u = sched.coords(unit);
            const TileCoord want = raster_tile(unit, m_units, n_tiles, group);
            ASSERT_EQ(u.m, want.m);
            ASSERT_EQ(u.n, want.n);
            for (int r = 0; r < cluster_m; ++r) ++hits[(u.m * cluster_m + r) * n_tiles + u.n];
          }
          for (int h : hits) ASSERT_EQ(h, 1) << m_tiles << "x" << n_tiles << " cluster " << cluster_m;
        }
}

}  // namespace

// k5 B-resident's grid (column_persistent_grid): every CTA's units -- c, c + grid, ... -- lie in one
// column of tiles, each unit is some CTA's, and the grid stays within the resident CTAs (or is
// n_tiles when fewer are resident), over columns 1-4, rows 1-300 and 1-140 resident CTAs
// (132 = the H200's SMs; 114 and 130 do not divide by 4 or 3).
TEST(TileScheduler, ColumnPersistentGridKeepsEveryCtaInOneColumn) {
  for (int n_tiles = 1; n_tiles <= 4; ++n_tiles)
    for (int m_tiles = 1; m_tiles <= 300; m_tiles += (m_tiles < 20 ? 1 : 7))
      for (int resident = 1; resident <= 140; ++resident) {
        const TileScheduler s(m_tiles, n_tiles, 1, 1);
        const int grid = pipegemm::pipeline::column_persistent_grid(s.total, resident, n_tiles);
        ASSERT_GE(grid, 1);
        ASSERT_LE(grid, std::max(resident, n_tiles));
        ASSERT_LE(grid, s.total);
        for (int c = 0; c < grid; ++c)
          for (int u = c; u < s.total; u += grid)
            ASSERT_EQ(s.coords(u).n, s.coords(c).n)
                << "n_tiles " << n_tiles << " m_tiles " << m_tiles << " resident " << resident << " CTA " << c;
      }
}
