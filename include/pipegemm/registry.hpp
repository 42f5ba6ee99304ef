// The one variant registry. The CLI, the tests, the benchmarks, the planner and the SASS checker
// all iterate pipegemm::variants(); nothing else keeps a list of kernels.
#pragma once

#include <string>
#include <vector>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm {

// Tile and pipeline shape of a kernel (0 where it does not apply, e.g. for cuBLAS).
struct TileConfig {
  int bm = 0, bn = 0, bk = 0;   // CTA tile (BM,BN,BK)
  int stages = 0;               // shared-memory ring slots (1 = single buffer, 0 = no smem)
  int threads = 0;              // threads per CTA
  int smem_bytes = 0;           // dynamic shared memory per CTA, barriers included
  int mma_k = 0;                // K of one MMA instruction (k_block width)
  bool mbarrier_pipeline = false;  // full/empty mbarriers per stage (Hopper rung)
};

// What a kernel can take. Checked by check_variant() before any launch.
struct Requirements {
  int m_multiple = 1, n_multiple = 1, k_multiple = 1;  // 1 = any size (predicated edges)
  int ptr_align_bytes = 1;  // A, B (and D, unless d_align_bytes) base pointers
  int ld_multiple = 1;      // lda, ldb (and ldd, unless ldd_multiple), in elements
  bool any_layout = false;  // false: A, B K-major (RowMajor) and D RowMajor only
  // D's own rules where its stores are narrower than the loads (k1..k4: element stores, or
  // 16-byte stores only where the row allows); 0 = the A/B rule above.
  int d_align_bytes = 0;
  int ldd_multiple = 0;
  int d_align() const { return d_align_bytes ? d_align_bytes : ptr_align_bytes; }
  int ldd_mult() const { return ldd_multiple ? ldd_multiple : ld_multiple; }
};

// What `pipegemm sass` must find in this kernel's machine code (seed 004 step 7; the rule is
// spelled out in docs/sass.md). Add fields at the end, with defaults: entries are brace-initialized.
struct SassExpect {
  std::string symbol;         // substring of the kernel's (mangled) name in the listing; "" = none;
                              // '*' matches anything ("k4_seed_kernel*F32F16F16F32")
  std::string load_ops;       // "LDGSTS" / "LDG" / "UTMALDG" (comma separated alternatives)
  std::string mma_op;         // "HMMA" / "IMMA" / "HGMMA" / "FFMA" (comma separated alternatives)
  bool expect_overlap = true; // false for the single-buffer and no-smem rungs
  int mma_per_k_tile = 0;     // MMA instructions per k_tile per warp (per warpgroup for HGMMA,
                              // per thread for FFMA), as the non-pipelined rung of the same tile
                              // issues them: use mma_per_k_tile() below. 0 = not checked
  bool warp_specialized = false;  // loads and MMAs in different warps' loops (producer/consumer)
};

// MMA instructions one instruction stream (warp, warpgroup or thread) issues per k_tile:
// the CTA tile's multiply-adds divided over the streams and the instruction shape, e.g. the seed:
// 128x128x32 over 4 warps of m16n8k16 HMMA = 64. Pipelining must not change it.
constexpr int mma_per_k_tile(int bm, int bn, int bk, int streams, int mma_m, int mma_n, int mma_k) {
  return (bm * bn * bk) / (streams * mma_m * mma_n * mma_k);
}

using LaunchFn = Status (*)(const Problem& p, const void* A, const void* B, void* D,
                            cudaStream_t_ stream);
// Max resident CTAs per SM for this kernel as CUDA computes it, and its registers per thread.
using OccupancyFn = Status (*)(int* blocks_per_sm, int* regs_per_thread);

struct Variant {
  std::string name;          // unique, e.g. "k4_seed_f16acc"
  std::string family;        // "cublas", "k0_simple", ..., "k4_multistage", "k5_ws_tma_wgmma"
  int rung = -1;             // ladder position (k0 = 0 ... k5 = 5); -1 for peers
  std::string description;
  int min_sm = 80;           // compute capability * 10
  int max_sm = 0;            // 0 = no upper bound; 90 for sm_90a-only code
  DType a_type = DType::f16, b_type = DType::f16, d_type = DType::f16, acc_type = DType::f32;
  TileConfig tile;
  Requirements req;
  SassExpect sass;
  LaunchFn launch = nullptr;
  OccupancyFn occupancy = nullptr;
  bool is_peer() const { return rung < 0; }
};

const std::vector<Variant>& variants();
const Variant* find_variant(std::string_view name);

// Can `v` run `p` on a device of compute capability `sm` with these pointers (any may be null:
// then their alignment is not checked)? The message says exactly what is wrong.
Status check_variant(const Variant& v, const Problem& p, int sm, const void* A = nullptr,
                     const void* B = nullptr, const void* D = nullptr);

// Automatic choice: the highest-rung registered kernel of ours that accepts the problem, else
// cuBLAS (fp32 or fp16 compute as asked). Returns nullptr (and a reason) when none can.
const Variant* choose_variant(const Problem& p, int sm, const void* A, const void* B,
                              const void* D, std::string* why_not = nullptr);

}  // namespace pipegemm
