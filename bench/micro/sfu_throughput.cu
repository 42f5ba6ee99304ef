// Special-function-unit throughput on this GPU (issue 13: what the GELU epilogue's tanh costs):
// results per clock per SM of tanh.approx.f32, tanh.approx.f16, ex2.approx.f32 and fp32 FMA,
// each from 8 independent chains per thread, 8 warps per SM sub-partition, clock64 around the loop.
//   nvcc -O3 -arch=sm_90a -o sfu_throughput sfu_throughput.cu && ./sfu_throughput
#include <cuda_fp16.h>
#include <cstdio>

constexpr int kChains = 8, kIters = 4096, kThreads = 1024;

template <int OP>
__global__ void sfu_kernel(float* out, long long* cycles) {
  float v[kChains];
  unsigned short h[kChains];
  for (int c = 0; c < kChains; ++c) {
    v[c] = 0.001f * float(threadIdx.x + c);
    h[c] = __half_as_ushort(__float2half(v[c]));
  }
  __syncthreads();
  const long long t0 = clock64();
  for (int i = 0; i < kIters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) {
      if constexpr (OP == 0) asm volatile("tanh.approx.f32 %0, %0;" : "+f"(v[c]));
      if constexpr (OP == 1) asm volatile("tanh.approx.f16 %0, %0;" : "+h"(h[c]));
      if constexpr (OP == 2) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(v[c]));
      if constexpr (OP == 3) asm volatile("fma.rn.f32 %0, %0, %0, 0f3F000000;" : "+f"(v[c]));
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  float s = 0;
  for (int c = 0; c < kChains; ++c) s += v[c] + __half2float(__ushort_as_half(h[c]));
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

template <int OP>
void measure(const char* name, int sms, float* out, long long* cycles) {
  sfu_kernel<OP><<<sms, kThreads>>>(out, cycles);  // warm-up
  sfu_kernel<OP><<<sms, kThreads>>>(out, cycles);
  cudaDeviceSynchronize();
  long long c[1024];
  cudaMemcpy(c, cycles, sizeof(long long) * sms, cudaMemcpyDeviceToHost);
  long long worst = 0;
  for (int i = 0; i < sms; ++i) worst = c[i] > worst ? c[i] : worst;
  const double ops = double(kThreads) * kChains * kIters;  // per SM (one CTA per SM)
  printf("%-16s %6.1f results / clock / SM\n", name, ops / double(worst));
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float* out;
  long long* cycles;
  cudaMalloc(&out, sizeof(float) * sms * kThreads);
  cudaMalloc(&cycles, sizeof(long long) * sms);
  measure<0>("tanh.approx.f32", sms, out, cycles);
  measure<1>("tanh.approx.f16", sms, out, cycles);
  measure<2>("ex2.approx.f32", sms, out, cycles);
  measure<3>("fma.rn.f32", sms, out, cycles);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
