// What a bench results file records once (bench_suite.hpp): GPU, driver, CUDA runtime, cuBLAS,
// pipegemm version, the SM clock and the date.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <ctime>

#include "pipegemm/device.hpp"
#include "pipegemm_tools/bench_suite.hpp"

#ifndef PIPEGEMM_VERSION
#define PIPEGEMM_VERSION "0.1.0"
#endif

namespace pipegemm {

namespace {

// 12040 -> "12.4"; the driver and runtime versions are 1000 * major + 10 * minor.
std::string cuda_version(int v) { return v <= 0 ? "" : std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

}  // namespace

std::string pipegemm_version() { return PIPEGEMM_VERSION; }

BenchEnv bench_environment() {
  BenchEnv e;
  e.pipegemm = pipegemm_version();
  const DeviceInfo& dev = device_info();
  e.gpu = dev.name;
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess) e.driver = cuda_version(v);
  v = 0;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) e.cuda_runtime = cuda_version(v);
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS)
    e.cublas = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  int khz = 0;
  if (dev.present && cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev.index) == cudaSuccess)
    e.sm_clock_mhz = khz / 1000;
  cudaGetLastError();
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::tm tm{};
  gmtime_r(&now, &tm);
  if (std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm)) e.date = buf;
  return e;
}

}  // namespace pipegemm
