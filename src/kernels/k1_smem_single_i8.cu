// k1_smem_single, int8 in, int32 acc/out: 128x128x64, 2x2 warps, 64x64 each.
#include "kernels/ladder_variant.cuh"
#include "pipegemm/kernels/k1_smem_single/kernel.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
namespace {
PIPEGEMM_VARIANT_NAME(k1_i8);
using Ops = kernels::common::OperandTraits<int8_t, int32_t, int32_t>;
using Cfg = kernels::k1::SingleBufferConfig<Ops, 128, 128, 64, 2, 2, k1_i8>;
using V = LadderVariant<Cfg, &kernels::k1::k1_smem_single_kernel<Cfg>, LoadPath::vectors16, GridOrder::rows_by_cols>;
}  // namespace
void append_k1_smem_single_i8(std::vector<Variant>& out) {
  out.push_back(V::make("k1_smem_single", 1, "single smem buffer: cp.async, wait, sync, compute, sync; 128x128x64, 2x2 warps, 64x64 each; int8 in, int32 acc/out", false, "LDGSTS"));
}
}  // namespace pipegemm::detail
