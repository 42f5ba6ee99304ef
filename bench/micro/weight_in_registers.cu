// A prototype of the register-resident weight (docs/hopper.md, "Next for the memory-bound shapes"),
// to measure the idea before it becomes a registered k5 form: D (M x N) = A (M x K) W^T for a
// weight W (N x K: N = 256 with K <= 256, N = 128 with K <= 512) held in the consumers' registers -- wgmma's RS form with the
// roles swapped, each tile computing D^T = W A^T -- so the ring carries A alone and nearly all of
// shared memory holds A in flight. Persistent (one CTA a SM), warp-specialized: a producer thread
// first TMA-loads W into the ring's last slots, the consumers copy their fragments out of it into
// registers (32-bit shared loads, conflict-free under the 128-byte swizzle) and hand it back, while
// the producer TMA-loads A's (64 x 64) k_tiles into the STAGES-deep ring from its first slot on
// (those W occupies only once W is back). Two consumer warpgroups each hold N / 2 of W's rows
// (K / 16 x N / 128 x 4 registers) and N / 128 x 32 accumulators, and write their D^T blocks as rows of
// D through stmatrix.trans into 128-byte-swizzled staging for a TMA store. FP16.
// (Its first form read W from global memory, 4-byte loads a fragment register: 8 us of fixed start
// against the same-bytes memcpy's 3.6 on the H100; docs/hopper.md, "Tried and rejected".)
// Prints, in one run: % of the 1 GiB device copy's bandwidth for the prototype at several ring
// depths and for a memcpy of the same bytes (bench's --same-bytes-copy), back to back, median of
// 15 groups of 20 launches over 3 rotating buffer sets (past the L2); every 7th row of D (and the
// last) against a CPU reference. Exit 1 on a mismatch.
//   nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include -I src -o weight_in_registers \
//        bench/micro/weight_in_registers.cu src/kernels/k5_tensor_map.cpp src/core/types.cpp \
//        && ./weight_in_registers [M [N K]]
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pipegemm/arch/barrier.cuh"
#include "pipegemm/arch/fence.cuh"
#include "pipegemm/arch/ld_shared.cuh"
#include "pipegemm/arch/setmaxnreg.cuh"
#include "pipegemm/arch/stmatrix.cuh"
#include "pipegemm/arch/tma.cuh"
#include "pipegemm/arch/wgmma.cuh"
#include "pipegemm/pipeline/mbarrier_pipeline.cuh"
#include "kernels/k5_tensor_map.hpp"
#include "median_ms.hpp"

namespace arch = pipegemm::arch;
constexpr int kBM = 64, kBK = 64;
constexpr int kTileBytes = kBM * kBK * 2;  // one k_tile of A: 8 KB
constexpr int kBoxBytes = 64 * 64 * 2;     // one D staging box: 8 KB

template <int N, int K, int STAGES>
struct Layout {
  static constexpr int kRing = STAGES * kTileBytes;
  static constexpr int kMB = N / 128;                // m64 blocks of W a consumer (N / 2 rows)
  static constexpr int kStaging = 2 * kMB * kBoxBytes;  // a box per consumer and block
  static_assert(N == 128 || N == 256, "N = 128 or 256");
  static_assert(kMB * (K / 16) * 4 <= 128, "W's fragments: at most 128 registers a thread");
  static constexpr int kBytes = kRing + kStaging + (2 * STAGES + 2) * 8 + 1024;  // + barriers + alignment slack
  // W is staged in the ring's last slots where it fits, so that A's stream starts at once in the
  // first ones; else from the ring's start (into the D staging), A waiting for it.
  static constexpr int kWBytes = N * K * 2;
  static constexpr int kWOffset = kWBytes <= kRing ? kRing - kWBytes : 0;
  static constexpr int kFirstWSlot = kWOffset / kTileBytes;  // A's loads into slots >= this wait for W's copy
  static constexpr bool kFits = kRing + kStaging >= kWBytes;  // W is staged in the ring (and the D staging)
};

template <int N, int K, int STAGES>
__global__ void __launch_bounds__(384, 1)
    wir_kernel(const __grid_constant__ CUtensorMap tma_a, const __grid_constant__ CUtensorMap tma_d,
               const __grid_constant__ CUtensorMap tma_w, int M, int a_tiles, bool whole_tile) {
  static_assert(Layout<N, K, STAGES>::kFits, "W is staged in the ring (and the D staging)");
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint8_t* ring = smem;
  uint8_t* staging = smem + Layout<N, K, STAGES>::kRing;
  uint64_t* bars = reinterpret_cast<uint64_t*>(staging + Layout<N, K, STAGES>::kStaging);
  const pipegemm::pipeline::MbarrierPipeline<STAGES> pipe{bars, bars + STAGES, 1};
  uint64_t* w_full = bars + 2 * STAGES;  // W has landed
  uint64_t* w_free = w_full + 1;         // both consumers have W in registers
  using State = typename pipegemm::pipeline::MbarrierPipeline<STAGES>::State;
  constexpr int kKTiles = K / kBK;
  const int tiles = (M + kBM - 1) / kBM, wg = threadIdx.x / 128, tid = threadIdx.x % 128;
  if (threadIdx.x == 0) {
    pipe.init(2);
    arch::mbarrier_init(w_full, 1);
    arch::mbarrier_init(w_free, 2);
  }
  arch::fence_mbarrier_init_cluster();
  __syncthreads();

  if (wg == 0) {  // ---------------- producer ----------------
    arch::setmaxnreg_dec<40>();
    if (tid == 0) {
      arch::tma_prefetch_descriptor(&tma_a);
      // W (256 x K) into the ring's first bytes as (64 x 64) boxes, row block major.
      arch::mbarrier_arrive_expect_tx(w_full, N * K * 2);
      for (int rb = 0; rb < N / 64; ++rb)
        for (int kb = 0; kb < K / 64; ++kb)
          arch::tma_load_2d(smem + Layout<N, K, STAGES>::kWOffset + (rb * (K / 64) + kb) * kBoxBytes, &tma_w, kb * 64,
                            rb * 64, w_full);
      State s;
      s.phase = 1;  // fresh barriers: the first STAGES acquires pass
      bool w_back = false;
      auto acquire = [&](const State& x) {
        if (!w_back && x.index >= Layout<N, K, STAGES>::kFirstWSlot) {
          arch::mbarrier_wait_parity(w_free, 0);
          w_back = true;
        }
        pipe.producer_acquire(x);
      };
      for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        // whole_tile: all of a tile's slots first, then its k_tiles' loads back to back, so that
        // the DRAM sees each row's K / 64 128-byte pieces at once rather than a k_tile's time apart.
        if (whole_tile) {
          State x = s;
          for (int kt = 0; kt < kKTiles; ++kt, ++x) acquire(x);
        }
        for (int kt = 0; kt < kKTiles; ++kt, ++s) {
          if (!whole_tile) acquire(s);
          pipe.producer_commit(s, kTileBytes);
          arch::tma_load_2d(ring + s.index * kTileBytes, &tma_a, kt * kBK, (t % a_tiles) * kBM, pipe.full_barrier(s));
        }
      }
    }
    return;
  }
  // ---------------- consumers ----------------
  arch::setmaxnreg_inc<232>();
  const int c = wg - 1, warp = tid / 32, lane = tid % 32, g = lane / 4, q = lane % 4;
  constexpr int kMB = Layout<N, K, STAGES>::kMB;
  // W's rows (N / 2) c + 64mb + 16warp + g (+8), in the RS fragment layout (arch/wgmma.cuh), once: from
  // the swizzled boxes (element (r, k): box (r / 64, k / 64), row r % 64, 16-byte chunk
  // ((k % 64) / 8) ^ (r % 8)), then the ring goes back to the producer.
  uint32_t a[kMB][K / 16][4];
  arch::mbarrier_wait_parity(w_full, 0);
  const uint32_t w_base = arch::smem_u32(smem + Layout<N, K, STAGES>::kWOffset);
  auto w_at = [&](int r, int k) {
    const int rr = r % 64, kk = k % 64;
    return w_base + uint32_t(((r / 64) * (K / 64) + k / 64) * kBoxBytes + rr * 128 + (((kk / 8) ^ (rr % 8)) * 16) + (kk % 8) * 2);
  };
#pragma unroll
  for (int mb = 0; mb < kMB; ++mb)
#pragma unroll
    for (int ks = 0; ks < K / 16; ++ks) {
      const int r = (N / 2) * c + 64 * mb + 16 * warp + g, k = 16 * ks + 2 * q;
      a[mb][ks][0] = arch::lds_b32(w_at(r, k));
      a[mb][ks][1] = arch::lds_b32(w_at(r + 8, k));
      a[mb][ks][2] = arch::lds_b32(w_at(r, k + 8));
      a[mb][ks][3] = arch::lds_b32(w_at(r + 8, k + 8));
    }
  arch::named_barrier_sync(1 + c, 128);  // every thread of this consumer has its fragments
  if (tid == 0) arch::mbarrier_arrive(w_free);
  if (tid == 0) arch::tma_prefetch_descriptor(&tma_d);
  uint8_t* my_staging = staging + c * kMB * kBoxBytes;
  State s, prev;
  bool first_tile = true;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    float acc[kMB][32];
#pragma unroll
    for (int kt = 0; kt < kKTiles; ++kt) {
      pipe.consumer_wait(s);
      const uint64_t desc = arch::wgmma_desc_kmajor_sw128(ring + s.index * kTileBytes);
      arch::wgmma_fence();
#pragma unroll
      for (int kb = 0; kb < kBK / 16; ++kb)
#pragma unroll
        for (int mb = 0; mb < kMB; ++mb)
          arch::WgmmaM64F32<__half, 64>::mma_rs(acc[mb], a[mb][kt * (kBK / 16) + kb], desc + kb * arch::kWgmmaDescK16Step,
                                                kt > 0 || kb > 0);
      arch::wgmma_commit_group();
      arch::wgmma_wait_group<1>();
      if (kt > 0) pipe.consumer_release(prev, tid);
      prev = s;
      ++s;
    }
    arch::wgmma_wait_group<0>();
    pipe.consumer_release(prev, tid);
#pragma unroll
    for (int mb = 0; mb < kMB; ++mb) arch::wgmma_fence_operands(acc[mb]);
    // The previous tile's stores have read the staging buffers before they are written again.
    if (!first_tile) {
      if (tid == 0) arch::tma_store_wait_read<0>();
      arch::named_barrier_sync(1 + c, 128);
    }
    first_tile = false;
    // acc[mb]: D^T rows (W) 16warp + g (+8) of block mb, columns (A rows) 8j + 2q (+1). Stored
    // transposed: D rows 8j + lane % 8 of matrix lane / 8, 16-byte chunk 2warp + h, swizzled by row.
#pragma unroll
    for (int mb = 0; mb < kMB; ++mb) {
      const uint32_t box = arch::smem_u32(my_staging + mb * kBoxBytes);
#pragma unroll
      for (int j = 0; j < 8; j += 2) {
        const int i = lane / 8, h = i % 2, row = 8 * (j + i / 2) + lane % 8, chunk = (2 * warp + h) ^ (row % 8);
        auto pk = [](float lo, float hi) {
          __half2 v = __floats2half2_rn(lo, hi);
          return *reinterpret_cast<uint32_t*>(&v);
        };
        arch::stmatrix_x4_trans(box + uint32_t(row * 128 + chunk * 16), pk(acc[mb][4 * j], acc[mb][4 * j + 1]),
                                pk(acc[mb][4 * j + 2], acc[mb][4 * j + 3]), pk(acc[mb][4 * j + 4], acc[mb][4 * j + 5]),
                                pk(acc[mb][4 * j + 6], acc[mb][4 * j + 7]));
      }
    }
    arch::fence_proxy_async_smem();
    arch::named_barrier_sync(1 + c, 128);
    if (tid == 0) {
      for (int mb = 0; mb < kMB; ++mb)
        arch::tma_store_2d(&tma_d, my_staging + mb * kBoxBytes, (N / 2) * c + 64 * mb, t * kBM);
      arch::tma_store_commit_group();
    }
  }
  if (tid == 0) arch::tma_store_wait_all<0>();
}

// ---------------------------------------------------------------------------------------------
// fp16, (64, 64) boxes, 128-byte swizzle: the library's own map (src/kernels/k5_tensor_map.cpp).
bool tensor_map(CUtensorMap* m, const void* base, int64_t rows, int64_t cols) {
  const pipegemm::Status st = pipegemm::detail::make_tensor_map_2d_sw128(m, base, pipegemm::DType::f16, rows, cols, cols, 64, 64);
  if (!st.ok()) std::printf("%s\n", st.message.c_str());
  return st.ok();
}

struct Sets {
  std::vector<__half*> a, d;
  std::vector<CUtensorMap> ta, td;
};

// a_tiles: A's tiles read (tile t reads tile t % a_tiles; 1: every tile the same one, from L2 --
// the consumers' and D's rate without A's DRAM stream).
template <int N, int K, int STAGES>
double run(const Sets& s, const CUtensorMap& tw, int M, int sms, int a_tiles = 0, bool whole_tile = false) {
  if (a_tiles <= 0) a_tiles = (M + kBM - 1) / kBM;
  const int bytes = Layout<N, K, STAGES>::kBytes;
  cudaFuncSetAttribute(wir_kernel<N, K, STAGES>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  const int grid = std::min(sms, (M + kBM - 1) / kBM);
  int i = 0;
  return median_ms([&] {
    const int k = i++ % int(s.a.size());
    wir_kernel<N, K, STAGES><<<grid, 384, bytes>>>(s.ta[k], s.td[k], tw, M, a_tiles, whole_tile);
  }, 20);
}

template <int N, int K>
int run_all(int M) {
  int dev = 0;
  cudaDeviceProp prop{};
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&prop, dev);
  if (prop.major != 9) {
    std::printf("needs an sm_90 GPU (wgmma, TMA)\n");
    return 2;
  }
  const size_t a_elems = size_t(M) * K, d_elems = size_t(M) * N;
  std::vector<__half> ha(a_elems), hw(size_t(N) * K);
  uint32_t seed = 12345;
  auto rnd = [&] { seed = seed * 1664525u + 1013904223u; return float(seed >> 8) / float(1u << 24) * 2.f - 1.f; };
  for (auto& v : ha) v = __float2half(rnd());
  for (auto& v : hw) v = __float2half(rnd() * 0.25f);
  Sets s;
  for (int i = 0; i < 3; ++i) {
    __half *a = nullptr, *d = nullptr;
    cudaMalloc(&a, a_elems * 2);
    cudaMalloc(&d, d_elems * 2);
    cudaMemcpy(a, ha.data(), a_elems * 2, cudaMemcpyHostToDevice);
    CUtensorMap ta{}, td{};
    if (!tensor_map(&ta, a, M, K) || !tensor_map(&td, d, M, N)) {
      std::printf("cuTensorMapEncodeTiled failed\n");
      return 2;
    }
    s.a.push_back(a), s.d.push_back(d), s.ta.push_back(ta), s.td.push_back(td);
  }
  __half* w = nullptr;
  cudaMalloc(&w, hw.size() * 2);
  cudaMemcpy(w, hw.data(), hw.size() * 2, cudaMemcpyHostToDevice);
  CUtensorMap tw{};
  if (!tensor_map(&tw, w, N, K)) {
    std::printf("cuTensorMapEncodeTiled failed\n");
    return 2;
  }

  // The 1 GiB copy (bench's denominator) and a copy of this shape's bytes (half read, half written).
  const size_t gib = size_t(1) << 30;
  void *src = nullptr, *dst = nullptr;
  cudaMalloc(&src, gib), cudaMalloc(&dst, gib);
  const double gib_ms = median_ms([&] { cudaMemcpyAsync(dst, src, gib, cudaMemcpyDeviceToDevice); }, 2);
  const double copy_gbps = 2.0 * double(gib) / (gib_ms * 1e-3) / 1e9;
  const double bytes = double(a_elems + d_elems + size_t(N) * K) * 2;
  const size_t half = size_t(bytes / 2) / 256 * 256;
  int j = 0;
  const double same_ms = median_ms([&] {
    const size_t k = size_t(j++ % 3);
    cudaMemcpyAsync(static_cast<char*>(dst) + k * half, static_cast<char*>(src) + k * half, half, cudaMemcpyDeviceToDevice);
  }, 20);
  cudaFree(src), cudaFree(dst);
  auto pct = [&](double ms) { return 100.0 * bytes / (ms * 1e-3) / 1e9 / copy_gbps; };
  std::printf("%s, %d SMs: %dx%dx%d FP16, %.1f MB; 1 GiB copy %.0f GB/s\n", prop.name, prop.multiProcessorCount, M, N, K,
              bytes / 1e6, copy_gbps);
  std::printf("  same-bytes memcpy          %.4f ms  %5.1f%% of the copy bandwidth\n", same_ms, pct(same_ms));
  auto report = [&](const char* name, double ms) {
    std::printf("  %-26s %.4f ms  %5.1f%% of the copy bandwidth\n", name, ms, pct(ms));
  };
  if constexpr (Layout<N, K, 12>::kFits) report("weight in registers, s12", run<N, K, 12>(s, tw, M, prop.multiProcessorCount));
  report("weight in registers, s16", run<N, K, 16>(s, tw, M, prop.multiProcessorCount));
  report("weight in registers, s22", run<N, K, 22>(s, tw, M, prop.multiProcessorCount));
  report("s16, a tile's loads at once", run<N, K, 16>(s, tw, M, prop.multiProcessorCount, 0, true));
  report("s22, a tile's loads at once", run<N, K, 22>(s, tw, M, prop.multiProcessorCount, 0, true));
  // The same with A's stream taken away (one tile of A, from L2, for every tile): if this is not
  // well under the line above, the consumers or D's stores, not A's bytes in flight, set the pace.
  const double l2_ms = run<N, K, 22>(s, tw, M, prop.multiProcessorCount, 1);
  const double tiles_per_sm = double((M + kBM - 1) / kBM) / prop.multiProcessorCount;
  std::printf("  %-26s %.4f ms  %5.1f%% of the copy bandwidth (as if A were read); %.0f ns a tile a SM\n",
              "s22, A from L2 (1 tile)", l2_ms, pct(l2_ms), l2_ms * 1e6 / tiles_per_sm);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("FAIL: %s\n", cudaGetErrorString(e));
    return 1;
  }
  // Correctness: a poisoned D, one launch, every 7th row and the last one against the CPU.
  cudaMemset(s.d[0], 0xff, d_elems * 2);
  cudaFuncSetAttribute(wir_kernel<N, K, 22>, cudaFuncAttributeMaxDynamicSharedMemorySize, Layout<N, K, 22>::kBytes);
  wir_kernel<N, K, 22><<<std::min(prop.multiProcessorCount, (M + kBM - 1) / kBM), 384, Layout<N, K, 22>::kBytes>>>(
      s.ta[0], s.td[0], tw, M, (M + kBM - 1) / kBM, true);
  e = cudaDeviceSynchronize();
  std::vector<__half> hd(d_elems);
  cudaMemcpy(hd.data(), s.d[0], d_elems * 2, cudaMemcpyDeviceToHost);
  long bad = 0, checked = 0;
  std::vector<float> wf(hw.size());
  for (size_t i = 0; i < hw.size(); ++i) wf[i] = __half2float(hw[i]);
  for (int r = 0; r < M; ++r) {
    if (r % 7 && r != M - 1) continue;
    for (int n = 0; n < N; ++n) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += double(__half2float(ha[size_t(r) * K + k])) * wf[size_t(n) * K + k];
      const float got = __half2float(hd[size_t(r) * N + n]);
      if (!(std::fabs(got - ref) <= 2e-3 * (1 + std::fabs(ref)))) ++bad;
      ++checked;
    }
  }
  std::printf("  check (s22, a tile's loads at once): %ld of %ld elements wrong%s: %s\n", bad, checked, e == cudaSuccess ? "" : " (launch failed)",
              bad || e != cudaSuccess ? "FAIL" : "PASS");
  return bad || e != cudaSuccess ? 1 : 0;
}

int main(int argc, char** argv) {
  // M x N x K, the memory-bound suite's: N = 256 with K = 128 or 256, N = 128 with K = 128, 256 or 512.
  const int M = argc > 1 ? std::atoi(argv[1]) : 81920, N = argc > 2 ? std::atoi(argv[2]) : 256,
            K = argc > 3 ? std::atoi(argv[3]) : 256;
  if (M >= 1 && N == 256 && K == 256) return run_all<256, 256>(M);
  if (M >= 1 && N == 256 && K == 128) return run_all<256, 128>(M);
  if (M >= 1 && N == 128 && K == 128) return run_all<128, 128>(M);
  if (M >= 1 && N == 128 && K == 256) return run_all<128, 256>(M);
  if (M >= 1 && N == 128 && K == 512) return run_all<128, 512>(M);
  std::printf("usage: weight_in_registers [M >= 1 [N K: 256 256, 256 128, 128 128, 128 256 or 128 512]]\n");
  return 2;
}
