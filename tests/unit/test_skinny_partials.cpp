// The skinny kernel's shared-memory partial sums (kernels/skinny/partials.hpp) on the CPU: for every
// registered skinny variant, the layout is a bijection onto each warp's block, and the kernel's
// two access patterns -- mma.sync fragments written, elements read back in D's store order --
// cost the fewest shared-memory wavefronts a warp instruction can (every read conflict-free).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "pipegemm/kernels/skinny/partials.hpp"
#include "pipegemm/introspect/registry.hpp"

namespace {

using pipegemm::kernels::skinny::fragment_coord;
using pipegemm::kernels::skinny::partial_index;
using pipegemm::kernels::skinny::PartialCoord;
using pipegemm::kernels::skinny::store_coord;

// One warp instruction's wavefronts: the most distinct 4-byte words that fall on one bank.
int wavefronts(const std::vector<int>& words) {
  std::map<int, std::set<int>> banks;
  for (int w : words)
    if (w >= 0) banks[w % 32].insert(w);
  size_t most = 0;
  for (const auto& [bank, set] : banks) most = std::max(most, set.size());
  return int(most);
}

struct Cost {
  int write_worst = 0;     // the worst fragment write, in wavefronts
  int read_worst[2] = {};  // the worst read in store order, X = B (0) and X = A (1)
};

template <int X>
int index_of(int r, int xr) { return partial_index<X>(r, xr); }

int index_of(int max_x, int r, int xr) {
  switch (max_x) {
    case 8: return index_of<8>(r, xr);
    case 16: return index_of<16>(r, xr);
    default: return index_of<32>(r, xr);
  }
}

PartialCoord store_of(int rows, int max_x, int e, bool x_is_a) {
  // store_coord<ROWS, MAX_X> with the registry's numbers: the same arithmetic, spelled through
  // the header for the ROWS and MAX_X the variants use.
  if (rows == 32 && max_x == 8) return store_coord<32, 8>(e, x_is_a);
  if (rows == 32 && max_x == 16) return store_coord<32, 16>(e, x_is_a);
  if (rows == 32 && max_x == 32) return store_coord<32, 32>(e, x_is_a);
  ADD_FAILURE() << "a skinny tile this test does not spell: " << rows << "x" << max_x;
  return {0, 0};
}

Cost cost_of(int rows, int max_x, int warps) {
  Cost c;
  const int x_tiles = (max_x + 15) / 16, w_blocks = rows / 8, elems = rows * max_x;
  for (int xt = 0; xt < x_tiles; ++xt)
    for (int wb = 0; wb < w_blocks; ++wb)
      for (int i = 0; i < 4; ++i) {
        std::vector<int> words;
        for (int lane = 0; lane < 32; ++lane) {
          const PartialCoord p = fragment_coord(xt, wb, i, lane / 4, lane % 4);
          words.push_back(p.xr < max_x ? index_of(max_x, p.r, p.xr) : -1);
        }
        c.write_worst = std::max(c.write_worst, wavefronts(words));
      }
  for (int x_is_a = 0; x_is_a < 2; ++x_is_a)
    for (int warp = 0; warp < warps; ++warp)
      for (int e0 = 32 * warp; e0 < elems; e0 += 32 * warps) {
        std::vector<int> words;
        for (int lane = 0; lane < 32; ++lane) {
          const int e = e0 + lane;
          if (e >= elems) continue;
          const PartialCoord p = store_of(rows, max_x, e, x_is_a);
          words.push_back(index_of(max_x, p.r, p.xr));
        }
        c.read_worst[x_is_a] = std::max(c.read_worst[x_is_a], wavefronts(words));
      }
  return c;
}

}  // namespace

TEST(SkinnyPartials, LayoutIsABijectionAndReadsInStoreOrderAreConflictFree) {
  int checked = 0;
  for (const pipegemm::Variant& v : pipegemm::variants()) {
    if (v.family != "skinny") continue;
    const int max_x = v.tile.bm, rows = v.tile.bn, warps = v.tile.threads / 32;
    SCOPED_TRACE(v.name);
    // Every (r, xr) its own word inside the warp's block.
    std::set<int> seen;
    for (int r = 0; r < rows; ++r)
      for (int xr = 0; xr < max_x; ++xr) {
        const int w = index_of(max_x, r, xr);
        ASSERT_GE(w, 0);
        ASSERT_LT(w, rows * max_x);
        seen.insert(w);
      }
    EXPECT_EQ(int(seen.size()), rows * max_x);
    // Every element the reads visit is one the writes filled (store order covers the tile).
    for (int x_is_a = 0; x_is_a < 2; ++x_is_a) {
      std::set<int> read;
      for (int e = 0; e < rows * max_x; ++e) {
        const PartialCoord p = store_of(rows, max_x, e, x_is_a);
        read.insert(index_of(max_x, p.r, p.xr));
      }
      EXPECT_EQ(read, seen) << "x_is_a " << x_is_a;
    }
    const Cost c = cost_of(rows, max_x, warps);
    EXPECT_EQ(c.read_worst[0], 1) << "reads, X = B";
    EXPECT_EQ(c.read_worst[1], 1) << "reads, X = A (row-major was " << max_x << "-way)";
    // A fragment write's lanes share r's low bit and, for MAX_X < 32, a bank bit: 2-way at worst.
    EXPECT_LE(c.write_worst, max_x == 32 ? 1 : 2) << "fragment writes";
    ++checked;
  }
  EXPECT_GE(checked, 6) << "the skinny family is registered (f16 and bf16, MAX_X 8 / 16 / 32)";
}

TEST(SkinnyPartials, RowMajorLayoutWouldConflictWhichIsWhatTheSwizzleRemoves) {
  // The counter itself can fail: the plain row-major layout, read along W, is 32-way for MAX_X 32.
  std::vector<int> words;
  for (int lane = 0; lane < 32; ++lane) words.push_back(lane * 32 + 5);
  EXPECT_EQ(wavefronts(words), 32);
  words.clear();
  for (int lane = 0; lane < 32; ++lane) words.push_back(index_of(32, lane, 5));
  EXPECT_EQ(wavefronts(words), 1);
}
