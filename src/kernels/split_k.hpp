// The split-K workspace (pipegemm/pipeline/split_k.hpp: the plan and the layout), carved from the
// call's scratch (core/scratch.hpp: the caller's workspace, or the library's buffers for the stream).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/scratch.hpp"
#include "pipegemm/pipegemm.hpp"
#include "pipegemm/pipeline/split_k.hpp"

namespace pipegemm::detail {

// The bytes of a caller's workspace one launch needs (each part rounded up to 256 bytes).
inline size_t split_workspace_bytes(int64_t tiles, size_t partial_floats) {
  const pipeline::SplitWorkspaceBytes b = pipeline::split_workspace_parts(tiles, partial_floats);
  return scratch_bytes(b.counters, b.partials);
}
Status split_workspace(const Operands& x, cudaStream_t_ stream, int64_t tiles, size_t partial_floats,
                       pipeline::SplitWorkspace* out);

}  // namespace pipegemm::detail
