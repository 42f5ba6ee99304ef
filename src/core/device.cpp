// device_info(): the caller's current device (cudaGetDevice), queried on the first use of each
// device index and kept for the process. The library never calls cudaSetDevice: which GPU a call
// runs on is the caller's choice (the CLI's $PIPEGEMM_DEVICE is the CLI's, tools/).
#include "pipegemm/device.hpp"

#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace pipegemm {
namespace {

// No usable GPU at all (asked once): the DeviceInfo every call returns then.
const DeviceInfo* absent_everywhere() {
  static const DeviceInfo* none = [] () -> const DeviceInfo* {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    // CUDA 13 reports cudaErrorInsufficientDriver (35) on a machine with no driver, not
    // cudaErrorNoDevice (100): any error means "no GPU". Clear it so later calls start clean.
    if (e == cudaSuccess && count > 0) return nullptr;
    auto* d = new DeviceInfo();
    d->why_absent = e != cudaSuccess ? std::string("no usable CUDA device (") + cudaGetErrorString(e) + ")"
                                     : std::string("no CUDA device found");
    cudaGetLastError();
    return d;
  }();
  return none;
}

DeviceInfo query(int index) {
  DeviceInfo d;
  d.index = index;
  cudaDeviceProp prop{};
  if (const cudaError_t e = cudaGetDeviceProperties(&prop, index); e != cudaSuccess) {
    d.why_absent = "device " + std::to_string(index) + ": cudaGetDeviceProperties failed (" + cudaGetErrorString(e) + ")";
    cudaGetLastError();
    return d;
  }
  auto attr = [&](cudaDeviceAttr a) {
    int v = 0;
    cudaDeviceGetAttribute(&v, a, index);
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

// One entry per device index, never removed: the references handed out stay valid.
const DeviceInfo& cached(int index) {
  static std::mutex mu;
  static std::map<int, std::unique_ptr<const DeviceInfo>>* infos = new std::map<int, std::unique_ptr<const DeviceInfo>>;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*infos)[index];
  if (!slot) slot = std::make_unique<const DeviceInfo>(query(index));
  return *slot;
}

}  // namespace

const DeviceInfo& device_info() {
  if (const DeviceInfo* none = absent_everywhere()) return *none;
  int index = 0;
  if (const cudaError_t e = cudaGetDevice(&index); e != cudaSuccess) {
    static const DeviceInfo* failed = [e] {
      auto* d = new DeviceInfo();
      d->why_absent = std::string("cudaGetDevice failed (") + cudaGetErrorString(e) + ")";
      return d;
    }();
    cudaGetLastError();
    return *failed;
  }
  // Per thread, the last device asked for: no lock on the launch path.
  thread_local int last_index = -1;
  thread_local const DeviceInfo* last = nullptr;
  if (index != last_index) last = &cached(index), last_index = index;
  return *last;
}

}  // namespace pipegemm
