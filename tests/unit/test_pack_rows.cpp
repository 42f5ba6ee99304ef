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
  ASSERT_TRUE(pl.a.copy && pl.b.copy && pl.d.copy);
  EXPECT_EQ(pl.a.ld, 288);
  EXPECT_EQ(pl.b.ld, 288);
  EXPECT_EQ(pl.d.ld, 32);
  for (size_t off : {pl.a.off, pl.b.off, pl.d.off}) EXPECT_EQ(off % 16, 0u);
}

// Products that overlap in the caller's memory (a batch stride of 1) are copied apart, so the
// workspace can pass 2^64 bytes: the size saturates (it used to wrap to a small allocation that the
// copies would overrun) and launch_packed refuses the problem before any CUDA call.
pipegemm::Status must_not_run(const pipegemm::Problem&, const pipegemm::Operands&, cudaStream_t_) {
  ADD_FAILURE() << "the kernel ran on a problem whose workspace does not fit";
  return {};
}
TEST(PackRows, AWorkspacePast2To64BytesIsRefusedBeforeAnyLaunch) {
  pipegemm::Problem p;
  p.m = int64_t(1) << 30, p.n = 8, p.k = (int64_t(1) << 20) + 1;  // odd K: A is copied
  p.a_type = p.b_type = p.d_type = pipegemm::DType::f16;
  p.batch = int64_t(1) << 30;
  p.stride_a = 1, p.stride_b = 0, p.stride_d = p.m * p.n;
  p = p.normalized();
  const pipegemm::detail::PackPlan pl = pipegemm::detail::pack_plan(p, nullptr, nullptr, nullptr);
  ASSERT_TRUE(pl.a.copy);
  EXPECT_EQ(pl.bytes, SIZE_MAX);
  EXPECT_EQ(pipegemm::detail::checked_product({uint64_t(1) << 32, uint64_t(1) << 31}), uint64_t(1) << 63);
  EXPECT_EQ(pipegemm::detail::checked_product({uint64_t(1) << 32, uint64_t(1) << 32}), SIZE_MAX);
  EXPECT_EQ(pipegemm::detail::workspace_part(SIZE_MAX - 10), SIZE_MAX);
  pipegemm::Operands x;
  const pipegemm::Status st = pipegemm::detail::launch_packed(p, x, nullptr, &must_not_run);
  EXPECT_EQ(st.code, pipegemm::StatusCode::invalid_argument);
  EXPECT_NE(st.message.find("past 2^64 bytes"), std::string::npos) << st.message;
}

// ---- the packed form's full semantics, the whole launch_packed on the CPU -------------------------
// For problems of every layout, batched with each operand broadcast in turn, C apart and in place,
// a bias and a GELU, rows, pointers and product strides off 16 bytes: the plan's copies made by the
// kernel's own chunks (every product, a broadcast one once), then
//   - the aligned k5 kernel accepts packed_problem / packed_operands (check_variant: what its TMA
//     maps need), and the packed variant the caller's problem;
//   - the CPU reference on the copies equals it on the caller's matrices, element for element;
//   - D copied back lands on every element of every product and on nothing else.
#include <cstdlib>
#include <cstring>

#include "pipegemm/introspect/registry.hpp"
#include "pipegemm_tools/host_types.hpp"
#include "pipegemm_tools/reference.hpp"

namespace {

using namespace pipegemm;

// A 256-byte-aligned buffer of `elems` 16-bit values (+ slack), filled with f16 values in [-1, 1];
// `at(offset)` is its element `offset`.
struct Buf16 {
  std::vector<uint16_t> mem;
  uint16_t* base = nullptr;
  Buf16(int64_t elems, std::mt19937& rng) : mem(size_t(elems + 256)) {
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (uint16_t& x : mem) x = float_to_half_bits(u(rng));
    const uintptr_t p = reinterpret_cast<uintptr_t>(mem.data());
    base = mem.data() + ((256 - p % 256) % 256) / 2;
  }
  uint16_t* at(int64_t offset) { return base + offset; }
};

// The kernel's walk over one part's products (pack.cu's copy_rows_kernel, on the CPU).
void copy_products(uint16_t* dst, int64_t ldd, int64_t sd, const uint16_t* src, int64_t lds, int64_t ss, int64_t rows,
                   int64_t cols, int64_t products) {
  for (int64_t b = 0; b < products; ++b) copy_like_the_kernel<uint16_t>(dst + b * sd, ldd, src + b * ss, lds, rows, cols);
}

struct PackCase {
  const char* layout;
  int64_t m, n, k;
  int64_t pad;      // added to every leading dimension (odd: rows off 16 bytes)
  int64_t batch;
  char bcast;       // 'a', 'b', 'c' or 0
  int64_t gap;      // added to every batch stride (odd: products off 16 bytes)
  bool in_place;    // C = D
  int64_t offset;   // elements every pointer sits past 256-byte alignment
};

void check_packed_case(const PackCase& c, std::mt19937& rng) {
  SCOPED_TRACE(testing::Message() << c.layout << " " << c.m << "x" << c.n << "x" << c.k << " pad " << c.pad << " batch "
                                  << c.batch << " bcast " << (c.bcast ? c.bcast : '-') << " gap " << c.gap
                                  << (c.in_place ? " C=D" : " C apart") << " offset " << c.offset);
  Problem p;
  p.m = c.m, p.n = c.n, p.k = c.k;
  p.a_type = p.b_type = p.d_type = DType::f16;
  p.acc_type = DType::f32;
  ASSERT_TRUE(parse_layout_name(c.layout, &p.a_layout, &p.b_layout));
  const bool ka = p.a_layout == Layout::RowMajor, kb = p.b_layout == Layout::RowMajor;
  p.lda = (ka ? c.k : c.m) + c.pad;
  p.ldb = (kb ? c.k : c.n) + c.pad;
  p.ldd = c.n + c.pad;
  p.alpha = 0.75f, p.beta = -0.5f;
  p.ldc = c.in_place ? p.ldd : c.n + 2 * c.pad + 1;
  p.bias = Bias::per_col;
  p.bias_type = DType::f32;
  p.activation = Activation::gelu_tanh;
  p.batch = c.batch;
  p.stride_a = (ka ? c.m : c.k) * p.lda + c.gap;
  p.stride_b = (kb ? c.n : c.k) * p.ldb + c.gap;
  p.stride_c = c.m * p.ldc + (c.in_place ? c.gap + 3 : c.gap);
  p.stride_d = c.m * p.ldd + c.gap + 3;
  if (c.in_place) p.stride_c = p.stride_d;
  if (c.bcast == 'a') p.stride_a = 0;
  if (c.bcast == 'b') p.stride_b = 0;
  if (c.bcast == 'c') p.stride_c = 0;
  p = p.normalized();
  ASSERT_TRUE(validate_problem(p).ok()) << validate_problem(p).message;

  Buf16 A(view_a(p).batch_span(p.batch) + c.offset, rng), B(view_b(p).batch_span(p.batch) + c.offset, rng),
      D(view_d(p).batch_span(p.batch) + c.offset, rng), C(view_c(p).batch_span(p.batch) + c.offset, rng);
  std::vector<float> bias(size_t(p.n));
  for (float& v : bias) v = std::uniform_real_distribution<float>(-1.f, 1.f)(rng);
  Operands x;
  x.a = A.at(c.offset), x.b = B.at(c.offset), x.d = D.at(c.offset);
  x.c = c.in_place ? x.d : C.at(c.offset);
  x.bias = bias.data();

  const Variant* packed = find_variant("k5_f16_128x256x64_s4_packed");
  const Variant* k5 = find_variant("k5_f16_128x256x64_s4");
  ASSERT_TRUE(packed && k5);
  ASSERT_TRUE(check_variant(*packed, p, 90, x).ok()) << check_variant(*packed, p, 90, x).message;

  const detail::PackPlan pl = detail::pack_plan(p, x.a, x.b, x.d);
  void* ws_mem = nullptr;
  ASSERT_EQ(posix_memalign(&ws_mem, 256, std::max<size_t>(pl.bytes, 256)), 0);
  std::unique_ptr<void, decltype(&std::free)> ws_owner(ws_mem, &std::free);
  char* ws = static_cast<char*>(ws_mem);
  std::memset(ws, 0xCD, pl.bytes);
  if (pl.a.copy)
    copy_products(reinterpret_cast<uint16_t*>(ws + pl.a.off), pl.a.ld, pl.a.stride,
                  static_cast<const uint16_t*>(x.a), p.lda, p.stride_a, pl.a.rows, pl.a.cols, pl.a.products);
  if (pl.b.copy)
    copy_products(reinterpret_cast<uint16_t*>(ws + pl.b.off), pl.b.ld, pl.b.stride,
                  static_cast<const uint16_t*>(x.b), p.ldb, p.stride_b, pl.b.rows, pl.b.cols, pl.b.products);
  const Problem q = detail::packed_problem(p, pl);
  const Operands y = detail::packed_operands(x, pl, ws);
  // N: the kernel's whole-vector rule keeps its TMA stores out of the caller's row padding; a D in
  // the workspace has rows of whole vectors (pl.d.ld), so there the rule is met by construction.
  Variant aligned = *k5;
  if (pl.d.copy) aligned.req.n_multiple = 1;
  const Status accepted = check_variant(aligned, q, 90, y);
  EXPECT_TRUE(accepted.ok()) << "the aligned kernel refuses the packed problem: " << accepted.message;

  std::vector<double> want, got;
  reference_gemm(p, HostOperands{x.a, x.b, x.c, x.bias}, want, RefAccum::f64, 1);
  reference_gemm(q, HostOperands{y.a, y.b, y.c, y.bias}, got, RefAccum::f64, 1);
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(want[i], got[i]) << "element " << i;

  // D out of the workspace: its products' elements land, the caller's gaps keep their values.
  if (pl.d.copy) {
    uint16_t* wd = reinterpret_cast<uint16_t*>(ws + pl.d.off);
    for (int64_t i = 0; i < pl.d.products * pl.d.rows * pl.d.ld; ++i) wd[i] = uint16_t(rng());
    const int64_t span = view_d(p).batch_span(p.batch);
    uint16_t* d = D.at(c.offset);
    const std::vector<uint16_t> before(d, d + span);
    copy_products(d, p.ldd, p.stride_d, wd, pl.d.ld, pl.d.stride, p.m, p.n, pl.d.products);
    std::vector<char> written(size_t(span), 0);
    for (int64_t b = 0; b < p.batch; ++b)
      for (int64_t i = 0; i < p.m; ++i)
        for (int64_t j = 0; j < p.n; ++j) {
          const int64_t at = b * p.stride_d + i * p.ldd + j;
          written[size_t(at)] = 1;
          ASSERT_EQ(d[at], wd[b * pl.d.stride + i * pl.d.ld + j]) << b << "," << i << "," << j;
        }
    for (int64_t i = 0; i < span; ++i)
      if (!written[size_t(i)]) ASSERT_EQ(d[i], before[size_t(i)]) << "D gap element " << i << " written";
  }
}

}  // namespace

TEST(PackedSemantics, TheAlignedKernelTakesThePackedProblemAndComputesTheCallersGemm) {
  std::mt19937 rng(20261222);
  int copied = 0;
  for (const char* layout : {"TN", "NN", "NT", "TT"})
    for (int64_t pad : {0, 1, 3})
      for (int64_t batch : {1, 3})
        for (char bcast : {char(0), 'a', 'b', 'c'}) {
          if (batch == 1 && bcast) continue;
          for (bool in_place : {false, true}) {
            if (in_place && bcast == 'c') continue;  // a C = D is D's products
            for (int64_t gap : {0, 1}) {
              if (batch == 1 && gap) continue;
              const PackCase c{layout, 37, 45, 29 + pad, pad, batch, bcast, gap, in_place, (pad + gap) % 2};
              check_packed_case(c, rng);
              if (HasFatalFailure()) return;
              ++copied;
            }
          }
        }
  EXPECT_GT(copied, 100);
}
