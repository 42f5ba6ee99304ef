// k4 multistage, fp32 on FFMA.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k4_multistage/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
using Ops = kernels::common::OperandTraits<float, float, float>;
PIPEGEMM_VARIANT_NAME(k4_f32_128x128x16_s4);
using Cfg0 = kernels::k4::MultistageConfig<Ops, 128, 128, 16, 4, 2, 2, 8, k4_f32_128x128x16_s4>;
using V0 = LadderVariant<Cfg0, &kernels::k4::k4_multistage_kernel<Cfg0>, LoadPath::vectors16, GridOrder::swizzled>;
}  // namespace
void append_k4_multistage_f32(std::vector<Variant>& out) {
  out.push_back(V0::make("k4_multistage", 4, "4-stage cp.async ring, next-k_block ldmatrix prefetch, smem epilogue, swizzled CTA order (group 8); 128x128x16, 16x16 threads, 8x8 each; fp32 FFMA", true, "LDGSTS"));
}
}  // namespace pipegemm::detail
