// CUDA graph capture: each family auto can choose (the k5 forms, packed, skinny, shortk, split-K,
// k0, cuBLASLt, cublasGemmEx, auto itself), its first call made inside a capture in each of
// the three modes, the graph replayed, then replayed again on new values in the same buffers --
// every element checked against the CPU reference each time. Also with a caller-owned workspace.
#include "gpu_test.hpp"
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/pipegemm.hpp"
#include "pipegemm/introspect/registry.hpp"
#include "pipegemm_tools/bench.hpp"

using namespace pipegemm;


namespace {

struct Case {
  const char* variant;  // a registered name or "auto"
  int64_t m, n, k;
  int min_sm = 80;
  float beta = 0.f;
  Bias bias = Bias::none;
  Activation act = Activation::none;
};

// The families auto chooses among, each on a problem it takes (split-K and skinny split K).
const Case kCases[] = {
    {"k5_f16_128x256x64_s4", 512, 512, 1024, 90},
    {"k5_f16_128x256x64_s4_packed", 500, 504, 510, 90},  // K, N off 16 bytes: A, B and D packed
    {"skinny_f16_8x32x256_w4", 8, 4096, 4096},
    {"shortk_f16_32x256x16", 1024, 1024, 16},
    {"k4_f16_16x64x64_s6_splitk", 16, 1024, 4096},
    {"k0_f16_128x128x16", 100, 100, 100},
    {"cublaslt_f16", 777, 640, 512},
    {"cublaslt_f16", 512, 768, 256, 80, 1.f, Bias::per_col, Activation::gelu_tanh},
    {"cublas_f16", 640, 640, 640},
    {"auto", 16, 4096, 4096},
    {"auto", 2048, 2048, 2048},
};

Problem problem_of(const Case& c, int salt) {
  Problem p;
  // A shape of its own for each mode, so the first call of each key is the one inside the capture.
  p.m = c.m;
  p.n = c.n + 8 * salt;
  p.k = c.k;
  p.a_type = p.b_type = p.d_type = DType::f16;
  p.beta = c.beta;
  p.bias = c.bias;
  p.activation = c.act;
  return p.normalized();
}

struct Graph {
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec) cudaGraphExecDestroy(exec);
  }
};

// gemm() captured on `s` in `mode`, instantiated, replayed once.
Status capture_and_replay(const Problem& p, const Operands& x, const Options& opt, cudaStreamCaptureMode mode,
                          Graph* g) {
  using detail::cuda_status;
  Status st = cuda_status(cudaStreamBeginCapture(reinterpret_cast<cudaStream_t>(opt.stream), mode), "BeginCapture");
  if (!st.ok()) return st;
  const Status call = gemm(p, x, opt);
  cudaGraph_t graph = nullptr;
  st = cuda_status(cudaStreamEndCapture(reinterpret_cast<cudaStream_t>(opt.stream), &graph), "EndCapture (invalidated?)");
  if (!call.ok()) {
    if (graph) cudaGraphDestroy(graph);
    return Status::error(call.code, "inside the capture: " + call.message);
  }
  if (!st.ok()) return st;
  st = cuda_status(cudaGraphInstantiate(&g->exec, graph, 0), "cudaGraphInstantiate");
  cudaGraphDestroy(graph);
  if (!st.ok()) return st;
  st = cuda_status(cudaGraphLaunch(g->exec, reinterpret_cast<cudaStream_t>(opt.stream)), "cudaGraphLaunch");
  return st.ok() ? cuda_status(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(opt.stream)), "replay") : st;
}

void run_case(const Case& c, cudaStreamCaptureMode mode, int salt, bool own_workspace) {
  if (device_info().sm < c.min_sm) GTEST_SKIP() << c.variant << " needs sm_" << c.min_sm;
  const Problem p = problem_of(c, salt);
  SCOPED_TRACE(std::string(c.variant) + " " + p.shape_string() + " mode " + std::to_string(int(mode)) +
               (own_workspace ? " (caller's workspace)" : ""));
  std::unique_ptr<VerifySession> s;
  ASSERT_TRUE(VerifySession::create(p, make_random_inputs(p, 100 + uint64_t(salt)), &s).ok());
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  Options opt;
  opt.variant = c.variant;
  opt.stream = stream;
  void* ws = nullptr;
  Graph g;
  const VerifyOutcome first = s->verify_launch("captured", [&](const Operands& x) {
    if (own_workspace) {
      const size_t bytes = workspace_bytes(p, opt, &x);
      if (bytes && cudaMalloc(&ws, bytes) != cudaSuccess) return Status::error(StatusCode::cuda_error, "cudaMalloc");
      opt.workspace = ws;
      opt.workspace_bytes = bytes;
    }
    return capture_and_replay(p, x, opt, mode, &g);
  });
  EXPECT_TRUE(first.status.ok()) << first.status.message;
  if (first.status.ok()) {
    // New values in the same buffers: the graph reads them.
    ASSERT_TRUE(s->reload(make_random_inputs(p, 900 + uint64_t(salt))).ok());
    const VerifyOutcome again = s->verify_launch("replayed", [&](const Operands&) {
      Status st = detail::cuda_status(cudaGraphLaunch(g.exec, stream), "cudaGraphLaunch");
      return st.ok() ? detail::cuda_status(cudaStreamSynchronize(stream), "replay") : st;
    });
    EXPECT_TRUE(again.status.ok()) << again.status.message;
  }
  if (ws) cudaFree(ws);
  cudaStreamDestroy(stream);
}

const cudaStreamCaptureMode kModes[] = {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal,
                                        cudaStreamCaptureModeRelaxed};

}  // namespace

TEST(GpuCapture, EveryFamilyCapturedInEveryModeReplaysRightOnNewData) {
  REQUIRE_GPU();
  int salt = 0;
  for (const Case& c : kCases)
    for (cudaStreamCaptureMode mode : kModes) run_case(c, mode, ++salt, false);
}

TEST(GpuCapture, WithTheCallersWorkspaceCapturedGraphsReplayRight) {
  REQUIRE_GPU();
  int salt = 100;
  for (const Case& c : kCases) run_case(c, cudaStreamCaptureModeGlobal, ++salt, true);
}

// workspace_bytes() is enough: a caller's workspace of exactly that size, and the call allocates
// nothing (the device's free memory does not move across many calls).
TEST(GpuCapture, WorkspaceBytesIsEnoughAndTooLittleIsRefusedBeforeAnyLaunch) {
  REQUIRE_GPU();
  const Case c{"skinny_f16_8x32x256_w4", 8, 4096, 4096};
  const Problem p = problem_of(c, 0);
  std::unique_ptr<VerifySession> s;
  ASSERT_TRUE(VerifySession::create(p, make_random_inputs(p, 7), &s).ok());
  Options opt;
  opt.variant = c.variant;
  size_t need = 0;
  void* ws = nullptr;
  const VerifyOutcome ok = s->verify_launch("exact workspace", [&](const Operands& x) {
    need = workspace_bytes(p, opt, &x);
    if (need == 0) return Status::error(StatusCode::invalid_argument, "skinny at K = 4096 splits K: expected a workspace");
    if (cudaMalloc(&ws, need) != cudaSuccess) return Status::error(StatusCode::cuda_error, "cudaMalloc");
    opt.workspace = ws;
    opt.workspace_bytes = need;
    return gemm(p, x, opt);
  });
  EXPECT_TRUE(ok.status.ok()) << ok.status.message;
  opt.workspace_bytes = need - 256;
  const VerifyOutcome short_ws = s->verify_launch("short workspace", [&](const Operands& x) { return gemm(p, x, opt); });
  EXPECT_EQ(short_ws.status.code, StatusCode::invalid_argument) << short_ws.status.message;
  cudaFree(ws);
}

// Zero sizes as torch defines them: M = 0 (or N, or batch) writes nothing and launches nothing; K = 0
// gives D = act(beta C + bias) -- also inside a capture.
TEST(GpuZeroSize, KZeroIsTheEpilogueAloneAndMZeroWritesNothing) {
  REQUIRE_GPU();
  const int64_t m = 37, n = 24;
  std::vector<__half> c(m * n), bias(n), d(m * n);
  for (int64_t i = 0; i < m * n; ++i) c[i] = __float2half(float((i * 7) % 23) / 8.f - 1.3f);
  for (int64_t j = 0; j < n; ++j) bias[j] = __float2half(float(j % 5) / 4.f - 0.4f);
  __half *dc = nullptr, *dbias = nullptr, *dd = nullptr;
  ASSERT_EQ(cudaMalloc(&dc, m * n * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dbias, n * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dd, m * n * 2), cudaSuccess);
  cudaMemcpy(dc, c.data(), m * n * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(dbias, bias.data(), n * 2, cudaMemcpyHostToDevice);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);

  Problem p;
  p.m = m, p.n = n, p.k = 0;
  p.beta = 0.5f;
  p.bias = Bias::per_col;
  p.activation = Activation::relu;
  Operands x;  // A and B are never read at K = 0
  x.c = dc, x.bias = dbias, x.d = dd;
  Options opt;
  opt.stream = stream;
  for (int captured = 0; captured < 2; ++captured) {
    cudaMemset(dd, 0xff, m * n * 2);  // poison (NaN)
    cudaGraphExec_t exec = nullptr;
    std::string chosen;
    if (captured) {
      ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
      const Status st = gemm(p, x, opt, &chosen);
      cudaGraph_t graph = nullptr;
      ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
      ASSERT_TRUE(st.ok()) << st.message;
      ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
      cudaGraphDestroy(graph);
      ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    } else {
      const Status st = gemm(p, x, opt, &chosen);
      ASSERT_TRUE(st.ok()) << st.message;
    }
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(chosen, "epilogue_only");
    cudaMemcpy(d.data(), dd, m * n * 2, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const float want = std::max(0.f, 0.5f * __half2float(c[i * n + j]) + __half2float(bias[j]));
        const float got = __half2float(d[i * n + j]);
        if (!(std::abs(got - want) <= 1e-3f * std::abs(want) + 1e-3f)) ++wrong;
      }
    EXPECT_EQ(wrong, 0) << (captured ? "captured" : "eager") << ": of " << m * n;
    if (exec) cudaGraphExecDestroy(exec);
  }

  // M = 0, N = 0, batch = 0: nothing written (D keeps its poison), null A and B taken.
  cudaMemset(dd, 0x5a, m * n * 2);
  for (int which = 0; which < 3; ++which) {
    Problem z = p;
    z.k = 16;
    if (which == 0) z.m = 0;
    if (which == 1) z.n = 0;
    if (which == 2) z.batch = 0;
    std::string chosen;
    const Status st = gemm(z, x, opt, &chosen);
    EXPECT_TRUE(st.ok()) << st.message;
    EXPECT_EQ(chosen, "empty");
  }
  cudaStreamSynchronize(stream);
  std::vector<unsigned char> raw(m * n * 2);
  cudaMemcpy(raw.data(), dd, raw.size(), cudaMemcpyDeviceToHost);
  EXPECT_EQ(std::count(raw.begin(), raw.end(), 0x5a), int64_t(raw.size()));
  // Negative sizes stay refused.
  Problem bad = p;
  bad.m = -1;
  EXPECT_EQ(gemm(bad, x, opt).code, StatusCode::invalid_argument);
  cudaFree(dc);
  cudaFree(dbias);
  cudaFree(dd);
  cudaStreamDestroy(stream);
}
