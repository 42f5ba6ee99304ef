// The candidates that measuring ahead of time times for a problem -- prepare() (the library) and
// `pipegemm tune` (the tools) share this one list.
#pragma once

#include <string>
#include <vector>

#include "pipegemm/device.hpp"
#include "pipegemm/introspect/registry.hpp"

namespace pipegemm::detail {

// auto's candidates (guessable and tuned-only) that accept `called` (validated, normalized, D
// row-major) with operands y, without those the cost model puts above `prune` times our fastest
// estimate (0: none pruned) and the packed forms where nothing needs packing (their kernel is timed
// as itself). Pruned against our own fastest estimate, not cuBLAS's: the model knows our tiles,
// while its cuBLAS is a guess (on 9028x27x7064 it put cuBLAS 3x ahead of k4; k4 was 23% faster).
// Peers always stay, and nothing is pruned where our best is launch-bound (under 30 us): there the
// smallest kernels win. *pruned (if given) receives the names left out. Ordered by estimate.
std::vector<const Variant*> timed_candidates(const Problem& called, const Operands& y, const DeviceInfo& dev,
                                             double prune, std::vector<std::string>* pruned = nullptr);

}  // namespace pipegemm::detail
