// Trace stamps: a kernel marks its pipeline's moments (pipegemm/introspect/trace.hpp's Event) so that
// `pipegemm trace` can draw them (docs/trace.md). The macros are EMPTY unless the unit is
// compiled with PIPEGEMM_TRACE (cmake -DPIPEGEMM_TRACE=ON): a normal build's kernels are the
// same code as without them (scripts/trace_sass_check.py compares the SASS).
//
//   PIPEGEMM_TRACE_LANE(lane, role, index, records);      once per recording role, first
//   PIPEGEMM_TRACE_STAMP(lane, event, tile, k_tile, slot);
//   PIPEGEMM_TRACE_STAMP_IF(cond, lane, event, tile, k_tile, slot);
//   PIPEGEMM_TRACE_CLOCK(t);  ...  PIPEGEMM_TRACE_STAMP_AT(lane, event, t, tile, k_tile, slot);
//       a moment's clock now, its record written later (off a critical path: k5 writes a k_tile's
//       wait stamps after its wgmma are issued)
//
// `role` is a Role word (warp, producer, consumer), `index` the warp or role index, `records`
// whether this thread is the one that records for the role (lane 0 of a warp, thread 0 of a
// warpgroup): only that thread reads clocks and writes. Arguments are not evaluated when off,
// so they may be expressions written for the trace alone.
//
// A recording lane holds the buffer's address, its chunk of it ([next, end)), its CTA and SM;
// a stamp is a clock read and a 40-byte store by one thread, no load, an atomicAdd only every
// Buffer::kChunk records.
#pragma once

#include "pipegemm/introspect/trace.hpp"

#if defined(PIPEGEMM_TRACE) && defined(__CUDACC__)
#include <cuda_runtime.h>

#include <vector>

#include "pipegemm/arch/timer.cuh"

namespace pipegemm::trace {
namespace detail {
using ArmFn = cudaError_t (*)(Buffer*);
// Every unit's setter, in one list however many units (inline: one list per program); trace::arm
// (src/core/trace.cu) calls them. Built on first use: units register from their static initializers.
inline std::vector<ArmFn>& units() {
  static std::vector<ArmFn> u;
  return u;
}
inline bool add_unit(ArmFn arm) {
  units().push_back(arm);
  return true;
}
}  // namespace detail

namespace {
// This unit's pointer to the buffer. Kernels are built without relocatable device code, so each
// translation unit has its own copy; it registers a setter below, and trace::arm sets them all.
__device__ Buffer* g_buffer = nullptr;
cudaError_t arm_this_unit(Buffer* b) { return cudaMemcpyToSymbol(g_buffer, &b, sizeof b); }
[[maybe_unused]] const bool g_registered = detail::add_unit(&arm_this_unit);
}  // namespace

// A recording lane's state (trace::Lane is the host's: a lane's spans): the buffer and the claimed
// chunk [next, end), clipped to the buffer's capacity when claimed, so that a stamp reads no memory
// -- in k5 a stamp sits between a wgmma group's retirement and the next group's issue, where
// two dependent loads (the pointer, the capacity) per stamp cost a third of the kernel's speed
// (H200, docs/trace.md); the CTA and SM are read once too.
struct Recorder {
  Buffer* buffer = nullptr;
  uint32_t next = 0, end = 0;
  uint32_t cta = 0;  // the linear CTA index and the SM, read once
  uint16_t sm = 0;
  uint8_t role = 0, index = 0;
  bool on = false;
};

// A stamp taken at `clock` (PIPEGEMM_TRACE_CLOCK): written later, off the critical path.
__device__ __forceinline__ void stamp_at(Recorder& l, Event e, uint64_t clock, int tile, int k_tile, int slot,
                                         uint64_t ns = 0) {
  if (!l.on) return;
  if (l.next == l.end) {  // claim the next chunk; past the capacity it is empty: the stamp is dropped
    l.next = atomicAdd(&l.buffer->claimed, Buffer::kChunk);
    l.end = min(l.next + Buffer::kChunk, l.buffer->capacity);
    if (l.next >= l.end) {
      l.next = l.end;
      atomicAdd(&l.buffer->dropped, 1u);
      return;
    }
  }
  const uint32_t i = l.next++;
  Record r{};
  r.clock = clock;
  r.ns = ns;
  r.cta = l.cta;
  r.tile = tile;
  r.k_tile = k_tile;
  r.sm = l.sm;
  r.event = uint8_t(e);
  r.role = l.role;
  r.lane = l.index;
  r.slot = uint8_t(slot < 0 ? 255 : slot);
  reinterpret_cast<Record*>(reinterpret_cast<unsigned char*>(l.buffer) + Buffer::kRecordsOffset)[i] = r;
}

__device__ __forceinline__ void stamp(Recorder& l, Event e, int tile, int k_tile, int slot) {
  if (!l.on) return;
  // %globaltimer before clock64: the timer only lags true time, so a sync read this way never
  // puts its SM ahead (the host aligns SMs by the largest globaltimer - clock / rate).
  const uint64_t ns = e == Event::clock_sync ? arch::globaltimer_ns() : 0;
  stamp_at(l, e, arch::clock_cycles(), tile, k_tile, slot, ns);
}

__device__ __forceinline__ Recorder lane_begin(Role role, int index, bool records) {
  Recorder l;
  l.buffer = g_buffer;
  l.sm = uint16_t(arch::sm_id());
  l.cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  l.on = records && l.buffer != nullptr && l.sm < l.buffer->sm_limit;
  l.role = uint8_t(role);
  l.index = uint8_t(index);
  stamp(l, Event::clock_sync, -1, -1, -1);
  return l;
}

}  // namespace pipegemm::trace

#define PIPEGEMM_TRACE_LANE(lane, role, index, records) \
  ::pipegemm::trace::Recorder lane = ::pipegemm::trace::lane_begin(::pipegemm::trace::Role::role, (index), (records))
#define PIPEGEMM_TRACE_STAMP(lane, event, tile, k_tile, slot) \
  ::pipegemm::trace::stamp(lane, ::pipegemm::trace::Event::event, (tile), (k_tile), (slot))
#define PIPEGEMM_TRACE_STAMP_IF(cond, lane, event, tile, k_tile, slot) \
  do {                                                                 \
    if (cond) PIPEGEMM_TRACE_STAMP(lane, event, tile, k_tile, slot);   \
  } while (0)
#define PIPEGEMM_TRACE_CLOCK(var) const uint64_t var = ::pipegemm::arch::clock_cycles()
#define PIPEGEMM_TRACE_STAMP_AT(lane, event, clock, tile, k_tile, slot) \
  ::pipegemm::trace::stamp_at(lane, ::pipegemm::trace::Event::event, (clock), (tile), (k_tile), (slot))
#else
#define PIPEGEMM_TRACE_LANE(lane, role, index, records)
#define PIPEGEMM_TRACE_STAMP(lane, event, tile, k_tile, slot)
#define PIPEGEMM_TRACE_STAMP_IF(cond, lane, event, tile, k_tile, slot)
#define PIPEGEMM_TRACE_CLOCK(var)
#define PIPEGEMM_TRACE_STAMP_AT(lane, event, clock, tile, k_tile, slot)
#endif
