// The trace's vocabulary and its device buffer: what a traced kernel records and where
// (docs/trace.md). Plain C++, shared by the device stamps (pipeline/trace.cuh) and the host that
// reads them back (pipegemm_tools/trace.hpp). A normal build compiles no stamp (the macros of
// pipeline/trace.cuh are empty); a build configured with -DPIPEGEMM_TRACE=ON defines
// PIPEGEMM_TRACE everywhere and defines arm() and measure_clock_ghz() in the library.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm::trace {

// The pipeline's moments, in the words of include/pipegemm/pipeline/. `none` (0) marks a record
// never written (the buffer starts zeroed).
enum class Event : uint8_t {
  none = 0,
  load_issued,     // a k_tile's copies into its slot are issued (cp.async group, TMA)
  stage_full,      // the wait for that k_tile's slot returned: its data is visible
  mma_begin,       // MMAs on a k_tile start (a k_tile may have several begin/end pairs)
  mma_end,         //   ... and are issued (mma.sync) or retired (wgmma wait_group)
  stage_released,  // the slot's reads are done: the producer may overwrite it
  slot_free,       // a producer's wait for an empty slot returned (k5's producer_acquire)
  stage_wait,      // a consumer starts waiting for a slot (optional: the wait as a span)
  epilogue_begin,  // accumulators -> D (the drain's wait included)
  epilogue_end,
  tile_begin,      // an output tile starts / ends (persistent kernels walk several)
  tile_end,
  clock_sync,      // the lane's first record: clock64 and %globaltimer read together
  count_
};
inline const char* to_string(Event e) {
  static const char* const kNames[] = {"none", "load_issued", "stage_full", "mma_begin", "mma_end",
                                       "stage_released", "slot_free", "stage_wait", "epilogue_begin",
                                       "epilogue_end", "tile_begin", "tile_end", "clock_sync"};
  static_assert(sizeof kNames / sizeof kNames[0] == size_t(Event::count_), "a name per event");
  return e < Event::count_ ? kNames[int(e)] : "?";
}

// Who records: a warp of a kernel whose every warp loads and multiplies (the ladder, the
// seed), or one thread of a warp-specialized role (k5's producer, its consumer warpgroups).
enum class Role : uint8_t { warp = 0, producer = 1, consumer = 2 };
inline const char* to_string(Role r) {
  return r == Role::warp ? "warp" : r == Role::producer ? "producer" : r == Role::consumer ? "consumer" : "?";
}

struct Record {
  uint64_t clock;   // %clock64 of the SM
  uint64_t ns;      // %globaltimer, clock_sync records only (0 elsewhere)
  uint32_t cta;     // linear block index
  int32_t tile;     // the CTA's output tile, counted from 0 in the order it walks them
  int32_t k_tile;   // k_tile within the tile (-1: none)
  uint16_t sm;      // %smid
  uint8_t event;    // Event
  uint8_t role;     // Role
  uint8_t lane;     // warp index (Role::warp) or role index (producer 0, consumers 0, 1, ...)
  uint8_t slot;     // ring slot (255: none)
  uint8_t pad[2];
};
static_assert(sizeof(Record) == 40, "the record layout the host reads back");

// The device buffer: this header, then `capacity` records. A recording lane claims kChunk
// records at a time with one atomicAdd (no atomic per stamp: a stamp is a clock read and a
// store); a stamp that finds no room counts itself in `dropped`. Only SMs below `sm_limit`
// record, which keeps the buffer (and the stamps' cost) small.
struct Buffer {
  uint32_t capacity;
  uint32_t claimed;   // records handed out (may exceed capacity)
  uint32_t dropped;   // stamps with no room
  uint32_t sm_limit;
  static constexpr uint32_t kChunk = 64;
  static constexpr uint64_t kRecordsOffset = 16;  // bytes from the buffer to its first record
};
static_assert(sizeof(Buffer) == Buffer::kRecordsOffset, "records follow the header");

// Whether this build stamps (configured with -DPIPEGEMM_TRACE=ON).
constexpr bool compiled_in() {
#if defined(PIPEGEMM_TRACE)
  return true;
#else
  return false;
#endif
}

// Traced builds only (a normal build does not define them). arm: every traced translation unit
// of the library points its kernels at `device_buffer` (nullptr: they record nothing again);
// returns the number of units armed in *units. measure_clock_ghz: the SM clock (clock64 ticks
// per %globaltimer ns), measured by a kernel that spins for `ms` milliseconds.
Status arm(Buffer* device_buffer, int* units = nullptr);
Status measure_clock_ghz(double* ghz, double ms = 5.0);

}  // namespace pipegemm::trace
