// StreamHold: holding a stream while timed launches are queued (nvbench's "blocking kernel").
// A one-thread kernel spins on a host-mapped flag, the caller queues a block of
// (event, launches, event) behind it, then lets go: the GPU runs the block back to back, and a
// few-microsecond GEMM is timed without the host's launch gaps (on the H200 the same 6-20 us
// kernel timed twice in one run differed by 10-25% without it). The spin gives up after ~200 ms,
// so a launch that synchronizes inside the block cannot hang the run; release() then says so.
// Used by bench's harness and by the cuBLASLt peer's timing of its heuristic's candidates.
#pragma once

#include "pipegemm/pipegemm.hpp"

namespace pipegemm::detail {

class StreamHold {
 public:
  Status hold(cudaStream_t_ stream);  // the spin kernel, queued on stream
  bool release();                      // lets go; false if the spin had already given up
  ~StreamHold();

 private:
  bool holding_ = false;
  unsigned ticket_ = 0;
};

}  // namespace pipegemm::detail
