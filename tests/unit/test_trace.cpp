// `pipegemm trace` without a GPU: hand-made records through calibration, the timeline, the
// summary (a schedule whose overlap, bubbles and stages in flight are worked out by hand below),
// the Perfetto JSON and the SVG; and the CLI's refusal in a build without stamps.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "cli_runner.hpp"
#include "pipegemm_tools/trace.hpp"

using namespace pipegemm;
using namespace pipegemm::trace;

namespace {

Record rec(uint64_t clock, Event e, int tile = 0, int k_tile = -1, int slot = -1, uint32_t cta = 0, int sm = 0,
           Role role = Role::warp, int lane = 0, uint64_t ns = 0) {
  Record r{};
  r.clock = clock;
  r.ns = ns;
  r.cta = cta;
  r.tile = tile;
  r.k_tile = k_tile;
  r.sm = uint16_t(sm);
  r.event = uint8_t(e);
  r.role = uint8_t(role);
  r.lane = uint8_t(lane);
  r.slot = uint8_t(slot < 0 ? 255 : slot);
  return r;
}

// One warp, one tile, 3 k_tiles through a 3-slot ring; clock = ns (1 GHz), first stamp at 1000.
//   loads   k0 [0,100] s0   k1 [10,250] s1   k2 [110,360] s2
//   MMAs    k0 [100,200]    k1 [250,350]     k2 [360,460]    epilogue [460,500]
// MMA busy 300 in a window of 360: bubbles 60 (16.7%). Loads in flight: union [0,360]; under an
// MMA 100 + 100 = 200 -> overlap 200/300 = 66.7%, loads hidden 200/360 = 55.6%. In flight over
// [0,360]: 1x10 + 2x90 + 1x10 + 2x140 + 1x110 = 590 -> 1.639 avg, 2 max.
std::vector<Record> one_warp() {
  const uint64_t c = 1000;
  return {rec(c, Event::clock_sync, -1, -1, -1, 0, 0, Role::warp, 0, 7000),
          rec(c, Event::tile_begin),
          rec(c + 0, Event::load_issued, 0, 0, 0),
          rec(c + 10, Event::load_issued, 0, 1, 1),
          rec(c + 100, Event::stage_full, 0, 0, 0),
          rec(c + 100, Event::mma_begin, 0, 0, 0),
          rec(c + 110, Event::load_issued, 0, 2, 2),
          rec(c + 200, Event::mma_end, 0, 0, 0),
          rec(c + 250, Event::stage_released, 0, 0, 0),
          rec(c + 250, Event::stage_full, 0, 1, 1),
          rec(c + 250, Event::mma_begin, 0, 1, 1),
          rec(c + 350, Event::mma_end, 0, 1, 1),
          rec(c + 360, Event::stage_full, 0, 2, 2),
          rec(c + 360, Event::mma_begin, 0, 2, 2),
          rec(c + 460, Event::mma_end, 0, 2, 2),
          rec(c + 460, Event::epilogue_begin),
          rec(c + 500, Event::epilogue_end),
          rec(c + 500, Event::tile_end),
          Record{}};  // never written: skipped
}

Timeline timeline_of(const std::vector<Record>& r, double ghz = 1.0) {
  std::vector<Stamp> st;
  EXPECT_TRUE(calibrate(r, ghz, &st).ok());
  return build_timeline(st);
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(Trace, RecordLayoutIsWhatTheDeviceWrites) {
  EXPECT_EQ(sizeof(Record), 40u);
  EXPECT_EQ(sizeof(Buffer), Buffer::kRecordsOffset);
  EXPECT_STREQ(to_string(Event::stage_released), "stage_released");
  EXPECT_STREQ(to_string(Event::clock_sync), "clock_sync");
}

TEST(Trace, CalibrationAlignsSmsByTheirLatestSync) {
  // 2 GHz. SM 0: syncs at clock 1000 (ns 5000) and 3000 (ns 5900, a lagging timer: its zero
  // 4400 < 4500 is not taken); SM 1: clock 3000 at ns 5100 -> zero 3600.
  std::vector<Record> r = {rec(1000, Event::clock_sync, -1, -1, -1, 0, 0, Role::warp, 0, 5000),
                           rec(3000, Event::clock_sync, -1, -1, -1, 0, 0, Role::warp, 1, 5900),
                           rec(3000, Event::clock_sync, -1, -1, -1, 1, 1, Role::warp, 0, 5100),
                           rec(3200, Event::mma_begin, 0, 0, 0, 1, 1)};
  std::vector<Stamp> st;
  ASSERT_TRUE(calibrate(r, 2.0, &st).ok());
  ASSERT_EQ(st.size(), 4u);
  // In time order: SM 0's first sync (500 + 4500 = 5000, the zero), SM 1's (1500 + 3600), the
  // MMA on SM 1 (1600 + 3600), SM 0's second sync (1500 + 4500; 4400 would put it at 900).
  EXPECT_DOUBLE_EQ(st[0].ns, 0.0);
  EXPECT_DOUBLE_EQ(st[1].ns, 100.0);
  EXPECT_EQ(st[2].event, Event::mma_begin);
  EXPECT_EQ(st[2].sm, 1);
  EXPECT_DOUBLE_EQ(st[2].ns, 200.0);
  EXPECT_DOUBLE_EQ(st[3].ns, 1000.0);
  EXPECT_FALSE(calibrate(r, 0.0, &st).ok());
  EXPECT_FALSE(calibrate({rec(10, Event::mma_begin)}, 1.0, &st).ok());  // no sync on SM 0
}

TEST(Trace, CalibrationKeepsNanosecondsAtRealTimerMagnitudes) {
  // %globaltimer counts ns since the epoch (~1.7e18: a double's step there is 256 ns) and clock64
  // runs for days (~1e15 cycles): stamps one cycle apart must stay ~0.5 ns apart, not 0 or 256.
  const uint64_t ns = 1733400000000000000ull, clk = 900000000000000ull;
  std::vector<Record> r = {rec(clk, Event::clock_sync, -1, -1, -1, 0, 0, Role::warp, 0, ns),
                           rec(clk + 3, Event::clock_sync, -1, -1, -1, 1, 1, Role::warp, 0, ns + 1000),
                           rec(clk + 201, Event::mma_begin, 0, 0, 0), rec(clk + 202, Event::mma_end, 0, 0, 0),
                           rec(clk + 203, Event::mma_begin, 0, 0, 0, 1, 1), rec(clk + 340, Event::mma_end, 0, 0, 0, 1, 1)};
  std::vector<Stamp> st;
  ASSERT_TRUE(calibrate(r, 2.0, &st).ok());
  ASSERT_EQ(st.size(), 6u);
  EXPECT_NEAR(st[1].ns, 100.5, 1e-3);  // SM 0's begin / end, 1 cycle apart
  EXPECT_NEAR(st[2].ns - st[1].ns, 0.5, 1e-3);
  EXPECT_NEAR(st[3].ns, 1000.0, 1e-3);  // SM 1's sync: its zero 998.5 ns after SM 0's
  EXPECT_NEAR(st[4].ns, 1100.0, 1e-3);  // its MMA, 137 cycles = 68.5 ns long
  EXPECT_NEAR(st[5].ns - st[4].ns, 68.5, 1e-3);
}

TEST(Trace, TimelinePairsLoadsMmasAndEpiloguesOnTheirLane) {
  const Timeline t = timeline_of(one_warp());
  ASSERT_EQ(t.lanes.size(), 1u);
  EXPECT_EQ(t.unmatched, 0);
  const Lane& l = t.lanes[0];
  EXPECT_EQ(l.name(), "CTA 0 warp 0");
  std::map<SpanKind, int> n;
  for (const Span& s : l.spans) ++n[s.kind];
  EXPECT_EQ(n[SpanKind::load], 3);
  EXPECT_EQ(n[SpanKind::mma], 3);
  EXPECT_EQ(n[SpanKind::epilogue], 1);
  EXPECT_EQ(l.tracks(SpanKind::load), 2);  // at most two loads in flight at once
  for (const Span& s : l.spans)
    if (s.kind == SpanKind::load && s.k_tile == 1) {
      EXPECT_DOUBLE_EQ(s.t0, 10.0);
      EXPECT_DOUBLE_EQ(s.t1, 250.0);
      EXPECT_EQ(s.slot, 1);
    }
  ASSERT_EQ(l.tile_starts.size(), 1u);
}

TEST(Trace, SummaryOfAKnownSchedule) {
  const Summary s = summarize(timeline_of(one_warp()));
  EXPECT_EQ(s.lanes, 1);
  EXPECT_EQ(s.mma_lanes, 1);
  EXPECT_NEAR(s.mma_busy_ns, 300, 1e-9);
  EXPECT_NEAR(s.bubble_ns, 60, 1e-9);
  EXPECT_NEAR(s.bubble_pct, 100.0 * 60 / 360, 1e-9);
  EXPECT_NEAR(s.overlap_pct, 100.0 * 200 / 300, 1e-9);
  EXPECT_NEAR(s.hidden_load_pct, 100.0 * 200 / 360, 1e-9);
  EXPECT_NEAR(s.stages_avg, 590.0 / 360, 1e-9);
  EXPECT_EQ(s.stages_max, 2);
  EXPECT_NEAR(s.load_ns, (100 + 240 + 250) / 3.0, 1e-9);
  EXPECT_NEAR(s.epilogue_ns, 40, 1e-9);
  EXPECT_NEAR(s.span_ns, 500, 1e-9);
}

TEST(Trace, AProducersLoadEndsAtTheFirstConsumerThatSeesItFull) {
  // k5's shape: the producer issues, two consumer warpgroups wait; the first to see it full ends it.
  std::vector<Record> r = {rec(0, Event::clock_sync, -1, -1, -1, 0, 0, Role::producer, 0, 100),
                           rec(0, Event::clock_sync, -1, -1, -1, 0, 0, Role::consumer, 0, 100),
                           rec(0, Event::clock_sync, -1, -1, -1, 0, 0, Role::consumer, 1, 100),
                           rec(5, Event::load_issued, 0, 0, 0, 0, 0, Role::producer, 0),
                           rec(2, Event::stage_wait, 0, 0, 0, 0, 0, Role::consumer, 1),
                           rec(60, Event::stage_full, 0, 0, 0, 0, 0, Role::consumer, 1),
                           rec(50, Event::stage_full, 0, 0, 0, 0, 0, Role::consumer, 0),
                           rec(50, Event::mma_begin, 0, 0, 0, 0, 0, Role::consumer, 0),
                           rec(90, Event::mma_end, 0, 0, 0, 0, 0, Role::consumer, 0)};
  const Timeline t = timeline_of(r);
  ASSERT_EQ(t.lanes.size(), 3u);
  const Lane& producer = t.lanes[0];
  EXPECT_EQ(producer.name(), "CTA 0 producer");
  ASSERT_EQ(producer.spans.size(), 1u);
  EXPECT_EQ(producer.spans[0].kind, SpanKind::load);
  EXPECT_DOUBLE_EQ(producer.spans[0].t1 - producer.spans[0].t0, 45.0);
  const Lane& waiting = t.lanes[2];  // consumer 1's wait: [2, 60]
  ASSERT_EQ(waiting.spans.size(), 1u);
  EXPECT_EQ(waiting.spans[0].kind, SpanKind::wait);
  EXPECT_DOUBLE_EQ(waiting.spans[0].t1 - waiting.spans[0].t0, 58.0);
  const Summary s = summarize(t);
  EXPECT_EQ(s.mma_lanes, 1);
  EXPECT_NEAR(s.overlap_pct, 0, 1e-9);  // the load landed before the MMA began
}

TEST(Trace, SummaryCountsTheCtasTensorIdleAndEpiloguesAtOnce) {
  // Two consumers of CTA 0 (1 GHz, clock = ns): consumer 0 MMA [0,100], epilogue [100,150], next tile's
  // MMA [200,300]; consumer 1 MMA [50,120], epilogue [120,180], MMA [190,280]. The MMA union [0,120] +
  // [190,300] idles 70 of a 300 window; the epilogues cover [100,180], both at once over [120,150].
  auto mma = [](uint64_t a, uint64_t b, int tile, int lane) {
    return std::vector<Record>{rec(a, Event::mma_begin, tile, 0, 0, 0, 0, Role::consumer, lane),
                               rec(b, Event::mma_end, tile, 0, 0, 0, 0, Role::consumer, lane)};
  };
  std::vector<Record> r = {rec(0, Event::clock_sync, -1, -1, -1, 0, 0, Role::consumer, 0, 1000),
                           rec(100, Event::epilogue_begin, 0, -1, -1, 0, 0, Role::consumer, 0),
                           rec(150, Event::epilogue_end, 0, -1, -1, 0, 0, Role::consumer, 0),
                           rec(120, Event::epilogue_begin, 0, -1, -1, 0, 0, Role::consumer, 1),
                           rec(180, Event::epilogue_end, 0, -1, -1, 0, 0, Role::consumer, 1)};
  for (auto v : {mma(0, 100, 0, 0), mma(200, 300, 1, 0), mma(50, 120, 0, 1), mma(190, 280, 1, 1)})
    r.insert(r.end(), v.begin(), v.end());
  const Summary s = summarize(timeline_of(r));
  EXPECT_EQ(s.ctas, 1);
  EXPECT_NEAR(s.cta_idle_ns, 70.0, 1e-9);
  EXPECT_NEAR(s.cta_idle_pct, 100.0 * 70 / 300, 1e-9);
  EXPECT_NEAR(s.epilogues_together_pct, 100.0 * 30 / 80, 1e-9);
  // One warp alone: the CTA's idle is its bubbles, and no epilogue is ever shared.
  const Summary one = summarize(timeline_of(one_warp()));
  EXPECT_NEAR(one.cta_idle_ns, one.bubble_ns, 1e-9);
  EXPECT_NEAR(one.epilogues_together_pct, 0.0, 1e-9);
}

TEST(Trace, ChromeJsonHasACompleteEventPerSpanOnNamedThreads) {
  const Timeline t = timeline_of(one_warp());
  const Summary s = summarize(t);
  Meta m;
  m.variant = "k4_f16_256x128x64_s3";
  m.shape = "81920x256x256";
  m.stages = 3;
  const nlohmann::json j = nlohmann::json::parse(chrome_json(m, t, s));
  std::map<int, std::string> thread;
  std::map<std::string, int> spans;  // thread name -> complete events
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") thread[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
  double load_k1_us = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    EXPECT_EQ(e["pid"], 0);
    ++spans[thread.at(e["tid"].get<int>())];
    if (e["cat"] == "load" && e["args"]["k_tile"] == 1) load_k1_us = e["dur"].get<double>();
  }
  EXPECT_EQ(spans["CTA 0 warp 0 MMA"], 4);  // 3 MMAs and the epilogue
  EXPECT_EQ(spans["CTA 0 warp 0 G->S 0"] + spans["CTA 0 warp 0 G->S 1"], 3);
  EXPECT_NEAR(load_k1_us, 0.240, 1e-12);
  EXPECT_NEAR(j["otherData"]["summary"]["overlap_pct"].get<double>(), 100.0 * 2 / 3, 1e-9);
  EXPECT_EQ(j["otherData"]["meta"]["variant"], "k4_f16_256x128x64_s3");
}

TEST(Trace, SvgDrawsEachLanesRowsSpansAndBubbles) {
  const Timeline t = timeline_of(one_warp());
  Meta m;
  m.variant = "seed_f16_128x128x32_s3";
  m.stages = 3;
  const std::string svg = timeline_svg(m, t, summarize(t));
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("CTA 0 warp 0 G\u2192S"), std::string::npos);
  EXPECT_NE(svg.find("CTA 0 warp 0 MMA"), std::string::npos);
  EXPECT_EQ(count(svg, "class=\"load\""), 3);
  EXPECT_EQ(count(svg, "class=\"mma\""), 3);
  EXPECT_EQ(count(svg, "class=\"epilogue\""), 1);
  EXPECT_EQ(count(svg, "class=\"bubble\""), 2);  // 200..250 and 350..360
  EXPECT_NE(svg.find("MMA busy with a load in flight 66.7%"), std::string::npos);
}

TEST(Trace, CliWithoutStampsSaysHowToGetThemAndWritesNothing) {
  if (compiled_in()) GTEST_SKIP() << "a traced build: `pipegemm trace` runs (GPU tests cover it)";
  const std::string out = ::testing::TempDir() + "pipegemm_trace_refused.json";
  std::remove(out.c_str());
  const test::CliRun r = test::run_cli("trace --kernel k4_f16_256x128x64_s3 --shape 81920x256x256 --out " + out);
  EXPECT_NE(r.code, 0);
  EXPECT_TRUE(test::has(r, "no trace support")) << r.out;
  EXPECT_TRUE(test::has(r, "-DPIPEGEMM_TRACE=ON")) << r.out;
  EXPECT_FALSE(std::ifstream(out).good());
  EXPECT_FALSE(std::ifstream(::testing::TempDir() + "pipegemm_trace_refused.svg").good());
}
