// The pack copy's chunks (src/kernels/pack_rows.hpp) on the CPU, over whole matrices as the
// kernel walks them: into the workspace every element arrives, the workspace side is only ever
// touched by aligned 16-byte vectors (asserted), and out of it nothing past a row's `cols` of the
// caller's matrix is written -- the bytes between a row's end and its leading dimension keep their
// values.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/pack.hpp"
#include "kernels/pack_rows.hpp"

namespace {

using pipegemm::detail::copy_row_pair;
using pipegemm::detail::Vec16;

// The caller's matrix: rows x ld elements at an element-aligned address that is not 16-byte
// aligned (offset elements past a 16-byte boundary), filled with random bits.
template <class E>
struct Caller {
  std::vector<Vec16> store;
  E* data;
  Caller(int64_t rows, int64_t ld, int offset, std::mt19937& rng) {
    store.resize(size_t((rows * ld + offset) * int64_t(sizeof(E)) / 16 + 2));
    data = reinterpret_cast<E*>(store.data()) + offset;
    for (int64_t i = 0; i < rows * ld; ++i) data[i] = E(rng());
  }
};

// The kernel's walk: every (row pair, chunk) once, through the kernel's own loop body.
template <class E, bool kInto>
void copy_like_the_kernel(E* dst, int64_t ldd, const E* src, int64_t lds, int64_t rows, int64_t cols) {
  constexpr int V = 16 / int(sizeof(E));
  const int64_t chunks = (cols + V - 1) / V;
  for (int64_t r = 0; r < rows; r += 2)
    for (int64_t q = 0; q < chunks; ++q) copy_row_pair<E, kInto>(dst, ldd, src, lds, rows, cols, r, q);
}

template <class E>
void round_trip(int64_t rows, int64_t cols, int64_t ld_extra, int offset, std::mt19937& rng) {
  constexpr int V = 16 / int(sizeof(E));
  SCOPED_TRACE(testing::Message() << sizeof(E) << "-byte elements, " << rows << "x" << cols << " ld +" << ld_extra
                                  << ", offset " << offset);
  const int64_t ld = cols + ld_extra;
  const int64_t ws_ld = (cols + V - 1) / V * V;  // pack_plan's whole()
  const Caller<E> a(rows, ld, offset, rng);
  std::vector<Vec16> ws_store(size_t(rows * ws_ld / V + 1));
  E* ws = reinterpret_cast<E*>(ws_store.data());
  copy_like_the_kernel<E, true>(ws, ws_ld, a.data, ld, rows, cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) ASSERT_EQ(ws[r * ws_ld + c], a.data[r * ld + c]) << r << "," << c;

  // Back out into another caller matrix whose gaps hold other values: they must survive.
  Caller<E> d(rows, ld, offset, rng);
  const std::vector<E> before(d.data, d.data + rows * ld);
  copy_like_the_kernel<E, false>(d.data, ld, ws, ws_ld, rows, cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < ld; ++c)
      ASSERT_EQ(d.data[r * ld + c], c < cols ? a.data[r * ld + c] : before[size_t(r * ld + c)]) << r << "," << c;
}

}  // namespace

TEST(PackRows, IntoTheWorkspaceAndBackEveryElementAndNothingPastARow) {
  std::mt19937 rng(20261205);
  for (int64_t rows : {1, 2, 3, 7})
    for (int64_t cols : {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 33, 61})
      for (int64_t extra : {0, 1, 3}) {
        round_trip<uint8_t>(rows, cols, extra, 1 + int(cols % 15), rng);
        round_trip<uint16_t>(rows, cols, extra, 1 + int(cols % 7), rng);
        round_trip<uint32_t>(rows, cols, extra, 1 + int(cols % 3), rng);
      }
}

TEST(PackRows, WorkspaceRowsArePackPlansWholeVectors) {
  // The chunks assume pack_plan's workspace: rows of whole 16-byte vectors, 16-byte aligned parts.
  pipegemm::Problem p;
  p.m = 45, p.n = 25, p.k = 283;
  p.a_type = p.b_type = pipegemm::DType::f16;
  p.d_type = pipegemm::DType::f16;
  p.lda = p.ldb = 283, p.ldd = 25;
  const pipegemm::detail::PackPlan pl = pipegemm::detail::pack_plan(p, nullptr, nullptr, nullptr);
  ASSERT_TRUE(pl.a && pl.b && pl.d);
  EXPECT_EQ(pl.lda, 288);
  EXPECT_EQ(pl.ldb, 288);
  EXPECT_EQ(pl.ldd, 32);
  for (size_t off : {pl.a_off, pl.b_off, pl.d_off}) EXPECT_EQ(off % 16, 0u);
}
