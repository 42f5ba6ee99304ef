// Entry 0 of the registry: cuBLAS (cublasGemmEx, cublasGemmStridedBatchedEx for a batch) as the
// peer every kernel is measured against, and a candidate auto may choose. Any layout, any shape
// cuBLAS takes, alpha and beta with C in place; the same buffers as our kernels.
// Reduced-precision split-K reductions (partial sums in fp16 / bf16) are disallowed: with them
// cuBLAS's default math put bf16 results 10-40x past the bf16 tolerance (fuzz, H200; docs/dispatch.md),
// and auto must be as exact as our kernels.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/scratch.hpp"
#include "kernels/cublas_types.hpp"
#include "pipegemm/introspect/registry.hpp"
#include "registry/table.hpp"

namespace pipegemm::detail {
namespace {

struct ThreadHandles {
  std::map<int, cublasHandle_t> by_device;
  ~ThreadHandles() { HandlePool<cublasHandle_t>::get().give_back(by_device); }
};

cublasHandle_t handle(Status* err) {
  int dev = 0;
  if (const cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess) {
    cudaGetLastError();
    *err = Status::error(StatusCode::cuda_error, std::string("cudaGetDevice: ") + cudaGetErrorString(e));
    return nullptr;
  }
  thread_local ThreadHandles mine;
  cublasHandle_t& h = mine.by_device[dev];
  if (h) return h;
  if ((h = HandlePool<cublasHandle_t>::get().take(dev))) return h;
  RelaxedCapture relaxed;  // a first call may come inside a capture: cublasCreate allocates
  cublasStatus_t st = cublasCreate(&h);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasSetMathMode(h, cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
  if (st != CUBLAS_STATUS_SUCCESS) {
    if (h) cublasDestroy(h);
    h = nullptr;
    *err = Status::error(StatusCode::cuda_error, std::string("cublasCreate failed: ") + cublasGetStatusString(st));
  }
  return h;
}

}  // namespace

// D = alpha * A B^T + beta * D per product, in cuBLAS's column-major terms: the row-major D
// (M,N) is the column-major D^T (N,M) = B A^T, so B is cuBLAS's "A". GemmEx has one C, updated in
// place: a C apart from D never reaches it (c_apart = false in peer()).
Status launch_cublas(const Problem& p, const Operands& x, cudaStream_t s) {
  if (p.d_layout != Layout::RowMajor || !gemm_ex_computes(p, x))
    return Status::error(StatusCode::not_supported,
                         "cublasGemmEx computes alpha * A B^T + beta * D into a row-major D: no bias, activation or C apart");
  if (p.lda > INT32_MAX || p.ldb > INT32_MAX || p.ldd > INT32_MAX)
    return Status::error(StatusCode::not_supported, "cublasGemmEx takes leading dimensions below 2^31");
  Status err;
  cublasHandle_t h = handle(&err);
  if (!err.ok()) return err;
  // The call's scratch as cuBLAS's workspace (torch does the same): cuBLAS then allocates nothing
  // per stream, so a capture never sees an allocation of its own.
  Scratch ws;
  if (Status st = call_scratch(x, s, 0, kPeerWorkspaceBytes, &ws); !st.ok()) return st;
  if (const cublasStatus_t ss = cublasSetStream(h, s); ss != CUBLAS_STATUS_SUCCESS)
    return Status::error(StatusCode::cuda_error, std::string("cublasSetStream: ") + cublasGetStatusString(ss));
  if (const cublasStatus_t ss = cublasSetWorkspace(h, ws.data, kPeerWorkspaceBytes); ss != CUBLAS_STATUS_SUCCESS)
    return Status::error(StatusCode::cuda_error, std::string("cublasSetWorkspace: ") + cublasGetStatusString(ss));
  const cublasOperation_t tb = p.b_layout == Layout::RowMajor ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t ta = p.a_layout == Layout::RowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasComputeType_t ct = compute_type(p.acc_type);
  const Scalars sc(p.acc_type, p.alpha, p.beta);
  cublasStatus_t st;
  if (p.batch == 1) {  // GemmEx itself: a plain problem runs what it always ran
    st = cublasGemmEx(h, tb, ta, int(p.n), int(p.m), int(p.k), sc.alpha(), x.b, cuda_type(p.b_type), int(p.ldb), x.a,
                      cuda_type(p.a_type), int(p.lda), sc.beta(), x.d, cuda_type(p.d_type), int(p.ldd), ct,
                      CUBLAS_GEMM_DEFAULT);
  } else {  // a 0 stride broadcasts (cuBLAS takes stride 0 for its A and B; D's products are apart)
    st = cublasGemmStridedBatchedEx(h, tb, ta, int(p.n), int(p.m), int(p.k), sc.alpha(), x.b, cuda_type(p.b_type),
                                    int(p.ldb), p.stride_b, x.a, cuda_type(p.a_type), int(p.lda), p.stride_a,
                                    sc.beta(), x.d, cuda_type(p.d_type), int(p.ldd), p.stride_d, int(p.batch), ct,
                                    CUBLAS_GEMM_DEFAULT);
  }
  // NOT_SUPPORTED launched nothing (int8 wants leading dimensions and pointers cuBLAS can vector-load,
  // found by fuzz): a refusal, so auto's call falls back to our kernels (GemmCall::launch).
  if (st != CUBLAS_STATUS_SUCCESS)
    return Status::error(st == CUBLAS_STATUS_NOT_SUPPORTED ? StatusCode::not_supported : StatusCode::cuda_error,
                         std::string(p.batch == 1 ? "cublasGemmEx: " : "cublasGemmStridedBatchedEx: ") +
                             cublasGetStatusString(st));
  return Status::success();
}

namespace {

// cuBLAS 13.1 on the H200 (driver 580.159), 16-bit A and B, every D type, cublasGemmEx and
// cuBLASLt alike: wrong sums -- short by about 8 products (errors ~3 on values ~50) -- for K =
// 15368, 16136 and 20488 with M x N from 1 x 32 to 128 x 128 (and 8 x 256); right for K = 4104,
// 8200, 12296, 13320, 14344, 15880, 16392, 24584, 32776 (K = 8 mod 16 as well), for 16128, 16140,
// 16144, and for 1024 x 1024 x 16136 (fuzz then verify: bench/results/evidence/
// cublas_wrong_sums_k_probe_h200.log). A later fuzz found one more below K = 15000: 24x40x13448,
// bf16 in, f32 out, cuBLASLt as auto's choice. The pattern inside is not known and single right
// probes prove little, so the envelope starts well below every failure seen: K = 8 mod 16,
// K >= 8192, M N <= 512 x 512. auto runs one of ours there (k5's f32-out form verified on
// 8x32x16136).
const char* short_sums_at_k_8_mod_16(const Problem& p) {
  if (p.k % 16 == 8 && p.k >= 8192 && p.m * p.n <= 512 * 512)
    return "cuBLAS 13.1 returned wrong sums on the H200 for K = 8 mod 16 from K = 13448 with M N <= 512 x 512 "
           "(e.g. 8x32x16136, 24x40x13448): refused from K = 8192";
  return nullptr;
}

size_t cublas_workspace(const Problem&, const Operands&) { return scratch_bytes(0, kPeerWorkspaceBytes); }
Status cublaslt_prepare(const Problem& p, const Operands& x, cudaStream_t_ s, std::string* state) {
  return lt_prepare(p, x, reinterpret_cast<cudaStream_t>(s), state);
}

Variant peer(const char* name, const char* family, LaunchFn launch, DType in, DType acc, DType out) {
  Variant v;
  v.name = name;
  v.family = family;
  v.rung = -1;
  v.min_sm = 80;
  v.a_type = v.b_type = in;
  v.acc_type = acc;
  v.d_type = out;
  Requirements& r = v.req;
  r.a_mn_major = r.b_mn_major = true;
  r.scale = true;  // alpha, beta in the compute type's scale type (Scalars)
  r.batch = true;  // strided batch; a 0 stride broadcasts
  // cublasGemmEx has one C, D itself (c_apart false), and no epilogue. cuBLASLt:
  if (launch == &launch_cublaslt) {
    // A C descriptor of its own (pointer, ldc, stride) -- but not for an integer GEMM (int32
    // compute): there its heuristic candidates returned wrong int32 sums for a C apart on the H200
    // (6 of 242 runs in a fuzz of 1,000 int8 problems: NN / NT / TT, C with its own
    // ldc, wrong from the 17th row or column on, e.g. 400x80x192 NT alpha 3 beta 2 ldc 128 ldd
    // 144), so it reads C only in place, as cublasGemmEx does, and auto runs one of ours.
    r.c_apart = acc != DType::i32;
    // c_f32 stays false: cuBLASLt's C has D's type for every non-fp8 type set (an f32 D's C is f32).
    if (out != DType::i32) {  // an int32 D takes no epilogue (validate_problem; cuBLASLt's IMMA neither)
      // The bias runs along the rows of cuBLASLt's D, the column-major D^T: our columns. A per-row
      // bias would need CUBLASLT_ORDER_ROW for D, where cuBLASLt has no bias or activation epilogue.
      r.bias_per_col = true;
      // cuBLASLt's GELU is the tanh approximation; there is no erf form.
      r.activations = (1u << int(Activation::relu)) | (1u << int(Activation::gelu_tanh));
    }
  }
  if (in == DType::f16 || in == DType::bf16) v.known_wrong = &short_sums_at_k_8_mod_16;
  if (in == DType::i8) {  // cuBLAS IMMA: 4-byte aligned pointers, leading dimensions and K
    r.ptr_align_bytes = 4;
    r.ld_multiple = 4;
    r.k_multiple = 4;  // K = 191, 231, 695, 1545 with 4-byte pointers: "not supported" (fuzz, H200)
  }
  v.launch = launch;
  v.workspace = launch == &launch_cublaslt ? &cublaslt_workspace : &cublas_workspace;
  if (launch == &launch_cublaslt) v.prepare = &cublaslt_prepare;
  return v;
}

}  // namespace

// The table's peer lines (variants.def): cublasGemmEx, or cuBLASLt's timed best, with the
// line's types.
#define PIPEGEMM_CUBLAS(t)                                                   \
  void PIPEGEMM_REGISTER_FN(PIPEGEMM_NAME_CUBLAS(t))(std::vector<Variant> & out) { \
    out.push_back(peer(PIPEGEMM_STR(PIPEGEMM_NAME_CUBLAS(t)), "cublas", &launch_cublas, types::t::a, types::t::acc, types::t::d)); \
  }
#define PIPEGEMM_CUBLASLT(t)                                                   \
  void PIPEGEMM_REGISTER_FN(PIPEGEMM_NAME_CUBLASLT(t))(std::vector<Variant> & out) { \
    out.push_back(peer(PIPEGEMM_STR(PIPEGEMM_NAME_CUBLASLT(t)), "cublaslt", &launch_cublaslt, types::t::a, types::t::acc, types::t::d)); \
  }
#define PIPEGEMM_LINE(name)  // kernel lines: defined in their own translation units
#include "registry/table_lines.inc"
#undef PIPEGEMM_LINE
#undef PIPEGEMM_CUBLAS
#undef PIPEGEMM_CUBLASLT

}  // namespace pipegemm::detail
