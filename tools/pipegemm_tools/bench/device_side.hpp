// The harness's device-side helpers: operands filled on the GPU, and a held stream.
//
// fill_uniform: fresh random operands without the host -- uniform [-1, 1) for floating types,
// int8 over its full range, a hash of (seed, index) per element (never all zeros). The LLM suite's
// weights (up to 470 M elements) took seconds each to draw on one host thread.
//
// StreamHold: holding a stream while its timed launches are queued (nvbench's "blocking
// kernel"). A one-thread kernel spins on a host-mapped flag, the harness queues a block of
// (event, launch, event) behind it, then lets go: the GPU runs the block back to back, and a
// few-microsecond GEMM is timed without the host's launch gaps (on the H200 the same 6-20 us
// kernel timed twice in one run differed by 10-25% without it). The spin gives up after ~200 ms,
// so a launch that synchronizes inside the block cannot hang the run; release() then says so.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm::bench_detail {

Status fill_uniform(void* data, size_t elements, DType t, uint64_t seed);

class StreamHold {
 public:
  Status hold(cudaStream_t_ stream);  // the spin kernel, queued on stream
  bool release();                      // lets go; false if the spin had already given up
  ~StreamHold();

 private:
  bool holding_ = false;
  unsigned ticket_ = 0;
};

}  // namespace pipegemm::bench_detail
