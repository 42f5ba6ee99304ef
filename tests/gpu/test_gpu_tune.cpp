// tune on the GPU: entries written, a second run resumes (nothing re-timed), auto then takes the
// tuned variant and says so ("cache"), and bench --candidates puts auto beside what it chose among.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "pipegemm/device.hpp"
#include "pipegemm/introspect/dispatch.hpp"
#include "pipegemm_tools/tune.hpp"

using namespace pipegemm;

namespace {
TuneRequest request(const std::string& shape, const std::string& out) {
  TuneRequest r;
  r.problem.shape = shape;
  r.output = out;
  r.run.reps = 6;
  r.run.rounds = 2;
  r.run.warmup = 2;
  return r;
}
}  // namespace

TEST(GpuTune, WritesResumesAndAutoTakesTheCachedFastest) {
  if (!device_info().present) GTEST_SKIP() << "no GPU: " << device_info().why_absent;
  const std::string out = ::testing::TempDir() + "pipegemm_gpu_tune.json";
  std::remove(out.c_str());
  TuneReport rep;
  Status s = run_tune(request("256:512:256x512x128", out), &rep);  // two shapes, two buckets
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_EQ(rep.rows.size(), 2u);
  EXPECT_EQ(rep.timed, 2);
  for (const TuneRow& r : rep.rows) {
    EXPECT_EQ(r.status, "timed") << r.message;
    EXPECT_GT(r.timed, 2) << r.shape;  // our kernels and both cuBLAS peers
    EXPECT_NE(find_variant(r.best), nullptr) << r.best;
  }
  TuneReport again;
  ASSERT_TRUE(run_tune(request("256:512:256x512x128", out), &again).ok());
  EXPECT_EQ(again.cached, 2);
  EXPECT_EQ(again.timed, 0);

  setenv("PIPEGEMM_TUNE_CACHE", out.c_str(), 1);
  reload_tune_tables();
  Problem p;
  p.m = 512, p.n = 512, p.k = 128;
  void *A = nullptr, *B = nullptr, *D = nullptr;
  ASSERT_EQ(cudaMalloc(&A, 512 * 128 * 2), 0);
  ASSERT_EQ(cudaMalloc(&B, 512 * 128 * 2), 0);
  ASSERT_EQ(cudaMalloc(&D, 512 * 512 * 2), 0);
  GemmCall call;
  s = GemmCall::make(p, "auto", A, B, D, &call);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(call.variant().name, rep.rows[1].best) << call.why();
  EXPECT_NE(call.why().find("cache " + out), std::string::npos) << call.why();
  EXPECT_TRUE(call.launch(A, B, D, nullptr).ok());
  EXPECT_EQ(cudaDeviceSynchronize(), 0);
  cudaFree(A), cudaFree(B), cudaFree(D);

  BenchRequest b;
  b.problem.shape = "256:512:256x512x128";
  b.selection.kernels = {"auto"};
  b.candidates = true;
  b.run.reps = 6, b.run.rounds = 2, b.run.warmup = 2;
  BenchRuns runs;
  ASSERT_TRUE(run_bench(b, &runs).ok());
  EXPECT_EQ(runs.auto_summary.shapes, 2);
  EXPECT_GT(runs.auto_summary.worst, 0);
  ASSERT_FALSE(runs.runs.empty());
  EXPECT_EQ(runs.runs[0].results[0].variant, "auto");
  EXPECT_EQ(runs.runs[0].results[0].why.rfind("cache ", 0), 0u) << runs.runs[0].results[0].why;
  unsetenv("PIPEGEMM_TUNE_CACHE");
  reload_tune_tables();
  std::remove(out.c_str());
}
