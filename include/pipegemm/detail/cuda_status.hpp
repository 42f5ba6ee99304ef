// A CUDA runtime error as a Status, the error cleared so the next call starts clean. The one
// place host code turns cudaError_t into a message.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "pipegemm/pipegemm.hpp"

namespace pipegemm::detail {

inline Status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status::success();
  cudaGetLastError();
  return Status::error(StatusCode::cuda_error, std::string(what) + ": " + cudaGetErrorString(e));
}

}  // namespace pipegemm::detail
