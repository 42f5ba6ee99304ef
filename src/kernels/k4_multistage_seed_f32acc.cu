#include "kernels/k4_multistage_seed.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
using SeedF32 = kernels::k4_seed::SeedConfig<cute::SM80_16x8x16_F32F16F16F32_TN>;
void append_k4_seed_f32acc(std::vector<Variant>& out) {
  out.push_back(SeedVariant<SeedF32>::make(
      "k4_seed_f32acc", "seed 000 multistage: 128x128x32, 3 stages, fp32 accumulation", DType::f32));
}
}  // namespace pipegemm::detail
