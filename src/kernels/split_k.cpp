// split_k.hpp: the per-(device, stream) split-K workspace.
#include "kernels/split_k.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "pipegemm/detail/cuda_status.hpp"

namespace pipegemm::detail {
namespace {

struct Buffer {
  void* ptr = nullptr;
  int64_t counters = 0;        // ints at the front (zeroed when the buffer was made) ...
  size_t counter_bytes = 0;    // ... rounded up to 256 bytes
  size_t partial_floats = 0;   // then the partials
};

}  // namespace

Status split_workspace(cudaStream_t_ stream_, int64_t tiles, size_t partial_floats, SplitWorkspace* out) {
  const cudaStream_t stream = reinterpret_cast<cudaStream_t>(stream_);
  int dev = 0;
  Status st = cuda_status(cudaGetDevice(&dev), "cudaGetDevice");
  if (!st.ok()) return st;
  // The stream's id, not its handle: a destroyed stream's handle may come back for a new stream
  // while the old one's work still runs.
  unsigned long long id = 0;
  if (!(st = cuda_status(cudaStreamGetId(stream, &id), "cudaStreamGetId")).ok()) return st;
  static std::mutex mu;
  static std::map<std::pair<int, unsigned long long>, Buffer> buffers;
  std::lock_guard<std::mutex> lock(mu);
  Buffer& b = buffers[{dev, id}];
  if (b.counters < tiles || b.partial_floats < partial_floats) {
    Buffer n;  // half again as large as before, so a growing sweep reallocates rarely
    n.counters = std::max<int64_t>(tiles, b.counters + b.counters / 2);
    n.partial_floats = std::max(partial_floats, b.partial_floats + b.partial_floats / 2);
    n.counter_bytes = (size_t(n.counters) * sizeof(int) + 255) / 256 * 256;
    if (b.ptr) cudaFreeAsync(b.ptr, stream);  // after the launches already queued on this stream
    b = Buffer{};
    if (!(st = cuda_status(cudaMallocAsync(&n.ptr, n.counter_bytes + n.partial_floats * sizeof(float), stream),
                           "cudaMallocAsync(split-K workspace)")).ok())
      return st;
    if (!(st = cuda_status(cudaMemsetAsync(n.ptr, 0, n.counter_bytes, stream), "cudaMemsetAsync(split-K counters)")).ok()) {
      cudaFreeAsync(n.ptr, stream);
      return st;
    }
    b = n;
  }
  out->counters = static_cast<int*>(b.ptr);
  out->partials = reinterpret_cast<float*>(static_cast<char*>(b.ptr) + b.counter_bytes);
  return Status::success();
}

}  // namespace pipegemm::detail
