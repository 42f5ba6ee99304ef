// The public API in a dozen lines: describe the problem, hand over device pointers, get a Status.
//   D (M,N) = A (M,K) * B (N,K)^T, fp16 in/out, fp32 accumulation, automatic variant choice.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "pipegemm/pipegemm.hpp"

int main() {
  pipegemm::Problem p;
  p.m = 1000; p.n = 1000; p.k = 1000;  // any shape: the automatic choice finds a variant that takes it
  p.a_type = p.b_type = p.d_type = pipegemm::DType::f16;
  p.acc_type = pipegemm::DType::f32;

  void *A = nullptr, *B = nullptr, *D = nullptr;
  if (cudaMalloc(&A, p.m * p.k * 2) != cudaSuccess || cudaMalloc(&B, p.n * p.k * 2) != cudaSuccess ||
      cudaMalloc(&D, p.m * p.n * 2) != cudaSuccess) {
    std::printf("no GPU memory: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 3;
  }
  std::vector<unsigned short> ones(size_t(p.m * p.k), 0x3c00);  // fp16 1.0
  cudaMemcpy(A, ones.data(), p.m * p.k * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(B, ones.data(), p.n * p.k * 2, cudaMemcpyHostToDevice);

  std::string chosen;
  pipegemm::Status s = pipegemm::gemm(p, A, B, D, {"auto", nullptr}, &chosen);
  if (!s.ok()) {
    std::printf("pipegemm: %s\n", s.message.c_str());
    return 1;
  }
  cudaDeviceSynchronize();
  unsigned short d00 = 0;
  cudaMemcpy(&d00, D, 2, cudaMemcpyDeviceToHost);
  std::printf("variant %s, D[0,0] bits 0x%04x (expect 0x63d0 = 1000.0)\n", chosen.c_str(), d00);
  return d00 == 0x63d0 ? 0 : 1;
}
