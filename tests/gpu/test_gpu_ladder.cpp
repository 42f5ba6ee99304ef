// The ladder on a GPU (issue 5): every rung x data type against the CPU reference on the odd
// shapes and 512^3; where a rung refuses a shape for its vector width, the refusal is the
// outcome checked, and the automatic choice must still compute that shape correctly.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "pipegemm_tools/bench.hpp"
#include "pipegemm/device.hpp"

using namespace pipegemm;

namespace {

struct Types { DType in, acc, out; };

Problem make_problem(Types t, int64_t m, int64_t n, int64_t k) {
  Problem p;
  p.m = m; p.n = n; p.k = k;
  p.a_type = p.b_type = t.in;
  p.acc_type = t.acc;
  p.d_type = t.out;
  return p.normalized();
}

bool is_ladder(const Variant& v) {
  return v.rung >= 0 && v.rung <= 4 && v.family != "seed" && v.family != "skinny";
}

// Every ladder variant computing these types, then the automatic choice, on one problem.
void verify_ladder(const Problem& p) {
  SCOPED_TRACE(p.shape_string() + " " + to_string(p.a_type) + " acc " + to_string(p.acc_type) + " out " +
               to_string(p.d_type));
  std::unique_ptr<VerifySession> s;
  Status st = VerifySession::create(p, make_random_inputs(p, 20261129 + uint64_t(p.m * 31 + p.k)), &s);
  ASSERT_TRUE(st.ok()) << st.message;
  int ran = 0;
  for (const Variant& v : variants()) {
    if (!is_ladder(v) || v.a_type != p.a_type || v.acc_type != p.acc_type || v.d_type != p.d_type) continue;
    Status accepts = check_variant(v, p, device_info().sm);
    VerifyOutcome o = s->verify(v);
    if (!accepts.ok()) {
      // Refused for its vector width (or shortk's K bound): the same refusal, before any launch.
      EXPECT_EQ(o.status.code, StatusCode::not_supported) << v.name << ": " << o.status.message;
      EXPECT_EQ(o.status.message, accepts.message);
      EXPECT_TRUE(accepts.message.find("multiple of") != std::string::npos ||
                  accepts.message.find("aligned") != std::string::npos ||
                  (v.family == "shortk" && accepts.message.find("short K") != std::string::npos))
          << accepts.message;
      EXPECT_NE(v.rung, 0) << "k0 takes every shape: " << accepts.message;
      continue;
    }
    ++ran;
    EXPECT_TRUE(o.status.ok()) << v.name << ": " << o.status.message;
  }
  // k0 takes every shape, so a type combination with a k0 entry always runs something.
  bool has_k0 = false;
  for (const Variant& v : variants())
    has_k0 |= v.rung == 0 && v.a_type == p.a_type && v.acc_type == p.acc_type && v.d_type == p.d_type;
  if (has_k0) EXPECT_GT(ran, 0) << "no ladder variant ran";
  std::string why;
  const Variant* a = choose_variant(p, device_info().sm, nullptr, nullptr, nullptr, &why);
  ASSERT_NE(a, nullptr) << why;
  VerifyOutcome o = s->verify(*a);
  EXPECT_TRUE(o.status.ok()) << "auto -> " << a->name << ": " << o.status.message;
}

const Types kF16{DType::f16, DType::f32, DType::f16};
const Types kF16Acc16{DType::f16, DType::f16, DType::f16};
const Types kBF16{DType::bf16, DType::f32, DType::bf16};
const Types kI8{DType::i8, DType::i32, DType::i32};
const Types kI8F32{DType::i8, DType::i32, DType::f32};
const Types kF32{DType::f32, DType::f32, DType::f32};

// 1x1x1, 7x9x13, 127x129x33: off every tile and every vector; 1000^3: M/N edges and a K tail
// (1000 = 31*32 + 8); 333x528x272: edges in M and N, a K tail of a quarter k_tile, rows in
// whole 16-byte vectors for every type (so the int8 vector rungs run too); 333x517x272: the
// same with D rows off 16 bytes (ldd = 517: refused by the vector rungs); 512^3: whole tiles.
const std::array<int64_t, 3> kShapes[] = {{1, 1, 1},       {7, 9, 13},      {127, 129, 33}, {1000, 1000, 1000},
                                          {333, 528, 272}, {333, 517, 272}, {512, 512, 512}};

void verify_shapes(Types t) {
  for (auto& s : kShapes) verify_ladder(make_problem(t, s[0], s[1], s[2]));
}

}  // namespace

TEST(GpuLadder, Fp16WithFp32AccumulationEveryRungEveryShape) { REQUIRE_GPU(); verify_shapes(kF16); }
TEST(GpuLadder, Fp16WithFp16AccumulationEveryShape) { REQUIRE_GPU(); verify_shapes(kF16Acc16); }
TEST(GpuLadder, Bf16EveryRungEveryShape) { REQUIRE_GPU(); verify_shapes(kBF16); }
TEST(GpuLadder, Int8Int32OutEveryRungEveryShape) { REQUIRE_GPU(); verify_shapes(kI8); }
TEST(GpuLadder, Int8Fp32OutEveryShape) { REQUIRE_GPU(); verify_shapes(kI8F32); }
TEST(GpuLadder, Fp32FfmaEveryRungEveryShape) { REQUIRE_GPU(); verify_shapes(kF32); }

// Leading dimensions larger than a row, in whole vectors: every rung reads and writes only
// inside (M,N,K); the padding between rows is never touched (it is not compared, but a
// write there would show as a wrong neighbour row on the next line).
TEST(GpuLadder, PaddedLeadingDimensionsEveryRung) {
  REQUIRE_GPU();
  for (Types t : {kF16, kI8, kF32}) {
    Problem p = make_problem(t, 300, 200, 160);
    p.lda = 176; p.ldb = 192; p.ldd = 240;
    verify_ladder(p);
  }
}

// A k_tile count below the ring depth (K = one k_tile) and a single row/column.
TEST(GpuLadder, FewerKTilesThanStagesAndDegenerateRows) {
  REQUIRE_GPU();
  for (auto s : {std::array<int64_t, 3>{256, 256, 32}, {1, 4096, 64}, {4096, 1, 64}, {64, 64, 8}})
    verify_ladder(make_problem(kF16, s[0], s[1], s[2]));
}

// shortk (K <= 16) in each of its four type sets, plain TN: K = 1, 2, an odd 9 and the bound 16;
// D rows in whole 16-byte vectors (N = 4096, 512) and not (N = 517, 3), tiles cut on both edges,
// a D larger than L2 (8193 x 4096 x 2 bytes); each shape must have run on shortk.
TEST(GpuLadder, ShortKEveryTypeOnTinyK) {
  REQUIRE_GPU();
  const Types f16_f32{DType::f16, DType::f32, DType::f32}, bf16_f32{DType::bf16, DType::f32, DType::f32};
  for (Types t : {kF16, kBF16, f16_f32, bf16_f32})
    for (auto s : {std::array<int64_t, 3>{8193, 4096, 2}, {333, 517, 9}, {100, 512, 16}, {65, 3, 1}, {1, 4096, 5}}) {
      if (s[0] == 8193 && t.out == DType::f32) continue;  // the 16-bit D is the write-bound case
      const Problem p = make_problem(t, s[0], s[1], s[2]);
      bool ran = false;
      for (const Variant& v : variants())
        ran |= v.family == "shortk" && v.a_type == t.in && v.d_type == t.out && check_variant(v, p, device_info().sm).ok();
      EXPECT_TRUE(ran) << p.shape_string() << ": no shortk variant takes it";
      verify_ladder(p);
    }
}

// shortk's store: each row of the fp32 tile sits in shared memory shifted so that D's 16-byte vectors
// are its 16-byte slots (kernel.cuh, STORE). D (with A and B) 0-7 elements off 16 bytes, an ldd of
// every residue mod 8, tiles cut on both edges (67 x 300: a 256- and a 44-column tile, partial row
// tiles), each 16-bit and f32 D: every shortk variant of the types verifies, and the padding past N
// of each row keeps verify's poison (a vector that strays past a row's end would overwrite it).
TEST(GpuLadder, ShortKStoresRowsAtEveryAlignmentOfD) {
  REQUIRE_GPU();
  const Types f16_f32{DType::f16, DType::f32, DType::f32}, bf16_f32{DType::bf16, DType::f32, DType::f32};
  for (Types t : {kF16, kBF16, f16_f32, bf16_f32})
    for (int64_t offset : {0, 1, 3, 6})
      for (int64_t pad = 0; pad < 8; ++pad) {
        Problem p = make_problem(t, 67, 300, 7);
        p.ldd = p.n + pad;
        std::unique_ptr<VerifySession> s;
        Status st = VerifySession::create(p, make_random_inputs(p, 20261206 + uint64_t(offset * 8 + pad), offset), &s);
        ASSERT_TRUE(st.ok()) << st.message;
        int ran = 0;
        for (const Variant& v : variants()) {
          if (v.family != "shortk" || v.a_type != t.in || v.d_type != t.out) continue;
          const std::string what = v.name + " offset " + std::to_string(offset) + " ldd " + std::to_string(p.ldd);
          ASSERT_TRUE(check_variant(v, p, device_info().sm).ok()) << what;
          ++ran;
          VerifyOutcome o = s->verify(v);
          EXPECT_TRUE(o.status.ok()) << what << ": " << o.status.message;
          const std::vector<uint8_t>& d = s->last_output();
          const int64_t e = dtype_bytes(p.d_type);
          int64_t overwritten = 0;
          for (int64_t i = 0; i + 1 < p.m; ++i)
            for (int64_t b = (i * p.ldd + p.n) * e; b < (i + 1) * p.ldd * e; ++b) overwritten += d[size_t(b)] != 0xFF;
          EXPECT_EQ(overwritten, 0) << what << ": bytes past N overwritten";
        }
        EXPECT_GT(ran, 0) << "no shortk variant for these types";
      }
}

TEST(GpuLadder, RefusedLaunchWritesNothing) {
  REQUIRE_GPU();
  Problem p = make_problem(kF16, 128, 128, 64);
  void *A, *B, *D;
  ASSERT_EQ(cudaMalloc(&A, 1 << 20), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&B, 1 << 20), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&D, 1 << 20), cudaSuccess);
  cudaMemset(D, 0x5a, 1 << 20);
  for (const char* name : {"k1_f16_128x128x32_s1", "k2_f16_128x128x32_s2", "k3_f16_128x128x32_s2", "k4_f16_128x256x32_s4"}) {
    Options o;
    o.variant = name;
    Status s = gemm(p, static_cast<char*>(A) + 8, B, D, o);  // 8-byte aligned: breaks 16-byte vectors
    EXPECT_EQ(s.code, StatusCode::not_supported) << name << ": " << s.message;
    Problem q = p;
    q.k = 60;  // not whole 8-half vectors
    q.lda = q.ldb = 64;
    s = gemm(q, A, B, D, o);
    EXPECT_EQ(s.code, StatusCode::not_supported) << name << ": " << s.message;
  }
  cudaDeviceSynchronize();
  std::vector<unsigned char> h(1 << 20);
  cudaMemcpy(h.data(), D, h.size(), cudaMemcpyDeviceToHost);
  for (unsigned char c : h) ASSERT_EQ(c, 0x5a);
  cudaFree(A); cudaFree(B); cudaFree(D);
}
