// cuBLASLt as a peer, the way PyTorch reaches cuBLAS: a 32 MiB workspace and the heuristic's
// top candidates (up to 8). Each candidate is timed on the first use of a problem (shape, types,
// layouts, leading dimensions, pointer alignment) and the fastest is kept, so the peer is the
// best cuBLAS can do on that problem, not its first guess. Split-K partials are summed only in
// the compute type (fp32 / int32): OUTPUT_TYPE sums them in fp16 / bf16, and INPLACE adds them up
// in D itself, in D's type -- with INPLACE allowed, bf16 results were 10-40x past the bf16
// tolerance (fuzz through auto, bench/results/2026-12-01_h200_dispatch_tune.log). The peer is an
// accuracy yardstick and a candidate auto may choose. Where the heuristic has no algorithm for a
// problem (INT8 with an odd K, on the H200), the entry runs cublasGemmEx: cuBLAS's own answer.
//
// Concurrent calls: one handle per (device, thread) and one workspace per (device, thread,
// stream), so two streams never share a workspace; the timed choices are shared under a lock.
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/dispatch.hpp"
#include "kernels/cublas_types.hpp"
#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm/detail/stream_hold.hpp"
#include "pipegemm/registry.hpp"
#include "registry/table.hpp"

namespace pipegemm::detail {
namespace {

constexpr size_t kWorkspaceBytes = size_t(32) << 20;
constexpr int kCandidates = 8;

Status lt_status(cublasStatus_t st, const char* what) {
  if (st == CUBLAS_STATUS_SUCCESS) return Status::success();
  return Status::error(StatusCode::cuda_error, std::string(what) + ": " + cublasGetStatusString(st));
}

// A thread's handles (per device) and workspaces (per device and stream). A workspace is used
// only by work queued on its stream, in order; cudaFree at thread exit waits for that work.
struct ThreadState {
  std::map<int, cublasLtHandle_t> handles;
  std::map<std::pair<int, unsigned long long>, void*> workspaces;  // (device, stream id)
  ~ThreadState() {
    for (auto& [key, ws] : workspaces) cudaFree(ws);
    cudaGetLastError();
    HandlePool<cublasLtHandle_t>::get().give_back(handles);
  }
};

Status thread_state(int dev, cudaStream_t s, cublasLtHandle_t* handle, void** workspace) {
  thread_local ThreadState mine;
  cublasLtHandle_t& h = mine.handles[dev];
  if (!h) {
    h = HandlePool<cublasLtHandle_t>::get().take(dev);
    if (Status st = h ? Status::success() : lt_status(cublasLtCreate(&h), "cublasLtCreate"); !st.ok()) {
      h = nullptr;
      return st;
    }
  }
  // Keyed by the stream's id, not its handle: a destroyed stream's handle may come back for a new
  // stream while the old one's work still runs.
  unsigned long long id = 0;
  if (Status st = cuda_status(cudaStreamGetId(s, &id), "cudaStreamGetId"); !st.ok()) return st;
  void*& ws = mine.workspaces[{dev, id}];
  if (!ws) {
    if (Status st = cuda_status(cudaMalloc(&ws, kWorkspaceBytes), "cudaMalloc(cuBLASLt workspace)"); !st.ok()) {
      mine.workspaces.erase({dev, id});
      return st;
    }
  }
  *handle = h;
  *workspace = ws;
  return Status::success();
}

using Key = std::tuple<int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int, int, int, int, int, int, int,
                       uint32_t, uint32_t, uint32_t>;

struct Cache {
  std::mutex mu;
  std::map<Key, std::optional<cublasLtMatmulAlgo_t>> best;  // nullopt: no algorithm, cublasGemmEx
};
Cache& cache() {
  static Cache c;
  return c;
}

// RAII for the descriptors of one problem.
struct Descs {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~Descs() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (d) cublasLtMatrixLayoutDestroy(d);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

// D (M,N) = A (M,K) * B (N,K)^T in cuBLAS's column-major terms, as cublas_peer.cpp does: a
// row-major D is the column-major D^T = B * A^T; a column-major D is A * B^T.
Status describe_problem(const Problem& p, const void* A, const void* B, const void* D, Descs* s,
                        const void** first, const void** second) {
  const bool a_kmajor = p.a_layout == Layout::RowMajor, b_kmajor = p.b_layout == Layout::RowMajor;
  Status st = lt_status(cublasLtMatmulDescCreate(&s->op, compute_type(p.acc_type), Scalars::type(p.acc_type)),
                        "cublasLtMatmulDescCreate");
  if (!st.ok()) return st;
  const bool row_d = p.d_layout == Layout::RowMajor;
  // Operand X (rows x cols col-major as stored): a K-major A (M,K) is a K x M column-major matrix.
  struct Op { DType t; bool kmajor; int64_t mn, ld; const void* ptr; };
  const Op oa{p.a_type, a_kmajor, p.m, p.lda, A}, ob{p.b_type, b_kmajor, p.n, p.ldb, B};
  const Op& x = row_d ? ob : oa;  // cuBLAS's "A"
  const Op& y = row_d ? oa : ob;  // cuBLAS's "B"
  // x must appear as (mn x K) and y as (K x mn): a K-major x is stored K x mn, so transpose it.
  const cublasOperation_t tx = x.kmajor ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t ty = y.kmajor ? CUBLAS_OP_N : CUBLAS_OP_T;
  if (!(st = lt_status(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSA, &tx, sizeof tx), "TRANSA")).ok() ||
      !(st = lt_status(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSB, &ty, sizeof ty), "TRANSB")).ok())
    return st;
  auto layout = [](cublasLtMatrixLayout_t* l, DType t, uint64_t rows, uint64_t cols, int64_t ld) {
    return lt_status(cublasLtMatrixLayoutCreate(l, cuda_type(t), rows, cols, ld), "cublasLtMatrixLayoutCreate");
  };
  const uint64_t K = uint64_t(p.k);
  if (!(st = layout(&s->a, x.t, x.kmajor ? K : uint64_t(x.mn), x.kmajor ? uint64_t(x.mn) : K, x.ld)).ok() ||
      !(st = layout(&s->b, y.t, y.kmajor ? K : uint64_t(y.mn), y.kmajor ? uint64_t(y.mn) : K, y.ld)).ok() ||
      !(st = layout(&s->d, p.d_type, row_d ? uint64_t(p.n) : uint64_t(p.m), row_d ? uint64_t(p.m) : uint64_t(p.n), p.ldd)).ok())
    return st;
  if (!(st = lt_status(cublasLtMatmulPreferenceCreate(&s->pref), "cublasLtMatmulPreferenceCreate")).ok()) return st;
  const uint64_t ws = kWorkspaceBytes;
  const uint32_t reductions = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;  // (and none)
  const uint32_t al_a = address_alignment(x.ptr), al_b = address_alignment(y.ptr), al_d = address_alignment(D);
  cublasLtMatmulPreferenceSetAttribute(s->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  cublasLtMatmulPreferenceSetAttribute(s->pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &reductions, sizeof reductions);
  cublasLtMatmulPreferenceSetAttribute(s->pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &al_a, sizeof al_a);
  cublasLtMatmulPreferenceSetAttribute(s->pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &al_b, sizeof al_b);
  cublasLtMatmulPreferenceSetAttribute(s->pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &al_d, sizeof al_d);
  cublasLtMatmulPreferenceSetAttribute(s->pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &al_d, sizeof al_d);
  *first = x.ptr;
  *second = y.ptr;
  return Status::success();
}


}  // namespace

// The launcher of the cublaslt_* registry entries (cublas_peer.cpp registers them).
Status launch_cublaslt(const Problem& p, const void* A, const void* B, void* D, cudaStream_t s) {
  int dev = 0;
  Status st = cuda_status(cudaGetDevice(&dev), "cudaGetDevice");
  if (!st.ok()) return st;
  cublasLtHandle_t handle = nullptr;
  void* workspace = nullptr;
  if (!(st = thread_state(dev, s, &handle, &workspace)).ok()) return st;
  Cache& c = cache();
  Descs d;
  const void *x = nullptr, *y = nullptr;
  if (!(st = describe_problem(p, A, B, D, &d, &x, &y)).ok()) return st;
  const Scalars sc;
  const Key key{dev, p.m, p.n, p.k, p.lda, p.ldb, p.ldd, int(p.a_type), int(p.b_type), int(p.d_type), int(p.acc_type),
                int(p.a_layout), int(p.b_layout), int(p.d_layout), address_alignment(A), address_alignment(B), address_alignment(D)};
  auto run = [&](const cublasLtMatmulAlgo_t* algo) {
    return cublasLtMatmul(handle, d.op, sc.one(p.acc_type), x, d.a, y, d.b, sc.zero(p.acc_type), D, d.d, D, d.d,
                          algo, workspace, kWorkspaceBytes, s);
  };
  // The lock covers the choices only (and one thread's first-use timing of a problem at a time).
  std::unique_lock<std::mutex> lock(c.mu);
  auto it = c.best.find(key);
  if (it != c.best.end()) {
    const std::optional<cublasLtMatmulAlgo_t> best = it->second;
    lock.unlock();
    return best ? lt_status(run(&*best), "cublasLtMatmul") : launch_cublas(p, A, B, D, s);
  }

  // First use of this problem: time the heuristic's candidates on the caller's buffers.
  cublasLtMatmulHeuristicResult_t cand[kCandidates] = {};
  int found = 0;
  const cublasStatus_t hs =
      cublasLtMatmulAlgoGetHeuristic(handle, d.op, d.a, d.b, d.d, d.d, d.pref, kCandidates, cand, &found);
  if (hs == CUBLAS_STATUS_NOT_SUPPORTED || (hs == CUBLAS_STATUS_SUCCESS && found == 0)) {
    c.best.emplace(key, std::nullopt);
    lock.unlock();
    return launch_cublas(p, A, B, D, s);
  }
  if (!(st = lt_status(hs, "cublasLtMatmulAlgoGetHeuristic")).ok()) return st;
  // Each candidate runs once (those that fail drop out) and is timed alone once; then rounds in
  // which every candidate runs a group of back-to-back launches (about 50 us of them) behind a
  // stream hold, so a few-microsecond candidate is timed without the host's launch gaps or the
  // events' ~0.5 us resolution; the candidate with the least median time per launch is kept.
  // Timed one launch at a time, the choice of a 5-10 us shape changed from process to process.
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const auto time_group = [&](const cublasLtMatmulAlgo_t& algo, int group, float* ms) {
    StreamHold hold;
    const bool held = hold.hold(s).ok();
    cudaEventRecord(e0, s);
    bool ok = true;
    for (int g = 0; g < group && ok; ++g) ok = run(&algo) == CUBLAS_STATUS_SUCCESS;
    cudaEventRecord(e1, s);
    if (held) hold.release();
    ok = cudaEventSynchronize(e1) == cudaSuccess && ok;
    cudaEventElapsedTime(ms, e0, e1);
    *ms /= float(group);
    return ok;
  };
  struct Timed {
    int index, group;
    std::vector<float> ms;
  };
  std::vector<Timed> timed;
  for (int i = 0; i < found; ++i) {
    float ms = 0;
    if (cand[i].state != CUBLAS_STATUS_SUCCESS || run(&cand[i].algo) != CUBLAS_STATUS_SUCCESS ||
        !time_group(cand[i].algo, 1, &ms))
      continue;
    timed.push_back({i, std::clamp(int(std::ceil(0.05f / std::max(ms, 1e-4f))), 1, 32), {}});
  }
  for (int round = 0; round < 3; ++round)
    for (Timed& t : timed) {
      float ms = 0;
      if (time_group(cand[t.index].algo, t.group, &ms)) t.ms.push_back(ms);
    }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  int best = -1;
  float best_ms = 0;
  for (Timed& t : timed) {
    if (t.ms.empty()) continue;
    std::sort(t.ms.begin(), t.ms.end());
    const float med = t.ms[t.ms.size() / 2];
    if (best < 0 || med < best_ms) best = t.index, best_ms = med;
  }
  if (best < 0) return Status::error(StatusCode::cuda_error, "no cuBLASLt candidate ran on this problem");
  c.best.emplace(key, cand[best].algo);
  lock.unlock();
  return lt_status(run(&cand[best].algo), "cublasLtMatmul");
}

}  // namespace pipegemm::detail
