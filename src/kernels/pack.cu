// launch_packed (pack.hpp): the row copies and the workspace around the kernel.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/pack.hpp"
#include "pipegemm/detail/cuda_status.hpp"

namespace pipegemm::detail {
namespace {

// rows x cols elements from src (leading dimension lds) to dst (ldd): blocks walk rows (y) and
// column chunks (x), consecutive threads on consecutive columns, so both sides are coalesced and
// no thread divides (a 64-bit division per element cost more than the copy's bytes).
template <class E>
__global__ void copy_rows_kernel(E* dst, int64_t ldd, const E* src, int64_t lds, int64_t rows, int64_t cols) {
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y)
    for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < cols; c += int64_t(gridDim.x) * blockDim.x)
      dst[r * ldd + c] = src[r * lds + c];
}

Status copy_rows(void* dst, int64_t ldd, const void* src, int64_t lds, int64_t rows, int64_t cols, int esize,
                 cudaStream_t s) {
  const dim3 grid(unsigned(std::min<int64_t>((cols + 255) / 256, 64)), unsigned(std::min<int64_t>(rows, 65535)));
  switch (esize) {
    case 1: copy_rows_kernel<<<grid, 256, 0, s>>>(static_cast<uint8_t*>(dst), ldd, static_cast<const uint8_t*>(src), lds, rows, cols); break;
    case 2: copy_rows_kernel<<<grid, 256, 0, s>>>(static_cast<uint16_t*>(dst), ldd, static_cast<const uint16_t*>(src), lds, rows, cols); break;
    case 4: copy_rows_kernel<<<grid, 256, 0, s>>>(static_cast<uint32_t*>(dst), ldd, static_cast<const uint32_t*>(src), lds, rows, cols); break;
    default: return Status::error(StatusCode::invalid_argument, "pack: element size " + std::to_string(esize));
  }
  return cuda_status(cudaGetLastError(), "pack copy_rows_kernel");
}

}  // namespace

Status launch_packed(const Problem& p, const Operands& x, cudaStream_t_ s_, KernelLaunch kernel) {
  const void *A = x.a, *B = x.b;
  void* D = x.d;
  const PackPlan pl = pack_plan(p, A, B, D);
  if (!pl.any()) return kernel(p, x, s_);
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(s_);
  char* ws = nullptr;
  Status st = cuda_status(cudaMallocAsync(reinterpret_cast<void**>(&ws), pl.bytes, s), "cudaMallocAsync(pack workspace)");
  if (!st.ok()) return st;
  Problem q = p;
  const void* a = A;
  const void* b = B;
  void* d = D;
  if (pl.a) {
    a = ws + pl.a_off, q.lda = pl.lda;
    st = copy_rows(ws + pl.a_off, pl.lda, A, p.lda, p.m, p.k, dtype_bytes(p.a_type), s);
  }
  if (st.ok() && pl.b) {
    b = ws + pl.b_off, q.ldb = pl.ldb;
    st = copy_rows(ws + pl.b_off, pl.ldb, B, p.ldb, p.n, p.k, dtype_bytes(p.b_type), s);
  }
  if (pl.d) d = ws + pl.d_off, q.ldd = pl.ldd;
  Operands y = x;
  y.a = a, y.b = b, y.d = d;
  if (st.ok()) st = kernel(q, y, s_);
  if (st.ok() && pl.d) st = copy_rows(D, p.ldd, d, pl.ldd, p.m, p.n, dtype_bytes(p.d_type), s);
  const Status freed = cuda_status(cudaFreeAsync(ws, s), "cudaFreeAsync(pack workspace)");
  return st.ok() ? freed : st;
}

}  // namespace pipegemm::detail
