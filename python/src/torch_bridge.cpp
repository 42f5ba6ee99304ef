// See torch_bridge.hpp: compiled like the library (no torch headers, the default C++ ABI).
#include "torch_bridge.hpp"

#include <string>

#include "pipegemm/introspect/registry.hpp"

namespace pipegemm_torch {

int run_gemm(const pipegemm::Problem& p, const pipegemm::Operands& x_in, void* stream, WorkspaceFn workspace, void* ctx,
             const char** message) {
  static thread_local std::string why;
  pipegemm::GemmCall call;
  pipegemm::Status s = pipegemm::GemmCall::make(p, "auto", x_in, &call);
  if (s.ok()) {
    pipegemm::Operands x = x_in;
    if (const size_t bytes = call.workspace_bytes(x); bytes > 0 && workspace) {
      x.workspace = workspace(bytes, ctx);
      x.workspace_bytes = bytes;
    }
    s = call.launch(x, static_cast<cudaStream_t_>(stream));
  }
  if (s.ok()) return 0;
  why = std::move(s.message);
  *message = why.c_str();
  return static_cast<int>(s.code);
}

}  // namespace pipegemm_torch
