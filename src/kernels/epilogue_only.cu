// K = 0: D = act(beta C + bias), as torch computes an empty product (alpha A B^T is all zeros). One
// thread an element, grid-stride, the epilogue every kernel applies (kernels/common/epilogue.cuh),
// so the values match a K > 0 kernel's bit for bit where acc = 0.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/epilogue_only.hpp"
#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm/kernels/common/epilogue.cuh"

namespace pipegemm::detail {
namespace {

using kernels::common::EpilogueArgs;

template <class TD>
__device__ __forceinline__ TD from_float(float v) {
  if constexpr (std::is_same_v<TD, __half>) return __float2half_rn(v);
  else if constexpr (std::is_same_v<TD, __nv_bfloat16>) return __float2bfloat16_rn(v);
  else return TD(v);
}

template <class TD>
__global__ void epilogue_only_kernel(TD* d, int64_t ldd, int64_t stride_d, int64_t m, int64_t n, int64_t batch,
                                     EpilogueArgs e) {
  const int64_t total = batch * m * n;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = t % n, i = (t / n) % m, b = t / (n * m);
    const void* c = kernels::common::c_element<TD>(e, b, i, j);
    TD* out = d + b * stride_d + i * ldd + j;
    if constexpr (std::is_same_v<TD, int32_t>) {
      *out = kernels::common::epilogue_value_i32(0, e, c);
    } else {
      *out = from_float<TD>(kernels::common::activate(kernels::common::epilogue_linear<TD>(0.f, e, c, i, j), e.act));
    }
  }
}

template <class TD>
Status launch_as(const Problem& p, const Operands& x, cudaStream_t s) {
  const int64_t total = p.batch * p.m * p.n;
  const unsigned blocks = unsigned(std::min<int64_t>((total + 255) / 256, 4096));
  epilogue_only_kernel<TD><<<blocks, 256, 0, s>>>(static_cast<TD*>(x.d), p.ldd, p.batch > 1 ? p.stride_d : 0, p.m, p.n,
                                                  p.batch, kernels::common::epilogue_args(p, x));
  return cuda_status(cudaGetLastError(), "epilogue_only_kernel");
}

}  // namespace

Status launch_epilogue_only(const Problem& p, const Operands& x, cudaStream_t_ s_) {
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(s_);
  if (p.m == 0 || p.n == 0 || p.batch == 0) return Status::success();
  switch (p.d_type) {
    case DType::f16: return launch_as<__half>(p, x, s);
    case DType::bf16: return launch_as<__nv_bfloat16>(p, x, s);
    case DType::f32: return launch_as<float>(p, x, s);
    case DType::i32: return launch_as<int32_t>(p, x, s);
    default: break;
  }
  return Status::error(StatusCode::not_supported, std::string("K = 0: no D of type ") + to_string(p.d_type));
}

}  // namespace pipegemm::detail
