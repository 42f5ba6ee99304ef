#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "pipegemm_tools/npy.hpp"

using namespace pipegemm;

static std::vector<uint8_t> npy_bytes(const std::string& header, size_t data_bytes, int version = 1) {
  std::string h = header;
  const size_t pre = version == 1 ? 10 : 12;
  h.append((64 - (pre + h.size() + 1) % 64) % 64, ' ');
  h.push_back('\n');
  std::vector<uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(version), 0};
  b.push_back(uint8_t(h.size() & 0xff));
  b.push_back(uint8_t(h.size() >> 8));
  if (version != 1) { b.push_back(0); b.push_back(0); }
  b.insert(b.end(), h.begin(), h.end());
  b.resize(b.size() + data_bytes, 0x3c);
  return b;
}

TEST(Npy, WriteThenReadRoundTripsAllTypes) {
  for (DType t : {DType::f16, DType::f32, DType::i8, DType::i32}) {
    NpyMatrix m;
    m.type = t; m.rows = 3; m.cols = 5;
    m.data.resize(size_t(15 * dtype_bytes(t)));
    for (size_t i = 0; i < m.data.size(); ++i) m.data[i] = uint8_t(i * 7 + 1);
    const std::string path = ::testing::TempDir() + "/rt.npy";
    ASSERT_TRUE(write_npy(path, m).ok());
    NpyMatrix r;
    Status s = read_npy(path, &r);
    ASSERT_TRUE(s.ok()) << s.message;
    EXPECT_EQ(r.type, t); EXPECT_EQ(r.rows, 3); EXPECT_EQ(r.cols, 5);
    EXPECT_EQ(r.data, m.data);
  }
}

TEST(Npy, ReadsVersion2Headers) {
  NpyMatrix r;
  auto b = npy_bytes("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", 12, 2);
  ASSERT_TRUE(parse_npy("v2.npy", b, &r).ok());
  EXPECT_EQ(r.rows, 2); EXPECT_EQ(r.cols, 3);
}

TEST(Npy, RejectsBadMagicTruncationFortranOrderRankAndDtype) {
  NpyMatrix r;
  std::vector<uint8_t> junk = {'h', 'e', 'l', 'l', 'o', 0, 0, 0, 0, 0, 0, 0};
  Status s = parse_npy("junk.npy", junk, &r);
  EXPECT_FALSE(s.ok()); EXPECT_NE(s.message.find("bad magic"), std::string::npos);

  auto trunc = npy_bytes("{'descr': '<f2', 'fortran_order': False, 'shape': (4, 4), }", 10);
  s = parse_npy("t.npy", trunc, &r);
  EXPECT_FALSE(s.ok()); EXPECT_NE(s.message.find("truncated"), std::string::npos);

  auto fort = npy_bytes("{'descr': '<f2', 'fortran_order': True, 'shape': (2, 2), }", 8);
  s = parse_npy("f.npy", fort, &r);
  EXPECT_FALSE(s.ok()); EXPECT_NE(s.message.find("Fortran"), std::string::npos);

  auto rank3 = npy_bytes("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2, 2), }", 16);
  s = parse_npy("r.npy", rank3, &r);
  EXPECT_FALSE(s.ok()); EXPECT_NE(s.message.find("2-D"), std::string::npos);

  auto f64 = npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", 32);
  s = parse_npy("d.npy", f64, &r);
  EXPECT_FALSE(s.ok()); EXPECT_NE(s.message.find("unsupported dtype"), std::string::npos);

  auto f32 = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 16);
  DType want = DType::f16;
  s = parse_npy("w.npy", f32, &r, &want);
  EXPECT_FALSE(s.ok()); EXPECT_NE(s.message.find("is needed"), std::string::npos);
}

TEST(Npy, MissingFileIsAnError) {
  NpyMatrix r;
  Status s = read_npy("/nonexistent/x.npy", &r);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("cannot open"), std::string::npos);
}

// bf16 has no NumPy type: '<u2' bits, or ml_dtypes.bfloat16 saved by np.save ('<V2'; '|V2' after a
// plain-numpy round trip), are bf16 when bf16 is asked for and refused with the way to ask otherwise.
TEST(Npy, Bf16ComesAsU2OrMlDtypesV2WhenAskedForAndBfloat16ByName) {
  const DType bf16 = DType::bf16, f16 = DType::f16;
  for (const char* descr : {"<u2", "<V2", "|V2"}) {
    auto b = npy_bytes(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2, 3), }", 12);
    NpyMatrix r;
    Status s = parse_npy("x.npy", b, &r, &bf16);
    ASSERT_TRUE(s.ok()) << descr << ": " << s.message;
    EXPECT_EQ(r.type, DType::bf16);
    EXPECT_EQ(r.data.size(), 12u);
    s = parse_npy("x.npy", b, &r);
    EXPECT_FALSE(s.ok()) << descr;
    EXPECT_NE(s.message.find("--dtype bf16"), std::string::npos) << s.message;
    s = parse_npy("x.npy", b, &r, &f16);
    EXPECT_FALSE(s.ok()) << descr;
    EXPECT_NE(s.message.find("f16 (<f2) is needed"), std::string::npos) << s.message;
  }
  auto named = npy_bytes("{'descr': 'bfloat16', 'fortran_order': False, 'shape': (2, 3), }", 12);
  NpyMatrix r;
  ASSERT_TRUE(parse_npy("n.npy", named, &r).ok());
  EXPECT_EQ(r.type, DType::bf16);
  // write_npy's bf16 ('<u2') reads back as bf16 when asked for.
  r.rows = 2, r.cols = 3;
  const std::string path = ::testing::TempDir() + "/bf16.npy";
  ASSERT_TRUE(write_npy(path, r).ok());
  NpyMatrix back;
  ASSERT_TRUE(read_npy(path, &back, &bf16).ok());
  EXPECT_EQ(back.data, r.data);
}
