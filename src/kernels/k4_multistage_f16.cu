// k4 multistage, fp16 in/out with fp32 accumulation. Registered best first: the automatic choice takes the first k4 entry that accepts a problem.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k4_multistage/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
using Ops = kernels::common::OperandTraits<cute::half_t, float, cute::half_t>;
PIPEGEMM_VARIANT_NAME(k4_f16_128x256x32_s4);
using Cfg0 = kernels::k4::MultistageConfig<Ops, 128, 256, 32, 4, 2, 4, 16, k4_f16_128x256x32_s4>;
using V0 = LadderVariant<Cfg0, &kernels::k4::k4_multistage_kernel<Cfg0>, LoadPath::vectors16, GridOrder::swizzled>;
PIPEGEMM_VARIANT_NAME(k4_f16_128x128x32_s4);
using Cfg1 = kernels::k4::MultistageConfig<Ops, 128, 128, 32, 4, 2, 2, 16, k4_f16_128x128x32_s4>;
using V1 = LadderVariant<Cfg1, &kernels::k4::k4_multistage_kernel<Cfg1>, LoadPath::vectors16, GridOrder::swizzled>;
}  // namespace
void append_k4_multistage_f16(std::vector<Variant>& out) {
  out.push_back(V0::make("k4_multistage", 4, "4-stage cp.async ring, next-k_block ldmatrix prefetch, smem epilogue, swizzled CTA order (group 16); 128x256x32, 2x4 warps, 64x64 each; fp16 in/out, fp32 acc", true, "LDGSTS"));
  out.push_back(V1::make("k4_multistage", 4, "4-stage cp.async ring, next-k_block ldmatrix prefetch, smem epilogue, swizzled CTA order (group 16); 128x128x32, 2x2 warps, 64x64 each, 2 CTAs/SM; fp16 in/out, fp32 acc", true, "LDGSTS"));
}
}  // namespace pipegemm::detail
