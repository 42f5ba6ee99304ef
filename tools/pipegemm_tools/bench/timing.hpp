// The bench harness's timing primitives (harness.cpp times the variants with them): timed blocks
// of launches behind a stream hold, the idle before a block, the 1 GiB device copy and a
// copy of a problem's own bytes.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "pipegemm/detail/stream_hold.hpp"
#include "pipegemm_tools/bench.hpp"

namespace pipegemm::bench_detail {

// Launches queued behind one stream hold: far below the device's queue of pending launches
// (about a thousand), past which the host would block on a stream that waits for the host.
constexpr int kMaxHeldLaunches = 256;

// Launches per timed sample: enough to last sample_us (events resolve ~0.5 us), the block of
// `reps` samples under kMaxHeldLaunches.
int launches_per_sample(double ms_per_launch, const BenchOptions& opt, int reps);

// --idle-ms: the device idles before each block, so every block starts from the same power state.
cudaError_t idle_before_block(const BenchOptions& opt);

// One timed block: `reps` samples of `group` launches each, queued behind one stream hold so the
// block runs back to back, without the host's gaps. launch() makes one launch and returns false
// to stop (the caller keeps why: then no samples). Each sample is its group's time / group.
struct TimedBlock {
  std::vector<float> ms;
  bool held_out = false;            // the hold gave out before the block was queued
  cudaError_t sync = cudaSuccess;   // the block's synchronization
};
template <class Launch>
TimedBlock time_block(Launch&& launch, int reps, int group) {
  TimedBlock b;
  std::vector<cudaEvent_t> ev(size_t(2 * reps));
  for (auto& e : ev) cudaEventCreate(&e);
  bool ok = true;
  {
    detail::StreamHold hold;
    const bool held = hold.hold(nullptr).ok();
    for (int r = 0; r < reps && ok; ++r) {
      cudaEventRecord(ev[size_t(2 * r)]);
      for (int g = 0; g < group && ok; ++g) ok = launch();
      cudaEventRecord(ev[size_t(2 * r + 1)]);
    }
    if (held && !hold.release()) b.held_out = true;
  }
  if (ok && (b.sync = cudaDeviceSynchronize()) == cudaSuccess)
    for (int r = 0; r < reps; ++r) {
      float ms = 0;
      cudaEventElapsedTime(&ms, ev[size_t(2 * r)], ev[size_t(2 * r + 1)]);
      b.ms.push_back(ms / float(group));
    }
  for (auto& e : ev) cudaEventDestroy(e);
  return b;
}

// A 1 GiB device-to-device copy: bytes read + written per second, in GB/s; 0 when it could not run.
double copy_bandwidth_gbps();

// A device-to-device copy that moves the problem's bytes (half read, half written, in `sets`
// rotated pairs), timed like the variants: the roofline of this size, launch and ramp included,
// beside the 1 GiB copy's asymptote. 0 when it could not run.
double same_bytes_copy_ms(double set_bytes, int sets, const BenchOptions& opt);

}  // namespace pipegemm::bench_detail
