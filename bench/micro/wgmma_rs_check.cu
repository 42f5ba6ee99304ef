// The building blocks of the register-resident weight (docs/hopper.md, "Next for the memory-bound
// shapes"), checked on their own before a kernel depends on them: arch::WgmmaM64F32::mma_rs (wgmma
// with A -- the weight -- from registers in the documented fragment layout, B -- the stream -- a
// K-major 128-byte-swizzled shared tile) and arch::stmatrix_x4_trans (the D^T accumulators written
// as rows of D). One warpgroup computes D = X W^T for W (64 x 64) and X (N x 64), N = 64 and 128,
// FP16 and BF16: the fp32 accumulators (D^T, straight from the fragment) and the 16-bit D written
// through stmatrix.trans are both compared with a CPU reference, every element. Exit 1 on a mismatch.
//   nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include -o wgmma_rs_check bench/micro/wgmma_rs_check.cu && ./wgmma_rs_check
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "pipegemm/arch/fence.cuh"
#include "pipegemm/arch/stmatrix.cuh"
#include "pipegemm/arch/wgmma.cuh"

namespace arch = pipegemm::arch;
constexpr int kK = 64, kW = 64;  // K of one 128-byte row; the weight's rows (one m64 block)

template <class T>
__device__ uint32_t pack2(float lo, float hi) {
  if constexpr (std::is_same_v<T, __half>) {
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&h);
  } else {
    __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&h);
  }
}

// w: kW x kK row-major; x: N x kK row-major; acc_out: kW x N fp32 (D^T); d_out: N x kW (D, 16-bit).
template <class T, int N>
__global__ void __launch_bounds__(128) rs_kernel(const T* w, const T* x, float* acc_out, T* d_out) {
  __shared__ __align__(1024) uint8_t sx[N * kK * 2];  // X, K-major, 128-byte swizzle (a TMA load's layout)
  __shared__ __align__(128) uint8_t sd[N * kW * 2];   // D, row-major, unswizzled
  const int t = threadIdx.x, warp = t / 32, lane = t % 32, g = lane / 4, q = lane % 4;
  for (int e = t; e < N * kK; e += 128) {  // element (r, k) -> 16-byte chunk (k / 8) ^ (r % 8) of row r
    const int r = e / kK, k = e % kK;
    const int off = r * 128 + ((((k * 2) >> 4) ^ (r & 7)) << 4) + ((k * 2) & 15);
    *reinterpret_cast<T*>(sx + off) = x[e];
  }
  arch::fence_proxy_async_smem();
  __syncthreads();
  // The weight's fragment for each 16-wide K slice, straight from global memory.
  uint32_t a[kK / 16][4];
  const uint32_t* w32 = reinterpret_cast<const uint32_t*>(w);
  for (int kb = 0; kb < kK / 16; ++kb) {
    const int r = 16 * warp + g, k = 16 * kb + 2 * q;
    a[kb][0] = w32[(r * kK + k) / 2];
    a[kb][1] = w32[((r + 8) * kK + k) / 2];
    a[kb][2] = w32[(r * kK + k + 8) / 2];
    a[kb][3] = w32[((r + 8) * kK + k + 8) / 2];
  }
  float acc[N / 2];
  const uint64_t desc = arch::wgmma_desc_kmajor_sw128(sx);
  arch::wgmma_fence();
#pragma unroll
  for (int kb = 0; kb < kK / 16; ++kb)
    arch::WgmmaM64F32<T, N>::mma_rs(acc, a[kb], desc + kb * arch::kWgmmaDescK16Step, kb > 0);
  arch::wgmma_commit_group();
  arch::wgmma_wait_group<0>();
  arch::wgmma_fence_operands(acc);
  // The accumulators as they are: D^T (weight rows, stream columns).
  for (int j = 0; j < N / 8; ++j)
    for (int h = 0; h < 2; ++h) {
      const int r = 16 * warp + 8 * h + g, c = 8 * j + 2 * q;
      acc_out[r * N + c] = acc[4 * j + 2 * h];
      acc_out[r * N + c + 1] = acc[4 * j + 2 * h + 1];
    }
  // D through stmatrix.trans: n8 blocks j, j + 1; matrix i = 2 (j' - j) + h holds weight rows
  // 16 warp + 8h .. +7 against stream rows 8j' .. +7, stored as rows 8j' + (lane % 8) of D,
  // columns 16 warp + 8h.
  const uint32_t base = arch::smem_u32(sd);
  for (int j = 0; j < N / 8; j += 2) {
    const int i = lane / 8, jj = j + i / 2, h = i % 2, row = 8 * jj + lane % 8;
    const uint32_t addr = base + uint32_t(row * kW * 2 + (16 * warp + 8 * h) * 2);
    arch::stmatrix_x4_trans(addr, pack2<T>(acc[4 * j], acc[4 * j + 1]), pack2<T>(acc[4 * j + 2], acc[4 * j + 3]),
                            pack2<T>(acc[4 * j + 4], acc[4 * j + 5]), pack2<T>(acc[4 * j + 6], acc[4 * j + 7]));
  }
  __syncthreads();
  for (int e = t; e < N * kW; e += 128) d_out[e] = reinterpret_cast<const T*>(sd)[e];
}

template <class T>
float to_f(T v) {
  if constexpr (std::is_same_v<T, __half>) return __half2float(v);
  else return __bfloat162float(v);
}
template <class T>
T from_f(float v) {
  if constexpr (std::is_same_v<T, __half>) return __float2half(v);
  else return __float2bfloat16(v);
}

template <class T, int N>
bool check(const char* name, unsigned seed) {
  std::vector<T> w(kW * kK), x(N * kK);
  auto rnd = [&] { seed = seed * 1664525u + 1013904223u; return float(seed >> 8) / float(1u << 24) * 2.f - 1.f; };
  for (auto& v : w) v = from_f<T>(rnd());
  for (auto& v : x) v = from_f<T>(rnd());
  T *dw, *dx, *dd;
  float* dacc;
  cudaMalloc(&dw, w.size() * sizeof(T));
  cudaMalloc(&dx, x.size() * sizeof(T));
  cudaMalloc(&dd, size_t(N) * kW * sizeof(T));
  cudaMalloc(&dacc, size_t(N) * kW * sizeof(float));
  cudaMemcpy(dw, w.data(), w.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemset(dd, 0xff, size_t(N) * kW * sizeof(T));  // poisoned: NaN
  cudaMemset(dacc, 0xff, size_t(N) * kW * sizeof(float));
  rs_kernel<T, N><<<1, 128>>>(dw, dx, dacc, dd);
  const cudaError_t e = cudaDeviceSynchronize();
  std::vector<float> acc(size_t(N) * kW);
  std::vector<T> d(size_t(N) * kW);
  cudaMemcpy(acc.data(), dacc, acc.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(d.data(), dd, d.size() * sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(dw), cudaFree(dx), cudaFree(dd), cudaFree(dacc);
  if (e != cudaSuccess) {
    std::printf("%-10s FAIL: %s\n", name, cudaGetErrorString(e));
    return false;
  }
  int bad_acc = 0, bad_d = 0;
  const float d_tol = std::is_same_v<T, __half> ? 2e-3f : 1.6e-2f;  // a 16-bit rounding of |D| <= ~8
  for (int r = 0; r < kW; ++r)
    for (int c = 0; c < N; ++c) {
      double ref = 0;
      for (int k = 0; k < kK; ++k) ref += double(to_f(w[r * kK + k])) * double(to_f(x[c * kK + k]));
      const float got = acc[size_t(r) * N + c], got_d = to_f(d[size_t(c) * kW + r]);
      if (!(std::fabs(got - ref) <= 1e-3 * (1 + std::fabs(ref)))) ++bad_acc;
      if (!(std::fabs(got_d - ref) <= d_tol * (1 + std::fabs(ref)))) ++bad_d;
    }
  std::printf("%-10s accumulators (D^T) %d of %d wrong, D via stmatrix.trans %d of %d wrong: %s\n", name, bad_acc,
              kW * N, bad_d, kW * N, bad_acc || bad_d ? "FAIL" : "PASS");
  return !bad_acc && !bad_d;
}

int main() {
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess || prop.major != 9) {
    std::printf("needs an sm_90 GPU (wgmma)\n");
    return 2;
  }
  bool ok = check<__half, 64>("f16 n64", 1) & check<__half, 128>("f16 n128", 2) &
            check<__nv_bfloat16, 64>("bf16 n64", 3) & check<__nv_bfloat16, 128>("bf16 n128", 4);
  return ok ? 0 : 1;
}
