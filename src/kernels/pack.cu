// launch_packed (pack.hpp): the row copies and the workspace around the kernel.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>

#include "core/scratch.hpp"
#include "kernels/pack.hpp"
#include "kernels/pack_rows.hpp"
#include "pipegemm/detail/cuda_status.hpp"

namespace pipegemm::detail {
namespace {

// Calls launch(E{}) with E the unsigned integer of `esize` bytes (the copies move bits, not
// values), or refuses another size, naming `what`.
template <class F>
Status by_element_size(int esize, const char* what, F&& launch) {
  switch (esize) {
    case 1: launch(uint8_t{}); break;
    case 2: launch(uint16_t{}); break;
    case 4: launch(uint32_t{}); break;
    default: return Status::error(StatusCode::invalid_argument, std::string(what) + ": element size " + std::to_string(esize));
  }
  return cuda_status(cudaGetLastError(), what);
}

// `products` matrices of rows x cols elements from src (leading dimension lds, products ss
// elements apart) to dst (ldd, sd), between the caller's matrices and the workspace (pack_rows.hpp:
// a warp moves a 32 x U-element chunk of a row, coalesced on both sides). A block's warps take rows
// (y: kCopyWarps rows a block), blocks along x split long rows into chunks, z takes products; the
// grid stops near kCopyBlocks blocks, which then walk further rows, chunks and products. No thread
// divides (a 64-bit division per element cost more than the copy's bytes).
constexpr int kCopyWarps = 8;
constexpr int64_t kCopyBlocks = 4096;

template <class E>
__global__ void __launch_bounds__(32 * kCopyWarps)
    copy_rows_kernel(E* __restrict__ dst, int64_t ldd, int64_t sd, const E* __restrict__ src, int64_t lds, int64_t ss,
                     int64_t rows, int64_t cols, int64_t products) {
  const int64_t chunks = copy_chunks<E>(cols);
  const int lane = int(threadIdx.x % 32), warp = int(threadIdx.x / 32);
  for (int64_t b = blockIdx.z; b < products; b += gridDim.z)
    for (int64_t r = int64_t(blockIdx.y) * kCopyWarps + warp; r < rows; r += int64_t(gridDim.y) * kCopyWarps)
      for (int64_t q = blockIdx.x; q < chunks; q += gridDim.x)
        copy_chunk<E>(dst + b * sd, ldd, src + b * ss, lds, cols, r, q, lane);
}

Status copy_rows(void* dst, int64_t ldd, int64_t sd, const void* src, int64_t lds, int64_t ss, int64_t rows, int64_t cols,
                 int64_t products, int esize, cudaStream_t s) {
  return by_element_size(esize, "pack copy_rows_kernel", [&](auto e) {
    using E = decltype(e);
    const int64_t row_groups = (rows + kCopyWarps - 1) / kCopyWarps;
    const int64_t gz = std::min<int64_t>({products, kCopyBlocks, 65535});
    const int64_t gy = std::min<int64_t>({row_groups, std::max<int64_t>(kCopyBlocks / gz, 1), 65535});
    const int64_t gx = std::min<int64_t>({copy_chunks<E>(cols), std::max<int64_t>(kCopyBlocks / (gy * gz), 1), 65535});
    copy_rows_kernel<E><<<dim3(unsigned(gx), unsigned(gy), unsigned(gz)), 32 * kCopyWarps, 0, s>>>(
        static_cast<E*>(dst), ldd, sd, static_cast<const E*>(src), lds, ss, rows, cols, products);
  });
}

// Each of `batches` (rows x cols) matrices of src (leading dimension lds, ss elements apart) into
// dst transposed: dst[b * sd + c * ldd + r] = src[b * ss + r * lds + c]. 32x32 tiles through
// shared memory (one column of padding against bank conflicts), so reads and writes both walk
// consecutive addresses.
template <class E>
__global__ void transpose_kernel(E* dst, int64_t ldd, int64_t sd, const E* src, int64_t lds, int64_t ss, int64_t rows,
                                 int64_t cols, int64_t batches) {
  __shared__ E tile[32][33];
  for (int64_t b = blockIdx.z; b < batches; b += gridDim.z)
    for (int64_t r0 = blockIdx.y * 32ll; r0 < rows; r0 += gridDim.y * 32ll)
      for (int64_t c0 = blockIdx.x * 32ll; c0 < cols; c0 += gridDim.x * 32ll) {
        for (int i = threadIdx.y; i < 32; i += blockDim.y)
          if (r0 + i < rows && c0 + threadIdx.x < cols) tile[i][threadIdx.x] = src[b * ss + (r0 + i) * lds + c0 + threadIdx.x];
        __syncthreads();
        for (int i = threadIdx.y; i < 32; i += blockDim.y)
          if (c0 + i < cols && r0 + threadIdx.x < rows) dst[b * sd + (c0 + i) * ldd + r0 + threadIdx.x] = tile[threadIdx.x][i];
        __syncthreads();
      }
}

Status transpose(void* dst, int64_t ldd, int64_t sd, const void* src, int64_t lds, int64_t ss, int64_t rows, int64_t cols,
                 int64_t batches, int esize, cudaStream_t s) {
  const dim3 grid(unsigned(std::min<int64_t>((cols + 31) / 32, 1024)), unsigned(std::min<int64_t>((rows + 31) / 32, 1024)),
                  unsigned(std::min<int64_t>(batches, 65535)));
  const dim3 block(32, 8);
  return by_element_size(esize, "pack transpose_kernel", [&](auto e) {
    using E = decltype(e);
    transpose_kernel<<<grid, block, 0, s>>>(static_cast<E*>(dst), ldd, sd, static_cast<const E*>(src), lds, ss, rows, cols,
                                            batches);
  });
}

// The library's pool of stream-ordered memory on the current device, made once. It keeps what it
// has grown to (release threshold: all of it), where the device's default pool (threshold 0) gives
// its memory back at every synchronization and maps it again on the next call's allocation. Made
// with the capture mode relaxed, so a first call inside a capture does not invalidate it.
Status staging_pool(cudaMemPool_t* out) {
  static std::mutex mu;
  static cudaMemPool_t pools[64] = {};
  int dev = 0;
  Status st = cuda_status(cudaGetDevice(&dev), "cudaGetDevice");
  if (!st.ok()) return st;
  if (dev < 0 || dev >= 64) return Status::error(StatusCode::not_supported, "device index past 63");
  std::lock_guard<std::mutex> lock(mu);
  if (!pools[dev]) {
    RelaxedCapture relaxed;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cudaMemPool_t pool = nullptr;
    st = cuda_status(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate(pipegemm staging)");
    if (!st.ok()) return st;
    uint64_t keep = UINT64_MAX;
    st = cuda_status(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
    if (!st.ok()) {
      cudaMemPoolDestroy(pool);
      return st;
    }
    pools[dev] = pool;
  }
  *out = pools[dev];
  return Status::success();
}

// The copies' buffer: the front of the caller's workspace when one is given (the kernel then runs
// with the rest of it), else stream-ordered memory from the library's pool (cudaMallocFromPoolAsync /
// cudaFreeAsync on the call's stream: a pair of memory nodes inside a captured graph), so concurrent
// streams never share one.
struct StagingBuffer {
  char* ptr = nullptr;
  bool owned = false;
  size_t bytes = 0;
  Status take(const Operands& x, size_t need, cudaStream_t s, const char* what) {
    bytes = need;
    if (x.workspace) {  // the caller's, checked and carved as every scratch is (its parts are whole 256 bytes)
      Scratch sc;
      Status st = call_scratch(x, s, 0, need, &sc);
      ptr = static_cast<char*>(sc.data);
      return st;
    }
    owned = true;
    cudaMemPool_t pool = nullptr;
    Status st = staging_pool(&pool);
    if (!st.ok()) return st;
    return cuda_status(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&ptr), need, pool, s),
                       (std::string("cudaMallocFromPoolAsync(") + what + ")").c_str());
  }
  // The operands the kernel runs with: the workspace past the copies (or none).
  Operands inner(const Operands& x) const {
    Operands y = x;
    if (!owned && x.workspace) {
      const size_t used = workspace_part(bytes);
      y.workspace = x.workspace_bytes > used ? static_cast<char*>(x.workspace) + used : nullptr;
      y.workspace_bytes = x.workspace_bytes > used ? x.workspace_bytes - used : 0;
    }
    return y;
  }
  Status release(cudaStream_t s, const char* what) {
    if (!owned || !ptr) return Status::success();
    return cuda_status(cudaFreeAsync(ptr, s), (std::string("cudaFreeAsync(") + what + ")").c_str());
  }
};

}  // namespace

Status launch_k_major(const Problem& p, const Operands& x, cudaStream_t_ s_, KernelLaunch kernel) {
  const bool ta = p.a_layout == Layout::ColMajor, tb = p.b_layout == Layout::ColMajor;
  if (!ta && !tb) return kernel(p, x, s_);
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(s_);
  const KMajorPlan kp = k_major_plan(p);
  const int64_t na = kp.a_products, nb = kp.b_products;
  const int ea = dtype_bytes(p.a_type), eb = dtype_bytes(p.b_type);
  const size_t a_bytes = kp.a_bytes, b_bytes = kp.b_bytes;
  if (a_bytes == SIZE_MAX || b_bytes == SIZE_MAX || a_bytes + b_bytes < a_bytes)
    return Status::error(StatusCode::invalid_argument,
                         "the K-major copy's workspace (every product's transpose) is past 2^64 bytes");
  StagingBuffer ws;
  Status st = ws.take(x, a_bytes + b_bytes, s, "transpose workspace");
  if (!st.ok()) return st;
  Problem q = p;
  Operands y = ws.inner(x);
  // An MN-major A is, read row by row, the (K, M) matrix of leading dimension lda; its transpose
  // is the K-major (M, K) one, packed. The same for B with N.
  if (ta) {
    st = transpose(ws.ptr, p.k, p.m * p.k, x.a, p.lda, p.stride_a, p.k, p.m, na, ea, s);
    y.a = ws.ptr, q.a_layout = Layout::RowMajor, q.lda = p.k, q.stride_a = na > 1 ? p.m * p.k : (p.batch > 1 ? 0 : q.stride_a);
  }
  if (st.ok() && tb) {
    st = transpose(ws.ptr + a_bytes, p.k, p.n * p.k, x.b, p.ldb, p.stride_b, p.k, p.n, nb, eb, s);
    y.b = ws.ptr + a_bytes, q.b_layout = Layout::RowMajor, q.ldb = p.k, q.stride_b = nb > 1 ? p.n * p.k : (p.batch > 1 ? 0 : q.stride_b);
  }
  if (st.ok()) st = kernel(q, y, s_);
  const Status freed = ws.release(s, "transpose workspace");
  return st.ok() ? freed : st;
}

Status launch_packed(const Problem& p, const Operands& x, cudaStream_t_ s_, KernelLaunch kernel) {
  const PackPlan pl = pack_plan(p, x.a, x.b, x.d);
  if (!pl.any()) return kernel(p, x, s_);
  if (pl.bytes == SIZE_MAX)
    return Status::error(StatusCode::invalid_argument,
                         "the packed form's workspace (every product's copy) is past 2^64 bytes: products that "
                         "overlap in the caller's memory are copied apart");
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(s_);
  StagingBuffer ws;
  Status st = ws.take(x, pl.bytes, s, "pack workspace");
  if (!st.ok()) return st;
  const Problem q = packed_problem(p, pl);
  const Operands y = packed_operands(ws.inner(x), pl, ws.ptr);
  // The caller's operand (ld, stride) into its workspace part: every product, a broadcast one once.
  auto pack_in = [&](const PackPart& o, const void* src, int64_t ld, int64_t stride, DType t) {
    return copy_rows(ws.ptr + o.off, o.ld, o.stride, src, ld, stride, o.rows, o.cols, o.products, dtype_bytes(t), s);
  };
  if (pl.a.copy) st = pack_in(pl.a, x.a, p.lda, p.stride_a, p.a_type);
  if (st.ok() && pl.b.copy) st = pack_in(pl.b, x.b, p.ldb, p.stride_b, p.b_type);
  if (st.ok()) st = kernel(q, y, s_);
  if (st.ok() && pl.d.copy)
    st = copy_rows(x.d, p.ldd, p.stride_d, y.d, pl.d.ld, pl.d.stride, p.m, p.n, pl.d.products, dtype_bytes(p.d_type), s);
  const Status freed = ws.release(s, "pack workspace");
  return st.ok() ? freed : st;
}

}  // namespace pipegemm::detail
