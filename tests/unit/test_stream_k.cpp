// The stream-K plan (pipeline/stream_k.cuh) on the CPU: the header k5's stream-K kernel runs,
// compiled as plain C++. Every k_tile of every unit is computed exactly once, each unit's sums
// are finished by exactly one worker (a whole segment, or the finish that holds its last k_tile),
// a finish's parts are the other segments of its unit, and no worker waits for work that comes
// after a wait.
#include <gtest/gtest.h>

#include <algorithm>
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
  std::map<int, std::pair<int, int>> finishes;                  // unit -> (worker, k0)
  for (int w = 0; w < p.workers; ++w) {
    const std::vector<Segment> segs = segments_of(p, w);
    int part_segments = 0, finish_segments = 0;
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
      } else if (s.role == SegmentRole::finish) {
        EXPECT_GT(s.k0, 0);
        EXPECT_EQ(s.k1, p.k_tiles);
        EXPECT_EQ(i + 1, segs.size()) << "a finish is its worker's last segment";
        ++finishers[s.unit];
        finishes[s.unit] = {w, s.k0};
        ++finish_segments;
      } else {
        EXPECT_LT(s.k1, p.k_tiles);
        // A part is the first thing after the worker's whole units: it never waits behind a finish.
        for (size_t j = 0; j < i; ++j) EXPECT_EQ(segs[j].role, SegmentRole::whole);
        if (i + 1 < segs.size()) EXPECT_LT(segs[i + 1].unit, s.unit) << "backwards through the range";
        parts[s.unit].push_back({s.k0, s.k1, w});
        ++part_segments;
      }
    }
    EXPECT_LE(part_segments, 1) << "one partial slot per worker";
    EXPECT_LE(finish_segments, 1);
  }
  for (int u = 0; u < p.units; ++u) {
    for (int k = 0; k < p.k_tiles; ++k) ASSERT_EQ(covered[u][k], 1) << "unit " << u << " k_tile " << k;
    EXPECT_EQ(finishers[u], 1) << "unit " << u;
  }
  for (const auto& [u, list] : parts) {
    ASSERT_TRUE(finishes.count(u)) << "unit " << u << " has parts but no finish";
    const auto [fw, fk0] = finishes[u];
    ASSERT_EQ(p.parts_of_finish(fw, u), int(list.size()));
    // Workers fw - 1, fw - 2, ...: each part ends where the next one (in that order) starts.
    std::map<int, std::pair<int, int>> by_worker;
    for (const auto& [k0, k1, w] : list) by_worker[w] = {k0, k1};
    int k = fk0;
    for (int j = 1; j <= int(list.size()); ++j) {
      ASSERT_TRUE(by_worker.count(fw - j)) << "unit " << u << ": no part from worker " << fw - j;
      EXPECT_EQ(by_worker[fw - j].second, k);
      k = by_worker[fw - j].first;
    }
    EXPECT_EQ(k, 0);
  }
  for (const auto& [u, f] : finishes)
    if (!parts.count(u)) ADD_FAILURE() << "unit " << u << "'s finish has no parts";
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

// A model of the schedule: one time step per k_tile; a finish adds its parts after its own
// k_tiles, once they are done. Walking ranges backwards, no finish waits (its unit's parts were
// each worker's first segment): the makespan is the longest range. Forwards, a range shorter than
// a unit ends with a part its finisher waits for almost a unit.
int modelled_makespan(const StreamKPlan& p) {
  std::map<int, int> part_done;  // worker -> when its part's sums are in its slot
  std::vector<std::vector<Segment>> segs(p.workers);
  for (int w = 0; w < p.workers; ++w) segs[w] = segments_of(p, w);
  std::vector<int> t(p.workers, 0);
  for (int w = 0; w < p.workers; ++w)  // parts come right after the whole units: no waits
    for (const Segment& s : segs[w]) {
      if (s.role == SegmentRole::finish) break;
      t[w] += s.k1 - s.k0;
      if (s.role == SegmentRole::part) part_done[w] = t[w];
    }
  int makespan = 0;
  for (int w = 0; w < p.workers; ++w) {
    const Segment& last = segs[w].empty() ? Segment{-1, 0, 0, SegmentRole::whole} : segs[w].back();
    if (last.role == SegmentRole::finish) {
      t[w] += last.k1 - last.k0;
      for (int j = 1; j <= p.parts_of_finish(w, last.unit); ++j) t[w] = std::max(t[w], part_done[w - j]);
    }
    makespan = std::max(makespan, t[w]);
  }
  return makespan;
}

TEST(StreamKPlan, NoFinishWaitsSoTheLastWaveTakesOneRange) {
  EXPECT_EQ(modelled_makespan(stream_k_plan(512, 64, 132)), 3 * 64 + 57);   // data-parallel: 4 * 64
  EXPECT_EQ(modelled_makespan(stream_k_plan(256, 64, 66)), 3 * 64 + 57);    // the same in clusters of 2
  EXPECT_EQ(modelled_makespan(stream_k_plan(3584, 64, 66)), 53 * 64 + 84);  // 55 * 64
  EXPECT_EQ(modelled_makespan(stream_k_plan(88, 16, 132)), 11);             // 16
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
