// Launcher, registry entry and table macro of the skinny family (kernels/skinny/kernel.cuh): thin
// problems, min(M, N) <= BM. One registered variant = two instantiations of one config, chosen
// per problem: 16-byte loads when both operands' rows and pointers allow them, aligned 4-byte
// words funnel-shifted into place (any alignment: odd K, odd leading dimensions, 2-byte pointers)
// otherwise.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cuda_element.hpp"
#include "kernels/launch_util.cuh"
#include "kernels/split_k.hpp"
#include "pipegemm/device.hpp"
#include "pipegemm/kernels/common/epilogue.cuh"
#include "pipegemm/kernels/skinny/kernel.cuh"
#include "registry/table.hpp"

namespace pipegemm::detail {

template <class Types, class Cfg8, class CfgAny>
struct SkinnyVariant {
  using TA = typename Cfg8::TA;
  using TD = typename Cfg8::TD;
  static constexpr int kProductsPerLaunch = 65535;  // grid z

  // Each load form's own occupancy (the any-alignment form holds more registers), asked once.
  template <class C>
  static int blocks_per_sm() {
    static const int blocks = [] {
      int b = 0, regs = 0;
      if (!occupancy_of(&kernels::skinny::skinny_kernel<C>, C::kNumThreads, 0, &b, &regs).ok()) b = 1;
      return std::max(b, 1);
    }();
    return blocks;
  }

  // The problem as the kernel sees it (D row-major, A and B K-major: make()'s requirements).
  static kernels::skinny::SkinnyArgs<TA, TD> args_for(const Problem& p, const Operands& x) {
    kernels::skinny::SkinnyArgs<TA, TD> a{};
    const bool x_is_a = p.m <= Cfg8::kMaxX;  // else N <= kMaxX (max_thin)
    const int64_t batched = p.batch > 1;
    a.x_is_a = x_is_a;
    a.w = static_cast<const TA*>(x_is_a ? x.b : x.a);
    a.x = static_cast<const TA*>(x_is_a ? x.a : x.b);
    a.d = static_cast<TD*>(x.d);
    a.n_w = int(x_is_a ? p.n : p.m);
    a.n_x = int(x_is_a ? p.m : p.n);
    a.k = int(p.k);
    a.ldw = x_is_a ? p.ldb : p.lda;
    a.ldx = x_is_a ? p.lda : p.ldb;
    a.ldd = p.ldd;
    a.stride_w = batched * (x_is_a ? p.stride_b : p.stride_a);
    a.stride_x = batched * (x_is_a ? p.stride_a : p.stride_b);
    a.stride_d = batched * p.stride_d;
    a.epi = kernels::common::epilogue_args(p, x);
    return a;
  }

  // 16-byte loads: both operands' rows start on 16 bytes (pointer, leading dimension, batch stride).
  static bool vectors_fit(const kernels::skinny::SkinnyArgs<TA, TD>& a) {
    auto ok16 = [](const void* ptr, int64_t ld, int64_t stride) {
      return reinterpret_cast<uintptr_t>(ptr) % 16 == 0 && ld % 8 == 0 && stride % 8 == 0;
    };
    return ok16(a.w, a.ldw, a.stride_w) && ok16(a.x, a.ldx, a.stride_x);
  }

  template <class C>
  static pipeline::SplitPlan plan(const kernels::skinny::SkinnyArgs<TA, TD>& a, int64_t batch) {
    const int64_t row_tiles = (a.n_w + C::kRows - 1) / C::kRows;
    const int64_t products = std::min<int64_t>(batch, kProductsPerLaunch);
    return pipeline::thin_split_plan(row_tiles * products, a.k, C::kWarpK, C::kWarps, C::kMaxSplit,
                           int64_t(device_info().sm_count) * blocks_per_sm<C>());
  }
  template <class C>
  static size_t split_bytes(const kernels::skinny::SkinnyArgs<TA, TD>& a, int64_t batch) {
    const pipeline::SplitPlan sp = plan<C>(a, batch);
    return sp.splits > 1 ? split_workspace_bytes(sp.tiles, size_t(sp.tiles) * size_t(sp.splits) * C::kElems) : 0;
  }

  template <class C>
  static Status launch_with(kernels::skinny::SkinnyArgs<TA, TD> a, int64_t batch, const Operands& x, cudaStream_t_ s) {
    const int64_t row_tiles = (a.n_w + C::kRows - 1) / C::kRows;
    const pipeline::SplitPlan sp = plan<C>(a, batch);
    if (sp.splits > 1) {
      pipeline::SplitWorkspace ws;
      Status st = split_workspace(x, s, sp.tiles, size_t(sp.tiles) * size_t(sp.splits) * C::kElems, &ws);
      if (!st.ok()) return st;
      a.partials = ws.partials;
      a.counters = ws.counters;
    }
    a.k_tiles_per_split = sp.k_tiles_per_split;
    // Batches past grid z's 65535 products: further launches, the pointers moved on.
    for (int64_t b0 = 0; b0 < batch; b0 += kProductsPerLaunch) {
      kernels::skinny::SkinnyArgs<TA, TD> ab = a;
      ab.batch = int(std::min<int64_t>(batch - b0, kProductsPerLaunch));
      ab.w += b0 * a.stride_w;
      ab.x += b0 * a.stride_x;
      ab.d += b0 * a.stride_d;
      if (ab.epi.c) {
        const int64_t off = b0 * ab.epi.stride_c * (ab.epi.c_type == DType::f32 ? 4 : int64_t(sizeof(TD)));
        ab.epi.c = static_cast<const char*>(ab.epi.c) + off;
      }
      const dim3 grid(unsigned(row_tiles), unsigned(sp.splits), unsigned(ab.batch));
      Status st = launch_kernel(&kernels::skinny::skinny_kernel<C>, grid, C::kNumThreads, 0, s, "skinny_kernel", true, ab);
      if (!st.ok()) return st;
    }
    return Status::success();
  }

  static Status launch(const Problem& p, const Operands& x, cudaStream_t_ s) {
    if (std::min(p.m, p.n) > Cfg8::kMaxX)  // make()'s max_thin refuses it before a launch
      return Status::error(StatusCode::not_supported, "skinny: M or N at most " + std::to_string(Cfg8::kMaxX));
    const auto a = args_for(p, x);
    return vectors_fit(a) ? launch_with<Cfg8>(a, p.batch, x, s) : launch_with<CfgAny>(a, p.batch, x, s);
  }
  static size_t workspace(const Problem& p, const Operands& x) {
    if (std::min(p.m, p.n) > Cfg8::kMaxX) return 0;
    const auto a = args_for(p, x);
    return vectors_fit(a) ? split_bytes<Cfg8>(a, p.batch) : split_bytes<CfgAny>(a, p.batch);
  }

  static Status occupancy(int* blocks, int* regs) {
    return occupancy_of(&kernels::skinny::skinny_kernel<Cfg8>, Cfg8::kNumThreads, 0, blocks, regs);
  }

  static Variant make(const char* name) {
    // The registered tile: BM = the small side's limit, BN = W rows per CTA, BK = a CTA round of K.
    Variant v = kernel_entry<Types>(name, "skinny", 4,
                                    {Cfg8::kMaxX, Cfg8::kRows, Cfg8::kCtaK, /*stages=*/0, Cfg8::kNumThreads,
                                     /*smem_bytes=*/0, 16, 8, 16},
                                    Cfg8::kMechanism);
    Requirements& r = v.req;
    r.max_thin = Cfg8::kMaxX;
    r.ptr_align_bytes = int(sizeof(TA));  // natural alignment: 16-byte loads where rows allow, else words
    r.d_align_bytes = int(sizeof(TD));
    // The full epilogue and the batch; K-major A and B (MN-major operands: k5 or k0).
    r.scale = r.c_apart = r.c_f32 = r.batch = r.bias_per_row = r.bias_per_col = r.bias_f32 = true;
    r.activations = (1u << int(Activation::relu)) | (1u << int(Activation::gelu_tanh)) | (1u << int(Activation::gelu_erf));
    // The 16-byte form's kernel (Li8E: VEC = 8, then the name tag); the any-alignment form is the
    // same code with 4-byte loads and a funnel shift before the MMAs.
    v.symbol = "skinny_kernel*Li8EN*SkinnyName_" + std::string(name) + "E";
    v.launch = &launch;
    v.occupancy = &occupancy;
    v.workspace = &workspace;
    return v;
  }
};

}  // namespace pipegemm::detail

// PIPEGEMM_SKINNY(types, MAX_X, ROWS, BK, WARPS): BK = a CTA round of K, WARPS x 32 x UNROLL;
// PIPEGEMM_SKINNY_L2: the same with the streamed loads' L2::256B prefetch.
#define PIPEGEMM_SKINNY_AS(name, t, mx, rows, bk, warps, l2)                                                 \
  namespace pipegemm::detail {                                                                               \
  struct PIPEGEMM_CAT(SkinnyName_, name) {};                                                                 \
  void PIPEGEMM_REGISTER_FN(name)(std::vector<Variant> & out) {                                              \
    using TA = typename CudaElement<types::t::a>::T;                                                       \
    using TD = typename CudaElement<types::t::d>::T;                                                       \
    using Name = PIPEGEMM_CAT(SkinnyName_, name);                                                            \
    static_assert((bk) % (32 * (warps)) == 0, "BK: whole 32-wide steps per warp");                          \
    using Cfg8 = kernels::skinny::SkinnyConfig<TA, TD, mx, rows, warps, (bk) / (32 * (warps)), l2, 8, Name>; \
    using CfgAny = kernels::skinny::SkinnyConfig<TA, TD, mx, rows, warps, (bk) / (32 * (warps)), l2, 2, Name>; \
    out.push_back(SkinnyVariant<types::t, Cfg8, CfgAny>::make(PIPEGEMM_STR(name)));                          \
  }                                                                                                          \
  }
#define PIPEGEMM_SKINNY(t, mx, rows, bk, warps) \
  PIPEGEMM_SKINNY_AS(PIPEGEMM_NAME_SKINNY(t, mx, rows, bk, warps), t, mx, rows, bk, warps, 0)
#define PIPEGEMM_SKINNY_L2(t, mx, rows, bk, warps) \
  PIPEGEMM_SKINNY_AS(PIPEGEMM_NAME_SKINNY_L2(t, mx, rows, bk, warps), t, mx, rows, bk, warps, 256)
