// What both cuBLAS peers (cublas_peer.cpp, cublaslt_peer.cpp) say alike: our element types as
// CUDA data types, the compute type for an accumulation type, and alpha = 1 / beta = 0 in the
// scale type that compute type takes.
#pragma once

#include <cublas_v2.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

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

// The scale type of compute_type(acc), and alpha = 1 / beta = 0 in it.
struct Scalars {
  __half h1 = __float2half(1.f), h0 = __float2half(0.f);
  float f1 = 1.f, f0 = 0.f;
  int32_t i1 = 1, i0 = 0;
  static cudaDataType_t type(DType acc) { return acc == DType::f16 ? CUDA_R_16F : acc == DType::i32 ? CUDA_R_32I : CUDA_R_32F; }
  const void* one(DType acc) const { return acc == DType::f16 ? (const void*)&h1 : acc == DType::i32 ? (const void*)&i1 : (const void*)&f1; }
  const void* zero(DType acc) const { return acc == DType::f16 ? (const void*)&h0 : acc == DType::i32 ? (const void*)&i0 : (const void*)&f0; }
};

// The launchers of the cublas_* and cublaslt_* entries (cublas_peer.cpp, cublaslt_peer.cpp).
Status launch_cublas(const Problem& p, const void* A, const void* B, void* D, cudaStream_t s);
Status launch_cublaslt(const Problem& p, const void* A, const void* B, void* D, cudaStream_t s);

}  // namespace pipegemm::detail
