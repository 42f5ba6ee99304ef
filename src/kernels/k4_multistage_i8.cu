// k4 multistage, int8 in with int32 accumulation; int32 out and fp32 out.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k4_multistage/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
using OpsI32 = kernels::common::OperandTraits<int8_t, int32_t, int32_t>;
using OpsF32 = kernels::common::OperandTraits<int8_t, int32_t, float>;
PIPEGEMM_VARIANT_NAME(k4_i8_128x256x64_s4);
using Cfg0 = kernels::k4::MultistageConfig<OpsI32, 128, 256, 64, 4, 2, 4, 16, k4_i8_128x256x64_s4>;
using V0 = LadderVariant<Cfg0, &kernels::k4::k4_multistage_kernel<Cfg0>, LoadPath::vectors16, GridOrder::swizzled>;
PIPEGEMM_VARIANT_NAME(k4_i8_f32out_128x256x64_s4);
using Cfg1 = kernels::k4::MultistageConfig<OpsF32, 128, 256, 64, 4, 2, 4, 16, k4_i8_f32out_128x256x64_s4>;
using V1 = LadderVariant<Cfg1, &kernels::k4::k4_multistage_kernel<Cfg1>, LoadPath::vectors16, GridOrder::swizzled>;
}  // namespace
void append_k4_multistage_i8(std::vector<Variant>& out) {
  out.push_back(V0::make("k4_multistage", 4, "4-stage cp.async ring, next-k_block ldmatrix prefetch, A-reusing MMA order, smem epilogue, swizzled CTA order (group 16); 128x256x64, 2x4 warps, 64x64 each; int8 in, int32 acc/out", true, "LDGSTS"));
  out.push_back(V1::make("k4_multistage", 4, "4-stage cp.async ring, next-k_block ldmatrix prefetch, A-reusing MMA order, smem epilogue, swizzled CTA order (group 16); 128x256x64, 2x4 warps, 64x64 each; int8 in, int32 acc, fp32 out", true, "LDGSTS"));
}
}  // namespace pipegemm::detail
