// Traced builds only (cmake -DPIPEGEMM_TRACE=ON; CMakeLists.txt adds this file then): arming the
// kernel units that stamp (pipeline/trace.cuh keeps their list), and the SM clock the host converts
// clock64 with.
#include <cuda_runtime.h>

#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm/pipeline/trace.cuh"

namespace pipegemm::trace {

Status arm(Buffer* device_buffer, int* armed) {
  int n = 0;
  for (detail::ArmFn f : detail::units()) {
    Status s = pipegemm::detail::cuda_status(f(device_buffer), "arm the trace buffer");
    if (!s.ok()) return s;
    ++n;
  }
  if (armed) *armed = n;
  return Status::success();
}

namespace {

// One thread: clock64 and %globaltimer at the start, spin until `ns` have passed, both again.
__global__ void clock_rate_kernel(unsigned long long ns, unsigned long long* out) {
  const uint64_t c0 = arch::clock_cycles(), g0 = arch::globaltimer_ns();
  uint64_t g1 = g0, c1 = c0;
  while (g1 - g0 < ns) {
    c1 = arch::clock_cycles();
    g1 = arch::globaltimer_ns();
  }
  out[0] = c1 - c0;
  out[1] = g1 - g0;
}

}  // namespace

Status measure_clock_ghz(double* ghz, double ms) {
  unsigned long long* d = nullptr;
  unsigned long long h[2] = {0, 0};
  Status s = pipegemm::detail::cuda_status(cudaMalloc(&d, sizeof h), "cudaMalloc (clock rate)");
  if (!s.ok()) return s;
  clock_rate_kernel<<<1, 1>>>((unsigned long long)(ms * 1e6), d);
  s = pipegemm::detail::cuda_status(cudaGetLastError(), "clock rate kernel");
  if (s.ok()) s = pipegemm::detail::cuda_status(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), "clock rate");
  cudaFree(d);
  if (s.ok() && h[1] == 0) s = Status::error(StatusCode::cuda_error, "clock rate: %globaltimer did not advance");
  if (s.ok()) *ghz = double(h[0]) / double(h[1]);
  return s;
}

}  // namespace pipegemm::trace
