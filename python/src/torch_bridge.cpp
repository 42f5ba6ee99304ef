// See torch_bridge.hpp: compiled like the library (no torch headers, the default C++ ABI).
#include "torch_bridge.hpp"

#include <string>

namespace pipegemm_torch {

int run_gemm(const pipegemm::Problem& p, const pipegemm::Operands& x, void* stream, const char** message) {
  static thread_local std::string why;
  const pipegemm::Options opt{"auto", static_cast<cudaStream_t_>(stream)};
  pipegemm::Status s = pipegemm::gemm(p, x, opt);
  if (s.ok()) return 0;
  why = std::move(s.message);
  *message = why.c_str();
  return static_cast<int>(s.code);
}

}  // namespace pipegemm_torch
