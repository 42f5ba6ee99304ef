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
  // n positions on at once: a ping-pong consumer passes over the other consumer's tile.
  __host__ __device__ constexpr RingState& skip(int n) {
    const int to = index + n;
    index = to % STAGES;
    phase ^= uint32_t(to / STAGES) & 1u;
    return *this;
  }
  __host__ __device__ constexpr int count() const { return STAGES; }
};

// skip(n) is n increments (checked where the header compiles).
template <int STAGES>
constexpr bool skip_is_n_increments(int n) {
  RingState<STAGES> a, b;
  a.skip(n);
  for (int i = 0; i < n; ++i) ++b;
  return a.index == b.index && a.phase == b.phase;
}
static_assert(skip_is_n_increments<4>(0) && skip_is_n_increments<4>(3) && skip_is_n_increments<4>(4) &&
                  skip_is_n_increments<4>(7) && skip_is_n_increments<4>(64) && skip_is_n_increments<3>(65),
              "RingState::skip");

template <int STAGES>
__host__ __device__ constexpr RingState<STAGES> make_producer_start_state() {
  RingState<STAGES> s;
  s.phase = 1u;
  return s;
}

}  // namespace pipegemm::pipeline
