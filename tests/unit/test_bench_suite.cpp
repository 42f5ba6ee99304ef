// bench over many shapes, on the CPU: suite files, shape ranges, the per-kernel summary against the
// best cuBLAS peer, and a small synthetic sweep through the CSV, markdown and JSON renderers.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "pipegemm_tools/reports.hpp"

using namespace pipegemm;

namespace {

// The report's environment.date: any UTC time in ISO 8601, carried through as written.
const std::string kDate = "1970-01-01T00:00:00Z";

BenchResult result(const std::string& variant, double ms, double pct, const std::string& peer) {
  BenchResult r;
  r.variant = variant;
  r.ms_median = r.ms_min = r.ms_max = ms;
  r.ms_stdev = 0.01;
  r.samples = 100;
  r.tflops = 100;
  r.pct_of_peer = pct;
  r.peer = peer;
  return r;
}

BenchReport run(int64_t m, int64_t n, int64_t k, std::vector<BenchResult> rs) {
  BenchReport b;
  b.problem.m = m, b.problem.n = n, b.problem.k = k;
  b.problem = b.problem.normalized();
  b.results = std::move(rs);
  return b;
}

// Two shapes: k4 at 80% and 125% of cuBLAS, auto at 50% then refused, peers alongside.
BenchRuns sweep() {
  BenchRuns r;
  r.sweep = true;
  r.suite = "demo.txt";
  r.device = "H200";
  r.sm = 90;
  r.shapes = 2;
  r.env = {"H200", "12.4", "12.4", "12.4.5", "0.1.0", kDate, 1980};
  BenchResult a = result("auto", 2.0, 50, "cublaslt_f16");
  a.chose = "k4_multistage_f16";
  BenchResult refused = result("auto", 0, 0, "");
  refused.status = Status::error(StatusCode::not_supported, "auto found no variant");
  r.runs.push_back(run(4096, 4096, 4096, {result("cublas_f16", 1.0, 0, ""), result("cublaslt_f16", 1.0, 0, ""),
                                          result("k4", 1.25, 80, "cublas_f16"), a}));
  r.runs.push_back(run(1024, 1024, 1024, {result("k4", 0.8, 125, "cublaslt_f16"), refused}));
  r.runs[1].copy_gbps = 4000;  // the device copy measured beside the second shape
  r.runs[1].results[0].gbps = 2000;
  r.summary = suite_summary(r.runs);
  return r;
}

}  // namespace

TEST(BenchSuite, ParsesShapesCommentsAndTheDtypeColumn) {
  std::vector<SuiteShape> s;
  ASSERT_TRUE(parse_suite("# header\n\n4096x4096x4096\n  16x8x4 bf16  # inline\n\t\n1x2x3 i8\n", "t.txt", &s).ok());
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].shape(), "4096x4096x4096");
  EXPECT_EQ(s[0].dtype, "");
  EXPECT_EQ(s[0].line, 3);
  EXPECT_EQ(s[1].m, 16);
  EXPECT_EQ(s[1].k, 4);
  EXPECT_EQ(s[1].dtype, "bf16");
  EXPECT_EQ(s[2].line, 6);
  EXPECT_EQ(s[2].dtype, "i8");
}

TEST(BenchSuite, ALineCarriesSemanticsFlagsThatOverrideTheCommandLine) {
  std::vector<SuiteShape> s;
  ASSERT_TRUE(parse_suite("4096x4096x4096 f16\n4096x4096x4096 f16 --bias col --act gelu_tanh\n"
                          "64x64x64 --layout NN --batch 3 --broadcast b\n",
                          "t.txt", &s).ok());
  ASSERT_EQ(s.size(), 3u);
  EXPECT_TRUE(s[0].flags.empty());
  ASSERT_EQ(s[1].flags.size(), 2u);
  EXPECT_EQ(s[1].dtype, "f16");
  EXPECT_EQ(s[1].flags[1], (std::pair<std::string, std::string>{"--act", "gelu_tanh"}));
  EXPECT_EQ(s[2].dtype, "");
  ProblemRequest r;
  r.shape = "64x64x64";
  r.alpha = 2.f;  // the command line's, kept where the line says nothing
  ASSERT_TRUE(apply_suite_flags(s[2].flags, &r).ok());
  EXPECT_EQ(r.layout, "NN");
  EXPECT_EQ(r.batch, 3);
  EXPECT_EQ(r.broadcast, "b");
  EXPECT_EQ(r.alpha, 2.f);
  // Refused with the line: an unknown flag, a flag without a value, a bad value.
  Status st = parse_suite("64x64x64 f16 --bogus 1\n", "t.txt", &s);
  EXPECT_NE(st.message.find("t.txt:1: unknown flag '--bogus'"), std::string::npos) << st.message;
  EXPECT_FALSE(parse_suite("64x64x64 --bias\n", "t.txt", &s).ok());
  EXPECT_FALSE(parse_suite("64x64x64 f16 bf16 --bias col\n", "t.txt", &s).ok());
  ProblemRequest q;
  q.shape = "64x64x64";
  EXPECT_FALSE(apply_suite_flags({{"--batch", "three"}}, &q).ok());
  EXPECT_FALSE(apply_suite_flags({{"--act", "swish"}}, &q).ok());
}

TEST(BenchSuite, RefusesBadLinesWithTheLineNumber) {
  std::vector<SuiteShape> s;
  Status st = parse_suite("# c\n64x64x64\n64x64\n", "t.txt", &s);
  EXPECT_EQ(st.code, StatusCode::invalid_argument);
  EXPECT_NE(st.message.find("t.txt:3:"), std::string::npos) << st.message;
  st = parse_suite("64x64x64 f64\n", "t.txt", &s);
  EXPECT_NE(st.message.find("t.txt:1: bad dtype 'f64'"), std::string::npos) << st.message;
  EXPECT_FALSE(parse_suite("64x64x64 f16 extra\n", "t.txt", &s).ok());
  EXPECT_FALSE(parse_suite("0x64x64\n", "t.txt", &s).ok());
  EXPECT_FALSE(parse_suite("64x-1x64\n", "t.txt", &s).ok());
  EXPECT_FALSE(parse_suite("64x64x64 i32\n", "t.txt", &s).ok());
  EXPECT_FALSE(parse_suite("# only comments\n\n", "t.txt", &s).ok());
  EXPECT_FALSE(load_suite("/no/such/suite.txt", &s).ok());
}

TEST(BenchSuite, TheRepositorySuitesParse) {
  // Every suite under bench/suites, the ones the issues name among them.
  const std::filesystem::path dir = std::filesystem::path(PIPEGEMM_TEST_DATA) / ".." / ".." / "bench" / "suites";
  std::set<std::string> seen;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".txt") continue;
    const std::string name = entry.path().stem().string(), path = entry.path().string();
    seen.insert(name);
    std::vector<SuiteShape> s;
    const Status st = load_suite(path, &s);
    EXPECT_TRUE(st.ok()) << name << ": " << st.message;
    EXPECT_FALSE(s.empty()) << name;
    // Every line, its flags included, makes a valid problem (what bench --suite runs).
    ProblemRequest r;
    r.types.in = "f16";
    std::vector<ShapeRequest> shapes;
    const Status rs = request_shapes(r, path, &shapes);
    EXPECT_TRUE(rs.ok()) << name << ": " << rs.message;
  }
  for (const char* name : {"compute", "memory", "llm", "random", "decode", "epilogue", "batched"})
    EXPECT_TRUE(seen.count(name)) << name;
}

TEST(BenchSuite, ExpandsRangesAsACrossProduct) {
  std::vector<SuiteShape> s;
  ASSERT_TRUE(expand_shape_ranges("1024:8192:1024x4096x4096", &s).ok());
  ASSERT_EQ(s.size(), 8u);
  EXPECT_EQ(s.front().shape(), "1024x4096x4096");
  EXPECT_EQ(s.back().shape(), "8192x4096x4096");
  ASSERT_TRUE(expand_shape_ranges("1:3:2x8x10:12:1", &s).ok());  // M outermost, K innermost
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(s[0].shape(), "1x8x10");
  EXPECT_EQ(s[1].shape(), "1x8x11");
  EXPECT_EQ(s[3].shape(), "3x8x10");
  ASSERT_TRUE(expand_shape_ranges("5:7:5x1x1", &s).ok());  // inclusive, stop not on the step
  EXPECT_EQ(s.size(), 1u);
  ASSERT_TRUE(expand_shape_ranges("64x64x64", &s).ok());
  EXPECT_EQ(s.size(), 1u);
  EXPECT_TRUE(is_shape_range("1:2:1x1x1"));
  EXPECT_FALSE(is_shape_range("1x1x1"));
  for (const char* bad : {"1x2x3:bad", "1x2", "8:1:1x1x1", "1:8:0x1x1", "0:8:1x1x1", "1:8x1x1", "axbxc",
                          "1:100000:1x1:100000:1x1", "1x2x3x4"}) {
    const Status st = expand_shape_ranges(bad, &s);
    EXPECT_EQ(st.code, StatusCode::invalid_argument) << bad;
    EXPECT_NE(st.message.find("bad --shape"), std::string::npos) << bad;
  }
}

TEST(BenchSuite, SummaryIsTheGeomeanAndWorstRatioPerKernel) {
  const BenchRuns r = sweep();
  ASSERT_EQ(r.summary.size(), 2u);  // the peers are not kernels of ours
  const KernelSummary& k4 = r.summary[0];
  EXPECT_EQ(k4.variant, "k4");
  EXPECT_EQ(k4.shapes, 2);
  EXPECT_NEAR(k4.geomean, std::sqrt(0.8 * 1.25), 1e-12);
  EXPECT_NEAR(k4.worst, 0.8, 1e-12);
  EXPECT_EQ(k4.worst_shape, "4096x4096x4096");
  EXPECT_EQ(k4.worst_peer, "cublas_f16");
  const KernelSummary& a = r.summary[1];
  EXPECT_EQ(a.variant, "auto");
  EXPECT_EQ(a.shapes, 1);  // the refusal is not a ratio
  EXPECT_NEAR(a.geomean, 0.5, 1e-12);
  EXPECT_NEAR(a.worst, 0.5, 1e-12);
}

TEST(BenchSuite, SweepRendersAsCsvMarkdownAndJson) {
  const report::Document d = document(sweep());
  const std::string csv = report::render_csv(d);
  EXPECT_NE(csv.find("# results"), std::string::npos) << csv;
  EXPECT_NE(csv.find("# summary"), std::string::npos) << csv;
  EXPECT_NE(csv.find("# environment.gpu: H200\r\n"), std::string::npos) << csv;  // the file says where and when
  EXPECT_NE(csv.find("# environment.date: " + kDate + "\r\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("shape,m,n,k,a_type,b_type,acc_type,d_type,a_layout,b_layout,d_layout,variant,chose,"
                     "ms_median,ms_min,ms_max,ms_stdev,samples,launches_per_sample,tflops,gbps,copy_gbps,pct_of_copy,"
                     "pct_of_cublas,peer,ok,message"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("variant,shapes,geomean,worst,worst_shape,worst_peer"), std::string::npos) << csv;
  EXPECT_NE(csv.find("k4,2,"), std::string::npos) << csv;

  const std::string md = report::render_markdown(d);
  EXPECT_NE(md.find("| shape |"), std::string::npos) << md;
  EXPECT_NE(md.find("| k4 | 2 | 1.000 | 0.800 | 4096x4096x4096 | cublas_f16 |"), std::string::npos) << md;
  EXPECT_NE(md.find("k4_multistage_f16"), std::string::npos) << md;

  const auto j = nlohmann::json::parse(report::render_json(d));
  EXPECT_EQ(j["environment"]["gpu"], "H200");
  EXPECT_EQ(j["environment"]["cublas"], "12.4.5");
  EXPECT_EQ(j["environment"]["pipegemm"], "0.1.0");
  EXPECT_EQ(j["environment"]["sm_clock_mhz"], 1980);
  EXPECT_EQ(j["environment"]["date"], kDate);
  EXPECT_EQ(j["suite"], "demo.txt");
  ASSERT_EQ(j["results"].size(), 6u);
  const auto& auto_row = j["results"][3];
  EXPECT_EQ(auto_row["variant"], "auto");
  EXPECT_EQ(auto_row["chose"], "k4_multistage_f16");
  EXPECT_EQ(auto_row["m"], 4096);
  EXPECT_EQ(auto_row["a_type"], "f16");
  EXPECT_EQ(auto_row["a_layout"], to_string(Layout::RowMajor));
  EXPECT_EQ(auto_row["samples"], 100);
  EXPECT_DOUBLE_EQ(auto_row["ms_stdev"].get<double>(), 0.01);
  EXPECT_EQ(j["results"][5]["ok"], false);
  // % of the device copy measured in the same run, where one was measured.
  EXPECT_DOUBLE_EQ(j["results"][4]["copy_gbps"].get<double>(), 4000.0);
  EXPECT_DOUBLE_EQ(j["results"][4]["pct_of_copy"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(j["results"][0]["pct_of_copy"].get<double>(), 0.0);
  ASSERT_EQ(j["summary"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["summary"][0]["worst"].get<double>(), 0.8);
  EXPECT_EQ(j["summary"][1]["variant"], "auto");
  EXPECT_FALSE(pipegemm_version().empty());
}

// A results file says how to make it again: the command line (with the PIPEGEMM_* variables that
// were set) in every format, quoted so that it pastes into a shell; absent when not recorded.
TEST(BenchSuite, ReportsRecordTheExactCommand) {
  EXPECT_EQ(command_line({"pipegemm", "bench", "--suite", "bench/suites/llm.txt", "--kernel", "auto", "--idle-ms", "25"}),
            "pipegemm bench --suite bench/suites/llm.txt --kernel auto --idle-ms 25");
  EXPECT_EQ(command_line({"./pipegemm", "a b", "it's", "", "x=1,y:2"},
                         {{"PIPEGEMM_TUNE_CACHE", "off"}, {"PIPEGEMM_AUTO_ALSO", "k5 x"}}),
            "PIPEGEMM_TUNE_CACHE=off PIPEGEMM_AUTO_ALSO='k5 x' ./pipegemm 'a b' 'it'\\''s' '' x=1,y:2");

  BenchRuns r = sweep();
  r.command = "PIPEGEMM_TUNE_CACHE=off pipegemm bench --suite demo.txt --kernel auto";
  const report::Document d = document(r);
  EXPECT_NE(report::render_markdown(d).find("- **command**: " + r.command + "\n"), std::string::npos);
  EXPECT_NE(report::render_csv(d).find("# command: " + r.command + "\r\n"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(report::render_json(d))["command"], r.command);
  EXPECT_FALSE(nlohmann::json::parse(report::render_json(document(sweep()))).contains("command"));

  BenchRuns one;  // one shape, no sweep: the same field
  one.command = "pipegemm bench --shape 4096x4096x4096";
  one.runs.push_back(run(4096, 4096, 4096, {result("cublas_f16", 1.0, 0, "")}));
  EXPECT_EQ(nlohmann::json::parse(report::render_json(document(one)))["command"], one.command);
  EXPECT_NE(report::render_text(document(one)).find(one.command), std::string::npos);
}

// --same-bytes-copy: the copy of each shape's bytes, and auto (else our fastest) and the fastest
// peer as a share of that copy's time.
TEST(BenchSuite, SameBytesCopyTableSetsOursAndTheBestPeerBesideIt) {
  BenchRuns r = sweep();
  r.runs[0].set_bytes = 96e6;
  r.runs[0].same_bytes_copy_ms = 0.9;  // auto 2.0 ms, best peer 1.0 ms
  r.runs[1].set_bytes = 6e6;
  r.runs[1].same_bytes_copy_ms = 0.4;  // auto refused: our fastest, k4 at 0.8 ms; no peer timed
  const auto j = nlohmann::json::parse(report::render_json(document(r)));
  ASSERT_EQ(j["same_bytes_copy"].size(), 2u) << j.dump();
  const auto& a = j["same_bytes_copy"][0];
  EXPECT_EQ(a["ours"], "auto");
  EXPECT_DOUBLE_EQ(a["ours_pct"].get<double>(), 45.0);
  EXPECT_EQ(a["peer"], "cublas_f16");
  EXPECT_DOUBLE_EQ(a["peer_pct"].get<double>(), 90.0);
  EXPECT_DOUBLE_EQ(a["gbps"].get<double>(), 96e6 / 0.9e-3 / 1e9);
  const auto& b = j["same_bytes_copy"][1];
  EXPECT_EQ(b["ours"], "k4");
  EXPECT_DOUBLE_EQ(b["ours_pct"].get<double>(), 50.0);
  EXPECT_TRUE(b["peer_pct"].is_null()) << b.dump();
}

// What the semantics cost (issue 13's measure, bench/suites/epilogue_cost.txt): plain, bias and
// bias + GELU in turn, three times, k5 and cuBLASLt; each epilogue run against the median of its
// kernel's plain runs of the same shape and types. A layout (NN) counts as semantics; a shape with
// no plain run of the kernel, and a failed run, give no ratio.
TEST(BenchSuite, SemanticsCostIsEachRunAgainstTheMedianPlainRunOfItsKernel) {
  auto with = [](int64_t m, Bias bias, Activation act, std::vector<BenchResult> rs) {
    BenchReport b = run(m, 4096, 4096, std::move(rs));
    b.problem.bias = bias;
    b.problem.activation = act;
    b.problem = b.problem.normalized();
    return b;
  };
  const double plain_k5[] = {1.00, 1.02, 0.98}, bias_k5[] = {1.01, 1.011, 1.009}, gelu_k5[] = {1.03, 1.028, 1.031};
  std::vector<BenchReport> runs;
  for (int i = 0; i < 3; ++i) {
    runs.push_back(with(4096, Bias::none, Activation::none,
                        {result("k5", plain_k5[i], 0, ""), result("cublaslt_f16", 2.0, 0, "")}));
    runs.push_back(with(4096, Bias::per_col, Activation::none,
                        {result("k5", bias_k5[i], 0, ""), result("cublaslt_f16", 1.9, 0, "")}));
    runs.push_back(with(4096, Bias::per_col, Activation::gelu_tanh,
                        {result("k5", gelu_k5[i], 0, ""), result("cublaslt_f16", 2.2, 0, "")}));
  }
  BenchReport nn = run(4096, 4096, 4096, {result("k5", 1.05, 0, "")});
  ASSERT_TRUE(parse_layout_name("NN", &nn.problem.a_layout, &nn.problem.b_layout));
  runs.push_back(nn);
  // No plain run of k5 at this shape: no ratio; a refused run: none either.
  BenchResult refused = result("k5", 0, 0, "");
  refused.status = Status::error(StatusCode::not_supported, "refused");
  runs.push_back(with(1024, Bias::per_col, Activation::none, {result("k5", 0.5, 0, ""), refused}));

  const std::vector<SemanticsCost> c = semantics_costs(runs);
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[0].variant, "k5");
  EXPECT_EQ(c[0].semantics, "bias col");
  EXPECT_EQ(c[0].types, "f16/f16");
  EXPECT_EQ(c[0].runs, 3);
  EXPECT_DOUBLE_EQ(c[0].median, 1.01);  // the plain median is 1.00
  EXPECT_DOUBLE_EQ(c[0].lowest, 1.009);
  EXPECT_DOUBLE_EQ(c[0].highest, 1.011);
  EXPECT_EQ(c[1].variant, "cublaslt_f16");
  EXPECT_DOUBLE_EQ(c[1].median, 0.95);
  EXPECT_EQ(c[2].semantics, "bias col, gelu_tanh");
  EXPECT_DOUBLE_EQ(c[2].median, 1.03);
  EXPECT_DOUBLE_EQ(c[2].highest, 1.031);
  EXPECT_DOUBLE_EQ(c[3].median, 1.1);
  EXPECT_EQ(c[4].semantics, "NN");
  EXPECT_EQ(c[4].runs, 1);
  EXPECT_DOUBLE_EQ(c[4].median, 1.05);

  BenchRuns r = sweep();
  r.runs = runs;
  r.semantics_costs = c;
  const std::string md = report::render_markdown(document(r));
  EXPECT_NE(md.find("| k5 | 4096x4096x4096 | f16/f16 | bias col, gelu_tanh | 3 | 1.030 | 1.028 | 1.031 |"),
            std::string::npos)
      << md;
}
