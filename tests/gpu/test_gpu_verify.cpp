// GPU tests: skip with the reason when no GPU is present; on the H200 they must pass.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

#include "gpu_test.hpp"
#include "pipegemm_tools/bench.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/pipegemm.hpp"

using namespace pipegemm;

static Problem fp16_problem(int64_t m, int64_t n, int64_t k, DType acc) {
  Problem p;
  p.m = m; p.n = n; p.k = k;
  p.a_type = p.b_type = p.d_type = DType::f16;
  p.acc_type = acc;
  return p.normalized();
}

static void verify_all_matching(const Problem& p, const std::vector<std::string>& names) {
  std::unique_ptr<VerifySession> s;
  Status st = VerifySession::create(p, make_random_inputs(p, 1234 + uint64_t(p.m)), &s);
  ASSERT_TRUE(st.ok()) << st.message;
  for (const auto& n : names) {
    const Variant* v = find_variant(n);
    ASSERT_NE(v, nullptr) << n;
    VerifyOutcome o = s->verify(*v);
    EXPECT_TRUE(o.status.ok()) << n << " " << p.shape_string() << ": " << o.status.message;
  }
}

TEST(GpuVerify, SeedKernelFp16AccumulationOnSeedShapes) {
  REQUIRE_GPU();
  for (auto shape : {std::array<int64_t, 3>{512, 512, 512}, {81920, 256, 256}, {128, 128, 32}, {256, 384, 4096}})
    verify_all_matching(fp16_problem(shape[0], shape[1], shape[2], DType::f16), {"seed_f16_f16acc_128x128x32_s3", "cublas_f16_f16acc"});
}

TEST(GpuVerify, SeedKernelFp32AccumulationOnSeedShapes) {
  REQUIRE_GPU();
  for (auto shape : {std::array<int64_t, 3>{512, 512, 512}, {81920, 256, 256}, {128, 128, 32}, {256, 384, 4096}})
    verify_all_matching(fp16_problem(shape[0], shape[1], shape[2], DType::f32), {"seed_f16_128x128x32_s3", "cublas_f16"});
}

TEST(GpuVerify, PaddedLeadingDimensions) {
  REQUIRE_GPU();
  Problem p = fp16_problem(256, 256, 256, DType::f32);
  p.lda = 264; p.ldb = 320; p.ldd = 384;
  verify_all_matching(p, {"seed_f16_128x128x32_s3", "cublas_f16"});
}

TEST(GpuRefusal, RefusedLaunchWritesNothing) {
  REQUIRE_GPU();
  Problem p = fp16_problem(128, 128, 64, DType::f32);
  void *A, *B, *D;
  ASSERT_EQ(cudaMalloc(&A, 1 << 20), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&B, 1 << 20), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&D, 1 << 20), cudaSuccess);
  cudaMemset(D, 0x5a, 1 << 20);
  Options o;
  o.variant = "seed_f16_128x128x32_s3";
  Status s = gemm(p, static_cast<char*>(A) + 2, B, D, o);  // misaligned A
  EXPECT_EQ(s.code, StatusCode::not_supported) << s.message;
  Problem q = p;
  q.m = 100;  // off the tile
  s = gemm(q, A, B, D, o);
  EXPECT_EQ(s.code, StatusCode::not_supported) << s.message;
  cudaDeviceSynchronize();
  std::vector<unsigned char> h(1 << 20);
  cudaMemcpy(h.data(), D, h.size(), cudaMemcpyDeviceToHost);
  for (unsigned char c : h) ASSERT_EQ(c, 0x5a);
  cudaFree(A); cudaFree(B); cudaFree(D);
}

TEST(GpuRefusal, AutomaticChoiceComputesShapesTheSeedRefuses) {
  REQUIRE_GPU();
  Problem p = fp16_problem(127, 129, 33, DType::f32);
  std::unique_ptr<VerifySession> s;
  ASSERT_TRUE(VerifySession::create(p, make_random_inputs(p, 7), &s).ok());
  std::string why;
  const Variant* v = choose_variant(p, device_info().sm, nullptr, nullptr, nullptr, &why);
  ASSERT_NE(v, nullptr) << why;
  VerifyOutcome o = s->verify(*v);
  EXPECT_TRUE(o.status.ok()) << v->name << ": " << o.status.message;
}

TEST(GpuOccupancy, EveryKernelReportsResidentBlocks) {
  REQUIRE_GPU();
  for (const Variant& v : variants()) {
    if (!v.occupancy || check_variant(v, fp16_problem(v.tile.bm, v.tile.bn, v.tile.bk, v.acc_type), device_info().sm).code ==
                            StatusCode::not_supported && device_info().sm < v.min_sm)
      continue;
    int blocks = 0, regs = 0;
    Status s = v.occupancy(&blocks, &regs);
    ASSERT_TRUE(s.ok()) << v.name << ": " << s.message;
    EXPECT_GE(blocks, 1) << v.name;
    EXPECT_GT(regs, 0) << v.name;
  }
}

// The library runs on the caller's current device and never changes it; device_info() describes
// that device (each one queried on first use).
TEST(GpuDevice, TheCallersDeviceIsUsedAndNeverChanged) {
  REQUIRE_GPU();
  int count = 0, before = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  ASSERT_EQ(cudaGetDevice(&before), cudaSuccess);
  const Problem p = fp16_problem(128, 128, 128, DType::f32);
  for (int d = count - 1; d >= 0; --d) {
    ASSERT_EQ(cudaSetDevice(d), cudaSuccess);
    EXPECT_EQ(device_info().index, d);
    EXPECT_TRUE(device_info().present) << device_info().why_absent;
    void *A = nullptr, *B = nullptr, *D = nullptr;
    ASSERT_EQ(cudaMalloc(&A, 128 * 128 * 2), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&B, 128 * 128 * 2), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&D, 128 * 128 * 2), cudaSuccess);
    for (const char* v : {"auto", "cublas_f16", "cublaslt_f16"}) {
      Options o;
      o.variant = v;
      Status s = gemm(p, A, B, D, o);
      EXPECT_TRUE(s.ok()) << v << " on device " << d << ": " << s.message;
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << v;
      int now = -1;
      cudaGetDevice(&now);
      EXPECT_EQ(now, d) << v;
    }
    cudaFree(A), cudaFree(B), cudaFree(D);
  }
  cudaSetDevice(before);
}

// Threads on their own streams at once: each thread's cuBLAS handle and cuBLASLt workspace are its
// own, so every result is right (a shared workspace would mix two streams' partial sums).
TEST(GpuDevice, ConcurrentThreadsOnTheirOwnStreamsEachGetARightResult) {
  REQUIRE_GPU();
  const Problem p = fp16_problem(512, 512, 4096, DType::f32);  // split-K territory: cuBLASLt uses its workspace
  const HostInputs in = make_random_inputs(p, 7);
  const size_t d_bytes = size_t(p.m * p.n * 2);
  std::vector<double> ref;
  reference_gemm(p, in.A.data(), in.B.data(), ref);
  for (const char* name : {"cublas_f16", "cublaslt_f16"}) {
    auto run = [&](cudaStream_t s, int reps, std::vector<uint8_t>* out) {
      void *A = nullptr, *B = nullptr, *D = nullptr;
      cudaMalloc(&A, in.A.size()), cudaMalloc(&B, in.B.size()), cudaMalloc(&D, d_bytes);
      cudaMemcpy(A, in.A.data(), in.A.size(), cudaMemcpyHostToDevice);
      cudaMemcpy(B, in.B.data(), in.B.size(), cudaMemcpyHostToDevice);
      Options o;
      o.variant = name;
      o.stream = s;
      Status st;
      for (int r = 0; r < reps && st.ok(); ++r) st = gemm(p, A, B, D, o);
      cudaStreamSynchronize(s);
      out->resize(d_bytes);
      cudaMemcpy(out->data(), D, d_bytes, cudaMemcpyDeviceToHost);
      cudaFree(A), cudaFree(B), cudaFree(D);
      return st;
    };
    constexpr int kThreads = 4;
    std::vector<std::vector<uint8_t>> got(kThreads);
    std::vector<Status> st(kThreads);
    std::vector<std::thread> pool;
    for (int t = 0; t < kThreads; ++t)
      pool.emplace_back([&, t] {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        st[size_t(t)] = run(s, 20, &got[size_t(t)]);
        cudaStreamDestroy(s);
      });
    for (auto& th : pool) th.join();
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_TRUE(st[size_t(t)].ok()) << name << " thread " << t << ": " << st[size_t(t)].message;
      const CompareResult c = compare_with_reference(p, got[size_t(t)].data(), ref, tolerance_for(p));
      EXPECT_TRUE(c.pass) << name << " thread " << t << ": " << c.summary();
    }
  }
}
