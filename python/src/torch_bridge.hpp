// The one call from the torch ops (torch_ops.cpp) into pipegemm. torch_ops.cpp is compiled with
// torch's _GLIBCXX_USE_CXX11_ABI (0 in torch 2.4-2.6 wheels, 1 since), the library with the
// compiler's default; pipegemm's API passes std::string (Options::variant, Status::message), so
// the torch side calls this function instead, whose arguments carry no std::string: Problem and
// Operands are plain data, the message comes back as a C string.
#pragma once

#include "pipegemm/pipegemm.hpp"

namespace pipegemm_torch {

// The caller's workspace: `bytes` of device memory that stays valid until the work queued on the
// stream has run (torch's caching allocator gives exactly that, inside a graph capture too).
using WorkspaceFn = void* (*)(size_t bytes, void* ctx);

// pipegemm::gemm(p, x, {"auto", stream}) on the current device, its scratch from `workspace` when
// the chosen kernel needs any (nothing else is allocated). Returns the status code (0: ok);
// otherwise *message is pipegemm's reason, valid until this thread's next call.
int run_gemm(const pipegemm::Problem& p, const pipegemm::Operands& x, void* stream, WorkspaceFn workspace, void* ctx,
             const char** message);

}  // namespace pipegemm_torch
