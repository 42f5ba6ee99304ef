// Device scratch of one call (split-K partials and tile counters, packed copies, cuBLASLt's
// workspace): the caller's (Options::workspace, Operands::workspace), or the library's own.
//
// Capture safety is the rule here. A call may be made inside any CUDA graph capture (global,
// thread-local or relaxed), so nothing below synchronizes, queries a capturing stream's id or
// allocates stream-ordered memory the graph would then own:
//   - the caller's workspace is used as given (carved in 256-byte parts); counters in it are
//     zeroed by a memset queued on the call's stream (a memset node in a graph);
//   - without one, the library keeps a buffer per (device, stream handle), zeroed when made and
//     never freed (a captured graph may point into it); it is allocated with this thread's capture
//     mode set to relaxed for the duration of the cudaMalloc, as NCCL does, so a first call inside a
//     capture does not invalidate it. Two graphs replayed at once on different streams, or a graph
//     replayed beside eager calls on its capture stream, would share it: pass a workspace there
//     (the torch ops take theirs from torch's caching allocator).
#pragma once

#include <cstddef>
#include <cstdint>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm::detail {

// Rounds a part of a workspace up to 256 bytes (every part starts 256-byte aligned).
constexpr size_t scratch_part(size_t bytes) { return (bytes + 255) / 256 * 256; }

// The thread's capture mode set to relaxed while it lives: cudaMalloc, handle creation and other
// calls a strict capture forbids are then allowed (they enqueue nothing on the capturing stream).
class RelaxedCapture {
 public:
  RelaxedCapture();
  ~RelaxedCapture();
  RelaxedCapture(const RelaxedCapture&) = delete;
  RelaxedCapture& operator=(const RelaxedCapture&) = delete;

 private:
  int mode_;
};

// A call's scratch: `zeroed` reads as zero at launch (split-K tile counters, stream-K flags; every
// kernel that uses them leaves them zero again), `data` is anything (partials, packed copies,
// cuBLASLt's workspace). Null where none was asked for.
struct Scratch {
  void* zeroed = nullptr;
  void* data = nullptr;
};
// The bytes of a caller's workspace that holds both parts (each rounded up to 256 bytes).
constexpr size_t scratch_bytes(size_t zeroed, size_t data) { return scratch_part(zeroed) + scratch_part(data); }

// Scratch for a call on `stream`: carved from x.workspace when one is given (its zeroed part
// cleared by a memset queued on the stream; too small: invalid_argument naming both sizes, before
// anything is queued), else the library's buffers for (current device, stream) -- one only ever
// used as counters, so it stays zero between calls, and one for data.
Status call_scratch(const Operands& x, cudaStream_t_ stream, size_t zeroed_bytes, size_t data_bytes, Scratch* out);

}  // namespace pipegemm::detail
