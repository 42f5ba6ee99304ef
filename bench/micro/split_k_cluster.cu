// A prototype for the LLM suite's small-M rows (issue 12, item 2): split-K over a thread-block
// cluster with the partial sums added through distributed shared memory, to measure the idea
// before it becomes a registered k5 form.
//
// Why: at M = 128 a (BM, BN) tile re-reads all of A (M x K) once per column of tiles, so the L2
// moves |W| (1 + M / BN) bytes; with 64x64 tiles (cuBLAS's pick, read with ncu) that is ~3x the
// weight, and both cuBLAS and our 64x64 ping-pong sit at ~55% of the copy bandwidth on
// 128x4096x4096. A wide tile (BN = 128 or 256) moves 1.5-2x, but makes 16-32 tiles for 132 SMs; k5's
// stream-K fills them through a global workspace that one finisher reads back (fan-in 8: slower;
// docs/hopper.md). Here the SPLIT CTAs of one tile form a cluster, each takes K / SPLIT of the k_tiles,
// writes its fp32 tile into its own (drained) ring, and after a cluster barrier CTA r adds rows
// r * 128 / SPLIT.. of all SPLIT partial tiles in rank order (deterministic: bit for bit the same
// every run) and stores them. No workspace, no flags, every CTA reduces a share.
//
// The kernel: BM = 128 (two consumer warpgroups, m64 each), BN = 64, 128 or 256 weight rows (m64nBNk16,
// both operands K-major through TMA with the 128-byte swizzle), a STAGES-deep ring fed by one
// producer thread. BF16 and FP16, D row-major, plain TN (D = A W^T).
//
// Prints, per shape: each (BN, SPLIT) form's median time and CTA count, cublasGemmEx's and each of
// cuBLASLt's heuristic candidates' (32 MiB workspace, up to 8), all on the same rotating buffer sets
// (past the L2), back to back, median of 15 groups of 20 launches; then the best form checked against
// cuBLAS's D (every element) and a CPU reference (rows 0, M-1 and every 37th), and a second run compared
// bit for bit. Exit 1 on a mismatch.
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I include -I src -o split_k_cluster \
//        bench/micro/split_k_cluster.cu src/kernels/k5_tensor_map.cpp src/core/types.cpp -lcublas -lcublasLt -lcuda \
//        && ./split_k_cluster [bf16|f16] MxNxK...
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "kernels/k5_tensor_map.hpp"
#include "median_ms.hpp"
#include "pipegemm/arch/barrier.cuh"
#include "pipegemm/arch/fence.cuh"
#include "pipegemm/arch/flag.cuh"
#include "pipegemm/arch/ld_shared.cuh"
#include "pipegemm/arch/tma.cuh"
#include "pipegemm/arch/wgmma.cuh"
#include "pipegemm/pipeline/mbarrier_pipeline.cuh"

namespace arch = pipegemm::arch;

template <int BN>
struct Layout {
  static constexpr int kBM = 128, kBK = 64;
  static constexpr int kABytes = kBM * kBK * 2;  // 16 KB
  static constexpr int kWBytes = BN * kBK * 2;   // 16 or 32 KB
  static constexpr int kStage = kABytes + kWBytes;
  static constexpr int kStages = BN == 64 ? 9 : BN == 128 ? 7 : 4;  // 216, 224 or 192 KB
  static constexpr int kRing = kStages * kStage;
  static constexpr int kPitch = BN + 8;  // floats a partial row: a half-warp's float2 writes hit 32 banks
  static_assert(kBM * kPitch * 4 <= kRing, "the partial tile fits in the drained ring");
  static constexpr int kBytes = kRing + 2 * kStages * 8 + 1024;
};

// How the SPLIT partial tiles of one output tile meet:
//   kDsmem:  the SPLIT CTAs form a cluster; each writes its fp32 tile into its drained ring and CTA r
//            adds rows r * 128 / SPLIT.. over the cluster (ld.shared::cluster).
//   kGlobal: no cluster; each CTA writes its fp32 tile to a workspace and raises a flag (release),
//            waits for its SPLIT - 1 partners' flags (acquire) and adds its share of rows from L2.
//            Needs every CTA resident (the host keeps the grid within the SMs).
//   kGlobalMcastA: kGlobal, with the CTAs of two neighbouring column tiles (same K range) in a
//            cluster of 2 that loads A once: each CTA TMA-loads 64 of its 128 rows and multicasts them.
enum Mode { kDsmem = 0, kGlobal = 1, kGlobalMcastA = 2 };

template <class T, int BN, int SPLIT, int MODE>
__global__ void __launch_bounds__(384, 1)
    splitk_kernel(const __grid_constant__ CUtensorMap tma_a, const __grid_constant__ CUtensorMap tma_w, T* __restrict__ d,
                  int M, int N, int K, float* __restrict__ ws, int* __restrict__ flags, int epoch) {
  using L = Layout<BN>;
  constexpr int STAGES = L::kStages;
  constexpr int kCluster = MODE == kGlobalMcastA ? 2 : 1;  // CTAs whose loads fill each slot
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint64_t* bars = reinterpret_cast<uint64_t*>(smem + L::kRing);
  const pipegemm::pipeline::MbarrierPipeline<STAGES> pipe{bars, bars + STAGES, kCluster};
  using State = typename pipegemm::pipeline::MbarrierPipeline<STAGES>::State;
  int rank, n_tile, csub = 0;
  if constexpr (MODE == kGlobalMcastA) {  // x = ((column pair) * SPLIT + rank) * 2 + csub
    csub = int(blockIdx.x) % 2;
    rank = int(blockIdx.x) / 2 % SPLIT;
    n_tile = int(blockIdx.x) / 2 / SPLIT * 2 + csub;
  } else {  // x = column tile * SPLIT + rank (kDsmem: rank == %cluster_ctarank)
    rank = int(blockIdx.x) % SPLIT;
    n_tile = int(blockIdx.x) / SPLIT;
  }
  const int n0 = n_tile * BN, m0 = int(blockIdx.y) * L::kBM;
  const int tile = int(blockIdx.y) * ((N + BN - 1) / BN) + n_tile;
  const int kt_all = (K + L::kBK - 1) / L::kBK;
  const int kt0 = rank * kt_all / SPLIT, kt1 = (rank + 1) * kt_all / SPLIT;  // the host keeps SPLIT <= kt_all
  const int wg = threadIdx.x / 128, tid = threadIdx.x % 128;
  if (threadIdx.x == 0) pipe.init(2);
  arch::fence_mbarrier_init_cluster();
  if constexpr (kCluster > 1)
    arch::cluster_sync();  // the peer's barriers are initialised before a multicast or a release reaches them
  else
    __syncthreads();

  if (wg == 0) {  // ---------------- producer ----------------
    if (tid == 0) {
      arch::tma_prefetch_descriptor(&tma_a);
      arch::tma_prefetch_descriptor(&tma_w);
      State s;
      s.phase = 1;  // fresh barriers: the first STAGES acquires pass
      for (int kt = kt0; kt < kt1; ++kt, ++s) {
        pipe.producer_acquire(s);
        pipe.producer_commit(s, L::kStage);
        uint8_t* slot = smem + s.index * L::kStage;
        if constexpr (MODE == kGlobalMcastA)
          arch::tma_load_2d_multicast(slot + csub * 64 * 128, &tma_a, kt * L::kBK, m0 + 64 * csub, pipe.full_barrier(s), 0x3);
        else
          arch::tma_load_2d(slot, &tma_a, kt * L::kBK, m0, pipe.full_barrier(s));
        arch::tma_load_2d(slot + L::kABytes, &tma_w, kt * L::kBK, n0, pipe.full_barrier(s));
      }
    }
  } else {  // ---------------- consumers: rows 64c.. of the tile ----------------
    const int c = wg - 1, warp = tid / 32, lane = tid % 32, g = lane / 4, q = lane % 4;
    float acc[BN / 2];
    State s, prev;
    for (int kt = kt0; kt < kt1; ++kt) {
      pipe.consumer_wait(s);
      uint8_t* slot = smem + s.index * L::kStage;
      const uint64_t da = arch::wgmma_desc_kmajor_sw128(slot + c * 64 * 128);
      const uint64_t dw = arch::wgmma_desc_kmajor_sw128(slot + L::kABytes);
      arch::wgmma_fence();
#pragma unroll
      for (int kb = 0; kb < L::kBK / 16; ++kb)
        arch::WgmmaM64F32<T, BN>::mma(acc, da + kb * arch::kWgmmaDescK16Step, dw + kb * arch::kWgmmaDescK16Step,
                                      kt > kt0 || kb > 0);
      arch::wgmma_commit_group();
      arch::wgmma_wait_group<1>();
      if (kt > kt0) pipe.consumer_release(prev, tid);
      prev = s;
      ++s;
    }
    arch::wgmma_wait_group<0>();
    arch::wgmma_fence_operands(acc);
    if constexpr (MODE == kGlobalMcastA) pipe.consumer_release(prev, tid);  // the peer's producer may still wait on it
    float* part;
    int pitch;
    if constexpr (MODE == kDsmem) {
      // Both consumers are past their last wgmma (every load landed and was read) before either
      // writes its partial rows over the ring.
      arch::named_barrier_sync(1, 256);
      part = reinterpret_cast<float*>(smem), pitch = L::kPitch;
    } else {
      part = ws + size_t(tile * SPLIT + rank) * L::kBM * BN, pitch = BN;
    }
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int row = 64 * c + 16 * warp + g, col = 8 * j + 2 * q;
      *reinterpret_cast<float2*>(part + row * pitch + col) = make_float2(acc[4 * j], acc[4 * j + 1]);
      *reinterpret_cast<float2*>(part + (row + 8) * pitch + col) = make_float2(acc[4 * j + 2], acc[4 * j + 3]);
    }
  }
  const int r0 = rank * L::kBM / SPLIT, r1 = (rank + 1) * L::kBM / SPLIT;
  auto store = [&](int row, int col, float4 sum) {
    const int gm = m0 + row, gn = n0 + col;
    if (gm >= M) return;
    T* out = d + size_t(gm) * N + gn;
    const float vals[4] = {sum.x, sum.y, sum.z, sum.w};
    if (gn + 3 < N && (N % 4) == 0) {
      T packed[4];
      for (int e = 0; e < 4; ++e) packed[e] = T(vals[e]);
      *reinterpret_cast<uint2*>(out) = *reinterpret_cast<const uint2*>(packed);
    } else {
      for (int e = 0; e < 4 && gn + e < N; ++e) out[e] = T(vals[e]);
    }
  };
  if constexpr (MODE == kDsmem) {
    // Every CTA's partial tile is written; CTA `rank` adds its share of rows over the cluster.
    arch::cluster_sync();
    const uint32_t base = arch::smem_u32(smem);
    for (int i = threadIdx.x; i < (r1 - r0) * (BN / 4); i += 384) {
      const int row = r0 + i / (BN / 4), col = (i % (BN / 4)) * 4;
      const uint32_t addr = base + uint32_t(row * L::kPitch + col) * 4;
      float4 sum = arch::ld_dsmem_v4_f32(addr, 0);
#pragma unroll
      for (int src = 1; src < SPLIT; ++src) {
        const float4 v = arch::ld_dsmem_v4_f32(addr, uint32_t(src));
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
      }
      store(row, col, sum);
    }
    arch::cluster_sync();  // no CTA leaves while a peer still reads its partial tile
  } else {
    __syncthreads();  // this CTA's partial tile is written
    if (threadIdx.x == 0) {
      arch::st_release_gpu(flags + tile * SPLIT + rank, epoch);
      for (int src = 0; src < SPLIT; ++src)
        while (arch::ld_acquire_gpu(flags + tile * SPLIT + src) != epoch) {
        }
    }
    __syncthreads();
    const float* mine = ws + size_t(tile * SPLIT) * L::kBM * BN;
    for (int i = threadIdx.x; i < (r1 - r0) * (BN / 4); i += 384) {
      const int row = r0 + i / (BN / 4), col = (i % (BN / 4)) * 4;
      float4 sum = __ldcg(reinterpret_cast<const float4*>(mine + row * BN + col));
#pragma unroll
      for (int src = 1; src < SPLIT; ++src) {
        const float4 v = __ldcg(reinterpret_cast<const float4*>(mine + size_t(src) * L::kBM * BN + row * BN + col));
        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
      }
      store(row, col, sum);
    }
    if constexpr (kCluster > 1) arch::cluster_sync();  // no CTA leaves while its peer may still arrive on its barriers
  }
}

// ---------------------------------------------------------------------------------------------
#define CK(x)                                                                                  \
  do {                                                                                         \
    auto e_ = (x);                                                                             \
    if (e_ != 0) {                                                                             \
      std::printf("%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, int(e_));                 \
      std::exit(2);                                                                            \
    }                                                                                          \
  } while (0)

struct Set {
  void *a = nullptr, *w = nullptr, *d = nullptr;
  CUtensorMap ta{}, ta64{}, tw64{}, tw128{}, tw256{};
};

// The global modes' workspace (a fp32 tile per CTA) and flags; `epoch` grows by one a launch, so
// a flag never needs resetting.
struct Scratch {
  float* ws = nullptr;
  int* flags = nullptr;
  int epoch = 0;
  int sms = 0;
};
Scratch g_scratch;

template <int MODE, int SPLIT>
constexpr int cluster_size() {
  return MODE == kDsmem ? SPLIT : MODE == kGlobalMcastA ? 2 : 1;
}

// A launch configuration of `grid` CTAs of the form in clusters of its cluster_size (`attr` holds the
// attribute); the first call for a form lets it ask for its dynamic shared memory.
template <class T, int BN, int SPLIT, int MODE>
cudaLaunchConfig_t form_config(dim3 grid, cudaLaunchAttribute& attr) {
  static const bool smem_set = [] {
    cudaFuncSetAttribute(splitk_kernel<T, BN, SPLIT, MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         Layout<BN>::kBytes);
    return true;
  }();
  (void)smem_set;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = dim3(384);
  cfg.dynamicSmemBytes = Layout<BN>::kBytes;
  attr = cudaLaunchAttribute{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster_size<MODE, SPLIT>(), attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
  cfg.attrs = &attr, cfg.numAttrs = 1;
  return cfg;
}

template <class T, int BN, int SPLIT, int MODE>
cudaError_t launch(const Set& s, int M, int N, int K, int* ctas = nullptr) {
  const int n_tiles = (N + BN - 1) / BN;
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg =
      form_config<T, BN, SPLIT, MODE>(dim3(unsigned(n_tiles * SPLIT), unsigned((M + 127) / 128)), attr);
  if (ctas) *ctas = int(cfg.gridDim.x * cfg.gridDim.y);
  // The global modes wait on each other's flags: every CTA must be resident at once.
  if (MODE != kDsmem && int(cfg.gridDim.x * cfg.gridDim.y) > g_scratch.sms) return cudaErrorInvalidConfiguration;
  if (MODE == kGlobalMcastA && n_tiles % 2) return cudaErrorInvalidConfiguration;
  return cudaLaunchKernelEx(&cfg, splitk_kernel<T, BN, SPLIT, MODE>, MODE == kGlobalMcastA ? s.ta64 : s.ta,
                            BN == 64 ? s.tw64 : BN == 128 ? s.tw128 : s.tw256, static_cast<T*>(s.d), M, N, K,
                            g_scratch.ws, g_scratch.flags, ++g_scratch.epoch);
}

struct Form {
  std::string name;
  int bn, split;
  std::function<cudaError_t(const Set&, int, int, int, int*)> run;
  std::function<int()> clusters;  // cudaOccupancyMaxActiveClusters
  int cluster;
};

template <class T, int BN, int SPLIT, int MODE>
int max_clusters() {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = form_config<T, BN, SPLIT, MODE>(dim3(unsigned(cluster_size<MODE, SPLIT>() * 64)), attr);
  int n = -1;
  cudaOccupancyMaxActiveClusters(&n, splitk_kernel<T, BN, SPLIT, MODE>, &cfg);
  return n;
}

template <class T>
std::vector<Form> forms() {
#define PIPEGEMM_FORM(BN, S, MODE, TAG)                                                                  \
  Form { "bn" #BN " split" #S TAG, BN, S, launch<T, BN, S, MODE>, max_clusters<T, BN, S, MODE>, cluster_size<MODE, S>() }
  return {PIPEGEMM_FORM(64, 1, kDsmem, ""),
          PIPEGEMM_FORM(128, 1, kDsmem, ""),
          PIPEGEMM_FORM(64, 2, kDsmem, " dsmem"),
          PIPEGEMM_FORM(128, 2, kDsmem, " dsmem"),
          PIPEGEMM_FORM(128, 3, kDsmem, " dsmem"),
          PIPEGEMM_FORM(256, 4, kDsmem, " dsmem"),
          PIPEGEMM_FORM(64, 2, kGlobal, " global"),
          PIPEGEMM_FORM(128, 2, kGlobal, " global"),
          PIPEGEMM_FORM(128, 3, kGlobal, " global"),
          PIPEGEMM_FORM(128, 4, kGlobal, " global"),
          PIPEGEMM_FORM(256, 4, kGlobal, " global"),
          PIPEGEMM_FORM(256, 8, kGlobal, " global"),
          PIPEGEMM_FORM(64, 2, kGlobalMcastA, " global mcastA"),
          PIPEGEMM_FORM(128, 2, kGlobalMcastA, " global mcastA"),
          PIPEGEMM_FORM(128, 4, kGlobalMcastA, " global mcastA"),
          PIPEGEMM_FORM(256, 4, kGlobalMcastA, " global mcastA"),
          PIPEGEMM_FORM(256, 8, kGlobalMcastA, " global mcastA")};
#undef PIPEGEMM_FORM
}

template <class T>
int run_shape(int M, int N, int K, cublasHandle_t blas, cublasLtHandle_t lt, void* ws, size_t ws_bytes) {
  const bool bf = std::is_same_v<T, __nv_bfloat16>;
  const pipegemm::DType dt = bf ? pipegemm::DType::bf16 : pipegemm::DType::f16;
  const cudaDataType_t cdt = bf ? CUDA_R_16BF : CUDA_R_16F;
  const size_t ea = size_t(M) * K, ew = size_t(N) * K, ed = size_t(M) * N;
  const double set_bytes = double(ea + ew + ed) * 2;
  const int nsets = std::max(3, int(std::ceil(200e6 / set_bytes)));
  std::vector<T> ha(ea), hw(ew);
  uint32_t seed = 12345u + uint32_t(M * 31 + N * 7 + K);
  auto rnd = [&] { seed = seed * 1664525u + 1013904223u; return float(seed >> 8) / float(1u << 24) * 2.f - 1.f; };
  for (auto& v : ha) v = T(rnd());
  for (auto& v : hw) v = T(rnd() * 0.25f);
  std::vector<Set> sets(nsets);
  for (auto& s : sets) {
    CK(cudaMalloc(&s.a, ea * 2));
    CK(cudaMalloc(&s.w, ew * 2));
    CK(cudaMalloc(&s.d, ed * 2));
    CK(cudaMemcpy(s.a, ha.data(), ea * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(s.w, hw.data(), ew * 2, cudaMemcpyHostToDevice));
    if (!pipegemm::detail::make_tensor_map_2d_sw128(&s.ta, s.a, dt, M, K, K, 128, 64).ok() ||
        !pipegemm::detail::make_tensor_map_2d_sw128(&s.ta64, s.a, dt, M, K, K, 64, 64).ok() ||
        !pipegemm::detail::make_tensor_map_2d_sw128(&s.tw64, s.w, dt, N, K, K, 64, 64).ok() ||
        !pipegemm::detail::make_tensor_map_2d_sw128(&s.tw128, s.w, dt, N, K, K, 128, 64).ok() ||
        !pipegemm::detail::make_tensor_map_2d_sw128(&s.tw256, s.w, dt, N, K, K, 256, 64).ok()) {
      std::printf("tensor map failed\n");
      return 2;
    }
  }
  std::printf("\n%dx%dx%d %s (%d buffer sets of %.1f MB)\n", M, N, K, bf ? "bf16" : "f16", nsets, set_bytes / 1e6);
  // Peers: cublasGemmEx (default algorithm) and cuBLASLt's heuristic candidates. D (M x N,
  // row-major) = A W^T is, column-major, D^T (N x M) = W^T' ... i.e. op(W) = T, op(A) = N.
  const float one = 1.f, zero = 0.f;
  int it = 0;
  double best_peer = 1e30;
  std::string best_peer_name;
  auto peer = [&](const std::string& name, double ms) {
    std::printf("  %-28s %9.4f ms\n", name.c_str(), ms);
    if (ms < best_peer) best_peer = ms, best_peer_name = name;
  };
  {
    it = 0;
    const double ms = median_ms([&] {
      const Set& s = sets[it++ % nsets];
      cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, s.w, cdt, K, s.a, cdt, K, &zero, s.d, cdt, N,
                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    });
    peer("cublasGemmEx", ms);
  }
  cublasLtMatmulDesc_t op;
  CK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
  CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
  cublasLtMatrixLayout_t la, lb, lc;
  CK(cublasLtMatrixLayoutCreate(&la, cdt, K, N, K));
  CK(cublasLtMatrixLayoutCreate(&lb, cdt, K, M, K));
  CK(cublasLtMatrixLayoutCreate(&lc, cdt, N, M, N));
  cublasLtMatmulPreference_t pref;
  CK(cublasLtMatmulPreferenceCreate(&pref));
  CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof(ws_bytes)));
  cublasLtMatmulHeuristicResult_t heur[8];
  int nh = 0;
  cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 8, heur, &nh);
  for (int h = 0; h < nh; ++h) {
    it = 0;
    bool ok = true;
    const double ms = median_ms([&] {
      const Set& s = sets[it++ % nsets];
      if (cublasLtMatmul(lt, op, &one, s.w, la, s.a, lb, &zero, s.d, lc, s.d, lc, &heur[h].algo, ws, ws_bytes, 0) !=
          CUBLAS_STATUS_SUCCESS)
        ok = false;
    });
    if (ok) peer("cublasLt heuristic #" + std::to_string(h), ms);
  }
  // Reference D from cublasGemmEx into set 0.
  CK(cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, sets[0].w, cdt, K, sets[0].a, cdt, K, &zero, sets[0].d,
                  cdt, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  CK(cudaDeviceSynchronize());
  std::vector<T> ref(ed);
  CK(cudaMemcpy(ref.data(), sets[0].d, ed * 2, cudaMemcpyDeviceToHost));

  const int kt_all = (K + 63) / 64;
  const std::vector<Form> all = forms<T>();
  double best = 1e30;
  const Form* best_form = nullptr;
  for (const Form& f : all) {
    if (f.split > kt_all) continue;
    int ctas = 0;
    it = 0;
    cudaError_t err = cudaSuccess;
    const double ms = median_ms([&] {
      cudaError_t e = f.run(sets[it++ % nsets], M, N, K, &ctas);
      if (e != cudaSuccess) err = e;
    });
    if (err != cudaSuccess) {  // e.g. no GPC holds a cluster of SPLIT such CTAs: the form is out
      std::printf("  %-28s cannot launch: %s\n", f.name.c_str(), cudaGetErrorString(err));
      continue;
    }
    CK(cudaDeviceSynchronize());
    std::printf("  %-28s %9.4f ms  %4d CTAs (%d clusters of %d resident at most)  %.3fx the best cuBLAS\n", f.name.c_str(), ms,
                ctas, f.clusters(), f.cluster, best_peer / ms);
    if (ms < best) best = ms, best_form = &f;
  }
  if (!best_form) {
    std::printf("  no form launched\n");
    return 1;
  }
  std::printf("  best: %s %.4f ms against %s %.4f ms: %.3fx\n", best_form->name.c_str(), best, best_peer_name.c_str(), best_peer,
              best_peer / best);
  // Check: every form on a poisoned D against cuBLAS's D (every element), the best one also against
  // the CPU on some rows, and run twice bit for bit.
  long bad = 0;
  std::vector<T> got(ed), again(ed);
  for (const Form& f : all) {
    if (f.split > kt_all) continue;
    CK(cudaMemset(sets[1].d, 0xff, ed * 2));
    if (f.run(sets[1], M, N, K, nullptr) != cudaSuccess) continue;
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), sets[1].d, ed * 2, cudaMemcpyDeviceToHost));
    long fb = 0;
    for (size_t i = 0; i < ed; ++i) {
      const float r = float(ref[i]), x = float(got[i]);
      if (!(std::fabs(x - r) <= 1.6e-2f * std::fabs(r) + 2e-2f)) ++fb;
    }
    if (&f == best_form) {
      CK(cudaMemset(sets[1].d, 0x7f, ed * 2));
      CK(f.run(sets[1], M, N, K, nullptr));
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(again.data(), sets[1].d, ed * 2, cudaMemcpyDeviceToHost));
      const bool same = std::memcmp(got.data(), again.data(), ed * 2) == 0;
      long cb = 0, cn = 0;
      for (int m = 0; m < M; ++m) {
        if (m != 0 && m != M - 1 && m % 37) continue;
        for (int n = 0; n < N; ++n, ++cn) {
          double acc = 0;
          for (int k = 0; k < K; ++k) acc += double(float(ha[size_t(m) * K + k])) * double(float(hw[size_t(n) * K + k]));
          const float x = float(got[size_t(m) * N + n]);
          if (!(std::fabs(x - acc) <= 8e-3 * std::fabs(acc) + 1e-2)) ++cb;
        }
      }
      std::printf("  check %s: CPU %ld of %ld wrong; second run %s\n", f.name.c_str(), cb, cn, same ? "bit for bit the same" : "DIFFERS");
      fb += cb + (same ? 0 : 1);
    }
    if (fb) std::printf("  check %s: %ld of %zu elements off cuBLAS's: FAIL\n", f.name.c_str(), fb, ed);
    bad += fb;
  }
  std::printf("  check: %s\n", bad ? "FAIL" : "PASS (every form, every element)");
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb), cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(op);
  for (auto& s : sets) cudaFree(s.a), cudaFree(s.w), cudaFree(s.d);
  return bad ? 1 : 0;
}

int main(int argc, char** argv) {
  int dev = 0;
  cudaDeviceProp prop{};
  cudaGetDevice(&dev);
  if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess || prop.major != 9) {
    std::printf("needs an sm_90 GPU (wgmma, TMA, clusters)\n");
    return 2;
  }
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const bool bf = !(argc > 1 && std::strcmp(argv[1], "f16") == 0);
  std::printf("%s, %d SMs, split-K over a cluster, %s\n", prop.name, prop.multiProcessorCount, bf ? "bf16" : "f16");
  cublasHandle_t blas;
  cublasLtHandle_t lt;
  CK(cublasCreate(&blas));
  CK(cublasLtCreate(&lt));
  const size_t ws_bytes = size_t(32) << 20;
  void* ws = nullptr;
  CK(cudaMalloc(&ws, ws_bytes));
  // The global modes run only with every CTA resident (at most one a SM): a tile index times SPLIT
  // plus rank is below the SM count.
  g_scratch.sms = prop.multiProcessorCount;
  CK(cudaMalloc(&g_scratch.ws, size_t(g_scratch.sms) * 128 * 256 * sizeof(float)));
  CK(cudaMalloc(&g_scratch.flags, size_t(g_scratch.sms) * sizeof(int)));
  CK(cudaMemset(g_scratch.flags, 0, size_t(g_scratch.sms) * sizeof(int)));
  int rc = 0;
  for (int i = 2; i < argc; ++i) {
    int M = 0, N = 0, K = 0;
    if (std::sscanf(argv[i], "%dx%dx%d", &M, &N, &K) != 3 || M < 1 || N < 8 || K < 64 || N % 8 || K % 8) {
      std::printf("skip %s: MxNxK with N, K multiples of 8, K >= 64\n", argv[i]);
      continue;
    }
    const int r = bf ? run_shape<__nv_bfloat16>(M, N, K, blas, lt, ws, ws_bytes)
                     : run_shape<__half>(M, N, K, blas, lt, ws, ws_bytes);
    rc = std::max(rc, r);
  }
  return rc;
}
