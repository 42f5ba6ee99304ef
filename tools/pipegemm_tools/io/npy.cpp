#include "pipegemm_tools/npy.hpp"

#include <cstring>
#include <fstream>
#include <regex>

namespace pipegemm {
namespace {

Status bad(const std::string& name, const std::string& why) {
  return Status::error(StatusCode::io_error, name + ": " + why);
}

const char* descr_of(DType t) {
  switch (t) {
    case DType::f16: return "<f2";
    case DType::bf16: return "<u2";
    case DType::f32: return "<f4";
    case DType::i8: return "|i1";
    case DType::i32: return "<i4";
  }
  return "?";
}

}  // namespace

Status parse_npy(const std::string& name, const std::vector<uint8_t>& b, NpyMatrix* out,
                 const DType* want) {
  static const uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (b.size() < 10 || std::memcmp(b.data(), magic, 6) != 0) return bad(name, "not a .npy file (bad magic)");
  const int major = b[6];
  size_t header_len, header_start;
  if (major == 1) {
    header_len = size_t(b[8]) | size_t(b[9]) << 8;
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return bad(name, "truncated header");
    header_len = size_t(b[8]) | size_t(b[9]) << 8 | size_t(b[10]) << 16 | size_t(b[11]) << 24;
    header_start = 12;
  } else {
    return bad(name, "unsupported .npy version " + std::to_string(major));
  }
  if (header_start + header_len > b.size()) return bad(name, "truncated header");
  std::string h(reinterpret_cast<const char*>(b.data() + header_start), header_len);

  std::smatch m;
  if (!std::regex_search(h, m, std::regex("'descr'\\s*:\\s*'([^']*)'"))) return bad(name, "header has no 'descr'");
  const std::string descr = m[1];
  if (!std::regex_search(h, m, std::regex("'fortran_order'\\s*:\\s*(True|False)")))
    return bad(name, "header has no 'fortran_order'");
  if (m[1] == "True") return bad(name, "Fortran-order arrays are not supported (save with np.ascontiguousarray)");
  if (!std::regex_search(h, m, std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)"))) return bad(name, "header has no 'shape'");
  std::vector<int64_t> dims;
  {
    std::string s = m[1];
    std::regex num("\\d+");
    for (auto it = std::sregex_iterator(s.begin(), s.end(), num); it != std::sregex_iterator(); ++it)
      dims.push_back(std::stoll(it->str()));
  }
  if (dims.size() != 2)
    return Status::error(StatusCode::invalid_argument,
                         name + ": expected a 2-D matrix, got " + std::to_string(dims.size()) + " dimension(s)");
  // bf16 has no NumPy type: its bits come as '<u2' (uint16) or, from ml_dtypes.bfloat16 via
  // np.save, as the opaque 2-byte void '<V2' ('|V2' once numpy re-saves it). Those are read as
  // bf16 only when bf16 is asked for; "bfloat16" (a header written from str(dtype)) names it.
  const bool bits16 = descr == "<u2" || descr == "<V2" || descr == "|V2";
  DType t;
  if (descr == "<f2") t = DType::f16;
  else if (descr == "<f4") t = DType::f32;
  else if (descr == "|i1" || descr == "<i1") t = DType::i8;
  else if (descr == "<i4") t = DType::i32;
  else if (descr == "bfloat16" || (bits16 && want && *want == DType::bf16)) t = DType::bf16;
  else if (bits16 && !want)
    return Status::error(StatusCode::invalid_argument,
                         name + ": dtype '" + descr + "' is 2-byte bit patterns of no known type; they are read "
                                "as bf16 only when bf16 is asked for (--dtype bf16)");
  else if (bits16)
    return Status::error(StatusCode::invalid_argument, name + ": dtype '" + descr + "' (bf16 bits) but " +
                                                           to_string(*want) + " (" + descr_of(*want) + ") is needed");
  else
    return Status::error(StatusCode::invalid_argument,
                         name + ": unsupported dtype '" + descr +
                             "' (accepted: <f2 f16, <f4 f32, |i1 i8, <i4 i32; bf16 as <u2 or ml_dtypes' <V2 with --dtype bf16)");
  if (want && *want != t)
    return Status::error(StatusCode::invalid_argument, name + ": dtype " + descr + " but " +
                                                           to_string(*want) + " (" + descr_of(*want) + ") is needed");
  const size_t data_start = header_start + header_len;
  const size_t need = size_t(dims[0] * dims[1]) * size_t(dtype_bytes(t));
  if (b.size() - data_start < need)
    return bad(name, "truncated data: " + std::to_string(b.size() - data_start) + " bytes, shape needs " + std::to_string(need));
  out->type = t;
  out->rows = dims[0];
  out->cols = dims[1];
  out->data.assign(b.begin() + long(data_start), b.begin() + long(data_start + need));
  return Status::success();
}

Status read_npy(const std::string& path, NpyMatrix* out, const DType* want) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return bad(path, "cannot open");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return parse_npy(path, bytes, out, want);
}

Status write_npy(const std::string& path, const NpyMatrix& m) {
  std::string h = std::string("{'descr': '") + descr_of(m.type) + "', 'fortran_order': False, 'shape': (" +
                  std::to_string(m.rows) + ", " + std::to_string(m.cols) + "), }";
  // Pad with spaces so data starts at a multiple of 64 bytes; the header ends with '\n'.
  size_t total = 10 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h.push_back('\n');
  std::ofstream f(path, std::ios::binary);
  if (!f) return bad(path, "cannot open for writing");
  const uint8_t pre[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  f.write(reinterpret_cast<const char*>(pre), 8);
  const uint16_t len = uint16_t(h.size());
  const char lenb[2] = {char(len & 0xff), char(len >> 8)};
  f.write(lenb, 2);
  f.write(h.data(), long(h.size()));
  f.write(reinterpret_cast<const char*>(m.data.data()), long(m.data.size()));
  if (!f) return bad(path, "write failed");
  return Status::success();
}

}  // namespace pipegemm
