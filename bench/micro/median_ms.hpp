// The micro-benchmarks' timer: median over 15 groups of `group` back-to-back launches (after 5
// warm-up launches), per launch, by CUDA events on the default stream. The launcher rotates its
// own buffers (past the L2) if it should.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

template <class F>
double median_ms(F&& launch, int group = 20) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  for (int i = 0; i < 5; ++i) launch();
  std::vector<float> t;
  for (int r = 0; r < 15; ++r) {
    cudaEventRecord(e0);
    for (int i = 0; i < group; ++i) launch();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    t.push_back(ms / group);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(e0), cudaEventDestroy(e1);
  return t[t.size() / 2];
}
