// What a bench results file records once (bench_suite.hpp): GPU, driver, CUDA runtime, cuBLAS,
// pipegemm version, the SM clock and the date.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdlib>
#include <ctime>

#include "pipegemm/device.hpp"
#include "pipegemm_tools/bench_suite.hpp"
#include "pipegemm_tools/report.hpp"

namespace pipegemm {

namespace {

// 12040 -> "12.4"; the driver and runtime versions are 1000 * major + 10 * minor.
std::string cuda_version(int v) { return v <= 0 ? "" : std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

}  // namespace

std::string pipegemm_version() { return report::version(); }

Status use_device_from_env() {
  const char* env = std::getenv("PIPEGEMM_DEVICE");
  if (!env || !*env) return Status::success();
  char* end = nullptr;
  const long i = std::strtol(env, &end, 10);
  if (*end || i < 0)
    return Status::error(StatusCode::invalid_argument,
                         std::string("PIPEGEMM_DEVICE='") + env + "' is not a device index (0, 1, ...)");
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return Status::success();  // no GPU: the commands that need one say so
  }
  if (i >= count)
    return Status::error(StatusCode::invalid_argument, "PIPEGEMM_DEVICE=" + std::to_string(i) + " but only " +
                                                           std::to_string(count) + " device(s) present (0.." +
                                                           std::to_string(count - 1) + ")");
  if (cudaSetDevice(int(i)) != cudaSuccess) {
    const std::string why = cudaGetErrorString(cudaGetLastError());
    return Status::error(StatusCode::no_device, "cudaSetDevice(" + std::to_string(i) + ") for PIPEGEMM_DEVICE: " + why);
  }
  return Status::success();
}

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
