// `pipegemm diagnose` without a GPU: ncu's raw CSV read back (tests/data/ncu_raw_synthetic_k4.csv
// and _seed_shape.csv, hand-made reports in ncu's layout), each rule of the classifier on counters
// that make it hold -- the cp.async kernels' 0% LDG bytes per sector on the H200 among them -- and the CLI:
// --from-csv classifies a stored report, a live run without a GPU (or without ncu) exits 3 with
// the reason. The teaching variants' verdicts on the GPU: tests/gpu/test_gpu_diagnose.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/introspect/registry.hpp"
#include "pipegemm_tools/diagnose.hpp"

using namespace pipegemm;
using pipegemm::test::CliRun;
using pipegemm::test::has;
using pipegemm::test::run_cli;

namespace {

const std::string kCsv = std::string(PIPEGEMM_TEST_DATA) + "/ncu_raw_synthetic_k4.csv";
const std::string kCsvSeedShape = std::string(PIPEGEMM_TEST_DATA) + "/ncu_raw_synthetic_seed_shape.csv";
const char* const kK4 = "k4_f16_256x128x64_s3";

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string stall(const std::string& r) { return "smsp__average_warps_issue_stalled_" + r + "_per_issue_active.ratio"; }

// Counters of a healthy large launch that no rule claims; each test changes what makes its rule hold.
diagnose::Counters base() {
  diagnose::Counters c;
  c.kernel = "test";
  c.values = {{"gpu__time_duration.sum", 200000},  // 200 us
              {"launch__grid_size", 528},
              {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", 40},
              {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 30},
              {"sm__warps_active.avg.pct_of_peak_sustained_active", 40},
              {stall("long_scoreboard"), 0.2},
              {stall("barrier"), 0.2},
              {stall("math_pipe_throttle"), 2.0},
              {stall("not_selected"), 1.0}};
  return c;
}
diagnose::Prediction predicted() {
  diagnose::Prediction p;
  p.variant = "test";
  p.sm_count = 132;
  p.blocks_per_sm = 2, p.blocks_one_stage_less = 2, p.limiter = "shared memory";
  p.stages = 3, p.min_stages = 4, p.min_stages_l2 = 2;
  p.ideal_bytes = 1e8;
  p.k_tiles = 128;  // long K: the ring is in steady state
  return p;
}

}  // namespace

TEST(DiagnoseCsv, ReadsTheVariantsLaunchAmongOtherOutputWithThousandsSeparators) {
  const Variant* v = find_variant(kK4);
  ASSERT_NE(v, nullptr);
  diagnose::Counters c;
  ASSERT_TRUE(diagnose::parse_ncu_csv(read(kCsv), v->symbol, &c).ok());
  EXPECT_NE(c.kernel.find("k4_f16_256x128x64_s3"), std::string::npos) << c.kernel;  // not the peer's row before it
  EXPECT_DOUBLE_EQ(c.get("gpu__time_duration.sum"), 1234567.0);
  EXPECT_DOUBLE_EQ(c.get("launch__grid_size"), 1024.0);
  EXPECT_DOUBLE_EQ(c.get("dram__bytes_read.sum"), 402653184.0);
  EXPECT_DOUBLE_EQ(c.get("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"), 41.3);
  EXPECT_TRUE(std::isnan(c.get("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct")));  // "n/a"
  EXPECT_TRUE(std::isnan(c.get("no_such_metric")));
  // Any launch when no symbol is given: the first (the peer's).
  ASSERT_TRUE(diagnose::parse_ncu_csv(read(kCsv), "", &c).ok());
  EXPECT_NE(c.kernel.find("xmma"), std::string::npos) << c.kernel;
}

TEST(DiagnoseCsv, RefusesTextWithoutAReportOrWithoutTheVariantsLaunch) {
  diagnose::Counters c;
  Status s = diagnose::parse_ncu_csv("bench on NVIDIA H200\nno report here\n", "", &c);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("header row"), std::string::npos) << s.message;
  s = diagnose::parse_ncu_csv(read(kCsv), "k5_ws_tma_wgmma_kernel*K5Config", &c);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("2 launch(es)"), std::string::npos) << s.message;
}

TEST(DiagnoseRules, EachVerdictFromTheCountersThatMakeItHold) {
  const diagnose::Prediction p = predicted();
  EXPECT_EQ(diagnose::classify(base(), p).verdict, diagnose::Verdict::unclear);

  diagnose::Counters c = base();
  c.values["launch__grid_size"] = 16;  // 16 CTAs for 132 SMs
  EXPECT_EQ(diagnose::classify(c, p).verdict, diagnose::Verdict::latency_bound);
  c = base();
  c.values["gpu__time_duration.sum"] = 3000;  // 3 us
  EXPECT_EQ(diagnose::classify(c, p).verdict, diagnose::Verdict::latency_bound);

  c = base();  // column-wise loads: 2 bytes of each 32-byte sector
  c.values["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] = 1e6;
  c.values["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] = 32e6;
  c.values["smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"] = 6.25;
  diagnose::Diagnosis d = diagnose::classify(c, p);
  EXPECT_EQ(d.verdict, diagnose::Verdict::uncoalesced);
  EXPECT_NE(d.why.find("% of each loaded sector is used"), std::string::npos) << d.why;
  EXPECT_NE(d.why.find("32.0 L1 sectors per global load request"), std::string::npos) << d.why;

  // A TMA kernel whose only LDGs are 4-byte flag polls (stream-K; 12.5% of each sector used): LDG
  // asks for 0.01% of the GEMM's bytes, so its sector use decides nothing -- the tensor pipe does.
  c = base();
  c.values["smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"] = 12.5;
  c.values["smsp__sass_data_bytes_mem_global_op_ld.sum"] = 1e4;
  c.values["sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"] = 90;
  EXPECT_EQ(diagnose::classify(c, p).verdict, diagnose::Verdict::compute_bound);
  c.values["smsp__sass_data_bytes_mem_global_op_ld.sum"] = 5e7;  // half the GEMM's bytes through LDG
  EXPECT_EQ(diagnose::classify(c, p).verdict, diagnose::Verdict::uncoalesced);

  c = base();
  c.values["sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"] = 20;
  c.values["sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"] = 85;  // wgmma's pipe
  EXPECT_EQ(diagnose::classify(c, p).verdict, diagnose::Verdict::compute_bound);

  c = base();
  c.values["dram__throughput.avg.pct_of_peak_sustained_elapsed"] = 78;
  EXPECT_EQ(diagnose::classify(c, p).verdict, diagnose::Verdict::memory_bound);

  c = base();  // the warps wait on the pipeline
  c.values[stall("barrier")] = 3.0;
  c.values[stall("long_scoreboard")] = 1.5;
  d = diagnose::classify(c, p);
  EXPECT_EQ(d.verdict, diagnose::Verdict::stage_starvation);
  EXPECT_NE(d.why.find("planner minimum 2-4"), std::string::npos) << d.why;
  EXPECT_NE(d.why.find("most of all barrier (40%)"), std::string::npos) << d.why;
  // The same waits past an occupancy cliff (one stage fewer: 2 CTAs per SM, now 1) with few warps.
  diagnose::Prediction cliff = p;
  cliff.blocks_per_sm = 1, cliff.blocks_one_stage_less = 2;
  c.values["sm__warps_active.avg.pct_of_peak_sustained_active"] = 12;
  d = diagnose::classify(c, cliff);
  EXPECT_EQ(d.verdict, diagnose::Verdict::occupancy_collapse);
  EXPECT_NE(d.why.find("2 with one fewer"), std::string::npos) << d.why;
  // Exactly one piece of evidence decides.
  int decided = 0;
  for (const diagnose::Evidence& e : d.evidence) decided += e.decided;
  EXPECT_EQ(decided, 1);
  // Short K outranks both: 8 k_tiles through a 3-stage ring fill and drain it half the time.
  diagnose::Prediction short_k = cliff;
  short_k.k_tiles = 8;
  d = diagnose::classify(c, short_k);
  EXPECT_EQ(d.verdict, diagnose::Verdict::latency_bound);
  EXPECT_NE(d.why.find("8 k_tiles per tile against a 3-stage ring"), std::string::npos) << d.why;
  EXPECT_NE(d.why.find("(4 k_tiles) is 50%"), std::string::npos) << d.why;
  short_k.k_tiles = 9;  // past 4 x (stages - 1)
  EXPECT_EQ(diagnose::classify(c, short_k).verdict, diagnose::Verdict::occupancy_collapse);
  short_k.k_tiles = 4, short_k.persistent = true;  // the ring runs on across tiles
  EXPECT_EQ(diagnose::classify(c, short_k).verdict, diagnose::Verdict::occupancy_collapse);
}

// The H200's first run (issue 14): cp.async kernels issue no LDG, so the LDG-only bytes per sector
// reads 0%, while L1 counts their 16-byte vectors at 16 sectors a request -- coalesced, never
// "uncoalesced". More than 16 sectors per request is uncoalesced whatever the load instruction.
TEST(DiagnoseRules, ZeroPercentMeansNoLdgMeasuredNotUncoalesced) {
  const diagnose::Prediction p = predicted();
  diagnose::Counters c = base();
  c.values["smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"] = 0;
  c.values["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] = 327680;
  c.values["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] = 16 * 327680;
  diagnose::Diagnosis d = diagnose::classify(c, p);
  EXPECT_EQ(d.verdict, diagnose::Verdict::unclear) << d.why;
  EXPECT_TRUE(std::isnan(d.evidence[2].value)) << d.evidence[2].what;  // shown as "-", not 0%
  c.values["sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"] = 82;
  EXPECT_EQ(diagnose::classify(c, p).verdict, diagnose::Verdict::compute_bound);

  c = base();  // no bytes-per-sector at all, 24 sectors a request: uncoalesced, decided by the ratio
  c.values["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] = 1000;
  c.values["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] = 24000;
  d = diagnose::classify(c, p);
  EXPECT_EQ(d.verdict, diagnose::Verdict::uncoalesced);
  EXPECT_EQ(d.evidence[3].decided, true) << d.evidence[3].what;

  c = base();  // cp.async's own bytes per sector (H200: k4's .cg LDGSTS read 100%), 0 = none measured
  const std::string cg = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ldgsts_cache_bypass.pct";
  const std::string ca = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ldgsts_cache_access.pct";
  c.values[cg] = 100, c.values[ca] = 0;
  d = diagnose::classify(c, p);
  EXPECT_EQ(d.verdict, diagnose::Verdict::unclear);
  EXPECT_DOUBLE_EQ(d.evidence[4].value, 100.0) << d.evidence[4].what;
  c.values[ca] = 12.5;  // a .ca cp.async of 4 bytes a thread down a column
  d = diagnose::classify(c, p);
  EXPECT_EQ(d.verdict, diagnose::Verdict::uncoalesced);
  EXPECT_EQ(d.evidence[4].decided, true) << d.evidence[4].what;
  EXPECT_NE(d.why.find("only 12.5% of each loaded sector"), std::string::npos) << d.why;
}

TEST(DiagnoseRules, TheTopThreeStallReasonsAreShownByName) {
  const diagnose::Diagnosis d = diagnose::classify(base(), predicted());
  std::vector<std::string> rows;
  for (const diagnose::Evidence& e : d.evidence)
    if (e.what.rfind("stall reason ", 0) == 0) rows.push_back(e.what + " " + report::fixed(e.value, 1) + e.unit);
  // base(): math_pipe_throttle 2.0, not_selected 1.0, long_scoreboard 0.2 (ties keep stall_reasons()'s order).
  EXPECT_EQ(rows, (std::vector<std::string>{"stall reason 1: math_pipe_throttle 58.8%", "stall reason 2: not_selected 29.4%",
                                            "stall reason 3: long_scoreboard 5.9%"}));
  EXPECT_NE(d.why.find("most of all math_pipe_throttle (59%)"), std::string::npos) << d.why;
}

TEST(DiagnoseKernel, NcuProfilesTheFamilysKernelTemplateAndTheReportNamesWhatRan) {
  const Variant* k4 = find_variant(kK4);
  ASSERT_NE(k4, nullptr);
  EXPECT_EQ(diagnose::kernel_pattern(*k4), k4->symbol);  // the name tag: one instantiation
  EXPECT_EQ(diagnose::kernel_regex(*k4), k4->symbol + ".*");
  EXPECT_EQ(diagnose::kernel_pattern(*find_variant("seed_f16_128x128x32_s3")), "k4_seed_kernel");
  const Variant* k5 = find_variant("k5_f16_128x256x64_s4");
  if (!k5) GTEST_SKIP() << "no k5 in this build";
  EXPECT_EQ(diagnose::kernel_pattern(*k5), "k5_ws_tma_wgmma_kernel");
  // K <= 512 runs k5's short-K config: its full symbol matches no launch, its template does.
  diagnose::Counters c;
  EXPECT_FALSE(diagnose::parse_ncu_csv(read(kCsvSeedShape), k5->symbol, &c).ok());
  ASSERT_TRUE(diagnose::parse_ncu_csv(read(kCsvSeedShape), diagnose::kernel_pattern(*k5), &c).ok());
  EXPECT_NE(c.kernel.find("Li4ELi2ELb1E"), std::string::npos) << c.kernel;
}

TEST(DiagnoseCli, ClassifiesAStoredReportAndSaysWhy) {
  CliRun r = run_cli("diagnose --kernel " + std::string(kK4) + " --shape 4096x4096x4096 --from-csv " + kCsv + " --arch h200");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "stage starvation")) << r.out;  // coalesced (cp.async), 69% of stalls waiting
  EXPECT_TRUE(has(r, "the planner's prediction")) << r.out;
  r = run_cli("diagnose --kernel " + std::string(kK4) + " --shape 4096x4096x4096 --from-csv " + kCsv + " --arch h200 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "stage starvation");
  EXPECT_EQ(j["prediction"]["stages"], 3);
  EXPECT_TRUE(j["evidence"].is_array());
  EXPECT_TRUE(j.contains("pipegemm_version"));
  // --metric: a counter the rules do not read, shown as the report has it (absent: no value).
  r = run_cli("diagnose --kernel " + std::string(kK4) + " --shape 4096x4096x4096 --from-csv " + kCsv +
              " --arch h200 --json --metric dram__bytes_read.sum --metric l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto k = nlohmann::json::parse(r.out);
  EXPECT_EQ(k["verdict"], "stage starvation") << "asking for more counters changes no verdict";
  int shown = 0;
  for (const auto& e : k["evidence"]) {
    if (e["rule"] != "(--metric)") continue;
    ++shown;
    if (e["metric"] == "dram__bytes_read.sum") EXPECT_TRUE(e["value"].is_number()) << e;
    else EXPECT_TRUE(e["value"].is_null()) << e;  // not in the stored report
  }
  EXPECT_EQ(shown, 2);
}

// The seed kernel's first H200 run again: cp.async read as coalesced, and 8 k_tiles a tile
// through its 3-stage ring make it latency-bound, not "uncoalesced access".
TEST(DiagnoseCli, TheSeedShapeIsFillAndDrainNotUncoalesced) {
  const std::string args = "diagnose --kernel seed_f16_128x128x32_s3 --shape 81920x256x256 --from-csv " + kCsvSeedShape + " --arch h200";
  CliRun r = run_cli(args);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "latency/launch-bound")) << r.out;
  EXPECT_TRUE(has(r, "8 k_tiles per tile against a 3-stage ring")) << r.out;
  EXPECT_TRUE(has(r, "stall reason 1: math_pipe_throttle")) << r.out;
  EXPECT_FALSE(has(r, "uncoalesced access")) << r.out;
  r = run_cli(args + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "latency/launch-bound");
  EXPECT_EQ(j["prediction"]["k_tiles"], 8);
  EXPECT_EQ(j["prediction"]["persistent"], false);
  // k5 on the same shape: the report names the short-K instantiation that ran.
  if (find_variant("k5_f16_128x256x64_s4")) {
    r = run_cli("diagnose --kernel k5_f16_128x256x64_s4 --shape 81920x256x256 --from-csv " + kCsvSeedShape + " --arch h200");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_TRUE(has(r, "Li4ELi2ELb1E")) << r.out;
    EXPECT_TRUE(has(r, "persistent (the ring runs on across tiles)")) << r.out;
    // Beside the measured tensor pipe, the bound its operand bytes set (plan::byte_budget).
    EXPECT_TRUE(has(r, "128 B/clk of shared memory at the MMA peak against the SM's 128: by this count the tensor "
                       "pipe is at most 100% busy (measured 55.0%)")) << r.out;
  }
  if (find_variant("k5_f16_64x256x64_s4_pingpong")) {
    r = run_cli("diagnose --kernel k5_f16_64x256x64_s4_pingpong --shape 81920x256x256 --from-csv " + kCsvSeedShape +
                " --arch h200 --json");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_DOUBLE_EQ(nlohmann::json::parse(r.out)["prediction"]["tensor_cap"].get<double>(), 0.8) << r.out;
  }
}

TEST(DiagnoseCli, WithoutAGpuOrNcuItExits3WithTheReasonAndBadInputExits2) {
  if (!device_info().present) {
    const CliRun r = run_cli("diagnose --kernel " + std::string(kK4) + " --shape 1024x1024x1024");
    EXPECT_EQ(r.code, 3) << r.out;
    EXPECT_TRUE(has(r, "needs a CUDA GPU")) << r.out;
  } else {
    const CliRun r = run_cli("diagnose --kernel " + std::string(kK4) + " --shape 1024x1024x1024 --ncu /nonexistent/ncu");
    EXPECT_EQ(r.code, 3) << r.out;
    EXPECT_TRUE(has(r, "not an executable file")) << r.out;
  }
  EXPECT_EQ(run_cli("diagnose --kernel no_such_kernel --from-csv " + kCsv).code, 2);
  EXPECT_EQ(run_cli("diagnose --kernel cublas_f16 --from-csv " + kCsv).code, 2);
  EXPECT_EQ(run_cli("diagnose --kernel " + std::string(kK4) + " --from-csv /nonexistent.csv").code, 2);
}
