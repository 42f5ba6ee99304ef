// The CLI as a user meets it: wrong arguments get a message and exit code 2, never a crash.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "pipegemm/device.hpp"

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
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j[0]["family"], "cublas");
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
