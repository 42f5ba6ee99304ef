// scratch.hpp: a call's scratch, the caller's or the library's, never a capture's undoing.
#include "core/scratch.hpp"

#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "pipegemm/detail/cuda_status.hpp"

namespace pipegemm::detail {

RelaxedCapture::RelaxedCapture() {
  cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
  cudaThreadExchangeStreamCaptureMode(&m);
  mode_ = int(m);
}

RelaxedCapture::~RelaxedCapture() {
  cudaStreamCaptureMode m = cudaStreamCaptureMode(mode_);
  cudaThreadExchangeStreamCaptureMode(&m);
}

namespace {

// The library's buffers of one (device, stream): grown by half again when a call needs more. A
// buffer outgrown stays allocated: work queued before, or a graph captured before, may use it.
struct Owned {
  void* ptr = nullptr;
  size_t bytes = 0;
};
struct StreamBuffers {
  Owned zeroed, data;
};

std::mutex owned_mu;
std::map<std::pair<int, cudaStream_t>, StreamBuffers> owned;  // (device, stream handle)
std::vector<void*> outgrown;

// A zeroed buffer of at least `bytes` (cudaMalloc, then a memset on a private stream, waited for):
// nothing is queued on the caller's stream, which may be capturing.
Status grow(Owned* b, size_t bytes, bool zero) {
  if (b->bytes >= bytes) return Status::success();
  const size_t want = std::max(bytes, b->bytes + b->bytes / 2);
  RelaxedCapture relaxed;
  void* p = nullptr;
  Status st = cuda_status(cudaMalloc(&p, want), "cudaMalloc(pipegemm scratch)");
  if (!st.ok()) return st;
  if (zero) {
    cudaStream_t side = nullptr;
    st = cuda_status(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), "cudaStreamCreate(scratch)");
    if (st.ok()) st = cuda_status(cudaMemsetAsync(p, 0, want, side), "cudaMemsetAsync(scratch counters)");
    if (st.ok()) st = cuda_status(cudaStreamSynchronize(side), "cudaStreamSynchronize(scratch counters)");
    if (side) cudaStreamDestroy(side);
    if (!st.ok()) {
      cudaFree(p);
      return st;
    }
  }
  if (b->ptr) outgrown.push_back(b->ptr);
  b->ptr = p;
  b->bytes = want;
  return Status::success();
}

}  // namespace

Status call_scratch(const Operands& x, cudaStream_t_ stream_, size_t zeroed_bytes, size_t data_bytes, Scratch* out) {
  const cudaStream_t stream = reinterpret_cast<cudaStream_t>(stream_);
  *out = Scratch{};
  if (zeroed_bytes == 0 && data_bytes == 0) return Status::success();
  if (x.workspace) {
    const size_t need = scratch_bytes(zeroed_bytes, data_bytes);
    if (x.workspace_bytes < need)
      return Status::error(StatusCode::invalid_argument,
                           "the workspace holds " + std::to_string(x.workspace_bytes) + " bytes; this call needs " +
                               std::to_string(need) + " (workspace_bytes())");
    if (reinterpret_cast<uintptr_t>(x.workspace) % 256)
      return Status::error(StatusCode::invalid_argument, "the workspace must be 256-byte aligned");
    char* at = static_cast<char*>(x.workspace);
    if (zeroed_bytes) {
      Status st = cuda_status(cudaMemsetAsync(at, 0, zeroed_bytes, stream), "cudaMemsetAsync(workspace counters)");
      if (!st.ok()) return st;
      out->zeroed = at;
    }
    if (data_bytes) out->data = at + scratch_part(zeroed_bytes);
    return Status::success();
  }
  int dev = 0;
  Status st = cuda_status(cudaGetDevice(&dev), "cudaGetDevice");
  if (!st.ok()) return st;
  std::lock_guard<std::mutex> lock(owned_mu);
  StreamBuffers& b = owned[{dev, stream}];
  if (zeroed_bytes && !(st = grow(&b.zeroed, zeroed_bytes, true)).ok()) return st;
  if (data_bytes && !(st = grow(&b.data, data_bytes, false)).ok()) return st;
  out->zeroed = zeroed_bytes ? b.zeroed.ptr : nullptr;
  out->data = data_bytes ? b.data.ptr : nullptr;
  return Status::success();
}

}  // namespace pipegemm::detail
