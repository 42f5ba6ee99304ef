// `pipegemm plot` without a GPU: a stored suite report (an H200 run, tests/data) read back and
// drawn; the numbers in the legend are the report's own (geomean and worst computed here from
// the file's pct_of_cublas column by hand: see the expectations).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "pipegemm_tools/plot.hpp"

using namespace pipegemm;
using pipegemm::test::CliRun;
using pipegemm::test::has;
using pipegemm::test::run_cli;

namespace {

const std::string kSuite = std::string(PIPEGEMM_TEST_DATA) + "/plot_decode_f16.csv";

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(Plot, ReadsASuiteCsvWithItsMetadataAndEveryTimedRow) {
  plot::Results r;
  ASSERT_TRUE(plot::read_results(kSuite, &r).ok());
  EXPECT_EQ(r.rows.size(), 20u);
  EXPECT_EQ(r.meta_value("gpu"), "NVIDIA H200");
  EXPECT_EQ(r.meta_value("suite"), "bench/suites/decode.txt");
  EXPECT_EQ(r.rows[0].shape, "1x6144x4096");
  EXPECT_EQ(r.rows[0].variant, "cublas_f16");
  EXPECT_NEAR(r.rows[0].ms, 0.017744, 1e-6);
  EXPECT_TRUE(r.rows[0].ok);
}

TEST(Plot, RatioChartHasACurvePerKernelWithItsGeomeanAndWorst) {
  plot::Results r;
  ASSERT_TRUE(plot::read_results(kSuite, &r).ok());
  std::string svg;
  std::vector<std::string> notes;
  ASSERT_TRUE(plot::render_svg(r, {plot::Kind::ratio}, &svg, &notes).ok());
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(count(svg, "class=\"series\""), 3);  // the three kernels of ours; the peers are the yardstick
  // From the file: 16x64 split-K at 85.3, 71.2, 84.6, 82.1 % of best cuBLAS -> geomean 0.806.
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0], "k4_f16_16x64x64_s6_splitk / best cuBLAS: geomean 0.806, worst 0.712 (4)");
  EXPECT_NE(svg.find("k5_f16_128x256x64_s4 / best cuBLAS: geomean 0.392, worst 0.24 (4)"), std::string::npos);
  plot::Options only{plot::Kind::ratio};
  only.only = {"k4_"};
  ASSERT_TRUE(plot::render_svg(r, only, &svg).ok());
  EXPECT_EQ(count(svg, "class=\"series\""), 2);  // the two split-K kernels
  EXPECT_EQ(svg.find("k5_f16"), std::string::npos);
}

TEST(Plot, TflopsAndRooflineChartsDrawEveryVariantUnderTheH200Ceilings) {
  plot::Results r;
  ASSERT_TRUE(plot::read_results(kSuite, &r).ok());
  std::string svg;
  std::vector<std::string> notes;
  ASSERT_TRUE(plot::render_svg(r, {plot::Kind::tflops}, &svg, &notes).ok());
  EXPECT_EQ(count(svg, "class=\"series\""), 5);  // 3 kernels + 2 peers
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);  // peers dashed
  notes.clear();
  ASSERT_TRUE(plot::render_svg(r, {plot::Kind::roofline}, &svg, &notes).ok());
  EXPECT_EQ(count(svg, "<circle"), 20);
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes[0].find("4800 GB/s"), std::string::npos) << notes[0];  // the arch table's H200
  plot::Options o{plot::Kind::roofline};
  o.bandwidth_gbps = 4000;
  o.peak_tflops = 900;
  notes.clear();
  ASSERT_TRUE(plot::render_svg(r, o, &svg, &notes).ok());
  EXPECT_EQ(notes[0], "ceiling: 4000 GB/s, 900 TFLOPS, ridge at 225 FLOP/byte");
}

// A sweep report carries the device copy it measured beside each shape: the roofline's bandwidth
// ceiling is that (the best of the shapes'), not the arch table's.
TEST(Plot, RooflineTakesTheCopyBandwidthMeasuredInTheSameRun) {
  const std::string csv =
      "# device: NVIDIA H200\n# results\n"
      "shape,m,n,k,a_type,variant,ms_median,tflops,gbps,copy_gbps,ok\n"
      "81920x256x256,81920,256,256,f16,k5_f16,0.0275,390.0,3050.0,4211.0,true\n"
      "65536x128x128,65536,128,128,f16,k5_f16,0.0168,128.0,2000.0,4150.0,true\n";
  plot::Results r;
  ASSERT_TRUE(plot::parse_results(csv, "inline.csv", &r).ok());
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(r.rows[0].copy_gbps, 4211.0);
  std::string svg;
  std::vector<std::string> notes;
  ASSERT_TRUE(plot::render_svg(r, {plot::Kind::roofline}, &svg, &notes).ok());
  ASSERT_FALSE(notes.empty());
  EXPECT_EQ(notes[0].rfind("ceiling: 4211 GB/s (device copy, same run), ", 0), 0u) << notes[0];
}

TEST(Plot, JsonReportsAreReadLikeCsvAndBadInputIsRefusedWithTheReason) {
  plot::Results r;
  const std::string json = R"({"environment": {"gpu": "NVIDIA H200"}, "results": [
      {"shape": "64x64x64", "m": 64, "n": 64, "k": 64, "variant": "k4_f16", "ms_median": 0.01, "tflops": 0.05,
       "gbps": 5.0, "pct_of_cublas": 90.0, "ok": true},
      {"shape": "64x64x64", "m": 64, "n": 64, "k": 64, "variant": "cublas_f16", "ms_median": 0.009, "tflops": 0.06,
       "gbps": 5.5, "pct_of_cublas": 100.0, "ok": true}]})";
  ASSERT_TRUE(plot::parse_results(json, "inline.json", &r).ok());
  EXPECT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.meta_value("gpu"), "NVIDIA H200");
  std::string svg;
  std::vector<std::string> notes;
  ASSERT_TRUE(plot::render_svg(r, {plot::Kind::ratio}, &svg, &notes).ok());
  EXPECT_EQ(notes.at(0), "k4_f16 / best cuBLAS: geomean 0.9, worst 0.9 (1)");

  Status s = plot::parse_results("# suite: x\n# results\n", "empty.csv", &r);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("empty.csv: no \"# results\" table"), std::string::npos) << s.message;
  s = plot::parse_results("{\"results\": [1, 2]}", "odd.json", &r);
  EXPECT_NE(s.message.find("no rows with \"variant\""), std::string::npos) << s.message;
  EXPECT_EQ(plot::read_results("/nonexistent/r.csv", &r).code, StatusCode::io_error);
  plot::Kind k;
  EXPECT_NE(plot::parse_kind("pie", &k).message.find("one of ratio, tflops, roofline"), std::string::npos);
}

TEST(PlotCli, WritesTheSvgAndSaysWhatItDrewOrRefusesWithExit2) {
  const std::string out = ::testing::TempDir() + "/pipegemm_plot_test.svg";
  std::remove(out.c_str());
  CliRun r = run_cli("plot " + kSuite + " --kind ratio --out " + out);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("k4_f16_16x64x64_s6_splitk / best cuBLAS: geomean 0.806"), std::string::npos) << r.out;
  std::ifstream f(out);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str().rfind("<svg", 0), 0u);
  r = run_cli("plot " + kSuite + " --kind pie --out " + out);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "--kind pie")) << r.out;
  r = run_cli("plot /nonexistent/r.csv --out " + out);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "cannot be read")) << r.out;
}
