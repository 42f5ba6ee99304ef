// split_k.hpp: the split-K workspace, carved from the call's scratch -- counters from the part that
// reads zero, partials from the rest (pipegemm/pipeline/split_k.hpp).
#include "kernels/split_k.hpp"

namespace pipegemm::detail {

Status split_workspace(const Operands& x, cudaStream_t_ stream, int64_t tiles, size_t partial_floats,
                       pipeline::SplitWorkspace* out) {
  Scratch sc;
  const pipeline::SplitWorkspaceBytes b = pipeline::split_workspace_parts(tiles, partial_floats);
  Status st = call_scratch(x, stream, b.counters, b.partials, &sc);
  if (!st.ok()) return st;
  out->counters = static_cast<int*>(sc.zeroed);
  out->partials = static_cast<float*>(sc.data);
  return Status::success();
}

}  // namespace pipegemm::detail
