// What both cuBLAS peers (cublas_peer.cpp, cublaslt_peer.cpp) say alike: our element types as
// CUDA data types, the compute type for an accumulation type, and alpha / beta in the scale type
// that compute type takes.
#pragma once

#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "core/dispatch.hpp"
#include "pipegemm/pipegemm.hpp"

namespace pipegemm::detail {

// Handles of exited threads, per device, for the next thread that needs one (never destroyed:
// at exit the context may already be gone). Both peers keep one handle per (device, thread): a
// handle belongs to the device current when it was made, and cublasSetStream on a handle shared
// by threads races with their calls. H: cublasHandle_t or cublasLtHandle_t.
template <class H>
class HandlePool {
 public:
  static HandlePool& get() {
    static HandlePool* p = new HandlePool;  // outlives every thread's handles
    return *p;
  }
  H take(int dev) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<H>& f = free_[dev];
    if (f.empty()) return nullptr;
    H h = f.back();
    f.pop_back();
    return h;
  }
  void give_back(const std::map<int, H>& by_device) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [dev, h] : by_device)
      if (h) free_[dev].push_back(h);
  }

 private:
  std::mutex mu_;
  std::map<int, std::vector<H>> free_;
};

inline cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::f16: return CUDA_R_16F;
    case DType::bf16: return CUDA_R_16BF;
    case DType::f32: return CUDA_R_32F;
    case DType::i8: return CUDA_R_8I;
    case DType::i32: return CUDA_R_32I;
  }
  return CUDA_R_32F;
}

// fp16 accumulation -> 16F, int32 -> 32I, else 32F (fp32 FFMA for fp32 inputs: no TF32).
inline cublasComputeType_t compute_type(DType acc) {
  return acc == DType::f16 ? CUBLAS_COMPUTE_16F : acc == DType::i32 ? CUBLAS_COMPUTE_32I : CUBLAS_COMPUTE_32F;
}

// alpha and beta in the scale type of compute_type(acc), on the host (both peers use cuBLAS's
// host pointer mode: the values are taken when the call is made). 16F takes half scalars, so an
// fp16-accumulating peer rounds alpha and beta to fp16 as cuBLAS's own HGEMM would; 32I takes
// int32 (an int32 D's alpha and beta are whole numbers: validate_problem), else float.
class Scalars {
 public:
  Scalars(DType acc, float alpha, float beta) : acc_(acc) {
    const float v[2] = {alpha, beta};
    for (int i = 0; i < 2; ++i) {
      h_[i] = __float2half(v[i]);
      f_[i] = v[i];
      // Clamped: validation admits |v| up to 2^31 (the float nearest INT32_MAX).
      i_[i] = v[i] >= 2147483647.f ? INT32_MAX : v[i] <= -2147483648.f ? INT32_MIN : int32_t(std::lrint(v[i]));
    }
  }
  static cudaDataType_t type(DType acc) { return acc == DType::f16 ? CUDA_R_16F : acc == DType::i32 ? CUDA_R_32I : CUDA_R_32F; }
  const void* alpha() const { return at(0); }
  const void* beta() const { return at(1); }

 private:
  const void* at(int i) const {
    return acc_ == DType::f16 ? (const void*)&h_[i] : acc_ == DType::i32 ? (const void*)&i_[i] : (const void*)&f_[i];
  }
  DType acc_;
  __half h_[2];
  float f_[2];
  int32_t i_[2];
};

// Whether cublasGemmEx (launch_cublas) computes p: no bias or activation, C in place or unread
// (c_in_place, core/dispatch.hpp: the only C GemmEx has, updated in place).
inline bool gemm_ex_computes(const Problem& p, const Operands& x) {
  return !p.has_epilogue() && (!p.reads_c() || c_in_place(p, x));
}

// The peers' workspace: what PyTorch gives cuBLAS and cuBLASLt on Hopper. cuBLASLt's heuristic is
// always asked with this budget, so its choice does not depend on the workspace a caller passes;
// an algorithm needs its own workspaceSize of it (cublaslt_workspace).
inline constexpr size_t kPeerWorkspaceBytes = size_t(32) << 20;

// The launchers of the cublas_* and cublaslt_* entries (cublas_peer.cpp, cublaslt_peer.cpp), and
// the caller's workspace each needs for p.
Status launch_cublas(const Problem& p, const Operands& x, cudaStream_t s);
Status launch_cublaslt(const Problem& p, const Operands& x, cudaStream_t s);
size_t cublaslt_workspace(const Problem& p, const Operands& x);

// cuBLASLt's choice for a problem made ahead of time (prepare(), `pipegemm tune`): each heuristic
// candidate and cublasGemmEx timed on scratch copies of x's operands (the first-use timing that
// used to run inside a call), the fastest kept for the problem's exact key. *algo receives the
// choice as bytes (tune tables store it), empty where cublasGemmEx won or no algorithm exists.
// Never inside a capture.
Status lt_prepare(const Problem& p, const Operands& x, cudaStream_t s, std::string* algo);
// Adopts a stored choice for problems of a tune bucket (a loaded table's entry): used for every
// problem whose exact key prepare() has not timed, where cuBLASLt accepts the algorithm for it
// (cublasLtMatmulAlgoCheck), else the heuristic's first candidate.
bool lt_algo_from_bytes(const std::string& bytes);  // well-formed (the size of cublasLtMatmulAlgo_t)

}  // namespace pipegemm::detail
