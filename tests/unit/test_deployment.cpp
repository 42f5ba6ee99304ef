// The deployment API without a GPU: zero sizes, workspace sizing, prepare's refusal, the tune
// table's stored cuBLASLt algorithm, choices saved and loaded.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "pipegemm/device.hpp"
#include "pipegemm/introspect/dispatch.hpp"
#include "pipegemm/pipegemm.hpp"
#include "pipegemm/introspect/registry.hpp"

using namespace pipegemm;

namespace {
Problem shape(int64_t m, int64_t n, int64_t k) {
  Problem p;
  p.m = m, p.n = n, p.k = k;
  return p;
}
}  // namespace

TEST(ZeroSize, MNOrBatchZeroComputesNothingWithoutTouchingPointersOrTheDevice) {
  for (Problem p : {shape(0, 64, 64), shape(64, 0, 64), shape(0, 0, 0)}) {
    std::string chosen;
    const Status s = gemm(p, Operands{}, Options{}, &chosen);  // null pointers: nothing is read or written
    EXPECT_TRUE(s.ok()) << p.shape_string() << ": " << s.message;
    EXPECT_EQ(chosen, "empty");
  }
  Problem b = shape(8, 8, 8);
  b.batch = 0;
  EXPECT_TRUE(gemm(b, Operands{}).ok());
}

TEST(ZeroSize, NegativeSizesAndAMissingDAreRefused) {
  EXPECT_EQ(gemm(shape(-1, 4, 4), Operands{}).code, StatusCode::invalid_argument);
  EXPECT_EQ(gemm(shape(4, 4, -2), Operands{}).code, StatusCode::invalid_argument);
  // K = 0 writes D = act(beta C + bias): D (and C with beta != 0) must be there.
  const Status s = gemm(shape(4, 4, 0), Operands{});
  EXPECT_EQ(s.code, StatusCode::invalid_argument) << s.message;
  Problem p = shape(4, 4, 0);
  p.beta = 1.f;
  int fake_d = 0;
  Operands x;
  x.d = &fake_d;
  const Status c = gemm(p, x);
  EXPECT_EQ(c.code, StatusCode::invalid_argument) << c.message;
  EXPECT_NE(c.message.find("C"), std::string::npos) << c.message;
}

TEST(ZeroSize, KZeroNeedsAGpuAndSaysSoWithoutOne) {
  if (device_info().present) GTEST_SKIP() << "a GPU is present (tests/gpu covers K = 0 there)";
  int fake_d = 0;
  Operands x;
  x.d = &fake_d;
  EXPECT_EQ(gemm(shape(4, 4, 0), x).code, StatusCode::no_device);
}

TEST(Workspace, NoGpuNoWorkspaceAndPrepareRefusesWithTheReason) {
  if (device_info().present) GTEST_SKIP() << "a GPU is present";
  EXPECT_EQ(workspace_bytes(shape(64, 64, 64)), 0u);
  std::vector<PrepareResult> rs;
  const Status s = prepare({shape(64, 64, 64)}, {}, &rs);
  EXPECT_EQ(s.code, StatusCode::no_device) << s.message;
}

TEST(TuneTableAlgo, TheCublasLtAlgorithmSurvivesSaveAndLoad) {
  TuneTable t;
  TuneEntry e;
  e.key = {"NVIDIA H100 80GB HBM3", "f16,f16,f32,f16", "row,row,row", "m36.n48.k48.a16"};
  e.shape = "512x4096x4096";
  e.best = "cublaslt_f16";
  e.best_us = 40.5;
  e.timed = {{"cublaslt_f16", 40.5}, {"k5_f16_128x256x64_s4", 42.0}};
  e.lt_algo = std::string(128, 'a');
  t.put(e);
  TuneEntry plain = e;
  plain.key.bucket = "m40.n48.k48.a16";
  plain.best = "k5_f16_128x256x64_s4";
  plain.lt_algo.clear();
  t.put(plain);
  TuneTable back;
  ASSERT_TRUE(TuneTable::parse(t.to_json(), "round trip", &back).ok());
  ASSERT_NE(back.find(e.key), nullptr);
  EXPECT_EQ(back.find(e.key)->lt_algo, e.lt_algo);
  ASSERT_NE(back.find(plain.key), nullptr);
  EXPECT_EQ(back.find(plain.key)->lt_algo, "");
  EXPECT_EQ(t.to_json().find("cublaslt_algo"), t.to_json().rfind("cublaslt_algo")) << "written for the cuBLASLt entry only";
}

TEST(Choices, LoadedTablesComeFirstAndClearForgetsThem) {
  clear_choices();
  const std::string path = ::testing::TempDir() + "pipegemm_choices_test.json";
  TuneTable t;
  TuneEntry e;
  e.key = {"a GPU no machine has", "f16,f16,f32,f16", "row,row,row", "m36.n48.k48.a16"};
  e.shape = "512x4096x4096";
  e.best = "cublas_f16";
  e.timed = {{"cublas_f16", 10.0}};
  t.put(e);
  ASSERT_TRUE(t.save(path).ok());
  EXPECT_EQ(load_choices(path + ".missing").code, StatusCode::io_error);
  ASSERT_TRUE(load_choices(path).ok());
  EXPECT_NE(prepared_or_loaded(e.key), nullptr);
  ASSERT_FALSE(tune_tables()->tables.empty());
  EXPECT_NE(tune_tables()->tables.front().find(e.key), nullptr) << "a loaded table is searched before the shipped ones";
  clear_choices();
  EXPECT_EQ(prepared_or_loaded(e.key), nullptr);
  std::remove(path.c_str());
}
