// Launcher, registry entry and table macro of the seed kernel (variants.def: PIPEGEMM_SEED);
// one translation unit per accumulator type, so the two build in parallel.
#pragma once

#include <vector>

#include "kernels/launch_util.cuh"
#include "kernels/cute_types.cuh"
#include "pipegemm/kernels/k4_multistage/seed_kernel.cuh"

namespace pipegemm::detail {

template <class Types, class Cfg>
struct SeedVariant {
  static_assert(Types::a == DType::f16 && Types::d == DType::f16, "the seed computes fp16 in/out");
  static constexpr auto kernel = &kernels::k4_seed::k4_seed_kernel<Cfg>;

  static Status launch(const Problem& p, const Operands& x, cudaStream_t_ s) {
    const void *A = x.a, *B = x.b;
    void* D = x.d;
    using T = typename Cfg::T;
    Status st = prepare_smem(kernel, Cfg::kSmemBytes);
    if (!st.ok()) return st;
    dim3 grid(unsigned(p.n / Cfg::BN), unsigned(p.m / Cfg::BM));
    return launch_kernel(kernel, grid, Cfg::kNumThreads, Cfg::kSmemBytes, s, "k4_seed_kernel", false, static_cast<T*>(D),
                         static_cast<const T*>(A), static_cast<const T*>(B), int(p.m), int(p.n), int(p.k), int(p.lda),
                         int(p.ldb), int(p.ldd));
  }

  static Status occupancy(int* blocks, int* regs) {
    return occupancy_of(kernel, Cfg::kNumThreads, Cfg::kSmemBytes, blocks, regs);
  }

  static Variant make(const char* name) {
    Variant v = kernel_entry<Types>(name, "seed", 4,
                                    {Cfg::BM, Cfg::BN, Cfg::BK, Cfg::STAGES, Cfg::kNumThreads, Cfg::kSmemBytes, 16, 8, 16},
                                    Cfg::kMechanism);
    // The seed takes only whole tiles (no predicates) and 16-byte rows (cp.async 128-bit).
    v.req.m_multiple = Cfg::BM;
    v.req.n_multiple = Cfg::BN;
    v.req.k_multiple = Cfg::BK;
    v.req.ptr_align_bytes = 16;
    v.req.ld_multiple = 8;
    // The two instantiations differ only in the MMA atom of the mangled config.
    v.symbol = Types::acc == DType::f16 ? "k4_seed_kernel*F16F16F16F16_TN" : "k4_seed_kernel*F32F16F16F32_TN";
    v.launch = &launch;
    v.occupancy = &occupancy;
    return v;
  }
};

}  // namespace pipegemm::detail

// PIPEGEMM_SEED(types, BM, BN, BK, STAGES): the tile is the seed's own; the line states it so
// the name carries it, and it is checked here.
#define PIPEGEMM_SEED(t, bm, bn, bk, s)                                                              \
  namespace pipegemm::detail {                                                                       \
  void PIPEGEMM_REGISTER_FN(PIPEGEMM_NAME_SEED(t, bm, bn, bk, s))(std::vector<Variant> & out) {     \
    using Cfg = kernels::k4_seed::SeedConfig<                                                        \
        typename kernels::common::MmaOpFor<cute::half_t, typename CuteElement<types::t::acc>::T>::Op>; \
    static_assert(Cfg::BM == bm && Cfg::BN == bn && Cfg::BK == bk && Cfg::STAGES == s,               \
                  "the table line states the seed's own tile");                                     \
    out.push_back(SeedVariant<types::t, Cfg>::make(PIPEGEMM_STR(PIPEGEMM_NAME_SEED(t, bm, bn, bk, s)))); \
  }                                                                                                  \
  }
