#include <cuda_runtime.h>

#include "core/cuda_status.hpp"
#include "pipegemm/bench.hpp"
#include "pipegemm/device.hpp"

namespace pipegemm {
namespace {

}  // namespace

HostInputs make_random_inputs(const Problem& in, uint64_t seed) {
  const Problem p = in.normalized();
  HostInputs h;
  h.seed = seed;
  const int64_t na = span_elements(p.m, p.k, p.lda, p.a_layout);
  const int64_t nb = span_elements(p.n, p.k, p.ldb, p.b_layout);
  h.A.resize(size_t(na * dtype_bytes(p.a_type)));
  h.B.resize(size_t(nb * dtype_bytes(p.b_type)));
  // Padding between rows is random too: a kernel that reads past a row gets garbage, not zeros.
  fill_random(p.a_type, h.A.data(), na, seed);
  fill_random(p.b_type, h.B.data(), nb, seed ^ 0x9e3779b97f4a7c15ull);
  return h;
}

Status VerifySession::create(const Problem& in, HostInputs inputs, std::unique_ptr<VerifySession>* out) {
  Status s = validate_problem(in);
  if (!s.ok()) return s;
  const DeviceInfo& dev = device_info();
  if (!dev.present) return Status::error(StatusCode::no_device, dev.why_absent);
  std::unique_ptr<VerifySession> v(new VerifySession());
  v->p_ = in.normalized();
  const Problem& p = v->p_;
  v->in_ = std::move(inputs);
  v->a_bytes_ = v->in_.A.size();
  v->b_bytes_ = v->in_.B.size();
  v->d_bytes_ = size_t(span_elements(p.m, p.n, p.ldd, p.d_layout)) * size_t(dtype_bytes(p.d_type));
  if ((s = detail::cuda_status(cudaMalloc(&v->dA_, v->a_bytes_), "cudaMalloc A")).ok() &&
      (s = detail::cuda_status(cudaMalloc(&v->dB_, v->b_bytes_), "cudaMalloc B")).ok() &&
      (s = detail::cuda_status(cudaMalloc(&v->dD_, v->d_bytes_), "cudaMalloc D")).ok() &&
      (s = detail::cuda_status(cudaMemcpy(v->dA_, v->in_.A.data(), v->a_bytes_, cudaMemcpyHostToDevice), "copy A")).ok())
    s = detail::cuda_status(cudaMemcpy(v->dB_, v->in_.B.data(), v->b_bytes_, cudaMemcpyHostToDevice), "copy B");
  if (!s.ok()) return s;
  v->tol_ = tolerance_for(p);
  *out = std::move(v);
  return Status::success();
}

VerifySession::~VerifySession() {
  cudaFree(dA_);
  cudaFree(dB_);
  cudaFree(dD_);
}

VerifyOutcome VerifySession::verify(const Variant& v) {
  VerifyOutcome o;
  o.variant = v.name;
  const int poison = p_.d_type == DType::i32 ? 0x80 : 0xFF;
  o.status = detail::cuda_status(cudaMemset(dD_, poison, d_bytes_), "poison D");
  if (!o.status.ok()) return o;
  Options opt;
  opt.variant = v.name;
  o.status = gemm(p_, dA_, dB_, dD_, opt);
  if (!o.status.ok()) return o;
  o.status = detail::cuda_status(cudaDeviceSynchronize(), v.name.c_str());
  if (!o.status.ok()) return o;
  d_host_.resize(d_bytes_);
  o.status = detail::cuda_status(cudaMemcpy(d_host_.data(), dD_, d_bytes_, cudaMemcpyDeviceToHost), "copy D");
  if (!o.status.ok()) return o;
  if (ref_.empty()) reference_gemm(p_, in_.A.data(), in_.B.data(), ref_);
  o.result = compare_with_reference(p_, d_host_.data(), ref_, tol_);
  if (!o.result.pass) o.status = Status::error(StatusCode::verification_failed, o.result.summary());
  return o;
}

}  // namespace pipegemm
