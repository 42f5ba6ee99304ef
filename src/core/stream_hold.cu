// stream_hold.hpp: the spin kernel and its host-mapped flag.
#include <cuda_runtime.h>

#include <mutex>

#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm/detail/stream_hold.hpp"

namespace pipegemm::detail {
namespace {

// flag[0]: the last ticket the host released (never reset, so a spin kernel that starts late,
// behind earlier work, still sees its own release); flag[1]: the ticket of a spin that gave up.
__global__ void spin_until_released(volatile unsigned* flag, unsigned ticket, long long max_cycles) {
  const long long t0 = clock64();
  while (int(flag[0] - ticket) < 0) {
    if (clock64() - t0 > max_cycles) {
      flag[1] = ticket;
      return;
    }
  }
}

struct Flag {
  unsigned* host = nullptr;
  unsigned* device = nullptr;
  unsigned next_ticket = 1;
  std::mutex mu;  // holds from several threads: tickets handed out and released in order
  Status status;
};

Flag& flag() {
  static Flag f;
  static std::once_flag once;
  std::call_once(once, [] {
    f.status = cuda_status(cudaHostAlloc(reinterpret_cast<void**>(&f.host), 2 * sizeof(unsigned), cudaHostAllocMapped),
                           "cudaHostAlloc(stream hold flag)");
    if (f.status.ok()) {
      f.host[0] = f.host[1] = 0;
      f.status = cuda_status(cudaHostGetDevicePointer(reinterpret_cast<void**>(&f.device), f.host, 0),
                             "cudaHostGetDevicePointer(stream hold flag)");
    }
  });
  return f;
}

constexpr long long kMaxCycles = 400'000'000;  // ~200 ms at 2 GHz

}  // namespace

Status StreamHold::hold(cudaStream_t_ stream) {
  Flag& f = flag();
  if (!f.status.ok()) return f.status;
  {
    std::lock_guard<std::mutex> lock(f.mu);
    ticket_ = f.next_ticket++;
  }
  spin_until_released<<<1, 1, 0, reinterpret_cast<cudaStream_t>(stream)>>>(f.device, ticket_, kMaxCycles);
  Status s = cuda_status(cudaGetLastError(), "stream hold kernel");
  holding_ = s.ok();
  return s;
}

bool StreamHold::release() {
  if (!holding_) return false;
  Flag& f = flag();
  volatile unsigned* h = f.host;
  {
    std::lock_guard<std::mutex> lock(f.mu);
    if (int(h[0] - ticket_) < 0) h[0] = ticket_;  // never back: a later ticket may be out already
  }
  holding_ = false;
  return h[1] != ticket_;  // a spin can only give up before its release
}

StreamHold::~StreamHold() { release(); }

}  // namespace pipegemm::detail
