// The pack copy's chunks (src/kernels/pack_rows.hpp) on the CPU, over whole matrices as the
// kernel walks them: into the workspace every element arrives, nothing past the caller's last
// element is read or written (a guard page), and out of the workspace nothing past a row's `cols`
// of the caller's matrix is written -- the bytes between a row's end and its leading dimension keep
// their values.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/pack.hpp"
#include "kernels/pack_rows.hpp"

namespace {

using pipegemm::detail::copy_chunk;
using pipegemm::detail::copy_chunks;

// The caller's matrix: rows of ld elements, the last one only `cols` long, ending exactly where an
// inaccessible page begins -- a read or write past its last element faults (the test crashes, as
// the GPU would fault past an allocation), not only a write, which the comparisons below see.
// Filled with random bits. The start's alignment follows from the length: varied over the shapes.
template <class E>
struct Caller {
  void* map = MAP_FAILED;
  size_t map_bytes = 0;
  E* data = nullptr;
  Caller(int64_t rows, int64_t ld, int64_t cols, std::mt19937& rng) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const size_t bytes = size_t((rows - 1) * ld + cols) * sizeof(E);
    const size_t pages = (bytes + page - 1) / page;
    map_bytes = (pages + 1) * page;
    map = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return;
    char* guard = static_cast<char*>(map) + pages * page;
    if (mprotect(guard, page, PROT_NONE) != 0) return;
    data = reinterpret_cast<E*>(guard - bytes);
    for (size_t i = 0; i < bytes / sizeof(E); ++i) data[i] = E(rng());
  }
  ~Caller() {
    if (map != MAP_FAILED) munmap(map, map_bytes);
  }
  Caller(const Caller&) = delete;
  Caller& operator=(const Caller&) = delete;
};

// The kernel's walk: every (row, chunk, lane) once, through the kernel's own chunk.
template <class E>
void copy_like_the_kernel(E* dst, int64_t ldd, const E* src, int64_t lds, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t q = 0; q < copy_chunks<E>(cols); ++q)
      for (int lane = 0; lane < 32; ++lane) copy_chunk<E>(dst, ldd, src, lds, cols, r, q, lane);
}

template <class E>
void round_trip(int64_t rows, int64_t cols, int64_t ld_extra, std::mt19937& rng) {
  constexpr int V = 16 / int(sizeof(E));
  SCOPED_TRACE(testing::Message() << sizeof(E) << "-byte elements, " << rows << "x" << cols << " ld +" << ld_extra);
  const int64_t ld = cols + ld_extra;
  const int64_t ws_ld = (cols + V - 1) / V * V;  // pack_plan's whole()
  const Caller<E> a(rows, ld, cols, rng);
  ASSERT_NE(a.data, nullptr) << "mmap with a guard page";
  // The workspace: pack_plan's rows of whole 16-byte vectors; its padding must stay as it was.
  std::vector<E> ws(size_t(rows * ws_ld));
  for (E& x : ws) x = E(rng());
  const std::vector<E> ws_before = ws;
  copy_like_the_kernel<E>(ws.data(), ws_ld, a.data, ld, rows, cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < ws_ld; ++c)
      ASSERT_EQ(ws[size_t(r * ws_ld + c)], c < cols ? a.data[r * ld + c] : ws_before[size_t(r * ws_ld + c)]) << r << "," << c;

  // Back out into another caller matrix whose gaps hold other values: they must survive.
  Caller<E> d(rows, ld, cols, rng);
  ASSERT_NE(d.data, nullptr) << "mmap with a guard page";
  const int64_t n = (rows - 1) * ld + cols;
  const std::vector<E> before(d.data, d.data + n);
  copy_like_the_kernel<E>(d.data, ld, ws.data(), ws_ld, rows, cols);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(d.data[i], i % ld < cols ? a.data[i] : before[size_t(i)]) << i / ld << "," << i % ld;
}

}  // namespace

TEST(PackRows, IntoTheWorkspaceAndBackEveryElementAndNothingPastARow) {
  std::mt19937 rng(20261205);
  for (int64_t rows : {1, 2, 3, 7})
    for (int64_t cols : {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 33, 61, 255, 256, 257, 511, 512, 513, 1025, 1537})
      for (int64_t extra : {0, 1, 3}) {
        round_trip<uint8_t>(rows, cols, extra, rng);
        round_trip<uint16_t>(rows, cols, extra, rng);
        round_trip<uint32_t>(rows, cols, extra, rng);
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
