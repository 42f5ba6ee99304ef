// device_side.hpp: the fill kernel, the spin kernel and its host-mapped flag.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include <mutex>
#include <string>
#include <type_traits>

#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm_tools/bench/device_side.hpp"

namespace pipegemm::bench_detail {
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
    else if constexpr (std::is_same_v<T, __half>) out[i] = __float2half_rn(u);
    else if constexpr (std::is_same_v<T, __nv_bfloat16>) out[i] = __float2bfloat16_rn(u);
    else out[i] = u;
  }
}

template <class T>
Status fill_as(void* data, size_t n, uint64_t seed) {
  fill_kernel<T><<<1024, 256>>>(static_cast<T*>(data), n, seed);
  return detail::cuda_status(cudaGetLastError(), "fill kernel");
}

// flag[0]: the last ticket the host released (never reset, so a spin kernel that starts late,
// behind earlier work, still sees its own release); flag[1]: the ticket of a spin that gave up.
__global__ void spin_until_released(volatile unsigned* flag, unsigned ticket, long long max_cycles) {
  const long long t0 = clock64();
  while (int(flag[0] - ticket) < 0) {
    if (clock64() - t0 > max_cycles) {
      flag[1] = ticket;
      return;
    }
  }
}

struct Flag {
  unsigned* host = nullptr;
  unsigned* device = nullptr;
  unsigned next_ticket = 1;
  Status status;
};

Flag& flag() {
  static Flag f;
  static std::once_flag once;
  std::call_once(once, [] {
    f.status = detail::cuda_status(cudaHostAlloc(reinterpret_cast<void**>(&f.host), 2 * sizeof(unsigned), cudaHostAllocMapped),
                                   "cudaHostAlloc(stream hold flag)");
    if (f.status.ok())
      f.status = detail::cuda_status(cudaHostGetDevicePointer(reinterpret_cast<void**>(&f.device), f.host, 0),
                                     "cudaHostGetDevicePointer(stream hold flag)");
  });
  return f;
}

constexpr long long kMaxCycles = 400'000'000;  // ~200 ms at 2 GHz

}  // namespace

Status fill_uniform(void* data, size_t n, DType t, uint64_t seed) {
  switch (t) {
    case DType::f16: return fill_as<__half>(data, n, seed);
    case DType::bf16: return fill_as<__nv_bfloat16>(data, n, seed);
    case DType::f32: return fill_as<float>(data, n, seed);
    case DType::i8: return fill_as<int8_t>(data, n, seed);
    case DType::i32: break;
  }
  return Status::error(StatusCode::invalid_argument, std::string("no fill for ") + to_string(t) + " operands");
}

Status StreamHold::hold(cudaStream_t_ stream) {
  Flag& f = flag();
  if (!f.status.ok()) return f.status;
  if (f.next_ticket == 1) f.host[0] = f.host[1] = 0;
  ticket_ = f.next_ticket++;
  spin_until_released<<<1, 1, 0, reinterpret_cast<cudaStream_t>(stream)>>>(f.device, ticket_, kMaxCycles);
  Status s = detail::cuda_status(cudaGetLastError(), "stream hold kernel");
  holding_ = s.ok();
  return s;
}

bool StreamHold::release() {
  if (!holding_) return false;
  volatile unsigned* h = flag().host;
  h[0] = ticket_;
  holding_ = false;
  return h[1] != ticket_;  // a spin can only give up before its release
}

StreamHold::~StreamHold() { release(); }

}  // namespace pipegemm::bench_detail
