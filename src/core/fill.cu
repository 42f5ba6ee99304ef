// pipegemm/detail/fill.hpp: the fill kernel.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include <string>
#include <type_traits>

#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm/detail/fill.hpp"

namespace pipegemm::detail {
namespace {

__device__ uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class T>
__global__ void fill_kernel(T* out, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint64_t r = splitmix64(seed ^ (i * 0xd1342543de82ef95ull));
    const float u = float(r >> 40) * (2.0f / 16777216.0f) - 1.0f;  // 24 bits -> [-1, 1)
    if constexpr (std::is_same_v<T, int8_t>) out[i] = int8_t(r & 0xff);
    else if constexpr (std::is_same_v<T, int32_t>) out[i] = int32_t(int8_t(r & 0xff));  // a C of an int32 D
    else if constexpr (std::is_same_v<T, __half>) out[i] = __float2half_rn(u);
    else if constexpr (std::is_same_v<T, __nv_bfloat16>) out[i] = __float2bfloat16_rn(u);
    else out[i] = u;
  }
}

template <class T>
Status fill_as(void* data, size_t n, uint64_t seed, cudaStream_t s) {
  fill_kernel<T><<<1024, 256, 0, s>>>(static_cast<T*>(data), n, seed);
  return cuda_status(cudaGetLastError(), "fill kernel");
}

}  // namespace

Status fill_uniform(void* data, size_t n, DType t, uint64_t seed, cudaStream_t_ stream) {
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);
  switch (t) {
    case DType::f16: return fill_as<__half>(data, n, seed, s);
    case DType::bf16: return fill_as<__nv_bfloat16>(data, n, seed, s);
    case DType::f32: return fill_as<float>(data, n, seed, s);
    case DType::i8: return fill_as<int8_t>(data, n, seed, s);
    case DType::i32: return fill_as<int32_t>(data, n, seed, s);
  }
  return Status::error(StatusCode::invalid_argument, std::string("no fill for ") + to_string(t) + " operands");
}


}  // namespace pipegemm::detail
