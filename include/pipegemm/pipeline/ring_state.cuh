// The ring state of a STAGES-slot shared-memory pipeline: which slot (index) and which lap
// (phase). Every kernel advances its read and write positions with ++, never with a
// hand-rolled (k + 1) % STAGES. The phase flips each time the index wraps; mbarrier
// pipelines wait on it, cp.async pipelines only use the index. A producer that waits on
// "empty" slots starts at phase 1 (all slots free), see make_producer_start_state().
#pragma once

#include <cstdint>

namespace pipegemm::pipeline {

template <int STAGES>
struct RingState {
  static_assert(STAGES >= 1, "a ring needs at least one slot");
  int index = 0;
  uint32_t phase = 0;

  __host__ __device__ constexpr RingState& operator++() {
    if (++index == STAGES) {
      index = 0;
      phase ^= 1u;
    }
    return *this;
  }
  __host__ __device__ constexpr int count() const { return STAGES; }
};

template <int STAGES>
__host__ __device__ constexpr RingState<STAGES> make_producer_start_state() {
  RingState<STAGES> s;
  s.phase = 1u;
  return s;
}

}  // namespace pipegemm::pipeline
