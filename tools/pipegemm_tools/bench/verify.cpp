#include <cuda_runtime.h>

#include <thread>

#include "pipegemm/detail/cuda_status.hpp"
#include "pipegemm_tools/bench.hpp"
#include "pipegemm/device.hpp"

namespace pipegemm {
namespace {

}  // namespace

HostInputs make_random_inputs(const Problem& in, uint64_t seed, int64_t offset_elements) {
  const Problem p = in.normalized();
  HostInputs h;
  h.seed = seed;
  h.offset_elements = offset_elements;
  const int64_t na = offset_elements + span_elements(p.m, p.k, p.lda, p.a_layout);
  const int64_t nb = offset_elements + span_elements(p.n, p.k, p.ldb, p.b_layout);
  h.A.resize(size_t(na * dtype_bytes(p.a_type)));
  h.B.resize(size_t(nb * dtype_bytes(p.b_type)));
  // Padding between rows is random too: a kernel that reads past a row gets garbage, not zeros.
  // Two independent streams: B fills on a second thread (the fuzzer's inputs are 16384^2-sized).
  std::thread b_fill([&] { fill_random(p.b_type, h.B.data(), nb, seed ^ 0x9e3779b97f4a7c15ull); });
  fill_random(p.a_type, h.A.data(), na, seed);
  b_fill.join();
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
  const int64_t off = v->in_.offset_elements;
  if (off < 0) return Status::error(StatusCode::invalid_argument, "offset_elements must be >= 0");
  v->a_bytes_ = v->in_.A.size();
  v->b_bytes_ = v->in_.B.size();
  if (v->a_bytes_ < size_t(off + span_elements(p.m, p.k, p.lda, p.a_layout)) * size_t(dtype_bytes(p.a_type)) ||
      v->b_bytes_ < size_t(off + span_elements(p.n, p.k, p.ldb, p.b_layout)) * size_t(dtype_bytes(p.b_type)))
    return Status::error(StatusCode::invalid_argument, "host inputs are smaller than the problem's A and B");
  v->d_off_bytes_ = size_t(off) * size_t(dtype_bytes(p.d_type));
  v->d_bytes_ = v->d_off_bytes_ + size_t(span_elements(p.m, p.n, p.ldd, p.d_layout)) * size_t(dtype_bytes(p.d_type));
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
  // The matrices start offset_elements into their allocations.
  const int64_t off = in_.offset_elements;
  const void* A = static_cast<const uint8_t*>(dA_) + off * dtype_bytes(p_.a_type);
  const void* B = static_cast<const uint8_t*>(dB_) + off * dtype_bytes(p_.b_type);
  void* D = static_cast<uint8_t*>(dD_) + d_off_bytes_;
  GemmCall call;
  o.status = GemmCall::make(p_, v, A, B, D, &call);
  if (o.status.ok()) o.status = call.launch(A, B, D, nullptr);
  if (!o.status.ok()) return o;
  o.status = detail::cuda_status(cudaDeviceSynchronize(), v.name.c_str());
  if (!o.status.ok()) return o;
  d_host_.resize(d_bytes_ - d_off_bytes_);
  o.status = detail::cuda_status(cudaMemcpy(d_host_.data(), D, d_host_.size(), cudaMemcpyDeviceToHost), "copy D");
  if (!o.status.ok()) return o;
  if (ref_.empty())
    reference_gemm(p_, in_.A.data() + off * dtype_bytes(p_.a_type), in_.B.data() + off * dtype_bytes(p_.b_type), ref_);
  o.result = compare_with_reference(p_, d_host_.data(), ref_, tol_);
  if (!o.result.pass) o.status = Status::error(StatusCode::verification_failed, o.result.summary());
  return o;
}

}  // namespace pipegemm
