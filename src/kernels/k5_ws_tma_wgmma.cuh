// Launcher, registry entry and table macros of k5 (the Hopper pipeline). CMake makes one
// translation unit per kernel config of variants.def, so they compile in parallel; several
// registered variants may share one kernel and differ only in the launch (cluster size).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cuda_element.hpp"
#include "kernels/k5_tensor_map.hpp"
#include "kernels/launch_util.cuh"
#include "kernels/pack.hpp"
#include "kernels/split_k.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/sm90/kernel.cuh"
#include "registry/auto_policy.hpp"
#include "registry/table.hpp"

namespace pipegemm::detail {

// The two columns of a k5 line (variants.def) that say which kernels the line is built with; read
// here and nowhere else (K5Variant). The lines of one config (PIPEGEMM_K5, _NOCLUSTER, _PACKED)
// share its kernels, so they carry the same columns.
// Short-K column -- the plain TN GEMM's kernels:
//   every_k         one kernel at every K: the line's own (ping-pong hides a tile's stores under
//                   the other consumer's mainloop already; B-resident defers its own stores; the
//                   wide tile has neither the registers to defer nor the smem for 4 buffers; so
//                   are the configs clustered along N, built for the wide tile)
//   deferred        the deferred-store form at every K (the tile is written out under the next
//                   tile's wgmma); the line's own long-K kernel is not built
//   short_deferred  the line's kernel for K > kShortK, the deferred-store form for K <= kShortK
//                   (with few k_tiles a tile's stores, not its MMAs, are the long pole; measured
//                   111% of cuBLAS on 4096x4096x256 against 104% for 3 stages / 4 buffers)
//   short_s3e4      the line's kernel for K > kShortK, 3 stages and 4 epilogue buffers for
//                   K <= kShortK, so the stores drain under the next mainloop (fp32 or s32 D: too
//                   many registers to defer)
// Layouts column:
//   tn              the plain TN GEMM only
//   general         and a general kernel for each pair of operand layouts (K- or MN-major A and B),
//                   with the full semantics, for every problem that is not the plain TN GEMM
namespace k5_column {
struct every_k;
struct deferred;
struct short_deferred;
struct short_s3e4;
struct tn;
struct general;
}  // namespace k5_column

// The plain TN GEMM's short-K kernel of a line (the line's own where it has none).
template <class Cfg, class Line, class ShortK>
struct K5ShortKOf {
  static_assert(std::is_same_v<ShortK, k5_column::every_k>, "short-K column: every_k, deferred, short_deferred, short_s3e4");
  using type = Cfg;
};
template <class Cfg, class Line>
struct K5ShortKOf<Cfg, Line, k5_column::short_deferred> {
  using type = sm90::Sm90Gemm<typename Cfg::Mainloop, sm90::EpilogueDeferredStore<typename Cfg::TD, Cfg::kEpiBufs>,
                              sm90::Cooperative, sm90::RasterScheduler, sm90::KernelName<Line, sm90::FormShortK>>;
};
template <class Cfg, class Line>
struct K5ShortKOf<Cfg, Line, k5_column::deferred> : K5ShortKOf<Cfg, Line, k5_column::short_deferred> {};
template <class Cfg, class Line>
struct K5ShortKOf<Cfg, Line, k5_column::short_s3e4> {
  using type = sm90::Sm90Gemm<sm90::MainloopTmaWgmma<typename Cfg::TA, sm90::Tile<Cfg::BM, Cfg::BN, Cfg::BK>, 3>,
                              sm90::EpilogueTmaStore<typename Cfg::TD, 4>, sm90::Cooperative, sm90::RasterScheduler,
                              sm90::KernelName<Line, sm90::FormShortK>>;
};

// One registered variant = the kernels of its table line's columns (kernels_of() lists them, with
// the rule launch() picks each by -- an explicit heuristic, stated here and in docs/hopper.md):
//   Cfg       the line's kernel (e.g. 4 stages, 2 epilogue buffers per consumer), when K > kShortK;
//   CfgShortK the short_k column's, when K <= kShortK (the line's own for every_k);
//   kDeferAlways (short_k = deferred; 16-bit D, the cooperative 128x256 tile): the deferred-store
//             config at every K -- at K = 4096-8192 it measured 0.3-0.6% faster than Cfg on four
//             of the five long-K compute shapes, FP16 and BF16 (H200, docs/hopper.md), so Cfg is
//             not built for it. CfgMain: the kernel a long K runs (registered shape, SASS).
//   CfgGeneral<A, B> (layouts = general): every problem that is not the plain TN GEMM.
// kCluster: 2 = clusters of 2 CTAs along M multicasting B, used when M has >= 2 tiles and the
// mainloop is long (K >= kClusterMinK: the cluster's lockstep start and end are amortized) -- along
// N multicasting A when Cfg::kClusterN (N has >= 2 tiles); 1 = never clusters.
// $PIPEGEMM_K5_RASTER_GROUP (work units per band along M, default 16 / cluster) overrides the
// tile order's band height, $PIPEGEMM_K5_MAX_CTAS caps the persistent grid (default: every SM),
// $PIPEGEMM_K5_SK_UNITS sets how many of the last units stream-K shares (default: its plan's),
// $PIPEGEMM_K5_SK_FANIN how many workers may share one unit when there are fewer units than SMs,
// $PIPEGEMM_K5_SHORT_K up to which K the short-K config runs (default kShortK),
// $PIPEGEMM_K5_STAGGER by how many k_tiles consumer 1 trails consumer 0 (cooperative; kernel.cuh),
// $PIPEGEMM_K5_CHUNK_PARTS=1|2|4 over how many k_tiles a deferred chunk is written (default: 2 from
// K = kChunkHalvesMinK, else 1),
// $PIPEGEMM_PDL=0 launches without programmatic dependent launch (launch_util.cuh).
// CfgGeneral<A_MN, B_MN>: the same tile and ring with the full semantics (kGeneral: batch, alpha,
// beta * C, bias, activation) and the operands' layouts (MN-major A and/or B), launched for every
// problem that is not the plain TN GEMM, whatever its K.
template <class Types, class Cfg, int kCluster, class ShortK, class Layouts>
struct K5Variant {
  using Line = typename sm90::LineOf<typename Cfg::Name>::type;  // the table line's name tag
  using CfgShortK = typename K5ShortKOf<Cfg, Line, ShortK>::type;
  static constexpr bool kDeferAlways = std::is_same_v<ShortK, k5_column::deferred>;
  // What the columns may say for a config: the short-K forms are cooperative tiles of one m64
  // block a consumer, clustered along M; deferring needs a 16-bit D and the raster order.
  static_assert(std::is_same_v<ShortK, k5_column::every_k> ||
                    !(Cfg::kPingpong || Cfg::kBResident || Cfg::kMBlocks > 1 || Cfg::kClusterN),
                "short-K column: every_k for ping-pong, B-resident, the wide tile and clusters along N");
  static_assert(!(kDeferAlways || std::is_same_v<ShortK, k5_column::short_deferred>) ||
                    (sizeof(typename Cfg::TD) == 2 && !(kDeferAlways && Cfg::kStreamK)),
                "short-K column: deferred forms need a 16-bit D (kDeferAlways: and the raster order)");
  static_assert(std::is_same_v<Layouts, k5_column::tn> || std::is_same_v<Layouts, k5_column::general>,
                "layouts column: tn or general");
  // The general form stores its tile in its own epilogue. Deferring those stores like the plain
  // form's (a second set of general kernels, once behind $PIPEGEMM_K5_GENERAL_DEFER) measured level
  // or slower on every epilogue row in two runs (docs/hopper.md), so it was removed.
  template <class LayoutA, class LayoutB>
  using CfgGeneral = sm90::Sm90Gemm<
      sm90::MainloopTmaWgmmaBatched<typename Cfg::TA, sm90::Tile<Cfg::BM, Cfg::BN, Cfg::BK>, Cfg::STAGES, LayoutA, LayoutB>,
      sm90::EpilogueFused<typename Cfg::TD, Cfg::kEpiBufs>, typename Cfg::Schedule, typename Cfg::Scheduler,
      sm90::KernelName<Line, sm90::FormGeneral<LayoutA, LayoutB>>>;
  static_assert(kCluster == 1 || kCluster == 2, "clusters of 1 or 2 CTAs");
  static_assert(std::is_same_v<typename Cfg::TA, typename CfgShortK::TA> &&
                    std::is_same_v<typename Cfg::TD, typename CfgShortK::TD> && Cfg::BM == CfgShortK::BM &&
                    Cfg::BN == CfgShortK::BN && Cfg::BK == CfgShortK::BK,
                "both configs compute the same problem with the same tile");
  using CfgMain = std::conditional_t<kDeferAlways, CfgShortK, Cfg>;
  static constexpr auto kernel = &sm90::k5_ws_tma_wgmma_kernel<CfgMain>;
  static constexpr int64_t kShortK = 512;
  // From this K the deferred chunks go out in halves (chunk_parts 2: eight k_tiles a tile, which
  // K = 512 holds; K = 256 would leave half of them to the epilogue). H100, 4096x4096xK, alternating
  // processes: halves 5-7% faster at K = 512, 1-3.5% at 768-1024, 0-2% at 1536-8192, 5.5% slower at 256.
  static constexpr int64_t kChunkHalvesMinK = 512;
  // s8 (integer wgmma reads K-major tiles only) has no general form: the plain TN GEMM only.
  // B-resident (a CTA's B, one column of tiles, kept in smem): the plain TN GEMM with N <= 4 BN and
  // K <= kMaxK, in one launch form (no clusters, its own deferred-store epilogue).
  // The wide tile (256x192, 2 x 96 accumulators a consumer): the plain form too.
  // Clusters along N: the plain form too. So is the 64-wide tile (the general form's bias and
  // MN-major layouts are 128-column ones).
  static constexpr bool kPlainOnly = std::is_same_v<Layouts, k5_column::tn>;
  static_assert(kPlainOnly || !(Cfg::kInt8 || Cfg::kBResident || Cfg::kMBlocks > 1 || Cfg::kClusterN || Cfg::BN < 128),
                "layouts column: tn for s8, B-resident, the wide tile, clusters along N and the 64-wide tile");
  static constexpr int64_t kClusterMinK = 2048;

  // A launch of `grid` CTAs of C in clusters of `cluster` along x, programmatically dependent on
  // the stream's previous kernel when `pdl` and pdl_enabled() (the attributes live in attrs). The occupancy query
  // and the launch use the same one.
  template <class C>
  static cudaLaunchConfig_t cluster_launch_config(int cluster, unsigned grid, cudaLaunchAttribute (&attrs)[2],
                                                  bool pdl = false) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(C::kNumThreads);
    cfg.dynamicSmemBytes = C::kSmemBytes;
    cfg.attrs = attrs;
    cfg.numAttrs = 0;
    if (cluster > 1) {
      cudaLaunchAttribute& a = attrs[cfg.numAttrs++] = cudaLaunchAttribute{};
      a.id = cudaLaunchAttributeClusterDimension;
      a.val.clusterDim.x = unsigned(cluster);
      a.val.clusterDim.y = a.val.clusterDim.z = 1;
    }
    if (pdl) add_pdl_attribute(cfg);
    return cfg;
  }

  // Clusters resident at once with one CTA per SM (GPC boundaries can leave SMs unpaired).
  template <class C>
  static int max_active_clusters(int cluster) {
    static int cached[3] = {0, 0, 0};
    if (cached[cluster]) return cached[cluster];
    int n = device_info().sm_count / cluster;
    if (cluster > 1) {
      cudaLaunchAttribute attrs[2];
      const cudaLaunchConfig_t cfg = cluster_launch_config<C>(cluster, unsigned(cluster * n), attrs);
      int q = 0;
      if (cudaOccupancyMaxActiveClusters(&q, (const void*)&sm90::k5_ws_tma_wgmma_kernel<C>, &cfg) ==
              cudaSuccess &&
          q > 0)
        n = q;
      else
        cudaGetLastError();
    }
    return cached[cluster] = std::max(n, 1);
  }

  // Tuning knobs from the environment (0 / unset: the defaults below).
  static int env_int(const char* name, int unset = 0) {
    const char* e = std::getenv(name);
    return e ? std::max(0, std::atoi(e)) : unset;
  }
  static int raster_group_override() {
    static const int g = env_int("PIPEGEMM_K5_RASTER_GROUP");
    return g;
  }
  static int max_ctas_override() {  // at most this many persistent CTAs (e.g. 128 of 132 SMs)
    static const int n = env_int("PIPEGEMM_K5_MAX_CTAS");
    return n;
  }
  static int sk_units_override() {  // stream-K: share the last this many units (all: no whole units)
    static const int n = env_int("PIPEGEMM_K5_SK_UNITS");
    return n;
  }
  static int stagger_override() {  // cooperative: k_tiles consumer 1 trails consumer 0 by (-1: default)
    static const int n = env_int("PIPEGEMM_K5_STAGGER", -1);
    return n;
  }
  static int chunk_parts_override() {  // deferred forms: k_tiles a pending chunk is spread over (0: by K)
    static const int n = env_int("PIPEGEMM_K5_CHUNK_PARTS");
    return n == 1 || n == 2 || n == 4 ? n : 0;
  }
  static int64_t short_k_max() {  // the short-K config runs up to this K
    static const int64_t n = env_int("PIPEGEMM_K5_SHORT_K", int(kShortK));
    return n;
  }
  static int sk_fan_in_override() {  // stream-K, fewer units than workers: workers per unit
    static const int n = env_int("PIPEGEMM_K5_SK_FANIN");
    return n;
  }

  // Stream-K's plan: the units (every product's) shared among the resident clusters' workers.
  template <class C>
  static pipeline::StreamKPlan stream_k_plan_of(const Problem& p, int cluster) {
    const int m_tiles = int((p.m + C::BM - 1) / C::BM), n_tiles = int((p.n + C::BN - 1) / C::BN);
    const int units = sm90::unit_grid<C>(m_tiles, n_tiles, cluster, 1).total * int(p.batch);
    return pipeline::stream_k_plan(units, int((p.k + C::BK - 1) / C::BK), resident_clusters<C>(cluster),
                                   sk_units_override(), sk_fan_in_override());
  }
  // The persistent grid's bound: clusters resident at once (capped by $PIPEGEMM_K5_MAX_CTAS).
  template <class C>
  static int resident_clusters(int cluster) {
    const int resident = max_active_clusters<C>(cluster);
    return max_ctas_override() >= cluster ? std::min(resident, max_ctas_override() / cluster) : resident;
  }
  // The cluster size launch() takes for p.
  static int cluster_for(const Problem& p) {
    const bool two_tiles = Cfg::kClusterN ? p.n > Cfg::BN : p.m > Cfg::BM;  // along the cluster's side
    return (kCluster == 2 && two_tiles && p.k >= kClusterMinK) ? 2 : 1;
  }
  // launch()'s scratch: stream-K's partials and flags where its plan shares units (else none).
  static size_t workspace(const Problem& p, const Operands&) {
    if constexpr (Cfg::kStreamK) {
      const int cluster = cluster_for(p);
      const pipeline::StreamKPlan plan = stream_k_plan_of<Cfg>(p, cluster);
      if (plan.sk_units <= 0) return 0;
      const int slots = plan.workers * cluster * Cfg::kConsumers;
      return split_workspace_bytes(slots, size_t(slots) * Cfg::kAccRegs * 128);
    }
    return 0;
  }
  static size_t workspace_packed(const Problem& p, const Operands& x) {
    const PackPlan pl = pack_plan(p, x.a, x.b, x.d);
    return pl.any() ? workspace_part(pl.bytes) + workspace(packed_problem(p, pl), x) : workspace(p, x);
  }

  template <class C>
  static Status launch_with(const Problem& p, const Operands& x, cudaStream_t_ s, int cluster) {
    constexpr auto k = &sm90::k5_ws_tma_wgmma_kernel<C>;
    Status st = prepare_smem(k, C::kSmemBytes);
    if (!st.ok()) return st;
    const int m_tiles = int((p.m + C::BM - 1) / C::BM);
    const int n_tiles = int((p.n + C::BN - 1) / C::BN);

    CUtensorMap ta, tb, td;
    typename C::GeneralArgs general{};
    if constexpr (C::kGeneral) {
      // Rank-3 maps: a broadcast operand (stride 0) is one matrix, read at product 0.
      general.batch = int(p.batch);
      general.a_bcast = p.stride_a == 0;
      general.b_bcast = p.stride_b == 0;
      general.epi = kernels::common::epilogue_args(p, x);
      // K-major: (rows, K) in boxes of (tile rows, BK). MN-major: stored (K, rows), boxes of (BK, 64).
      const int64_t a_batches = general.a_bcast ? 1 : p.batch, b_batches = general.b_bcast ? 1 : p.batch;
      st = C::kAMn ? make_tensor_map_sw128(&ta, x.a, Types::a, p.k, p.m, p.lda, C::BK, C::kMnBox, a_batches, p.stride_a)
                   : make_tensor_map_sw128(&ta, x.a, Types::a, p.m, p.k, p.lda, C::BM, C::BK, a_batches, p.stride_a);
      if (st.ok())
        st = C::kBMn ? make_tensor_map_sw128(&tb, x.b, Types::a, p.k, p.n, p.ldb, C::BK, C::kMnBox, b_batches, p.stride_b)
                     : make_tensor_map_sw128(&tb, x.b, Types::a, p.n, p.k, p.ldb, C::BN / cluster, C::BK, b_batches,
                                             p.stride_b);
      if (st.ok()) st = make_tensor_map_sw128(&td, x.d, Types::d, p.m, p.n, p.ldd, 64, C::kEpiCols, p.batch, p.stride_d);
    } else {
      // A box per CTA of the shared operand's rows: B's, or A's (clusters along N).
      const int a_box = C::kClusterN ? C::BM / cluster : C::BM, b_box = C::kClusterN ? C::BN : C::BN / cluster;
      st = make_tensor_map_2d_sw128(&ta, x.a, Types::a, p.m, p.k, p.lda, a_box, C::BK);
      if (st.ok()) st = make_tensor_map_2d_sw128(&tb, x.b, Types::a, p.n, p.k, p.ldb, b_box, C::BK);
      if (st.ok()) st = make_tensor_map_2d_sw128(&td, x.d, Types::d, p.m, p.n, p.ldd, 64, C::kEpiCols);
    }
    if (!st.ok()) return st;

    // Persistent grid: every resident cluster, at most one per work unit (of every product);
    // stream-K: as many as its plan shares the units' k_tiles among (pipeline/stream_k.cuh).
    const int units = sm90::unit_grid<C>(m_tiles, n_tiles, cluster, 1).total * int(p.batch);
    const int resident = resident_clusters<C>(cluster);
    int clusters = std::min(units, resident);
    // B-resident: a CTA keeps the B of one column of tiles, so units go row by row (group 1) over
    // whole rows' worth of CTAs -- CTA c's units c, c + grid, ... all lie in column c % n_tiles.
    if constexpr (C::kBResident) clusters = pipeline::column_persistent_grid(units, resident, n_tiles);
    const int raster_group = C::kBResident                ? 1
                             : raster_group_override() > 0 ? raster_group_override()
                                                           : std::max(1, 16 / cluster);  // 2048 rows of A per band
    typename C::SchedulerArgs sk{};
    if constexpr (C::kStreamK) {
      sk.sched = pipeline::TileScheduler(m_tiles, n_tiles, cluster, raster_group);
      sk.plan = stream_k_plan_of<C>(p, cluster);
      clusters = sk.plan.workers;
      if (sk.plan.sk_units > 0) {  // a partial slot and a flag per (worker, CTA, consumer)
        const int slots = clusters * cluster * C::kConsumers;
        pipeline::SplitWorkspace ws;
        st = split_workspace(x, s, slots, size_t(slots) * C::kAccRegs * 128, &ws);
        if (!st.ok()) return st;
        sk.flags = ws.counters;
        sk.partials = ws.partials;
      }
    }

    cudaLaunchAttribute attrs[2];
    cudaLaunchConfig_t cfg = cluster_launch_config<C>(cluster, unsigned(clusters * cluster), attrs, true);
    cfg.stream = s;
    // Stagger: consumer 1 trails consumer 0 by this many k_tiles, at most STAGES - 1 (the ring); with
    // K <= kShortK a tile has few k_tiles to overlap (and the short-K general form meets at a 256-thread
    // barrier every tile), so the consumers stay in step.
    const int wanted = stagger_override() >= 0 ? stagger_override() : p.k > kShortK ? C::kStagger : 0;
    const int stagger = C::kPingpong ? 0 : std::min(C::STAGES - 1, wanted);
    // Deferred stores: each chunk of the pending tile spread over two k_tiles once K >= kChunkHalvesMinK
    // (kernel.cuh's chunk_parts; one chunk a k_tile put ~32 KB more shared-memory traffic in each of
    // a tile's first four k_tiles).
    const int parts = chunk_parts_override() ? chunk_parts_override() : p.k >= kChunkHalvesMinK ? 2 : 1;
    st = cuda_status(cudaLaunchKernelEx(&cfg, k, ta, tb, td, int(p.m), int(p.n), int(p.k), cluster, raster_group, stagger,
                                        parts, general, sk),
                     "cudaLaunchKernelEx(k5_ws_tma_wgmma_kernel)");
    if (!st.ok()) return st;
    return after_launch("k5_ws_tma_wgmma_kernel");
  }

  static Status launch(const Problem& p, const Operands& x, cudaStream_t_ s) {
    const int cluster = cluster_for(p);
    if constexpr (kPlainOnly) {  // the plain TN form only (make(): the requirements refuse the rest)
      if (!p.plain_tn())
        return Status::error(StatusCode::not_supported,
                             "k5 s8 / B-resident / 256x192 (and its 1x2 clusters) / 64-wide: the plain TN GEMM only");
      if constexpr (Cfg::kBResident) {  // make()'s max_n / max_k refuse the rest before a launch
        if (p.n > Cfg::Mainloop::kBResidentNTiles * Cfg::BN || p.k > Cfg::kMaxK)
          return Status::error(StatusCode::not_supported, "k5 B-resident: N <= 4 BN and K <= its B slots * BK");
        return launch_with<Cfg>(p, x, s, 1);
      }
      return launch_plain(p, x, s, cluster);
    } else {
      return launch_general_or_plain(p, x, s, cluster);
    }
  }
  // The plain TN GEMM: CfgMain for a long K, CfgShortK for a short one (the same kernel when kDeferAlways).
  static Status launch_plain(const Problem& p, const Operands& x, cudaStream_t_ s, int cluster) {
    if constexpr (kDeferAlways) {
      return launch_with<CfgShortK>(p, x, s, cluster);
    } else {
      if (p.k <= short_k_max()) return launch_with<CfgShortK>(p, x, s, cluster);
      return launch_with<Cfg>(p, x, s, cluster);
    }
  }
  static Status launch_general(const Problem& p, const Operands& x, cudaStream_t_ s, int cluster) {
    const bool a_mn = p.a_layout == Layout::ColMajor, b_mn = p.b_layout == Layout::ColMajor;
    using sm90::KMajor, sm90::MnMajor;
    if (a_mn && b_mn) return launch_with<CfgGeneral<MnMajor, MnMajor>>(p, x, s, cluster);
    if (a_mn) return launch_with<CfgGeneral<MnMajor, KMajor>>(p, x, s, cluster);
    if (b_mn) return launch_with<CfgGeneral<KMajor, MnMajor>>(p, x, s, cluster);
    return launch_with<CfgGeneral<KMajor, KMajor>>(p, x, s, cluster);
  }
  static Status launch_general_or_plain(const Problem& p, const Operands& x, cudaStream_t_ s, int cluster) {
    if (p.plain_tn())
      return launch_plain(p, x, s, cluster);
    return launch_general(p, x, s, cluster);
  }

  static Status occupancy(int* blocks, int* regs) {
    return occupancy_of(kernel, CfgMain::kNumThreads, CfgMain::kSmemBytes, blocks, regs);
  }

  // A kernel's symbol pattern: its tag "Sm90Name_<line>" (in pipegemm::detail), then its form's.
  template <class C>
  static std::string symbol_of(const char* line) {
    return std::string("k5_ws_tma_wgmma_kernel*Sm90Name_") + line + "E*" +
           sm90::FormOf<typename C::Name>::type::kSymbol;
  }
  // The kernels launch() picks from, each with its rule (the defaults; the env knobs above move them).
  static std::vector<KernelInstance> kernels_of(const char* line) {
    const std::string along = Cfg::kClusterN ? "N" : "M", side = Cfg::kClusterN ? "N > BN" : "M > BM";
    const std::string clusters = kCluster == 2 ? "; clusters of 2 along " + along + " when " + side + " and K >= " +
                                                     std::to_string(kClusterMinK)
                                               : "; no clusters";
    const std::string plain = kPlainOnly ? "the plain TN GEMM" : "the plain TN GEMM (A, B K-major, alpha 1, no C, batch, bias)";
    auto form_of = [](const std::string& sym) { return sym.find("FormShortK") != std::string::npos ? "short_k" : "long"; };
    std::vector<KernelInstance> k;
    if constexpr (std::is_same_v<CfgShortK, Cfg> || kDeferAlways) {
      const std::string s = symbol_of<CfgMain>(line);
      k.push_back({form_of(s), s, false, false, false, 0, 0, plain + ", every K" + clusters});
    } else {
      const std::string ks = std::to_string(kShortK);
      k.push_back({"long", symbol_of<Cfg>(line), false, false, false, kShortK + 1, 0, plain + ", K > " + ks + clusters});
      k.push_back({"short_k", symbol_of<CfgShortK>(line), false, false, false, 0, kShortK,
                   plain + ", K <= " + ks + " ($PIPEGEMM_K5_SHORT_K)" + clusters});
    }
    if constexpr (!kPlainOnly) {
      using sm90::KMajor, sm90::MnMajor;
      auto general = [&](auto* c, const char* form, bool a_mn, bool b_mn) {
        using C = std::remove_pointer_t<decltype(c)>;
        k.push_back({form, symbol_of<C>(line), true, a_mn, b_mn, 0, 0,
                     std::string("every other problem with A ") + (a_mn ? "MN" : "K") + "-major, B " +
                         (b_mn ? "MN" : "K") + "-major, every K" + clusters});
      };
      general(static_cast<CfgGeneral<KMajor, KMajor>*>(nullptr), "general_kk", false, false);
      general(static_cast<CfgGeneral<KMajor, MnMajor>*>(nullptr), "general_kmn", false, true);
      general(static_cast<CfgGeneral<MnMajor, KMajor>*>(nullptr), "general_mnk", true, false);
      general(static_cast<CfgGeneral<MnMajor, MnMajor>*>(nullptr), "general_mnmn", true, true);
    }
    return k;
  }

  // name: the registered variant's; line: the table line whose kernels it launches (its tag's
  // name); policy: auto's, the line's last column.
  static Variant make(const char* name, const char* line, AutoPolicy policy) {
    // Registered shape, occupancy and SASS expectations are those of the main (K > kShortK) kernel.
    using M = CfgMain;
    Variant v = kernel_entry<Types>(name, "k5_ws_tma_wgmma", 5,
                                    {M::BM, M::BN, M::BK, M::STAGES, M::kNumThreads, M::kSmemBytes, M::kWgmmaM,
                                     M::kWgmmaN, M::kWgmmaK},
                                    M::kMechanism);
    v.min_sm = 90;
    v.max_sm = 90;  // wgmma / setmaxnreg: sm_90a code only
    v.mech.max_cluster = kCluster;
    v.mech.raster_group = 16;  // work units per band along M (launch_with)
    v.req.m_multiple = v.req.k_multiple = 1;  // TMA bounds every edge but one:
    // the TMA store clips D's rows in whole 16-byte units, so a row that ends mid-unit would get
    // up to 15 bytes written into its padding (found by `pipegemm fuzz`, which poisons and checks
    // the padding): N in whole 16-byte D vectors; other N go to k4 (element stores at the edge).
    v.req.n_multiple = 16 / int(sizeof(typename Cfg::TD));
    v.req.ptr_align_bytes = 16;                                    // TMA global addresses
    // TMA row pitches are multiples of 16 bytes: 8 fp16/bf16 (16 s8) elements for A and B.
    v.req.ld_multiple = 16 / int(sizeof(typename Cfg::TA));
    v.req.ldd_multiple = 16 / int(sizeof(typename Cfg::TD));  // D's own 16 bytes (s8 A: 16 elements, s32 D: 4)
    // The symbol: the kernel whose name tag is this line's, in the form a long K runs; and every
    // kernel of the line with the problems it runs.
    v.symbol = symbol_of<CfgMain>(line);
    v.kernels = kernels_of(line);
    v.launch = &launch;
    v.occupancy = &occupancy;
    v.workspace = &workspace;
    set_auto_policy(v, policy);  // the line's column (variants.def)
    if constexpr (Cfg::kClusterN) v.mech.cluster_n = true;
    if constexpr (Cfg::kBResident) {
      v.req.max_n = Cfg::Mainloop::kBResidentNTiles * Cfg::BN;
      v.req.max_k = Cfg::kMaxK;
      v.mech.b_resident = true;  // never a guess: its lines are tuned-only
    }
    // CfgGeneral: every layout (MN-major operands read transposed by wgmma), alpha, beta with C
    // apart (its type or f32), batch, both biases, every activation.
    // s8: the plain TN GEMM only (kPlainOnly; the full semantics of s8 are k0's).
    Requirements& r = v.req;
    if constexpr (!kPlainOnly) {
      r.a_mn_major = r.b_mn_major = true;
      r.scale = r.c_apart = r.c_f32 = r.batch = r.bias_per_row = r.bias_per_col = r.bias_f32 = true;
      r.activations = (1u << int(Activation::relu)) | (1u << int(Activation::gelu_tanh)) | (1u << int(Activation::gelu_erf));
    }
    return v;
  }

  // The packed form (kernels/pack.hpp): the same kernel behind a copy of whatever operand is not
  // 16-byte aligned, so it takes any K, leading dimension, N and naturally aligned pointer.
  static Status launch_packed_form(const Problem& p, const Operands& x, cudaStream_t_ s) {
    return launch_packed(p, x, s, &launch);
  }
  static Variant make_packed(const char* name, const char* line, AutoPolicy policy) {
    Variant v = make(name, line, policy);
    // Packing copies A and B (either layout, every product) and D; C and the bias are read where
    // they are, element by element. So the packed form computes whatever its kernel computes (the
    // 16-bit forms: every layout, alpha, beta and C, batch, bias, activation; s8: the plain TN GEMM),
    // at any alignment (docs/any_alignment.md).
    v.mech.packed = true;
    v.req.n_multiple = 1;
    v.req.ptr_align_bytes = int(sizeof(typename Cfg::TA));  // natural alignment
    v.req.ld_multiple = 1;
    v.req.d_align_bytes = int(sizeof(typename Cfg::TD));
    v.req.ldd_multiple = 1;
    v.launch = &launch_packed_form;
    v.workspace = &workspace_packed;
    // An auto candidate, the plain TN GEMM and beyond it (layouts, C, batch, epilogue): its GPU
    // tests, verify, memcheck and fuzz 2,000 + 10,000 a type passed. On the H200: 1.44x / 1.66x /
    // 3.42x the best cuBLAS on 1000x1001x1000, 2048x2048x2049, 8191x4096x4095 FP16, 0.66x on
    // 4095x4097x255 (the copies outweigh a short K): tune and the cost model (the copies' bytes)
    // choose. At 4096x4096x4095 it runs 4.5x the best cuBLAS with beta C and 28x k0 with
    // bias+GELU, where cuBLASLt has no algorithm. s8 too: exact in its GPU test, verify with
    // offsets and fuzz 10,000 (4,070 runs), 19x k0 at K = 4095 and 2.1x the best cuBLAS at
    // K = 4092 (docs/any_alignment.md).
    return v;
  }
};

}  // namespace pipegemm::detail

// ---- the table's k5 lines (variants.def) ---------------------------------------------------
// PIPEGEMM_K5 launches clusters of 2 along M (B multicast) when K >= 2048; _NOCLUSTER launches
// the same kernel without them; _PACKED runs it behind a copy of the unaligned operands (any
// alignment). CMake puts the lines of one config in one translation unit. Each line composes its
// kernel (sm90/gemm.cuh) from the collectives, TA / TD its types; `line` names the kernel's tag.
#define PIPEGEMM_K5_REGISTER(t, line, name, cluster, shortk, layouts, policy, make_fn, ...)                       \
  namespace pipegemm::detail {                                                                                    \
  struct PIPEGEMM_CAT(Sm90Name_, line);                                                                           \
  void PIPEGEMM_REGISTER_FN(name)(std::vector<Variant> & out) {                                                   \
    using TA = typename CudaElement<types::t::a>::T;                                                              \
    using TD = typename CudaElement<types::t::d>::T;                                                              \
    using Cfg = sm90::Sm90Gemm<__VA_ARGS__, sm90::KernelName<PIPEGEMM_CAT(Sm90Name_, line), sm90::FormLong>>;     \
    out.push_back(K5Variant<types::t, Cfg, cluster, k5_column::shortk, k5_column::layouts>::make_fn(              \
        PIPEGEMM_STR(name), PIPEGEMM_STR(line), AutoPolicy::policy));                                             \
  }                                                                                                               \
  }
#define PIPEGEMM_K5_TN(bm, bn, bk, s, e, mc, epi, schedule, scheduler)                                            \
  sm90::MainloopTmaWgmma<TA, sm90::Tile<bm, bn, bk>, s, sm90::mc>, sm90::epi<TD, e>, sm90::schedule,              \
      sm90::scheduler
#define PIPEGEMM_K5_ENTRY(name, t, bm, bn, bk, s, e, cluster, shortk, layouts, policy)                            \
  PIPEGEMM_K5_REGISTER(t, PIPEGEMM_NAME_K5(t, bm, bn, bk, s, e), name, cluster, shortk, layouts, policy, make,    \
                       PIPEGEMM_K5_TN(bm, bn, bk, s, e, MulticastB, EpilogueTmaStore, Cooperative, RasterScheduler))
#define PIPEGEMM_K5_PACKED(t, bm, bn, bk, s, e, shortk, layouts, policy)                                          \
  PIPEGEMM_K5_REGISTER(t, PIPEGEMM_NAME_K5(t, bm, bn, bk, s, e), PIPEGEMM_NAME_K5_PACKED(t, bm, bn, bk, s, e), 2, \
                       shortk, layouts, policy, make_packed,                                                      \
                       PIPEGEMM_K5_TN(bm, bn, bk, s, e, MulticastB, EpilogueTmaStore, Cooperative, RasterScheduler))
// A line whose kernel is its own (the variant's name is the kernel's tag), launched by make().
#define PIPEGEMM_K5_OWN_LINE(t, name, cluster, shortk, layouts, policy, ...)                                      \
  PIPEGEMM_K5_REGISTER(t, name, name, cluster, shortk, layouts, policy, make, __VA_ARGS__)
#define PIPEGEMM_K5_PINGPONG(t, bm, bn, bk, s, e, shortk, layouts, policy)                                        \
  PIPEGEMM_K5_OWN_LINE(t, PIPEGEMM_NAME_K5_PINGPONG(t, bm, bn, bk, s, e), 2, shortk, layouts, policy,             \
                       PIPEGEMM_K5_TN(bm, bn, bk, s, e, MulticastB, EpilogueTmaStore, Pingpong, RasterScheduler))
// _B_RESIDENT: B loaded once and kept in smem (N <= BN, K <= s * bk), deferred stores, no clusters.
#define PIPEGEMM_K5_B_RESIDENT(t, bm, bn, bk, s, e, shortk, layouts, policy)                                      \
  PIPEGEMM_K5_OWN_LINE(t, PIPEGEMM_NAME_K5_B_RESIDENT(t, bm, bn, bk, s, e), 1, shortk, layouts, policy,           \
                       sm90::MainloopBResident<TA, sm90::Tile<bm, bn, bk>, s>,                                    \
                       sm90::EpilogueDeferredStore<TD, e>, sm90::BResident, sm90::RasterScheduler)
// _B_RESIDENT_K: the same with B's k_tiles apart from the ring -- K <= k (k / bk slots of B), the
// rest of the smem a deeper ring of A (s stages).
#define PIPEGEMM_K5_B_RESIDENT_K(t, bm, bn, bk, s, e, k, shortk, layouts, policy)                                 \
  static_assert((k) % (bk) == 0, "K <= k: whole k_tiles of B");                                                   \
  PIPEGEMM_K5_OWN_LINE(t, PIPEGEMM_NAME_K5_B_RESIDENT_K(t, bm, bn, bk, s, e, k), 1, shortk, layouts, policy,      \
                       sm90::MainloopBResident<TA, sm90::Tile<bm, bn, bk>, s, (k) / (bk)>,                        \
                       sm90::EpilogueDeferredStore<TD, e>, sm90::BResident, sm90::RasterScheduler)
// _STREAMK: the cooperative kernel walking stream-K segments (pipeline/stream_k.cuh), clusters of 2
// when K >= 2048 like PIPEGEMM_K5.
#define PIPEGEMM_K5_STREAMK(t, bm, bn, bk, s, e, shortk, layouts, policy)                                         \
  PIPEGEMM_K5_OWN_LINE(t, PIPEGEMM_NAME_K5_STREAMK(t, bm, bn, bk, s, e), 2, shortk, layouts, policy,              \
                       PIPEGEMM_K5_TN(bm, bn, bk, s, e, MulticastB, EpilogueTmaStore, Cooperative, StreamKScheduler))
// _CLUSTER1X2: the plain kernel with its 2-CTA clusters side by side along N, multicasting A.
#define PIPEGEMM_K5_CLUSTER1X2(t, bm, bn, bk, s, e, shortk, layouts, policy)                                      \
  PIPEGEMM_K5_OWN_LINE(t, PIPEGEMM_NAME_K5_CLUSTER1X2(t, bm, bn, bk, s, e), 2, shortk, layouts, policy,           \
                       PIPEGEMM_K5_TN(bm, bn, bk, s, e, MulticastA, EpilogueTmaStore, Cooperative, RasterScheduler))
#define PIPEGEMM_K5(t, bm, bn, bk, s, e, shortk, layouts, policy)                                                 \
  PIPEGEMM_K5_ENTRY(PIPEGEMM_NAME_K5(t, bm, bn, bk, s, e), t, bm, bn, bk, s, e, 2, shortk, layouts, policy)
#define PIPEGEMM_K5_NOCLUSTER(t, bm, bn, bk, s, e, shortk, layouts, policy)                                       \
  PIPEGEMM_K5_ENTRY(PIPEGEMM_NAME_K5_NOCLUSTER(t, bm, bn, bk, s, e), t, bm, bn, bk, s, e, 1, shortk, layouts, policy)
