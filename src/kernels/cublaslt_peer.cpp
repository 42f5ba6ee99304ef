// cuBLASLt as a peer, the way PyTorch reaches cuBLAS: a 32 MiB workspace budget, the heuristic's
// candidates, and cublasGemmEx where it computes the problem. Two paths:
//   - the call (launch_cublaslt): never measures. Per key (everything that changes the candidates:
//     shape, types, layouts, leading dimensions, pointer alignment, alpha = 1 or not, whether and
//     where C is read, the epilogue, the batch and its strides: Key) it runs the choice prepare()
//     timed, else a loaded table's stored algorithm for the problem's tune bucket, else the
//     heuristic's first candidate -- host work only, capture-safe, the same in every process.
//   - prepare (lt_prepare): times the heuristic's top 8 and cublasGemmEx on copies of the operands
//     rotated past the L2 (TimingSets), as bench does, and keeps the fastest for the key; bench
//     and tune call it first, so their cuBLASLt row is the best cuBLAS can do on the problem (GemmEx
//     ran 18-19% ahead of the heuristic's pick on 428x755x442 BF16 and 856x66x1758 FP16).
// Split-K partials are summed only in the compute type (fp32 / int32): OUTPUT_TYPE sums them in
// fp16 / bf16, and INPLACE adds them up in D itself, in D's type -- with INPLACE allowed, bf16
// results were 10-40x past the bf16 tolerance (fuzz through auto, docs/dispatch.md). Where the
// heuristic has no algorithm for a problem (INT8 with an odd K, on the H200), the entry runs
// cublasGemmEx, cuBLAS's own answer -- if GemmEx computes that problem (no epilogue, C in place or
// unread); otherwise the call fails with not_supported.
//
// Concurrent calls: one handle per (device, thread), one descriptor set per (thread, key), the
// choices shared under a lock taken once per key and thread; the workspace is the call's scratch.
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/dispatch.hpp"
#include "core/scratch.hpp"
#include "kernels/cublas_types.hpp"
#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm/detail/stream_hold.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/introspect/dispatch.hpp"
#include "pipegemm/introspect/registry.hpp"
#include "registry/table.hpp"

namespace pipegemm::detail {
namespace {

constexpr int kCandidates = 8;

Status lt_status(cublasStatus_t st, const char* what) {
  if (st == CUBLAS_STATUS_SUCCESS) return Status::success();
  return Status::error(StatusCode::cuda_error, std::string(what) + ": " + cublasGetStatusString(st));
}

// A thread's handles, per device (handles are cheap to share out again: HandlePool).
struct ThreadHandles {
  std::map<int, cublasLtHandle_t> by_device;
  ~ThreadHandles() { HandlePool<cublasLtHandle_t>::get().give_back(by_device); }
};

Status thread_handle(int dev, cublasLtHandle_t* out) {
  thread_local ThreadHandles mine;
  cublasLtHandle_t& h = mine.by_device[dev];
  if (!h) {
    h = HandlePool<cublasLtHandle_t>::get().take(dev);
    if (!h) {
      RelaxedCapture relaxed;  // a first call may come inside a capture
      if (Status st = lt_status(cublasLtCreate(&h), "cublasLtCreate"); !st.ok()) {
        h = nullptr;
        return st;
      }
    }
  }
  *out = h;
  return Status::success();
}

// What a timed choice is kept for. A field that does not apply is 0 (an unread C's ldc, type and
// alignment; a missing bias's type; the strides of a single product), so those never split it.
struct Key {
  int dev = 0;
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldd = 0;
  int a_type = 0, b_type = 0, d_type = 0, acc_type = 0, a_layout = 0, b_layout = 0;
  uint32_t al_a = 0, al_b = 0, al_d = 0;
  bool alpha_one = true, reads_c = false, c_in_place = false;  // beta != 0 reads C; in place: C is D
  int64_t ldc = 0;
  int c_type = 0;
  uint32_t al_c = 0;
  int bias = 0, bias_type = 0, activation = 0;  // the epilogue (a different one, a different algorithm)
  uint32_t al_bias = 0;
  int64_t batch = 1, stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0;
  auto tie() const {
    return std::tie(dev, m, n, k, lda, ldb, ldd, a_type, b_type, d_type, acc_type, a_layout, b_layout, al_a, al_b, al_d,
                    alpha_one, reads_c, c_in_place, ldc, c_type, al_c, bias, bias_type, activation, al_bias, batch,
                    stride_a, stride_b, stride_c, stride_d);
  }
  bool operator<(const Key& o) const { return tie() < o.tie(); }
};

Key make_key(int dev, const Problem& p, const Operands& x) {
  Key q;
  q.dev = dev;
  q.m = p.m, q.n = p.n, q.k = p.k, q.lda = p.lda, q.ldb = p.ldb, q.ldd = p.ldd;
  q.a_type = int(p.a_type), q.b_type = int(p.b_type), q.d_type = int(p.d_type), q.acc_type = int(p.acc_type);
  q.a_layout = int(p.a_layout), q.b_layout = int(p.b_layout);
  q.al_a = address_alignment(x.a), q.al_b = address_alignment(x.b), q.al_d = address_alignment(x.d);
  q.alpha_one = p.alpha == 1.f;
  q.reads_c = p.reads_c();
  if (q.reads_c) {
    q.c_in_place = c_in_place(p, x);
    q.ldc = p.ldc;
    q.c_type = int(*p.c_type);
    q.al_c = address_alignment(x.c);
  }
  q.bias = int(p.bias);
  q.activation = int(p.activation);
  if (p.bias != Bias::none) {
    q.bias_type = int(*p.bias_type);
    q.al_bias = address_alignment(x.bias);
  }
  q.batch = p.batch;
  if (p.batch > 1) q.stride_a = p.stride_a, q.stride_b = p.stride_b, q.stride_c = p.stride_c, q.stride_d = p.stride_d;
  return q;
}

// A choice of cuBLASLt's for one key: an algorithm and the workspace it needs, or none (the
// problem runs cublasGemmEx, or is refused: without_algorithm). Shared by every thread; made by
// lt_prepare (timed) or by the first call (a stored choice or the heuristic's first candidate).
struct Chosen {
  std::optional<cublasLtMatmulAlgo_t> algo;
  size_t workspace = 0;
  bool timed = false;  // lt_prepare's: kept when the tables change
};
struct Choices {
  std::mutex mu;
  std::map<Key, Chosen> by_key;
  std::atomic<uint64_t> generation{1};  // bumped when prepare() times a key: threads' plans re-resolve
};
Choices& choices() {
  static Choices* c = new Choices;  // outlives every thread's plans
  return *c;
}

// RAII for the descriptors of one problem. c: a C apart from D (null: C is D, or unread).
struct Descs {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatrixLayout_t c_or_d() const { return c ? c : d; }
  ~Descs() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (d) cublasLtMatrixLayoutDestroy(d);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

// The epilogue of cuBLASLt for the problem's bias and activation; false where it has none.
bool epilogue_of(const Problem& p, cublasLtEpilogue_t* e) {
  const bool bias = p.bias == Bias::per_col;  // per_row: see peer() in cublas_peer.cpp
  if (p.bias == Bias::per_row) return false;
  switch (p.activation) {
    case Activation::none: *e = bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT; return true;
    case Activation::relu: *e = bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU; return true;
    case Activation::gelu_tanh: *e = bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU; return true;
    case Activation::gelu_erf: return false;  // cuBLASLt's GELU is the tanh form
  }
  return false;
}

// The row-major D (M,N) is the column-major D^T (N,M) = B A^T, as cublas_peer.cpp computes it: B
// is cuBLASLt's "A", A its "B", and the bias vector (along the rows of cuBLASLt's D) is per column
// of ours. The preference's alignments are the caller's pointers' (C: D's when C is D or unread).
Status describe_problem(const Problem& p, const Operands& x, Descs* s) {
  if (p.d_layout != Layout::RowMajor)
    return Status::error(StatusCode::invalid_argument, "the cuBLASLt launcher takes a row-major D (row_major_d)");
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  if (!epilogue_of(p, &epilogue))
    return Status::error(StatusCode::not_supported, std::string("cuBLASLt has no epilogue for bias ") + to_string(p.bias) +
                                                        ", activation " + to_string(p.activation) + " (row-major D)");
  Status st = lt_status(cublasLtMatmulDescCreate(&s->op, compute_type(p.acc_type), Scalars::type(p.acc_type)),
                        "cublasLtMatmulDescCreate");
  if (!st.ok()) return st;
  auto set = [&](cublasLtMatmulDescAttributes_t attr, const void* v, size_t bytes, const char* what) {
    return lt_status(cublasLtMatmulDescSetAttribute(s->op, attr, v, bytes), what);
  };
  const bool a_kmajor = p.a_layout == Layout::RowMajor, b_kmajor = p.b_layout == Layout::RowMajor;
  // cuBLASLt's A must appear as (N x K), its B as (K x M): a K-major B is stored K x N column-major
  // (transpose it), a K-major A is stored K x M (as it is).
  const cublasOperation_t ta = b_kmajor ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = a_kmajor ? CUBLAS_OP_N : CUBLAS_OP_T;
  const uint32_t epi = epilogue;
  if (!(st = set(CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta, "TRANSA")).ok() ||
      !(st = set(CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb, "TRANSB")).ok() ||
      !(st = set(CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi, "EPILOGUE")).ok())
    return st;
  if (p.bias != Bias::none) {
    // One vector for every product: BIAS_BATCH_STRIDE stays 0. The heuristic reads the pointer's
    // alignment, so the bias is in the descriptor before it is asked.
    const void* bias = x.bias;
    const cudaDataType_t bt = cuda_type(*p.bias_type);
    if (!(st = set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias, "BIAS_POINTER")).ok() ||
        !(st = set(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt, "BIAS_DATA_TYPE")).ok())
      return st;
  }
  const int32_t count = int32_t(p.batch);
  auto layout = [&](cublasLtMatrixLayout_t* l, DType t, int64_t rows, int64_t cols, int64_t ld, int64_t stride) {
    Status ls = lt_status(cublasLtMatrixLayoutCreate(l, cuda_type(t), uint64_t(rows), uint64_t(cols), ld),
                          "cublasLtMatrixLayoutCreate");
    if (ls.ok() && p.batch > 1) {  // a 0 stride: the same matrix for every product
      if ((ls = lt_status(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
                          "BATCH_COUNT")).ok())
        ls = lt_status(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
                       "STRIDED_BATCH_OFFSET");
    }
    return ls;
  };
  const bool c_apart = p.reads_c() && !c_in_place(p, x);
  if (!(st = layout(&s->a, p.b_type, b_kmajor ? p.k : p.n, b_kmajor ? p.n : p.k, p.ldb, p.stride_b)).ok() ||
      !(st = layout(&s->b, p.a_type, a_kmajor ? p.k : p.m, a_kmajor ? p.m : p.k, p.lda, p.stride_a)).ok() ||
      !(st = layout(&s->d, p.d_type, p.n, p.m, p.ldd, p.stride_d)).ok() ||
      (c_apart && !(st = layout(&s->c, *p.c_type, p.n, p.m, p.ldc, p.stride_c)).ok()))
    return st;
  if (!(st = lt_status(cublasLtMatmulPreferenceCreate(&s->pref), "cublasLtMatmulPreferenceCreate")).ok()) return st;
  const uint64_t ws = kPeerWorkspaceBytes;
  const uint32_t reductions = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;  // (and none)
  // Every product's matrix, not only the first: a batch stride of an odd number of 16-bit elements
  // leaves products 2-byte aligned (candidates that assumed the base's 16 bytes faulted on the
  // H200 with "misaligned address" in a fuzz run).
  auto al = [&](const void* ptr, int64_t stride, DType t) {
    uint32_t a = address_alignment(ptr);
    if (p.batch > 1 && stride != 0)
      a = std::min(a, address_alignment(reinterpret_cast<const void*>(uintptr_t(stride) * uintptr_t(dtype_bytes(t)))));
    return a;
  };
  const uint32_t al_a = al(x.b, p.stride_b, p.b_type), al_b = al(x.a, p.stride_a, p.a_type), al_d = al(x.d, p.stride_d, p.d_type);
  const uint32_t al_c = c_apart ? al(x.c, p.stride_c, *p.c_type) : al_d;
  cublasLtMatmulPreferenceSetAttribute(s->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  cublasLtMatmulPreferenceSetAttribute(s->pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &reductions, sizeof reductions);
  cublasLtMatmulPreferenceSetAttribute(s->pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &al_a, sizeof al_a);
  cublasLtMatmulPreferenceSetAttribute(s->pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &al_b, sizeof al_b);
  cublasLtMatmulPreferenceSetAttribute(s->pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &al_c, sizeof al_c);
  cublasLtMatmulPreferenceSetAttribute(s->pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &al_d, sizeof al_d);
  return Status::success();
}

// No cuBLASLt algorithm: cublasGemmEx where it computes the problem, else a refusal that says why.
Status without_algorithm(const Problem& p, const Operands& x, cudaStream_t s) {
  if (gemm_ex_computes(p, x)) return launch_cublas(p, x, s);
  std::string what;
  if (p.bias != Bias::none) what += std::string(" bias ") + to_string(*p.bias_type);
  if (p.activation != Activation::none) what += std::string(" ") + to_string(p.activation);
  if (p.reads_c() && !c_in_place(p, x)) what += std::string(" C apart (") + to_string(*p.c_type) + ")";
  std::string note;
  if (p.bias != Bias::none && *p.bias_type != p.d_type)
    note = "; cuBLASLt documents a bias in D's type only";
  return Status::error(StatusCode::not_supported,
                       std::string("cuBLASLt has no algorithm for this ") + to_string(p.d_type) + " D with" + what +
                           " (cublasGemmEx takes no epilogue and C only in place)" + note);
}

// A device buffer for prepare's timing, freed with it.
struct DeviceBuffer {
  void* base = nullptr;
  void release() {
    if (base) cudaFree(base);
    base = nullptr;
  }
  ~DeviceBuffer() { release(); }
};

// prepare's timing operands. A problem whose bytes the L2 could hold is timed over copies of
// it, rotated past twice the L2 as bench rotates its buffer sets (up to 512 of them), so the
// candidates are ranked as bench times them, each launch on cold operands: timed on the caller's
// one (L2-warm) set, 428x755x442 BF16 kept a heuristic candidate that bench then timed 1.2x behind
// cublasGemmEx. A larger problem is timed on the caller's A, B (and C apart) with a
// scratch D. Every copy sits at its original's offset from a 256-byte boundary (the same
// alignment, so the same candidates run). D: scratch, holding the caller's D where C is D.
struct TimingSets {
  DeviceBuffer mem;
  std::vector<Operands> ops;  // empty: no room (nothing timed)
  Status make(const Problem& p, const Operands& x, bool c_apart, cudaStream_t s) {
    const size_t a = view_a(p).batch_bytes(p.batch, p.a_type), b = view_b(p).batch_bytes(p.batch, p.b_type);
    const size_t d = view_d(p).batch_bytes(p.batch, p.d_type);
    const size_t c = c_apart ? view_c(p).batch_bytes(p.batch, *p.c_type) : 0;
    const double set_bytes = double(a + b + c + d), l2 = double(device_info().l2_bytes);
    const int copies = set_bytes < l2 ? std::min(512, int(std::ceil(2 * l2 / set_bytes))) : 0;
    return copies && allocate(copies, a, b, c, d) ? fill(p, x, c_apart, copies, a, b, c, d, s)
           : allocate(0, a, b, c, d)              ? fill(p, x, c_apart, 0, a, b, c, d, s)
                                                  : Status::success();
  }

 private:
  // Room for a buffer at any offset from a 256-byte boundary.
  static size_t room(size_t bytes) { return (bytes + 511) / 256 * 256; }
  bool allocate(int copies, size_t a, size_t b, size_t c, size_t d) {
    const size_t per_set = copies ? room(a) + room(b) + room(c) + room(d) : room(d);
    if (cudaMalloc(&mem.base, per_set * size_t(std::max(copies, 1))) == cudaSuccess) return true;
    cudaGetLastError();
    mem.base = nullptr;
    return false;
  }
  // copies 0: one set, the caller's A, B and C with the scratch D.
  Status fill(const Problem& p, const Operands& x, bool c_apart, int copies, size_t a, size_t b, size_t c, size_t d,
              cudaStream_t s) {
    char* at = static_cast<char*>(mem.base);
    auto place = [&](const void* like, size_t bytes) {
      char* q = at + reinterpret_cast<uintptr_t>(like) % 256;
      at += room(bytes);
      return q;
    };
    Status st;
    auto copy = [&](const void* dst, const void* src, size_t bytes) {
      if (st.ok())
        st = cuda_status(cudaMemcpyAsync(const_cast<void*>(dst), src, bytes, cudaMemcpyDeviceToDevice, s),
                         "cudaMemcpyAsync(cuBLASLt timing set)");
    };
    const bool c_is_d = p.reads_c() && !c_apart;
    for (int i = 0; i < std::max(copies, 1); ++i) {
      Operands o = x;
      if (copies) {
        copy(o.a = place(x.a, a), x.a, a);
        copy(o.b = place(x.b, b), x.b, b);
        if (c) copy(o.c = place(x.c, c), x.c, c);
      }
      o.d = place(x.d, d);
      if (c_is_d) copy(o.c = o.d, x.d, d);  // the candidates read real values as C
      if (!st.ok()) return st;
      ops.push_back(o);
    }
    return st;
  }
};

}  // namespace

// The launcher of the cublaslt_* registry entries (cublas_peer.cpp registers them).
// A problem beyond the plain GEMM (C, an epilogue, a batch) whose rows (or products) are not all
// 16-byte aligned: on the H200 cuBLASLt candidates for two such bf16 problems faulted with
// "misaligned address" and took the CUDA context with them (44x226x7, ldd 45, batch 3: fuzz,
// fuzz; 16x130x8 NN, ldd 137, beta 0.5 with C apart, relu: fuzz), so such a
// problem never reaches cuBLASLt: cublasGemmEx or (auto's fallback) our kernels run it.
bool rows_aligned_for_lt(const Problem& p, const Operands& x) {
  if (p.plain()) return true;
  auto al16 = [](uint64_t bytes) { return bytes % 16 == 0; };
  const uint64_t ea = dtype_bytes(p.a_type), eb = dtype_bytes(p.b_type), ed = dtype_bytes(p.d_type);
  const bool batched = p.batch > 1;  // the batch strides count only then
  bool ok = al16(uint64_t(p.lda) * ea) && al16(uint64_t(p.ldb) * eb) && al16(uint64_t(p.ldd) * ed) &&
            (!batched || (al16(uint64_t(p.stride_a) * ea) && al16(uint64_t(p.stride_b) * eb) &&
                          al16(uint64_t(p.stride_d) * ed))) &&
            address_alignment(x.a) >= 16 && address_alignment(x.b) >= 16 && address_alignment(x.d) >= 16;
  if (p.reads_c() && !c_in_place(p, x)) {
    const uint64_t ec = dtype_bytes(*p.c_type);
    ok = ok && al16(uint64_t(p.ldc) * ec) && (!batched || al16(uint64_t(p.stride_c) * ec)) &&
         address_alignment(x.c) >= 16;
  }
  return ok;
}

namespace {

std::string algo_bytes(const cublasLtMatmulAlgo_t& a) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  const auto* b = reinterpret_cast<const unsigned char*>(&a);
  for (size_t i = 0; i < sizeof a; ++i) out += hex[b[i] >> 4], out += hex[b[i] & 15];
  return out;
}
bool algo_from(const std::string& hex, cublasLtMatmulAlgo_t* a) {
  if (hex.size() != 2 * sizeof *a) return false;
  auto nib = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
  auto* b = reinterpret_cast<unsigned char*>(a);
  for (size_t i = 0; i < sizeof *a; ++i) {
    const int hi = nib(hex[2 * i]), lo = nib(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    b[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return true;
}

// One thread's plan for a key: the descriptors (made once: a call then only sets the bias pointer)
// and the choice it resolved, with the generation it was resolved at.
struct Plan {
  Descs d;
  Chosen chosen;
  uint64_t generation = 0;
};

// The choice for a key, in this order: the shared one (lt_prepare's timing, or an earlier call's);
// a stored algorithm of a loaded or shipped table's entry for the problem's bucket, where cuBLASLt
// takes it for this problem (cublasLtMatmulAlgoCheck); the heuristic's first candidate. Host work
// only (no launch, no synchronization): safe inside a capture. Kept shared, so every thread, and
// every later call, runs the same algorithm for the key.
Status resolve(cublasLtHandle_t h, const Key& key, const Problem& p, const Operands& x, Plan* plan) {
  Choices& c = choices();
  const uint64_t gen = c.generation.load();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    if (auto it = c.by_key.find(key); it != c.by_key.end()) {
      plan->chosen = it->second;
      plan->generation = gen;
      return Status::success();
    }
  }
  Chosen chosen;
  const DeviceInfo& dev = device_info();
  const TuneKey tk = tune_key(p, dev.name, x.a, x.b, x.d);
  for (const TuneTable& t : tune_tables()->tables) {
    const TuneEntry* e = t.find(tk);
    cublasLtMatmulAlgo_t algo;
    if (!e || e->lt_algo.empty() || !algo_from(e->lt_algo, &algo)) continue;
    cublasLtMatmulHeuristicResult_t r{};
    if (cublasLtMatmulAlgoCheck(h, plan->d.op, plan->d.a, plan->d.b, plan->d.c_or_d(), plan->d.d, &algo, &r) ==
            CUBLAS_STATUS_SUCCESS &&
        r.state == CUBLAS_STATUS_SUCCESS && r.workspaceSize <= kPeerWorkspaceBytes) {
      chosen.algo = algo;
      chosen.workspace = r.workspaceSize;
    }
    break;  // the first table that holds the bucket decides, as for auto's choice
  }
  if (!chosen.algo) {
    cublasLtMatmulHeuristicResult_t cand[kCandidates] = {};
    int found = 0;
    const cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(h, plan->d.op, plan->d.a, plan->d.b, plan->d.c_or_d(),
                                                             plan->d.d, plan->d.pref, kCandidates, cand, &found);
    if (hs != CUBLAS_STATUS_SUCCESS && hs != CUBLAS_STATUS_NOT_SUPPORTED)
      return lt_status(hs, "cublasLtMatmulAlgoGetHeuristic");
    for (int i = 0; hs == CUBLAS_STATUS_SUCCESS && i < found && !chosen.algo; ++i)
      if (cand[i].state == CUBLAS_STATUS_SUCCESS) chosen.algo = cand[i].algo, chosen.workspace = cand[i].workspaceSize;
  }
  std::lock_guard<std::mutex> lock(c.mu);
  plan->chosen = c.by_key.emplace(key, chosen).first->second;  // another thread's, if it came first
  plan->generation = gen;
  return Status::success();
}

// This thread's plan for p, resolved for the current generation.
Status thread_plan(cublasLtHandle_t h, int dev, const Problem& p, const Operands& x, Plan** out) {
  thread_local std::map<Key, std::unique_ptr<Plan>> plans;
  const Key key = make_key(dev, p, x);
  std::unique_ptr<Plan>& plan = plans[key];
  if (!plan) {
    auto made = std::make_unique<Plan>();
    if (Status st = describe_problem(p, x, &made->d); !st.ok()) {
      plans.erase(key);
      return st;
    }
    plan = std::move(made);
  }
  if (plan->generation != choices().generation.load())
    if (Status st = resolve(h, key, p, x, plan.get()); !st.ok()) return st;
  *out = plan.get();
  return Status::success();
}

Status plan_for(const Problem& p, const Operands& x, cublasLtHandle_t* h, Plan** plan) {
  int dev = 0;
  Status st = cuda_status(cudaGetDevice(&dev), "cudaGetDevice");
  if (st.ok()) st = thread_handle(dev, h);
  if (st.ok()) st = thread_plan(*h, dev, p, x, plan);
  return st;
}

}  // namespace

// The call path: no timing, no synchronization, no allocation (the scratch is the caller's, or the
// library's made capture-safe): a graph can capture it on any stream in any mode.
Status launch_cublaslt(const Problem& p, const Operands& x, cudaStream_t s) {
  if (!rows_aligned_for_lt(p, x)) return without_algorithm(p, x, s);
  cublasLtHandle_t handle = nullptr;
  Plan* plan = nullptr;
  Status st = plan_for(p, x, &handle, &plan);
  if (!st.ok()) return st;
  if (!plan->chosen.algo) return without_algorithm(p, x, s);
  Scratch ws;
  if (!(st = call_scratch(x, s, 0, plan->chosen.workspace, &ws)).ok()) return st;
  if (p.bias != Bias::none) {  // the descriptor is this thread's: the call's own bias pointer
    const void* bias = x.bias;
    if (!(st = lt_status(cublasLtMatmulDescSetAttribute(plan->d.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias),
                         "BIAS_POINTER")).ok())
      return st;
  }
  const Scalars sc(p.acc_type, p.alpha, p.beta);
  const bool c_apart = p.reads_c() && !c_in_place(p, x);
  return lt_status(cublasLtMatmul(handle, plan->d.op, sc.alpha(), x.b, plan->d.a, x.a, plan->d.b, sc.beta(),
                                  c_apart ? x.c : x.d, plan->d.c_or_d(), x.d, plan->d.d, &*plan->chosen.algo, ws.data,
                                  plan->chosen.workspace, s),
                   "cublasLtMatmul");
}

size_t cublaslt_workspace(const Problem& p, const Operands& x) {
  if (!rows_aligned_for_lt(p, x)) return gemm_ex_computes(p, x) ? scratch_bytes(0, kPeerWorkspaceBytes) : 0;
  cublasLtHandle_t handle = nullptr;
  Plan* plan = nullptr;
  if (!plan_for(p, x, &handle, &plan).ok()) return 0;
  if (!plan->chosen.algo) return gemm_ex_computes(p, x) ? scratch_bytes(0, kPeerWorkspaceBytes) : 0;
  return scratch_bytes(0, plan->chosen.workspace);
}

void forget_untimed_peer_choices() {
  Choices& c = choices();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    for (auto it = c.by_key.begin(); it != c.by_key.end();) it = it->second.timed ? std::next(it) : c.by_key.erase(it);
  }
  ++c.generation;
}

void forget_peer_choices() {
  Choices& c = choices();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    c.by_key.clear();
  }
  ++c.generation;
}

bool lt_algo_from_bytes(const std::string& bytes) {
  cublasLtMatmulAlgo_t a;
  return algo_from(bytes, &a);
}

// Measuring, ahead of time: each of the heuristic's candidates (those that fail drop out) and
// cublasGemmEx run once and are timed alone once; then rounds in which every candidate runs a group
// of back-to-back launches (about 50 us of them) behind a stream hold, so a few-microsecond
// candidate is timed without the host's launch gaps or the events' ~0.5 us resolution; the least
// median time per launch wins. Timed one launch at a time, the choice of a 5-10 us shape changed
// from process to process. Launches take the timing sets in turn, as bench's do.
Status lt_prepare(const Problem& p, const Operands& x, cudaStream_t s, std::string* algo_out) {
  if (algo_out) algo_out->clear();
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(s, &capturing) == cudaSuccess && capturing != cudaStreamCaptureStatusNone)
    return Status::error(StatusCode::invalid_argument, "prepare() times candidates: not inside a graph capture");
  if (!rows_aligned_for_lt(p, x)) return Status::success();  // cuBLASLt never runs it (without_algorithm)
  cublasLtHandle_t handle = nullptr;
  Plan* plan = nullptr;
  Status st = plan_for(p, x, &handle, &plan);
  if (!st.ok()) return st;
  Descs& d = plan->d;
  cublasLtMatmulHeuristicResult_t cand[kCandidates] = {};
  int found = 0;
  const cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(handle, d.op, d.a, d.b, d.c_or_d(), d.d, d.pref, kCandidates,
                                                           cand, &found);
  if (hs != CUBLAS_STATUS_SUCCESS && hs != CUBLAS_STATUS_NOT_SUPPORTED) return lt_status(hs, "cublasLtMatmulAlgoGetHeuristic");
  if (hs != CUBLAS_STATUS_SUCCESS) found = 0;
  const bool c_apart = p.reads_c() && !c_in_place(p, x);
  TimingSets sets;
  if (!(st = sets.make(p, x, c_apart, s)).ok()) return st;
  if (sets.ops.empty()) return Status::error(StatusCode::cuda_error, "prepare(): no device memory for cuBLASLt's timing");
  Scratch ws;  // the candidates' workspace, the library's buffer for this stream (outside any capture)
  if (!(st = call_scratch(Operands{}, s, 0, kPeerWorkspaceBytes, &ws)).ok()) return st;
  if (p.bias != Bias::none) {
    const void* bias = x.bias;
    cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
  }
  const Scalars sc(p.acc_type, p.alpha, p.beta);
  const int n_cand = found + (gemm_ex_computes(p, x) ? 1 : 0);  // i == found: cublasGemmEx
  size_t next_set = 0;
  const auto run_candidate = [&](int i) {
    const Operands& o = sets.ops[next_set++ % sets.ops.size()];
    if (i == found) return launch_cublas(p, o, s).ok();
    return cublasLtMatmul(handle, d.op, sc.alpha(), o.b, d.a, o.a, d.b, sc.beta(), c_apart ? o.c : o.d, d.c_or_d(), o.d,
                          d.d, &cand[i].algo, ws.data, kPeerWorkspaceBytes, s) == CUBLAS_STATUS_SUCCESS;
  };
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const auto time_group = [&](int i, int group, float* ms) {
    StreamHold hold;
    const bool held = hold.hold(s).ok();
    cudaEventRecord(e0, s);
    bool ok = true;
    for (int g = 0; g < group && ok; ++g) ok = run_candidate(i);
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
  for (int i = 0; i < n_cand; ++i) {
    float ms = 0;
    if ((i < found && cand[i].state != CUBLAS_STATUS_SUCCESS) || !run_candidate(i) || !time_group(i, 1, &ms)) continue;
    timed.push_back({i, std::clamp(int(std::ceil(0.05f / std::max(ms, 1e-4f))), 1, 32), {}});
  }
  for (int round = 0; round < 5; ++round)
    for (Timed& t : timed) {
      float ms = 0;
      if (time_group(t.index, t.group, &ms)) t.ms.push_back(ms);
    }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaGetLastError();
  int best = -1;
  float best_ms = 0;
  for (Timed& t : timed) {
    if (t.ms.empty()) continue;
    std::sort(t.ms.begin(), t.ms.end());
    const float med = t.ms[t.ms.size() / 2];
    if (best < 0 || med < best_ms) best = t.index, best_ms = med;
  }
  sets.mem.release();  // (cudaFree waits for the timing runs)
  // GemmEx timed fastest -- or every candidate refused to run (seen on the H200: bf16, a batch of 3
  // with a broadcast operand, K = 7, C apart, ReLU): no algorithm, which runs GemmEx where it
  // computes the problem.
  Chosen chosen;
  chosen.timed = true;
  if (best >= 0 && best < found) {
    chosen.algo = cand[best].algo;
    chosen.workspace = cand[best].workspaceSize;
    if (algo_out) *algo_out = algo_bytes(cand[best].algo);
  }
  int dev = 0;
  cudaGetDevice(&dev);
  Choices& c = choices();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    c.by_key[make_key(dev, p, x)] = chosen;
  }
  ++c.generation;
  return Status::success();
}

}  // namespace pipegemm::detail
