#include "pipegemm/device.hpp"

#include <cuda_runtime.h>

#include <cstdlib>
#include <string>

namespace pipegemm {
namespace {

DeviceInfo query() {
  DeviceInfo d;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  // CUDA 13 reports cudaErrorInsufficientDriver (35) on a machine with no driver, not
  // cudaErrorNoDevice (100): any error means "no GPU". Clear it so later calls start clean.
  if (e != cudaSuccess || count == 0) {
    d.why_absent = e != cudaSuccess ? std::string("no usable CUDA device (") + cudaGetErrorString(e) + ")"
                                    : std::string("no CUDA device found");
    cudaGetLastError();
    return d;
  }
  if (const char* env = std::getenv("PIPEGEMM_DEVICE")) d.index = std::atoi(env);
  if (d.index < 0 || d.index >= count) {
    d.why_absent = "PIPEGEMM_DEVICE=" + std::to_string(d.index) + " but only " +
                   std::to_string(count) + " device(s) present";
    return d;
  }
  if (cudaSetDevice(d.index) != cudaSuccess) {
    d.why_absent = "cudaSetDevice failed";
    cudaGetLastError();
    return d;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, d.index);
  auto attr = [&](cudaDeviceAttr a) {
    int v = 0;
    cudaDeviceGetAttribute(&v, a, d.index);
    return v;
  };
  d.present = true;
  d.name = prop.name;
  d.sm = prop.major * 10 + prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.l2_bytes = prop.l2CacheSize;
  d.smem_per_sm = int(prop.sharedMemPerMultiprocessor);
  d.smem_per_block_optin = int(prop.sharedMemPerBlockOptin);
  d.smem_reserved_per_block = int(prop.reservedSharedMemPerBlock);
  d.regs_per_sm = prop.regsPerMultiprocessor;
  d.regs_per_block = prop.regsPerBlock;
  d.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  d.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
  d.warp_size = prop.warpSize;
  d.sm_clock_khz = attr(cudaDevAttrClockRate);
  d.mem_clock_khz = attr(cudaDevAttrMemoryClockRate);
  d.mem_bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
  return d;
}

}  // namespace

const DeviceInfo& device_info() {
  static const DeviceInfo info = query();
  return info;
}

}  // namespace pipegemm
