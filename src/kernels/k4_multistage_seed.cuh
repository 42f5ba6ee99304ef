// Launcher and registry entry of the seed kernel; instantiated once per accumulator type
// (k4_multistage_seed_f16acc.cu, k4_multistage_seed_f32acc.cu) so the two build in parallel.
#pragma once

#include "kernels/launch_util.cuh"
#include "pipegemm/kernels/k4_multistage/seed_kernel.cuh"

namespace pipegemm::detail {

template <class Cfg>
struct SeedVariant {
  static constexpr auto kernel = &kernels::k4_seed::k4_seed_kernel<Cfg>;

  static Status launch(const Problem& p, const void* A, const void* B, void* D, cudaStream_t_ s) {
    using T = typename Cfg::T;
    Status st = prepare_smem(kernel, Cfg::kSmemBytes);
    if (!st.ok()) return st;
    dim3 grid(unsigned(p.n / Cfg::BN), unsigned(p.m / Cfg::BM));
    kernel<<<grid, Cfg::kNumThreads, Cfg::kSmemBytes, s>>>(
        static_cast<T*>(D), static_cast<const T*>(A), static_cast<const T*>(B), int(p.m), int(p.n),
        int(p.k), int(p.lda), int(p.ldb), int(p.ldd));
    return after_launch("k4_seed_kernel");
  }

  static Status occupancy(int* blocks, int* regs) {
    return occupancy_of(kernel, Cfg::kNumThreads, Cfg::kSmemBytes, blocks, regs);
  }

  static Variant make(std::string name, std::string desc, DType acc) {
    Variant v;
    v.name = std::move(name);
    v.family = "k4_multistage";
    v.rung = 4;
    v.description = std::move(desc);
    v.min_sm = 80;
    v.a_type = v.b_type = v.d_type = DType::f16;
    v.acc_type = acc;
    v.tile = {Cfg::BM, Cfg::BN, Cfg::BK, Cfg::STAGES, Cfg::kNumThreads, Cfg::kSmemBytes, 16, false};
    v.req.m_multiple = Cfg::BM;
    v.req.n_multiple = Cfg::BN;
    v.req.k_multiple = Cfg::BK;
    v.req.ptr_align_bytes = 16;  // cp.async 128-bit
    v.req.ld_multiple = 8;       // 8 halves = 16 bytes, every row start stays 16-byte aligned
    // 128x128x32 CTA tile over 4 warps of m16n8k16 HMMA: each warp issues
    // (128*128*32) / (4 * 16*8*16) = 64 HMMA per k_tile (32 per k_block of 16).
    // The symbol tells the two instantiations apart by the MMA atom in the mangled name.
    v.sass = {acc == DType::f16 ? "k4_seed_kernel*F16F16F16F16_TN" : "k4_seed_kernel*F32F16F16F32_TN",
              "LDGSTS", "HMMA", true,
              mma_per_k_tile(Cfg::BM, Cfg::BN, Cfg::BK, Cfg::kNumThreads / 32, 16, 8, 16)};
    v.launch = &launch;
    v.occupancy = &occupancy;
    return v;
  }
};

}  // namespace pipegemm::detail
