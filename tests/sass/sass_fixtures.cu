// Fixtures for the SASS checker's own tests (tests/unit/test_sass.cpp, .ci/run): two small HMMA
// GEMM main loops that differ only in the pipeline, compiled to cubins for sm_80 and sm_90a.
//
//   sass_fixture_single_buffer : load -> wait -> BAR.SYNC -> compute -> BAR.SYNC   (must FAIL)
//   sass_fixture_double_buffer : load(k+1) overlaps compute(k), one wait + BAR.SYNC (must PASS)
//
// The single-buffer kernel is the negative case: it proves the checker can say "not overlapped"
// (until the ladder's k1 rung exists, this is the only single-buffer code in the tree). These
// kernels are never launched; they only have to compile to representative machine code.
// 64x64x32 CTA tile, 4 warps of 32x32, wmma 16x16x16 (= 2 HMMA.16816 each):
//   HMMA per k_tile per warp = 64*64*32 / (4 warps * 16*8*16) = 16.
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>

namespace {
constexpr int BM = 64, BN = 64, BK = 32, kThreads = 128;
using namespace nvcuda;

// One k_tile of A (BM,BK) and B (BN,BK), both K-major: 2 x 256 chunks of 16 bytes, 4 per thread.
__device__ __forceinline__ void load_tile_async(half* sA, half* sB, const half* A, const half* B,
                                                int K, int k0) {
#pragma unroll
  for (int i = 0; i < BM * BK / 8 / kThreads; ++i) {
    const int c = threadIdx.x + i * kThreads;
    const int row = c / (BK / 8), col = (c % (BK / 8)) * 8;
    __pipeline_memcpy_async(sA + row * BK + col, A + size_t(blockIdx.y * BM + row) * K + k0 + col, 16);
    __pipeline_memcpy_async(sB + row * BK + col, B + size_t(blockIdx.x * BN + row) * K + k0 + col, 16);
  }
}

using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major>;
using FragB = wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major>;
using FragC = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

// The warp's 32x32 of the tile, over the two 16-wide k_blocks of one k_tile.
__device__ __forceinline__ void compute_tile(const half* sA, const half* sB, FragC (&acc)[2][2]) {
  const int warp = threadIdx.x / 32, wm = warp / 2, wn = warp % 2;
#pragma unroll
  for (int kb = 0; kb < BK; kb += 16) {
    FragA a[2];
    FragB b[2];
#pragma unroll
    for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], sA + (wm * 32 + i * 16) * BK + kb, BK);
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], sB + (wn * 32 + j * 16) * BK + kb, BK);
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
  }
}

__device__ __forceinline__ void store_tile(float* D, int N, FragC (&acc)[2][2]) {
  const int warp = threadIdx.x / 32, wm = warp / 2, wn = warp % 2;
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(D + size_t(blockIdx.y * BM + wm * 32 + i * 16) * N + blockIdx.x * BN +
                                  wn * 32 + j * 16,
                              acc[i][j], N, wmma::mem_row_major);
}

__device__ __forceinline__ void clear(FragC (&acc)[2][2]) {
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
}
}  // namespace

// The k1 shape: nothing is in flight while the tensor cores work.
extern "C" __global__ void __launch_bounds__(kThreads)
    sass_fixture_single_buffer(float* D, const half* A, const half* B, int N, int K) {
  __shared__ __align__(128) half sA[BM * BK];  // (BM,BK)
  __shared__ __align__(128) half sB[BN * BK];  // (BN,BK)
  FragC acc[2][2];
  clear(acc);
#pragma unroll 1
  for (int k0 = 0; k0 < K; k0 += BK) {
    load_tile_async(sA, sB, A, B, K, k0);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();           // the tile has landed for every warp
    compute_tile(sA, sB, acc);
    __syncthreads();           // every warp is done reading before the next load overwrites it
  }
  store_tile(D, N, acc);
}

// The k3 shape (double buffer with cp.async): the cp.async of k_tile+1 is issued before the MMAs of k_tile.
extern "C" __global__ void __launch_bounds__(kThreads)
    sass_fixture_double_buffer(float* D, const half* A, const half* B, int N, int K) {
  __shared__ __align__(128) half sA[2][BM * BK];  // (BM,BK,2)
  __shared__ __align__(128) half sB[2][BN * BK];  // (BN,BK,2)
  FragC acc[2][2];
  clear(acc);
  const int k_tiles = K / BK;
  // PROLOGUE: k_tile 0 into slot 0.
  load_tile_async(sA[0], sB[0], A, B, K, 0);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  // MAINLOOP: load k_tile+1 into the other slot, compute k_tile, then wait for k_tile+1.
#pragma unroll 1
  for (int kt = 0; kt < k_tiles - 1; ++kt) {
    load_tile_async(sA[(kt + 1) & 1], sB[(kt + 1) & 1], A, B, K, (kt + 1) * BK);
    __pipeline_commit();
    compute_tile(sA[kt & 1], sB[kt & 1], acc);
    __pipeline_wait_prior(0);
    __syncthreads();
  }
  // DRAIN: the last k_tile.
  compute_tile(sA[(k_tiles - 1) & 1], sB[(k_tiles - 1) & 1], acc);
  store_tile(D, N, acc);
}
