// The stream-K plan (pipeline/stream_k.cuh) on the CPU: the header k5's stream-K kernel runs,
// compiled as plain C++. Every k_tile of every unit is computed exactly once, each unit's sums
// are finished by exactly one worker (its head, or a whole segment), a head's parts are the
// other segments of its unit in k order, and no worker waits for work that comes after a wait.
#include <gtest/gtest.h>

#include <map>
#include <tuple>
#include <vector>

#include "pipegemm/pipeline/stream_k.cuh"

namespace {

using pipegemm::pipeline::Segment;
using pipegemm::pipeline::SegmentRole;
using pipegemm::pipeline::stream_k_plan;
using pipegemm::pipeline::StreamKPlan;

std::vector<Segment> segments_of(const StreamKPlan& p, int w) {
  std::vector<Segment> out;
  for (Segment s = p.first(w); s.unit >= 0; s = p.next(w, s)) {
    out.push_back(s);
    if (out.size() > 100000) break;  // a broken next() must fail the test, not hang it
  }
  return out;
}

// Checks a plan against the contract in the header.
void check_plan(const StreamKPlan& p) {
  SCOPED_TRACE(::testing::Message() << "units " << p.units << " k_tiles " << p.k_tiles << " workers " << p.workers
                                    << " sk_units " << p.sk_units);
  std::vector<std::vector<int>> covered(p.units, std::vector<int>(p.k_tiles, 0));
  std::vector<int> finishers(p.units, 0);
  std::map<int, std::vector<std::tuple<int, int, int>>> parts;  // unit -> (k0, k1, worker) of its parts
  std::map<int, std::pair<int, int>> heads;                     // unit -> (worker, k1)
  for (int w = 0; w < p.workers; ++w) {
    const std::vector<Segment> segs = segments_of(p, w);
    int part_segments = 0, head_segments = 0;
    for (size_t i = 0; i < segs.size(); ++i) {
      const Segment& s = segs[i];
      ASSERT_GE(s.unit, 0);
      ASSERT_LT(s.unit, p.units);
      ASSERT_LT(s.k0, s.k1);
      ASSERT_LE(s.k1, p.k_tiles);
      for (int k = s.k0; k < s.k1; ++k) ++covered[s.unit][k];
      if (s.role == SegmentRole::whole) {
        EXPECT_EQ(s.k0, 0);
        EXPECT_EQ(s.k1, p.k_tiles);
        ++finishers[s.unit];
      } else if (s.role == SegmentRole::head) {
        EXPECT_EQ(s.k0, 0);
        EXPECT_LT(s.k1, p.k_tiles);
        EXPECT_EQ(i + 1, segs.size()) << "a head is its worker's last segment";
        ++finishers[s.unit];
        heads[s.unit] = {w, s.k1};
        ++head_segments;
      } else {
        EXPECT_GT(s.k0, 0);
        // A part is the first thing after the worker's whole units: it never waits behind a head.
        for (size_t j = 0; j < i; ++j) EXPECT_EQ(segs[j].role, SegmentRole::whole);
        parts[s.unit].push_back({s.k0, s.k1, w});
        ++part_segments;
      }
    }
    EXPECT_LE(part_segments, 1) << "one partial slot per worker";
    EXPECT_LE(head_segments, 1);
  }
  for (int u = 0; u < p.units; ++u) {
    for (int k = 0; k < p.k_tiles; ++k) ASSERT_EQ(covered[u][k], 1) << "unit " << u << " k_tile " << k;
    EXPECT_EQ(finishers[u], 1) << "unit " << u;
  }
  for (const auto& [u, list] : parts) {
    ASSERT_TRUE(heads.count(u)) << "unit " << u << " has parts but no head";
    const auto [hw, hk1] = heads[u];
    ASSERT_EQ(p.parts_of_head(hw, u), int(list.size()));
    int k = hk1;
    for (size_t j = 0; j < list.size(); ++j) {  // workers hw + 1, hw + 2, ... in k order
      EXPECT_EQ(std::get<2>(list[j]), hw + 1 + int(j));
      EXPECT_EQ(std::get<0>(list[j]), k);
      k = std::get<1>(list[j]);
    }
    EXPECT_EQ(k, p.k_tiles);
  }
  for (const auto& [u, h] : heads)
    if (!parts.count(u)) ADD_FAILURE() << "unit " << u << "'s head has no parts";
}

TEST(StreamKPlan, EveryKTileOnceAndEveryUnitFinishedOnce) {
  for (int units : {1, 2, 7, 64, 116, 131, 132, 133, 200, 256, 512, 1024, 3584})
    for (int k_tiles : {4, 5, 9, 16, 64, 127})
      for (int workers : {1, 3, 66, 132}) check_plan(stream_k_plan(units, k_tiles, workers));
}

TEST(StreamKPlan, WholeWavesStayDataParallel) {
  const StreamKPlan p = stream_k_plan(264, 64, 132);  // exactly two waves
  EXPECT_EQ(p.sk_units, 0);
  EXPECT_EQ(p.workers, 132);
  for (int w = 0; w < p.workers; ++w) EXPECT_EQ(segments_of(p, w).size(), 2u);
}

TEST(StreamKPlan, ALastWaveAtLeastHalfFullIsSharedAlone) {
  // 4096^3 in 128x256 tiles: 512 units on 132 SMs, 3 whole waves and 116 units left.
  const StreamKPlan p = stream_k_plan(512, 64, 132);
  EXPECT_EQ(p.workers, 132);
  EXPECT_EQ(p.sk_units, 116);
  EXPECT_EQ(p.dp_units(), 396);
  int most = 0;  // k_tiles per worker: 3 whole units + 116 * 64 / 132 (56.2) of the shared ones
  for (int w = 0; w < p.workers; ++w) {
    int n = 0;
    for (const Segment& s : segments_of(p, w)) n += s.k1 - s.k0;
    most = n > most ? n : most;
  }
  EXPECT_EQ(most, 3 * 64 + 57);
}

TEST(StreamKPlan, AShortLastWaveJoinsTheLastWholeOne) {
  // 8192x28672x4096 in clusters of 2: 3584 units on 66 clusters, 54 waves and 20 units left.
  const StreamKPlan p = stream_k_plan(3584, 64, 66);
  EXPECT_EQ(p.sk_units, 20 + 66);
  check_plan(p);
}

TEST(StreamKPlan, FewUnitsAreSharedByAtMostFourWorkersEach) {
  const StreamKPlan p = stream_k_plan(10, 64, 132);
  EXPECT_EQ(p.workers, 40);
  EXPECT_EQ(p.sk_units, 10);
  const StreamKPlan q = stream_k_plan(10, 8, 132);  // at least 4 k_tiles per worker
  EXPECT_EQ(q.workers, 20);
  const StreamKPlan r = stream_k_plan(10, 3, 132);  // too short to split: one worker per unit
  EXPECT_EQ(r.workers, 10);
  EXPECT_EQ(r.sk_units, 0);
}

TEST(StreamKPlan, RefusesRangesPastIntOnTheDevice) {
  // begin(w) = sk_units * k_tiles * w / workers is computed in int on the device.
  const StreamKPlan p = stream_k_plan(200, 1 << 20, 132);
  EXPECT_EQ(p.sk_units, 0);
}

}  // namespace
