// The bench harness's timing primitives (timing.hpp).
#include "pipegemm_tools/bench/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace pipegemm::bench_detail {

double copy_bandwidth_gbps() {
  const size_t bytes = size_t(1) << 30;
  void *src = nullptr, *dst = nullptr;
  if (cudaMalloc(&src, bytes) != cudaSuccess || cudaMalloc(&dst, bytes) != cudaSuccess) {
    cudaFree(src);
    cudaGetLastError();
    return 0;
  }
  cudaMemset(src, 1, bytes);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> t;
  for (int i = 0; i < 12; ++i) {
    cudaEventRecord(e0);
    cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (i >= 2) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * double(bytes) / (t[t.size() / 2] * 1e-3) / 1e9;
}

int launches_per_sample(double ms_per_launch, const BenchOptions& opt, int reps) {
  const int fit = int(std::ceil(opt.sample_us * 1e-3 / std::max(ms_per_launch, 1e-6)));
  return std::clamp(fit, 1, std::max(1, kMaxHeldLaunches / reps));
}
cudaError_t idle_before_block(const BenchOptions& opt) {
  if (opt.idle_ms <= 0) return cudaSuccess;
  const cudaError_t e = cudaDeviceSynchronize();
  std::this_thread::sleep_for(std::chrono::milliseconds(opt.idle_ms));
  return e;
}

double same_bytes_copy_ms(double set_bytes, int sets, const BenchOptions& opt) {
  const size_t half = std::max<size_t>(256, size_t(set_bytes / 2) / 256 * 256);
  std::vector<void*> src(size_t(sets), nullptr), dst(size_t(sets), nullptr);
  auto free_all = [&] {
    for (int i = 0; i < sets; ++i) { cudaFree(src[size_t(i)]); cudaFree(dst[size_t(i)]); }
    cudaGetLastError();
  };
  for (int i = 0; i < sets; ++i)
    if (cudaMalloc(&src[size_t(i)], half) != cudaSuccess || cudaMalloc(&dst[size_t(i)], half) != cudaSuccess ||
        cudaMemset(src[size_t(i)], 1, half) != cudaSuccess) {
      free_all();
      return 0;
    }
  int next = 0;
  auto copy = [&] {
    const size_t i = size_t(next++ % sets);
    cudaMemcpyAsync(dst[i], src[i], half, cudaMemcpyDeviceToDevice);
  };
  const int reps = std::max(1, opt.reps);
  for (int w = 0; w < std::max(2, opt.warmup); ++w) copy();
  auto launch = [&] {
    copy();
    return true;
  };
  const std::vector<float> one = time_block(launch, 1, 1).ms;  // one copy alone sizes the group
  const int group = launches_per_sample(one.empty() ? 0.0 : double(one[0]), opt, reps);
  idle_before_block(opt);
  std::vector<float> t = time_block(launch, reps, group).ms;
  free_all();
  return t.empty() ? 0 : median_of(std::move(t));
}

}  // namespace pipegemm::bench_detail
