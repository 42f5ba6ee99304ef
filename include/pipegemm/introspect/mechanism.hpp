// The words a kernel config uses to say how it works. Every kernel config states its Mechanism
// as a constexpr (kMechanism); the registry copies it into the Variant, and everything else --
// the description `pipegemm list` prints, the planner's pipeline model, the SASS checker's
// expectations, the automatic choice -- is derived from these typed fields, never from names.
// Plain C++ (no CUDA), so kernels, the library and the tools include the same header.
#pragma once

namespace pipegemm {

// How a k_tile travels from global memory.
enum class LoadPath {
  ldg,       // LDG into registers (k0: straight to the MMA; k2: then STS into smem)
  cp_async,  // LDGSTS global -> shared, no register staging (k1, k3, k4, the seed)
  tma,       // UTMALDG bulk tensor copies, completion on an mbarrier (k5)
  library,   // a cuBLAS peer: not ours to describe
};
// The instruction that multiplies.
enum class MmaKind { mma_sync, wgmma, ffma, library };
// How loads overlap the MMAs.
enum class PipelineKind {
  none,           // no shared memory: nothing to overlap (k0)
  single,         // one smem buffer: load, sync, compute, sync (k1)
  ldg_register,   // next k_tile staged in registers under the MMAs (k2)
  cp_async_ring,  // STAGES-slot cp.async ring, waits by group count (k3, k4)
  mbarrier_ring,  // STAGES-slot ring with full/empty mbarriers (k5)
  register_prefetch,  // no smem: the next k_tile LDG'd into the other of two register buffers under this one's MMAs (skinny)
  library,
};
// Which output tile each CTA computes.
enum class TileOrder {
  rows_by_cols,  // 2-D grid: x = N tiles, y = M tiles
  swizzled,      // 1-D grid, GROUP row tiles per column tile (L2 reuse)
  persistent,    // one CTA per SM walking tiles in the swizzled order
  library,
};
// How accumulators reach D.
enum class EpilogueKind {
  direct,        // registers -> global, element stores
  smem_staged,   // registers -> padded smem tile -> 16-byte coalesced stores
  stmatrix_tma,  // stmatrix into swizzled smem, TMA store, overlapped with the next tile
  library,
};

struct Mechanism {
  LoadPath load = LoadPath::library;
  MmaKind mma = MmaKind::library;
  PipelineKind pipeline = PipelineKind::library;
  TileOrder order = TileOrder::library;
  EpilogueKind epilogue = EpilogueKind::library;
  int load_bytes = 0;          // bytes per global load instruction per thread (16, or one element)
  bool ldmatrix = false;       // shared -> registers with ldmatrix (else scalar LDS)
  bool s2r_prefetch = false;   // the next k_block's fragments load under this k_block's MMAs
  bool a_reuse = false;        // MMA order reuses the A fragment (M outer, N inner, serpentine)
  int raster_group = 0;        // row tiles per group of the swizzled order (0: none)
  int warps_m = 0, warps_n = 0;  // warp layout of the tiled MMA (0 for FFMA thread grids)
  bool warp_specialized = false; // producer and consumer warpgroups (loads and MMAs apart)
  int consumers = 0;           // MMA-issuing warpgroups of a warp-specialized kernel
  bool pingpong = false;       // consumers take turns on whole tiles (one's epilogue under the other's MMAs)
  int stagger = 0;             // cooperative consumers: k_tiles consumer 1 trails consumer 0 (its epilogue under the other's MMAs)
  int max_cluster = 1;         // CTAs per cluster the launcher may use (B multicast)
  bool cluster_n = false;      // the cluster's CTAs side by side along N, multicasting A instead
  bool packed = false;         // unaligned operands copied through a 16-byte-aligned workspace first
  bool b_resident = false;     // B loaded into shared memory once and kept for every tile (N <= BN, short K)
  // Persistent: the last wave's k_tiles shared by every worker (stream-K); each unit's finisher
  // adds the other segments' partial sums in an order the plan fixes (bitwise repeatable).
  bool stream_k = false;
  // Roles by size, not by name: the thin operand (a problem's M or N, at most BM) on the MMA's
  // 16-row side padded to whole m16 tiles, the large one streamed on its 8-wide side -- for a
  // small N that is D^T = B A^T (skinny).
  bool swap_ab = false;
  // > 1: K split over up to this many CTAs per output tile when tiles alone leave SMs idle; each
  // writes fp32 partials, the last to finish sums them in split order (bitwise repeatable).
  int split_k = 0;
};

inline const char* to_string(LoadPath x) {
  switch (x) {
    case LoadPath::ldg: return "ldg";
    case LoadPath::cp_async: return "cp.async";
    case LoadPath::tma: return "tma";
    case LoadPath::library: return "library";
  }
  return "?";
}
inline const char* to_string(MmaKind x) {
  switch (x) {
    case MmaKind::mma_sync: return "mma.sync";
    case MmaKind::wgmma: return "wgmma";
    case MmaKind::ffma: return "FFMA";
    case MmaKind::library: return "library";
  }
  return "?";
}
inline const char* to_string(PipelineKind x) {
  switch (x) {
    case PipelineKind::none: return "none (no shared memory)";
    case PipelineKind::single: return "single buffer";
    case PipelineKind::ldg_register: return "LDG-register double buffer";
    case PipelineKind::cp_async_ring: return "cp.async ring";
    case PipelineKind::mbarrier_ring: return "mbarrier ring (full/empty per stage)";
    case PipelineKind::register_prefetch: return "register double buffer (no smem)";
    case PipelineKind::library: return "library";
  }
  return "?";
}
inline const char* to_string(TileOrder x) {
  switch (x) {
    case TileOrder::rows_by_cols: return "rows by columns";
    case TileOrder::swizzled: return "swizzled";
    case TileOrder::persistent: return "persistent";
    case TileOrder::library: return "library";
  }
  return "?";
}
inline const char* to_string(EpilogueKind x) {
  switch (x) {
    case EpilogueKind::direct: return "direct";
    case EpilogueKind::smem_staged: return "smem-staged";
    case EpilogueKind::stmatrix_tma: return "stmatrix + TMA store";
    case EpilogueKind::library: return "library";
  }
  return "?";
}

}  // namespace pipegemm
