// Launcher and registry entry shared by every rung of the ladder (k0..k4), and the table
// macros of those rungs. A line of src/registry/variants.def names a config; this header turns
// it into a complete Variant: types, tile, mechanism, requirements (from the load width),
// symbol, launch, occupancy -- all read off the config. The translation unit CMake makes for a
// line includes the line's rung header first (only that one: a rung's edit rebuilds its units).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cute_types.cuh"
#include "kernels/launch_util.cuh"
#include "kernels/pack.hpp"
#include "kernels/split_k.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/introspect/dispatch.hpp"
#include "pipegemm/kernels/common/epilogue.cuh"
#include "pipegemm/kernels/common/smem_tiles.cuh"
#include "registry/table.hpp"

namespace pipegemm::detail {

// A config's split-K bound (k4's kMaxSplit; 0 for the rungs without one).
template <class Cfg, class = void>
struct MaxSplitOf {
  static constexpr int value = 0;
};
template <class Cfg>
struct MaxSplitOf<Cfg, std::void_t<decltype(Cfg::kMaxSplit)>> {
  static constexpr int value = Cfg::kMaxSplit;
};

// A config whose kernel takes the full semantics (k0: K0Args).
template <class Cfg, class = void>
struct FullSemanticsOf {
  static constexpr bool value = false;
};
template <class Cfg>
struct FullSemanticsOf<Cfg, std::void_t<decltype(Cfg::kFullSemantics)>> {
  static constexpr bool value = Cfg::kFullSemantics;
};

// A config whose kernels wait on griddepcontrol before touching memory (k0): launched
// programmatically dependent (launch_kernel's `dependent`).
template <class Cfg, class = void>
struct GridDepOf {
  static constexpr bool value = false;
};
template <class Cfg>
struct GridDepOf<Cfg, std::void_t<decltype(Cfg::kGridDep)>> {
  static constexpr bool value = Cfg::kGridDep;
};

template <class Types, class Cfg, auto Kernel>
struct LadderVariant {
  using Ops = typename Cfg::Ops;
  using TA = typename Ops::TA;
  using TD = typename Ops::TD;
  static constexpr Mechanism kMech = Cfg::kMechanism;
  static constexpr bool kDependent = GridDepOf<Cfg>::value;

  static Status launch(const Problem& p, const Operands& x, cudaStream_t_ s) {
    const void *A = x.a, *B = x.b;
    void* D = x.d;
    Status st = prepare_smem(Kernel, Cfg::kSmemBytes);
    if (!st.ok()) return st;
    if constexpr (FullSemanticsOf<Cfg>::value) {  // the plain TN GEMM runs the rung's own kernel
      if (!p.plain_tn()) return launch_full(p, x, s);
    }
    if constexpr (MaxSplitOf<Cfg>::value > 1) {
      return launch_split(p, x, s);
    } else {
      const unsigned num_m = unsigned((p.m + Cfg::BM - 1) / Cfg::BM);
      const unsigned num_n = unsigned((p.n + Cfg::BN - 1) / Cfg::BN);
      // 2-D (x = N tiles, y = M tiles); 1-D swizzled (raster_tile in the kernel); persistent: one
      // CTA per SM (at most one per tile), each walking tiles in the swizzled order.
      const dim3 grid = kMech.order == TileOrder::persistent ? dim3(std::min(num_m * num_n, unsigned(device_info().sm_count)))
                        : kMech.order == TileOrder::swizzled ? dim3(num_m * num_n)
                                                             : dim3(num_n, num_m);
      return launch_kernel(Kernel, grid, Cfg::kNumThreads, Cfg::kSmemBytes, s, Cfg::Name::kName, kDependent,
                           static_cast<TD*>(D), static_cast<const TA*>(A), static_cast<const TA*>(B), int(p.m), int(p.n),
                           int(p.k), int(p.lda), int(p.ldb), int(p.ldd));
    }
  }

  // k0 (common::FullArgs): every layout (a stride per dimension), the batch over grid z (each CTA walks products
  // gridDim.z apart), the epilogue. Instantiated only where launch() calls it (FullSemanticsOf).
  static Status launch_full(const Problem& p, const Operands& x, cudaStream_t_ s) {
    if constexpr (!Cfg::kAnyLayout) {  // int8: MN-major operands through a transposed copy
      if (p.a_layout != Layout::RowMajor || p.b_layout != Layout::RowMajor) return launch_k_major(p, x, s, &launch_full);
    }
    const auto args = kernels::common::full_args<TA, TD>(p, x);
    const dim3 grid(unsigned((p.n + Cfg::BN - 1) / Cfg::BN), unsigned((p.m + Cfg::BM - 1) / Cfg::BM),
                    unsigned(std::min<int64_t>(p.batch, 65535)));
    constexpr auto full = kernels::common::FullKernel<Cfg>::value;
    Status st = prepare_smem(full, Cfg::kSmemBytes);
    if (!st.ok()) return st;
    return launch_kernel(full, grid, Cfg::kNumThreads, Cfg::kSmemBytes, s, Cfg::Name::kName, kDependent, args);
  }

  // Split-K: grid (tiles, splits) from split_plan over the GPU's CTA slots; the workspace only
  // when K is split.
  static pipeline::SplitPlan plan_split(const Problem& p) {
    // The occupancy auto's cost model reads (resident_blocks: per device, asked once), so the
    // launcher and the model plan the same split.
    static const Variant* const self = find_variant(Cfg::Name::kName);
    const int blocks_per_sm = self ? resident_blocks(*self) : 0;
    return pipeline::split_plan(p.m, p.n, p.k, Cfg::BM, Cfg::BN, Cfg::BK, MaxSplitOf<Cfg>::value,
                      int64_t(device_info().sm_count) * std::max(blocks_per_sm, 1));
  }
  static size_t split_floats(const pipeline::SplitPlan& sp) { return size_t(sp.tiles) * size_t(sp.splits) * Cfg::BM * Cfg::BN; }
  static Status launch_split(const Problem& p, const Operands& x, cudaStream_t_ s) {
    const pipeline::SplitPlan sp = plan_split(p);
    typename Cfg::SplitArgs args{nullptr, nullptr, sp.k_tiles_per_split};
    if (sp.splits > 1) {
      pipeline::SplitWorkspace ws;
      Status st = split_workspace(x, s, sp.tiles, split_floats(sp), &ws);
      if (!st.ok()) return st;
      args.partials = ws.partials;
      args.counters = ws.counters;
    }
    const void *A = x.a, *B = x.b;
    void* D = x.d;
    return launch_kernel(Kernel, dim3(unsigned(sp.tiles), unsigned(sp.splits)), Cfg::kNumThreads, Cfg::kSmemBytes, s,
                         Cfg::Name::kName, kDependent, static_cast<TD*>(D), static_cast<const TA*>(A),
                         static_cast<const TA*>(B), int(p.m), int(p.n), int(p.k), int(p.lda), int(p.ldb), int(p.ldd), args);
  }

  static Status occupancy(int* blocks, int* regs) {
    return occupancy_of(Kernel, Cfg::kNumThreads, Cfg::kSmemBytes, blocks, regs);
  }

  // launch()'s scratch: the split's partials and counters (plain TN), or int8's K-major copies.
  static size_t workspace(const Problem& p, const Operands&) {
    if constexpr (FullSemanticsOf<Cfg>::value) {
      if (!p.plain_tn()) return Cfg::kAnyLayout ? 0 : k_major_plan(p).bytes();
    }
    if constexpr (MaxSplitOf<Cfg>::value > 1) {
      const pipeline::SplitPlan sp = plan_split(p);
      return sp.splits > 1 ? split_workspace_bytes(sp.tiles, split_floats(sp)) : 0;
    }
    return 0;
  }

  static Variant make(const char* family, int rung) {
    // Tensor cores: m16n8k16 (HMMA) or m16n8k32 (IMMA) per warp; FFMA: 1x1x1 per thread.
    Variant v = kernel_entry<Types>(Cfg::Name::kName, family, rung,
                                    {Cfg::BM, Cfg::BN, Cfg::BK, Cfg::STAGES, Cfg::kNumThreads, Cfg::kSmemBytes,
                                     Ops::kTensorCore ? 16 : 1, Ops::kTensorCore ? 8 : 1, Ops::kMmaK},
                                    kMech);
    v.min_sm = Cfg::kSmemBytes > kernels::common::kSmemPerBlockOptinSm80 ? 90 : 80;
    if constexpr (kMech.load_bytes == 16) {
      // One 16-byte vector = kVec elements: A and B pointers 16-byte aligned, lda, ldb and K
      // whole vectors. M, N: any (predicated). D: element stores (k1..k3), or 16-byte stores
      // where D's rows allow and element stores elsewhere (k4), so any ldd and a D aligned to
      // its element.
      v.req.k_multiple = Ops::kVec;
      v.req.ld_multiple = Ops::kVec;
      v.req.ptr_align_bytes = 16;
      v.req.ldd_multiple = 1;
      v.req.d_align_bytes = int(sizeof(TD));
    } else {
      // Element loads and stores: each pointer (and a batch's products) aligned to its own element.
      v.req.ptr_align_bytes = int(sizeof(TA));
      v.req.d_align_bytes = int(sizeof(TD));
    }
    if constexpr (FullSemanticsOf<Cfg>::value) {
      // Everything the API can ask (common::FullArgs), so some variant accepts every valid problem
      // (int8 reads K-major operands: an MN-major one is transposed into a workspace first).
      Requirements& r = v.req;
      r.a_mn_major = r.b_mn_major = true;
      r.scale = r.c_apart = r.c_f32 = r.batch = true;
      r.bias_per_row = r.bias_per_col = r.bias_f32 = true;
      r.activations = (1u << int(Activation::relu)) | (1u << int(Activation::gelu_tanh)) | (1u << int(Activation::gelu_erf));
    }
    v.symbol = std::string(Cfg::Name::kName) + "E";  // the Name tag closes the mangled config
    if constexpr (FullSemanticsOf<Cfg>::value) v.symbol = "k0_simple_kernel*" + v.symbol;  // not k0_full_kernel
    v.launch = &launch;
    v.occupancy = &occupancy;
    v.workspace = &workspace;
    // Split-K runs by name until it beats the best cuBLAS somewhere: on the H200 decode suite it
    // reached 0.71-0.99 of it (docs/split_k.md), and the cost model cannot yet tell it apart.
    if constexpr (MaxSplitOf<Cfg>::value > 1) v.auto_candidate = false;
    return v;
  }
};

// A ladder line's entry as LadderVariant::make gives it.
template <class Cfg>
Variant as_registered(Variant v, const char*) {
  return v;
}

}  // namespace pipegemm::detail

// ---- the table's ladder lines (variants.def) -----------------------------------------------
// Each defines the line's Name tag (which puts the variant's name into the kernel's mangled
// symbol) and its registration function. `params` are the config's template arguments before
// the Name tag, `tail` those after it (", true": wrapped in PIPEGEMM_ARGS again on its way down,
// or its comma would split it); `finish<Cfg>(variant, note)` has the last word on the entry (the
// ladder's lines: as registered; a teaching line: teaching_variant.cuh).
#define PIPEGEMM_ARGS(...) __VA_ARGS__
#define PIPEGEMM_LADDER_ENTRY_AS(name, family, rung, t, Config, kernel, params, tail, finish, note) \
  namespace pipegemm::detail {                                                                       \
  namespace {                                                                                        \
  struct name {                                                                                      \
    static constexpr const char* kName = PIPEGEMM_STR(name);                                       \
  };                                                                                                 \
  }                                                                                                  \
  void PIPEGEMM_REGISTER_FN(name)(std::vector<Variant> & out) {                                     \
    using Cfg = kernels::Config<LadderOps<types::t>, PIPEGEMM_ARGS params, name tail>;              \
    out.push_back(finish<Cfg>(LadderVariant<types::t, Cfg, &kernels::kernel<Cfg>>::make(family, rung), note)); \
  }                                                                                                  \
  }
#define PIPEGEMM_LADDER_ENTRY(name, family, rung, t, Config, kernel, params, tail) \
  PIPEGEMM_LADDER_ENTRY_AS(name, family, rung, t, Config, kernel, params, PIPEGEMM_ARGS(tail), as_registered, nullptr)
#define PIPEGEMM_K0(t, bm, bn, bk, wm, wn)                                                            \
  PIPEGEMM_LADDER_ENTRY(PIPEGEMM_NAME_K0(t, bm, bn, bk, wm, wn), "k0_simple", 0, t, k0::SimpleConfig, \
                        k0::k0_simple_kernel, (bm, bn, bk, wm, wn), )
#define PIPEGEMM_K1(t, bm, bn, bk, wm, wn)                                                            \
  PIPEGEMM_LADDER_ENTRY(PIPEGEMM_NAME_K1(t, bm, bn, bk, wm, wn), "k1_smem_single", 1, t,             \
                        k1::SingleBufferConfig, k1::k1_smem_single_kernel, (bm, bn, bk, wm, wn), )
#define PIPEGEMM_K2(t, bm, bn, bk, wm, wn)                                                            \
  PIPEGEMM_LADDER_ENTRY(PIPEGEMM_NAME_K2(t, bm, bn, bk, wm, wn), "k2_dbuf_ldg", 2, t,                \
                        k2::DoubleBufferLdgConfig, k2::k2_dbuf_ldg_kernel, (bm, bn, bk, wm, wn), )
#define PIPEGEMM_K3(t, bm, bn, bk, wm, wn)                                                            \
  PIPEGEMM_LADDER_ENTRY(PIPEGEMM_NAME_K3(t, bm, bn, bk, wm, wn), "k3_dbuf_cp_async", 3, t,           \
                        k3::DoubleBufferCpAsyncConfig, k3::k3_dbuf_cp_async_kernel, (bm, bn, bk, wm, wn), )
#define PIPEGEMM_K4(t, bm, bn, bk, s, wm, wn, g)                                                      \
  PIPEGEMM_LADDER_ENTRY(PIPEGEMM_NAME_K4(t, bm, bn, bk, s, wm, wn, g), "k4_multistage", 4, t,        \
                        k4::MultistageConfig, k4::k4_multistage_kernel, (bm, bn, bk, s, wm, wn, g), )
#define PIPEGEMM_K4_PERSISTENT(t, bm, bn, bk, s, wm, wn, g)                                           \
  PIPEGEMM_LADDER_ENTRY(PIPEGEMM_NAME_K4_PERSISTENT(t, bm, bn, bk, s, wm, wn, g), "k4_multistage", 4, \
                        t, k4::MultistageConfig, k4::k4_multistage_kernel, (bm, bn, bk, s, wm, wn, g), \
                        PIPEGEMM_ARGS(, true))
// Split-K over up to 16 CTAs per tile (kernel.cuh, pipegemm/pipeline/split_k.hpp).
#define PIPEGEMM_K4_SPLITK(t, bm, bn, bk, s, wm, wn, g)                                               \
  PIPEGEMM_LADDER_ENTRY(PIPEGEMM_NAME_K4_SPLITK(t, bm, bn, bk, s, wm, wn, g), "k4_multistage", 4, t,  \
                        k4::MultistageConfig, k4::k4_splitk_kernel, (bm, bn, bk, s, wm, wn, g),       \
                        PIPEGEMM_ARGS(, false, 16))
