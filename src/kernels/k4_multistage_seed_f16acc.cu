#include "kernels/k4_multistage_seed.cuh"
#include "registry/families.hpp"

namespace pipegemm::detail {
using SeedF16 = kernels::k4_seed::SeedConfig<cute::SM80_16x8x16_F16F16F16F16_TN>;
void append_k4_seed_f16acc(std::vector<Variant>& out) {
  out.push_back(SeedVariant<SeedF16>::make(
      "k4_seed_f16acc", "seed 000 multistage: 128x128x32, 3 stages, fp16 accumulation", DType::f16));
}
}  // namespace pipegemm::detail
