// k4 multistage, fp16 in/out with fp32 accumulation. Registered best first: the automatic
// choice takes the first k4 entry that accepts a problem. 256x128x64 / 3 stages / group 8 led at
// 8192^3 and 4096^3 (bench/results/2026-11-29_h200_k4_tune_protocols.log). Its persistent form
// wins where tiles are short (81920x256x256: +15%) and loses ~4% on long K, where its 255
// registers cost more than the prologues it saves (2026-11-29_h200_k4_persistent.log).
// 128x256x32 is the transposed tile, 128x128x32 the two-CTAs-per-SM point of the occupancy trade.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k4_multistage/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
using Ops = kernels::common::OperandTraits<cute::half_t, float, cute::half_t>;
PIPEGEMM_VARIANT_NAME(k4_f16_256x128x64_s3);
using Cfg0 = kernels::k4::MultistageConfig<Ops, 256, 128, 64, 3, 4, 2, 8, k4_f16_256x128x64_s3>;
using V0 = LadderVariant<Cfg0, &kernels::k4::k4_multistage_kernel<Cfg0>, LoadPath::vectors16, GridOrder::swizzled>;
PIPEGEMM_VARIANT_NAME(k4_f16_128x256x32_s4);
using Cfg1 = kernels::k4::MultistageConfig<Ops, 128, 256, 32, 4, 2, 4, 16, k4_f16_128x256x32_s4>;
using V1 = LadderVariant<Cfg1, &kernels::k4::k4_multistage_kernel<Cfg1>, LoadPath::vectors16, GridOrder::swizzled>;
PIPEGEMM_VARIANT_NAME(k4_f16_128x128x32_s4);
using Cfg2 = kernels::k4::MultistageConfig<Ops, 128, 128, 32, 4, 2, 2, 16, k4_f16_128x128x32_s4>;
using V2 = LadderVariant<Cfg2, &kernels::k4::k4_multistage_kernel<Cfg2>, LoadPath::vectors16, GridOrder::swizzled>;
PIPEGEMM_VARIANT_NAME(k4_f16_256x128x64_s3_persistent);
using Cfg3 = kernels::k4::MultistageConfig<Ops, 256, 128, 64, 3, 4, 2, 8, k4_f16_256x128x64_s3_persistent, true>;
using V3 = LadderVariant<Cfg3, &kernels::k4::k4_multistage_kernel<Cfg3>, LoadPath::vectors16, GridOrder::persistent>;
}  // namespace
void append_k4_multistage_f16(std::vector<Variant>& out) {
  out.push_back(V0::make("k4_multistage", 4, "3-stage cp.async ring, next-k_block ldmatrix prefetch, A-reusing MMA order, smem epilogue, swizzled CTA order (group 8); 256x128x64, 4x2 warps, 64x64 each; fp16 in/out, fp32 acc", true, "LDGSTS"));
  out.push_back(V3::make("k4_multistage", 4, "persistent (one CTA per SM walks tiles; the ring runs across tiles, epilogue staged in its own smem), 3-stage cp.async ring, next-k_block ldmatrix prefetch, A-reusing MMA order, swizzled CTA order (group 8); 256x128x64, 4x2 warps, 64x64 each; fp16 in/out, fp32 acc", true, "LDGSTS"));
  out.push_back(V1::make("k4_multistage", 4, "4-stage cp.async ring, next-k_block ldmatrix prefetch, A-reusing MMA order, smem epilogue, swizzled CTA order (group 16); 128x256x32, 2x4 warps, 64x64 each; fp16 in/out, fp32 acc", true, "LDGSTS"));
  out.push_back(V2::make("k4_multistage", 4, "4-stage cp.async ring, next-k_block ldmatrix prefetch, A-reusing MMA order, smem epilogue, swizzled CTA order (group 16); 128x128x32, 2x2 warps, 64x64 each, 2 CTAs/SM; fp16 in/out, fp32 acc", true, "LDGSTS"));
}
}  // namespace pipegemm::detail
