// k4 multistage, fp16 in/out with fp16 accumulation (the seed kernel's own accumulation).
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k4_multistage/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
using Ops = kernels::common::OperandTraits<cute::half_t, cute::half_t, cute::half_t>;
PIPEGEMM_VARIANT_NAME(k4_f16acc_256x128x64_s3);
using Cfg0 = kernels::k4::MultistageConfig<Ops, 256, 128, 64, 3, 4, 2, 8, k4_f16acc_256x128x64_s3>;
using V0 = LadderVariant<Cfg0, &kernels::k4::k4_multistage_kernel<Cfg0>, LoadPath::vectors16, GridOrder::swizzled>;
}  // namespace
void append_k4_multistage_f16acc(std::vector<Variant>& out) {
  out.push_back(V0::make("k4_multistage", 4, "3-stage cp.async ring, next-k_block ldmatrix prefetch, A-reusing MMA order, smem epilogue, swizzled CTA order (group 8); 256x128x64, 4x2 warps, 64x64 each; fp16 in/out, fp16 acc", true, "LDGSTS"));
}
}  // namespace pipegemm::detail
