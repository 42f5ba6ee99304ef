// Launcher, registry entry and table macro of the shortk family (kernels/shortk/kernel.cuh):
// K <= KMAX, the output's bytes the whole cost. Takes what k0 takes (any layout, alignment, batch,
// epilogue) within its K bound.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cuda_element.hpp"
#include "kernels/launch_util.cuh"
#include "pipegemm/kernels/common/epilogue.cuh"
#include "pipegemm/kernels/shortk/kernel.cuh"
#include "registry/table.hpp"

namespace pipegemm::detail {

template <class Types, class Cfg>
struct ShortKVariant {
  using TA = typename Cfg::TA;
  using TD = typename Cfg::TD;
  static constexpr auto kKernel = &kernels::shortk::shortk_kernel<Cfg>;

  // One CTA a (BM, BN) tile of D; z: products, each CTA walking gridDim.z apart.
  static dim3 grid(const Problem& p) {
    return dim3(unsigned((p.n + Cfg::BN - 1) / Cfg::BN), unsigned((p.m + Cfg::BM - 1) / Cfg::BM),
                unsigned(std::min<int64_t>(std::max<int64_t>(1, p.batch), 65535)));
  }

  static Status launch(const Problem& p, const Operands& x, cudaStream_t_ s) {
    if (p.k > Cfg::KMAX)  // make()'s max_k refuses it before a launch
      return Status::error(StatusCode::not_supported, "shortk: K at most " + std::to_string(Cfg::KMAX));
    const auto args = kernels::common::full_args<TA, TD>(p, x);
    return launch_kernel(kKernel, grid(p), Cfg::kNumThreads, 0, s, "shortk_kernel", true, args);
  }

  static Status occupancy(int* blocks, int* regs) { return occupancy_of(kKernel, Cfg::kNumThreads, 0, blocks, regs); }

  static Variant make(const char* name) {
    // BK = KMAX, the one k_tile. No MMA shape (0): there is no k_tile loop whose MMAs the SASS checker
    // could count (each warp's BM x BN / 8 x KMAX of m16n8k16 is straight-line code).
    Variant v = kernel_entry<Types>(name, "shortk", 1,
                                    {Cfg::BM, Cfg::BN, Cfg::KMAX, /*stages=*/1, Cfg::kNumThreads, Cfg::kSmemBytes, 0, 0, 0},
                                    Cfg::kMechanism);
    v.tile.smem_static = true;  // one __shared__ array (kernel.cuh), launched with no dynamic smem
    Requirements& r = v.req;
    r.max_k = Cfg::KMAX;
    r.ptr_align_bytes = int(sizeof(TA));  // element loads; D: vectors where its rows allow, else elements
    r.d_align_bytes = int(sizeof(TD));
    r.a_mn_major = r.b_mn_major = true;
    r.scale = r.c_apart = r.c_f32 = r.batch = r.bias_per_row = r.bias_per_col = r.bias_f32 = true;
    r.activations = (1u << int(Activation::relu)) | (1u << int(Activation::gelu_tanh)) | (1u << int(Activation::gelu_erf));
    v.symbol = "shortk_kernel*ShortKName_" + std::string(name) + "E";
    v.launch = &launch;
    v.occupancy = &occupancy;
    // auto's where its own tune entry timed it fastest, and a guess only in its regime: 1.10-1.5x the
    // best cuBLAS on large D, but ~1 us behind it on the ~3 us grids, where auto's neighbours took it
    // when opted in fully (41x1991x1 at 0.64-0.67; H100),
    // and behind skinny on a thin D (docs/shortk.md).
    v.auto_candidate = false;
    v.auto_tuned_only = true;
    v.auto_guess_when = &guess_when;
    return v;
  }

  // Its regime, read off the tiny-K entries of data/tune/h100.json (every candidate timed): on each
  // entry whose grid has at least half as many CTAs as SMs and whose M and N are both above 32 it
  // was the fastest, by 8-45%; of the rest it lost on tiny grids and thin D (N = 3, 20; M = 13, 21).
  static bool guess_when(const Problem& p, int sm_count) {
    const dim3 g = grid(p);
    const int64_t ctas = int64_t(g.x) * g.y * g.z;
    return std::min(p.m, p.n) > 32 && 2 * ctas >= sm_count;
  }
};

}  // namespace pipegemm::detail

// PIPEGEMM_SHORTK(types, BM, BN, KMAX): BM x BN outputs a CTA of 256 threads, K <= KMAX.
#define PIPEGEMM_SHORTK(t, bm, bn, kmax)                                                             \
  namespace pipegemm::detail {                                                                      \
  struct PIPEGEMM_CAT(ShortKName_, PIPEGEMM_NAME_SHORTK(t, bm, bn, kmax)) {};                       \
  void PIPEGEMM_REGISTER_FN(PIPEGEMM_NAME_SHORTK(t, bm, bn, kmax))(std::vector<Variant> & out) {    \
    using TA = typename CudaElement<types::t::a>::T;                                              \
    using TD = typename CudaElement<types::t::d>::T;                                              \
    using Cfg = kernels::shortk::ShortKConfig<TA, TD, bm, bn, kmax,                                 \
                                              PIPEGEMM_CAT(ShortKName_, PIPEGEMM_NAME_SHORTK(t, bm, bn, kmax))>; \
    out.push_back(ShortKVariant<types::t, Cfg>::make(PIPEGEMM_STR(PIPEGEMM_NAME_SHORTK(t, bm, bn, kmax)))); \
  }                                                                                                 \
  }
