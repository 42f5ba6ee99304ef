// `pipegemm diagnose` on the GPU (issue 14): each teaching variant, profiled by Nsight Compute on
// a large square GEMM, gets the verdict it was built for -- the fault it breaks on purpose named
// from the counters. Through the CLI, as a user runs it. Skips with the reason without a GPU or
// without ncu (or without access to the GPU's performance counters).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "gpu_test.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/introspect/registry.hpp"
#include "pipegemm_tools/diagnose.hpp"

using namespace pipegemm;
using pipegemm::test::CliRun;
using pipegemm::test::has;
using pipegemm::test::run_cli;

namespace {

// 4096^3 FP16: long K (128 k_tiles of 32), several waves of CTAs, a launch of milliseconds, so
// no latency or fill/drain rule can claim it; under ncu each run takes seconds.
const char* const kShape = "4096x4096x4096";

#define REQUIRE_GPU_AND_NCU()                                                                   \
  do {                                                                                          \
    REQUIRE_GPU();                                                                              \
    std::string ncu_, err_;                                                                     \
    if (!diagnose::locate_ncu("", &ncu_, &err_)) GTEST_SKIP() << "no ncu: " << err_;            \
  } while (0)

// diagnose's JSON verdict for a variant, with the whole report beside it for the failure message.
void expect_verdict(const std::string& kernel, const std::string& want) {
  ASSERT_NE(find_variant(kernel), nullptr) << kernel;
  EXPECT_FALSE(find_variant(kernel)->teaching.empty()) << kernel;
  const CliRun r = run_cli("diagnose --kernel " + kernel + " --shape " + kShape + " --dtype f16 --json");
  if (r.code != 0 && (has(r, "ERR_NVGPUCTRPERM") || has(r, "permission to access NVIDIA GPU Performance Counters")))
    GTEST_SKIP() << "no access to the GPU's performance counters: " << r.out.substr(0, 500);
  ASSERT_EQ(r.code, 0) << r.out;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(r.out);
  } catch (const std::exception& e) {
    FAIL() << "not JSON (" << e.what() << "): " << r.out;
  }
  std::printf("%s on %s: %s -- %s\n", kernel.c_str(), kShape, j["verdict"].get<std::string>().c_str(),
              j["why"].get<std::string>().c_str());
  EXPECT_EQ(j["verdict"], want) << j.dump(2);
}

}  // namespace

TEST(GpuDiagnose, UncoalescedLoaderIsUncoalescedAccess) {
  REQUIRE_GPU_AND_NCU();
  expect_verdict("k2_f16_128x128x32_s2_teach_uncoalesced", "uncoalesced access");
}

TEST(GpuDiagnose, TwoStageRingIsStageStarvation) {
  REQUIRE_GPU_AND_NCU();
  expect_verdict("k4_f16_128x256x32_s2_teach_starved", "stage starvation");
}

TEST(GpuDiagnose, StagesPastTheCliffAreOccupancyCollapse) {
  REQUIRE_GPU_AND_NCU();
  expect_verdict("k4_f16_64x128x64_s5_teach_cliff", "occupancy collapse");
}

// An ncu that profiles nothing: the refusal carries ncu's own words and the filter it was given.
TEST(GpuDiagnose, NoReportFromNcuSaysWhatNcuSaid) {
  if (!device_info().present) GTEST_SKIP() << "no GPU: " << device_info().why_absent;
  char dir[] = "/tmp/pipegemm_fake_ncu_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string fake = std::string(dir) + "/ncu";
  {
    std::ofstream f(fake);
    f << "#!/bin/sh\necho '==PROF== Connected to process 1'\necho '==WARNING== No kernels were profiled.'\nexit 0\n";
  }
  ASSERT_EQ(chmod(fake.c_str(), 0755), 0);
  const CliRun r = run_cli("diagnose --kernel k4_f16_256x128x64_s3 --shape 1024x1024x1024 --ncu " + fake);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(has(r, "no ncu CSV")) << r.out;
  EXPECT_TRUE(has(r, "regex:k4_f16_256x128x64_s3E.*")) << r.out;
  EXPECT_TRUE(has(r, "No kernels were profiled.")) << r.out;
  std::remove(fake.c_str());
  rmdir(dir);
}
