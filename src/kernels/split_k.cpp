// split_k.hpp: the split-K workspace, carved from the call's scratch.
#include "kernels/split_k.hpp"

namespace pipegemm::detail {

Status split_workspace(const Operands& x, cudaStream_t_ stream, int64_t tiles, size_t partial_floats, SplitWorkspace* out) {
  Scratch sc;
  Status st = call_scratch(x, stream, size_t(tiles) * sizeof(int), partial_floats * sizeof(float), &sc);
  if (!st.ok()) return st;
  out->counters = static_cast<int*>(sc.zeroed);
  out->partials = static_cast<float*>(sc.data);
  return Status::success();
}

}  // namespace pipegemm::detail
