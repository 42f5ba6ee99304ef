// The CLI as a user meets it: wrong arguments get a message and exit code 2, never a crash.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "cli_runner.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm_tools/fuzz.hpp"
#include "pipegemm_tools/npy.hpp"
#include "pipegemm_tools/reports_plan_sass.hpp"
#include "pipegemm_tools/tune.hpp"

using pipegemm::test::CliRun;
using pipegemm::test::has;

namespace {
CliRun run(const std::string& args) { return pipegemm::test::run_cli(args); }
}  // namespace

TEST(Cli, ListShowsTheRegistry) {
  CliRun r = run("list");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "cublas_f16_f16acc")) << r.out;
  EXPECT_TRUE(has(r, "cublas_f16")) << r.out;
  EXPECT_TRUE(has(r, "seed_f16_f16acc_128x128x32_s3")) << r.out;
}

TEST(Cli, ListJsonIsValidJson) {
  CliRun r = run("list --json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["variants"].is_array());  // an object, so that it carries pipegemm_version too
  EXPECT_EQ(j["variants"][0]["family"], "cublas");
}

// Each variant's capabilities (describe_capabilities): a text column, and a JSON field per capability.
TEST(Cli, ListSaysWhatEachVariantComputes) {
  const CliRun text = run("list");
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_TRUE(has(text, "computes")) << text.out;
  CliRun r = run("list --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["variants"].empty());
  EXPECT_TRUE(has(text, j["variants"][0]["capabilities"].get<std::string>())) << text.out;
  for (const auto& v : j["variants"]) {
    const auto& req = v["requires"];
    EXPECT_FALSE(req.contains("any_layout")) << v["name"];
    for (const char* k : {"a_mn_major", "b_mn_major", "scale", "c_apart", "c_f32", "batch", "bias_per_row", "bias_per_col"})
      EXPECT_TRUE(req[k].is_boolean()) << v["name"] << " " << k;
    EXPECT_TRUE(req["activations"].is_array()) << v["name"];
    const std::string caps = v["capabilities"].get<std::string>();
    EXPECT_NE(caps.find("TN"), std::string::npos) << caps;
    if (req["a_mn_major"].get<bool>()) {
      EXPECT_NE(caps.find("NN"), std::string::npos) << caps;
    }
  }
}

TEST(Cli, VersionFlagPrintsPipegemmAndTheVersion) {
  CliRun r = run("--version");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out, "pipegemm " + pipegemm::pipegemm_version() + "\n");
}

// Every JSON report carries the version, from the renderer: the CLI's CPU-only reports here, the
// GPU reports' documents (verify, fuzz, tune, bench) rendered directly.
TEST(Cli, EveryJsonReportCarriesThePipegemmVersion) {
  const std::string v = pipegemm::pipegemm_version();
  for (const char* args : {"list --json", "plan --json", "plan --archs --json", "plan --kernel k4_f16_256x128x64_s3 --arch h200 --json"}) {
    CliRun r = run(args);
    ASSERT_EQ(r.code, 0) << args << ": " << r.out;
    EXPECT_EQ(nlohmann::json::parse(r.out)["pipegemm_version"], v) << args;
  }
  using pipegemm::report::render_json;
  for (const std::string& out : {render_json(pipegemm::document(pipegemm::VerifyReport{})),
                                 render_json(pipegemm::document(pipegemm::BenchRuns{})),
                                 render_json(pipegemm::fuzz::document(pipegemm::fuzz::FuzzReport{})),
                                 render_json(pipegemm::document(pipegemm::TuneReport{})),
                                 render_json(pipegemm::sass::document(pipegemm::sass::SassReport{}))})
    EXPECT_EQ(nlohmann::json::parse(out)["pipegemm_version"], v) << out;
}

TEST(Cli, PipegemmDeviceMustBeADeviceIndex) {
  CliRun r = pipegemm::test::run_cli("list", "PIPEGEMM_DEVICE=abc");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "PIPEGEMM_DEVICE='abc' is not a device index")) << r.out;
  r = pipegemm::test::run_cli("list", "PIPEGEMM_DEVICE=999");
  if (pipegemm::device_info().present) {
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_TRUE(has(r, "device(s) present")) << r.out;
  } else {
    EXPECT_EQ(r.code, 0) << r.out;  // no GPU: nothing to pick, the CPU-only commands run
  }
}

TEST(Cli, UnknownSubcommandOrOptionIsUsageError) {
  EXPECT_EQ(run("frobnicate").code, 2);
  EXPECT_EQ(run("verify --no-such-flag").code, 2);
  EXPECT_EQ(run("bench --reps notanumber").code, 2);
}

TEST(Cli, BadShapesAreRefusedWithAMessage) {
  CliRun r = run("verify --shape 0x128x128");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "sizes must be positive")) << r.out;
  r = run("verify --shape 12x12");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "bad --shape")) << r.out;
  r = run("bench --shape -5x128x128");
  EXPECT_EQ(r.code, 2) << r.out;
  r = run("verify --shape 128x128x128 --ldd 64");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "ldd=64 is smaller than a row")) << r.out;
}

TEST(Cli, UnknownKernelAndDtypeAreUsageErrors) {
  CliRun r = run("verify --kernel no_such_kernel");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "unknown kernel 'no_such_kernel'")) << r.out;
  r = run("bench --dtype f64");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "unknown --dtype")) << r.out;
  r = run("bench --reps 0");
  EXPECT_EQ(r.code, 2) << r.out;
  r = run("bench --idle-ms -1");  // checked before the GPU is looked for: same answer with or without one
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "--idle-ms >= 0")) << r.out;
  r = run("verify --kernel auto --dtype f64");  // "auto" reads the types too: never a silent f16
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "unknown --dtype")) << r.out;
}

// `verify --kernel auto NAME...` verifies auto's choice beside the named kernels (as bench times
// them); the names are checked before any GPU is looked for.
TEST(Cli, VerifyTakesAutoBesideNamedKernels) {
  CliRun r = run("verify --kernel auto no_such_kernel");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "unknown kernel 'no_such_kernel'")) << r.out;  // not 'auto'
  r = run("verify --kernel auto all");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "not with 'all'")) << r.out;
}

TEST(Cli, NpyErrorsAreClear) {
  CliRun r = run("verify --a /nonexistent/a.npy --b /nonexistent/b.npy");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "cannot open")) << r.out;
  r = run("verify --a " PIPEGEMM_TEST_DATA "/a_4x8_f16.npy");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "--a and --b go together")) << r.out;
  r = run("verify --a " PIPEGEMM_TEST_DATA "/a_4x8_f16.npy --b " PIPEGEMM_TEST_DATA "/b_3x5_f16.npy");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "same K")) << r.out;
  r = run("verify --a " PIPEGEMM_TEST_DATA "/a_4x8_f16.npy --b " PIPEGEMM_TEST_DATA "/b_3x8_f32.npy");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "is needed")) << r.out;
  r = run("verify --a " PIPEGEMM_TEST_DATA "/damaged.npy --b " PIPEGEMM_TEST_DATA "/b_3x5_f16.npy");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "truncated")) << r.out;
}

TEST(Cli, OutNeedsExactlyOneKernel) {
  CliRun r = run("verify --kernel seed_f16_f16acc_128x128x32_s3 --kernel cublas_f16_f16acc --out /tmp/x.npy");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(has(r, "--out needs exactly one")) << r.out;
}

TEST(Cli, WithoutGpuVerifyAndBenchSaySoAndTheDefaultRunsWhatNeedsNone) {
  if (pipegemm::device_info().present) GTEST_SKIP() << "a GPU is present: the no-GPU paths are not taken";
  CliRun r = run("verify --shape 128x128x128");
  EXPECT_EQ(r.code, 3);
  EXPECT_TRUE(has(r, "needs a CUDA GPU")) << r.out;
  r = run("bench");
  EXPECT_EQ(r.code, 3);
  r = run("");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "no usable GPU")) << r.out;
  EXPECT_TRUE(has(r, "seed_f16_f16acc_128x128x32_s3")) << r.out;
}

TEST(Cli, EveryInputTypeIsAcceptedByVerifyAndBenchArgumentChecks) {
  // Regression: the shape check must not judge the type combination (bf16 -> bf16, i8 -> i32 ...).
  for (const char* t : {"f16", "bf16", "i8", "f32"}) {
    CliRun r = run(std::string("verify --shape 8x8x8 --kernel no_such --dtype ") + t);
    EXPECT_TRUE(has(r, "unknown kernel")) << t << ": " << r.out;
    if (pipegemm::device_info().present) continue;
    r = run(std::string("verify --shape 8x8x8 --dtype ") + t);
    EXPECT_EQ(r.code, 3) << t << ": " << r.out;
  }
}

// The semantics' flags (verify, bench, tune): parsed and checked before any GPU is looked for.
TEST(Cli, SemanticFlagsAreParsedAndBadValuesAreUsageErrors) {
  CliRun r;
  if (!pipegemm::device_info().present) {  // past every argument check, to the GPU that is not there
    const std::string all = " --shape 37x53x71 --layout NN --d-layout col --alpha 1.5 --beta -0.5 --c d --batch 3 "
                            "--broadcast a --bias col --bias-dtype f32 --act gelu_erf";
    for (const char* cmd : {"verify", "bench", "tune --output /nonexistent-dir/x.json"}) {
      r = run(std::string(cmd) + all);
      EXPECT_EQ(r.code, 3) << cmd << ": " << r.out;
    }
    r = run("verify --shape 64x64x64 --ldc 80 --beta 2 --c-dtype f32 --broadcast c --batch 2 --alpha -1 --layout tt");
    EXPECT_EQ(r.code, 3) << r.out;
  }
  const std::pair<const char*, const char*> bad[] = {
      {"verify --layout XN", "unknown --layout 'XN'"},
      {"verify --d-layout diag", "unknown --d-layout"},
      {"bench --c somewhere --beta 1", "unknown --c"},
      {"verify --bias diag", "unknown --bias"},
      {"verify --act swish", "unknown --act"},
      {"verify --broadcast d --batch 2", "unknown --broadcast"},
      {"verify --beta 1 --c d --c-dtype f32", "in D's type"},
      {"verify --beta 1 --c d --batch 2 --broadcast c", "cannot broadcast C"},
      {"bench --batch 0", "batch must be"},
      {"verify --alpha notanumber", ""},
      {"verify --dtype i8 --alpha 0.5", "whole-number"},
      {"verify --dtype i8 --bias row", "floating-point D"},
      {"verify --batch 2 --out /tmp/x.npy", "--batch 1 only"},
      {"verify --a " PIPEGEMM_TEST_DATA "/a_4x8_f16.npy --b " PIPEGEMM_TEST_DATA "/a_4x8_f16.npy --layout NN", "--layout TN"},
  };
  for (auto [args, msg] : bad) {
    r = run(args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.out;
    EXPECT_TRUE(has(r, msg)) << args << ": " << r.out;
  }
  EXPECT_EQ(run("fuzz --plain-fraction 1.5").code, 2);
}

namespace {
// A rows x cols .npy of type t in the test's temp dir (descr as write_npy writes it, or `descr`).
std::string npy_file(const std::string& name, pipegemm::DType t, int64_t rows, int64_t cols, const std::string& descr = "") {
  pipegemm::NpyMatrix m;
  m.type = t, m.rows = rows, m.cols = cols;
  m.data.assign(size_t(rows * cols * pipegemm::dtype_bytes(t)), 0x3c);
  const std::string path = ::testing::TempDir() + "/" + name;
  EXPECT_TRUE(pipegemm::write_npy(path, m).ok());
  if (!descr.empty()) {  // same length as "<u2": the header's padding stays right
    std::FILE* f = std::fopen(path.c_str(), "r+b");
    std::string head(128, '\0');
    head.resize(std::fread(&head[0], 1, head.size(), f));
    const size_t at = head.find("'<u2'");
    EXPECT_NE(at, std::string::npos);
    std::fseek(f, long(at + 1), SEEK_SET);
    std::fwrite(descr.data(), 1, descr.size(), f);
    std::fclose(f);
  }
  return path;
}
}  // namespace

TEST(Cli, VerifyTakesBf16NpyAsU2OrMlDtypesV2WithDtypeBf16) {
  using pipegemm::DType;
  const bool gpu = pipegemm::device_info().present;
  const std::string a = npy_file("a_bf16.npy", DType::bf16, 4, 8), b = npy_file("b_bf16.npy", DType::bf16, 3, 8);
  CliRun r = run("verify --a " + a + " --b " + b);  // '<u2' alone is no type: bf16 must be asked for
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "--dtype bf16")) << r.out;
  r = run("verify --a " + a + " --b " + b + " --dtype f16");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "f16 (<f2) is needed")) << r.out;
  const std::string av2 = npy_file("a_v2.npy", DType::bf16, 4, 8, "<V2"), bv2 = npy_file("b_v2.npy", DType::bf16, 3, 8, "|V2");
  for (const auto& [x, y] : {std::pair{a, b}, std::pair{av2, bv2}}) {
    r = run("verify --a " + x + " --b " + y + " --dtype bf16");
    EXPECT_NE(r.code, 2) << r.out;  // read: past every argument check
    if (!gpu) EXPECT_TRUE(r.code == 3 && has(r, "needs a CUDA GPU")) << r.out;
  }
}

TEST(Cli, VerifyRefusesANamedKernelOfAnotherTypeThanTheNpyFiles) {
  using pipegemm::DType;
  for (DType t : {DType::i8, DType::f32}) {
    const std::string ts = pipegemm::to_string(t);
    const std::string a = npy_file("a_" + ts + ".npy", t, 16, 32), b = npy_file("b_" + ts + ".npy", t, 8, 32);
    CliRun r = run("verify --a " + a + " --b " + b + " --kernel k4_f16_256x128x64_s3");
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_TRUE(has(r, "kernel 'k4_f16_256x128x64_s3' takes f16 inputs")) << r.out;
    EXPECT_TRUE(has(r, "hold " + ts)) << r.out;
  }
  const std::string a = npy_file("a_f16.npy", DType::f16, 16, 32), b = npy_file("b_f16.npy", DType::f16, 8, 32);
  CliRun r = run("verify --a " + a + " --b " + b + " --kernel k4_f16_256x128x64_s3");
  EXPECT_FALSE(has(r, "takes f16 inputs")) << r.out;  // the kernel's own type is taken
}

// device_info() is the current device's, cached: without a GPU every call says why, the same way.
TEST(Device, InfoIsTheCurrentDevicesAndWithoutAGpuSaysWhy) {
  const pipegemm::DeviceInfo& a = pipegemm::device_info();
  const pipegemm::DeviceInfo& b = pipegemm::device_info();
  EXPECT_EQ(&a, &b);  // queried once, then the same entry
  if (a.present) return;  // the GPU side: tests/gpu (GpuDevice.*)
  EXPECT_FALSE(a.why_absent.empty());
  EXPECT_TRUE(a.name.empty());
}
