// What every split plan must hold, whatever its policy: 1..max_split splits, none empty, K covered.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "pipegemm/pipeline/split_k.hpp"

inline void expect_whole_splits(const pipegemm::pipeline::SplitPlan& q, int64_t k_tiles, int max_split, int64_t k) {
  EXPECT_GE(q.splits, 1);
  EXPECT_LE(q.splits, max_split);
  EXPECT_LT(int64_t(q.splits - 1) * q.k_tiles_per_split, k_tiles) << "an empty split at K=" << k;
  EXPECT_GE(int64_t(q.splits) * q.k_tiles_per_split, k_tiles) << "K not covered at K=" << k;
}
