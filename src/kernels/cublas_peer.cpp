// Entry 0 of the registry: cuBLAS (cublasGemmEx) as the peer every kernel is measured against,
// and a candidate auto may choose. Any layout, any shape cuBLAS takes; the same buffers as our
// kernels. Reduced-precision split-K reductions (partial sums in fp16 / bf16) are disallowed:
// with them cuBLAS's default math put bf16 results 10-40x past the bf16 tolerance (fuzz, H200,
// bench/results/2026-12-01_h200_dispatch_tune.log), and auto must be as exact as our kernels.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/cublas_types.hpp"
#include "pipegemm/registry.hpp"
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

// D (M,N) = A (M,K) * B (N,K)^T in cuBLAS's column-major terms.
Status launch_cublas(const Problem& p, const void* A, const void* B, void* D, cudaStream_t s) {
  Status err;
  cublasHandle_t h = handle(&err);
  if (!err.ok()) return err;
  if (const cublasStatus_t ss = cublasSetStream(h, s); ss != CUBLAS_STATUS_SUCCESS)
    return Status::error(StatusCode::cuda_error, std::string("cublasSetStream: ") + cublasGetStatusString(ss));
  const bool a_kmajor = p.a_layout == Layout::RowMajor;
  const bool b_kmajor = p.b_layout == Layout::RowMajor;
  const cublasComputeType_t ct = compute_type(p.acc_type);
  const Scalars sc;
  const void* alpha = sc.one(p.acc_type);
  const void* beta = sc.zero(p.acc_type);
  cublasStatus_t st;
  if (p.d_layout == Layout::RowMajor) {
    // D^T (N,M) col-major = B (N,K) * A^T (K,M)
    st = cublasGemmEx(h, b_kmajor ? CUBLAS_OP_T : CUBLAS_OP_N, a_kmajor ? CUBLAS_OP_N : CUBLAS_OP_T,
                      int(p.n), int(p.m), int(p.k), alpha, B, cuda_type(p.b_type), int(p.ldb), A,
                      cuda_type(p.a_type), int(p.lda), beta, D, cuda_type(p.d_type), int(p.ldd), ct,
                      CUBLAS_GEMM_DEFAULT);
  } else {
    // D (M,N) col-major = A (M,K) * B^T (K,N)
    st = cublasGemmEx(h, a_kmajor ? CUBLAS_OP_T : CUBLAS_OP_N, b_kmajor ? CUBLAS_OP_N : CUBLAS_OP_T,
                      int(p.m), int(p.n), int(p.k), alpha, A, cuda_type(p.a_type), int(p.lda), B,
                      cuda_type(p.b_type), int(p.ldb), beta, D, cuda_type(p.d_type), int(p.ldd), ct,
                      CUBLAS_GEMM_DEFAULT);
  }
  if (st != CUBLAS_STATUS_SUCCESS)
    return Status::error(StatusCode::cuda_error,
                         std::string("cublasGemmEx: ") + cublasGetStatusString(st));
  return Status::success();
}

namespace {

Variant peer(const char* name, const char* family, LaunchFn launch, DType in, DType acc, DType out) {
  Variant v;
  v.name = name;
  v.family = family;
  v.rung = -1;
  v.min_sm = 80;
  v.a_type = v.b_type = in;
  v.acc_type = acc;
  v.d_type = out;
  v.req.any_layout = true;
  if (in == DType::i8) {  // cuBLAS IMMA: 4-byte aligned pointers, leading dimensions and K
    v.req.ptr_align_bytes = 4;
    v.req.ld_multiple = 4;
    v.req.k_multiple = 4;  // K = 191, 231, 695, 1545 with 4-byte pointers: "not supported" (fuzz, H200)
  }
  v.launch = launch;
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
