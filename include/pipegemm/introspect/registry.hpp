// The one variant registry. The CLI, the tests, the benchmarks, the planner and the SASS checker
// all iterate pipegemm::variants(); nothing else keeps a list of kernels.
#pragma once

#include <string>
#include <vector>

#include "pipegemm/introspect/mechanism.hpp"
#include "pipegemm/pipegemm.hpp"

namespace pipegemm {

// Tile and pipeline shape of a kernel (0 where it does not apply, e.g. for cuBLAS).
struct TileConfig {
  int bm = 0, bn = 0, bk = 0;   // CTA tile (BM,BN,BK)
  int stages = 0;               // shared-memory ring slots (1 = single buffer, 0 = no smem)
  int threads = 0;              // threads per CTA
  int smem_bytes = 0;           // shared memory per CTA, barriers included (dynamic unless smem_static)
  int mma_m = 0, mma_n = 0, mma_k = 0;  // one MMA instruction's shape (k_block width = mma_k)
  bool smem_static = false;     // smem_bytes is a __shared__ array of the kernel, not dynamic (shortk)
  int dynamic_smem() const { return smem_static ? 0 : smem_bytes; }
};

// What a kernel can take. Checked by check_variant() before any launch.
struct Requirements {
  int m_multiple = 1, n_multiple = 1, k_multiple = 1;  // 1 = any size (predicated edges)
  int64_t max_n = 0, max_k = 0;  // 0 = no bound; else the largest N, K (a kernel that holds all of B in smem)
  int64_t max_thin = 0;  // 0 = no bound; else min(M, N) at most this (a thin kernel: one side streamed, the other held)
  int ptr_align_bytes = 1;  // A, B (and D, unless d_align_bytes) base pointers
  int ld_multiple = 1;      // lda, ldb (and ldd, unless ldd_multiple), in elements
  // ---- beyond the TN GEMM (D = A B^T, A and B K-major): what the variant computes ----
  // D may always be column-major: the call computes D^T = B A^T, with A and B (and a bias's
  // rows and columns) swapped, so a variant only ever sees a row-major D (GemmCall::make).
  bool a_mn_major = false;  // A M-major (ColMajor)
  bool b_mn_major = false;  // B N-major (ColMajor)
  bool scale = false;       // alpha != 1, and beta != 0 (reads C)
  bool c_apart = false;     // C other than D (its own pointer, ldc, type); false: C must be D
  bool c_f32 = false;       // C of type f32 under a 16-bit D (else C has D's type)
  bool batch = false;       // batch > 1 (strides; 0 broadcasts A, B or C)
  bool bias_per_row = false, bias_per_col = false;  // in D's type
  bool bias_f32 = false;    // an f32 bias under a 16-bit D
  unsigned activations = 0;  // bits (1u << int(Activation)) of those beyond none
  // D's own rules where its stores are narrower than the loads (k1..k4: element stores, or
  // 16-byte stores only where the row allows); 0 = the A/B rule above.
  int d_align_bytes = 0;
  int ldd_multiple = 0;
  int d_align() const { return d_align_bytes ? d_align_bytes : ptr_align_bytes; }
  int ldd_mult() const { return ldd_multiple ? ldd_multiple : ld_multiple; }
};

// MMA instructions one instruction stream (warp, warpgroup or thread) issues per k_tile:
// the CTA tile's multiply-adds divided over the streams and the instruction shape, e.g. the seed:
// 128x128x32 over 4 warps of m16n8k16 HMMA = 64. Pipelining must not change it.
constexpr int mma_per_k_tile(int bm, int bn, int bk, int streams, int mma_m, int mma_n, int mma_k) {
  return (bm * bn * bk) / (streams * mma_m * mma_n * mma_k);
}

// Launches a checked, normalized problem whose D is row-major (GemmCall::make).
using LaunchFn = Status (*)(const Problem& p, const Operands& x, cudaStream_t_ stream);
// Max resident CTAs per SM for this kernel as CUDA computes it, and its registers per thread.
using OccupancyFn = Status (*)(int* blocks_per_sm, int* regs_per_thread);
// Problems a variant takes by its capabilities but is known to compute wrong (a peer's bug that
// fuzz found): the reason, refused before any launch; nullptr for the others.
using KnownWrongFn = const char* (*)(const Problem& p);
// The bytes of a caller's workspace a launch of p needs (split-K partials and counters, packed
// copies, a peer's workspace: core/scratch.hpp); x's pointers decide where alignment does.
using WorkspaceFn = size_t (*)(const Problem& p, const Operands& x);
// What a variant measures ahead of time for p (cuBLASLt: its heuristic's candidates timed, the
// fastest kept for p's key); *state: the choice as text a tune table keeps ("" for none). Never
// inside a capture; calls afterwards run what it chose.
using PrepareFn = Status (*)(const Problem& p, const Operands& x, cudaStream_t_ stream, std::string* state);
// Where auto may also guess a tuned-only variant (see Variant::auto_guess_when).
using GuessWhenFn = bool (*)(const Problem& p, int sm_count);

// One kernel instantiation a variant launches, and the problems it launches it for. A variant of
// one kernel has one (every problem it takes); k5's have one per form of their table line
// (variants.def): the plain TN GEMM's kernel for a long K and for a short one, or one kernel at
// every K, and a general kernel per operand layout pair for every other problem.
struct KernelInstance {
  std::string form;     // "long", "short_k", "general_kk", "general_kmn", "general_mnk", "general_mnmn"; "" if the only one
  std::string symbol;   // its symbol in the machine code (as Variant::symbol)
  bool general = false; // true: problems other than the plain TN GEMM (its layouts below); false: the plain TN
                        // GEMM (every problem the variant takes, where it has no general kernel)
  bool a_mn_major = false, b_mn_major = false;  // general: the operand layouts it is built for
  int64_t min_k = 0, max_k = 0;  // the K range it runs at the defaults (0: open); the plain TN GEMM's only
  std::string when;     // the rule in words, the cluster size included
};

struct Variant {
  std::string name;          // unique; one scheme: <family>_<types>_<BM>x<BN>x<BK>[_s<STAGES>][_<option>]
  std::string family;        // "cublas", "k0_simple", ..., "k4_multistage", "k5_ws_tma_wgmma"
  int rung = -1;             // ladder position (k0 = 0 ... k5 = 5); -1 for peers
  std::string description;   // derived from the fields below (describe()), never typed
  int min_sm = 80;           // compute capability * 10
  int max_sm = 0;            // 0 = no upper bound; 90 for sm_90a-only code
  DType a_type = DType::f16, b_type = DType::f16, d_type = DType::f16, acc_type = DType::f32;
  TileConfig tile;
  Mechanism mech;            // how it works: load path, MMA, pipeline, order, epilogue
  Requirements req;
  // The kernel's symbol in the machine code: a substring of the mangled name, '*' matching
  // anything ("k5_ws_tma_wgmma_kernel*Sm90Name_k5_f16_128x128x64_s6E*8FormLong"); "" for peers.
  std::string symbol;
  // Every kernel it launches, symbol and rule each (symbol above: the one a long K runs); a single
  // kernel of ours: that one, empty for peers (filled in by the registry where a family leaves it).
  std::vector<KernelInstance> kernels;
  LaunchFn launch = nullptr;
  OccupancyFn occupancy = nullptr;
  KnownWrongFn known_wrong = nullptr;
  WorkspaceFn workspace = nullptr;  // nullptr: needs none
  PrepareFn prepare = nullptr;      // nullptr: nothing to measure ahead of time
  // false: runs by name (verify, bench, fuzz) but auto and tune never take it -- a form not yet
  // verified on a GPU, or (issue 14) a teaching variant built to be slow.
  bool auto_candidate = true;
  // true (with auto_candidate false): tune times it, and auto takes it where the problem's own tune
  // entry timed it fastest -- never by guessing (neighbours, the cost model, a peer's fallback). For
  // a verified variant that wins on some shapes and loses on others.
  bool auto_tuned_only = false;
  // With auto_tuned_only: the problems on which auto may also guess it (neighbours, the cost model)
  // without an entry of their own -- the regime where it measured fastest (shortk: a grid of half a
  // wave or more, neither M nor N thin). nullptr: from its own entries only, everywhere.
  GuessWhenFn auto_guess_when = nullptr;
  // Non-empty: a teaching variant (issue 14), correct but built to break one thing on purpose --
  // what it breaks and the verdict `pipegemm diagnose` should give. Never auto's.
  std::string teaching;
  bool is_peer() const { return rung < 0; }
  // How auto may take it, for any problem it accepts (check_variant): not at all, from the
  // problem's own tune entry only, or by any of auto's steps.
  enum class AutoUse { never, tuned, any };
  AutoUse auto_use() const {
    return auto_candidate ? AutoUse::any : auto_tuned_only ? AutoUse::tuned : AutoUse::never;
  }
  // auto may guess it (neighbours, the model, a failed peer's fallback).
  bool auto_takes() const { return auto_use() == AutoUse::any; }
  // auto may guess it for p: a full candidate, or a tuned-only one inside its regime.
  bool auto_guesses(const Problem& p, int sm_count) const {
    return auto_takes() || (auto_use() == AutoUse::tuned && auto_guess_when && auto_guess_when(p, sm_count));
  }
};

// The description of a variant, in words made from its typed fields.
std::string describe(const Variant& v);

const std::vector<Variant>& variants();
const Variant* find_variant(std::string_view name);

// Can `v` run `p` on a device of compute capability `sm` with these pointers (any may be null:
// then their alignment is not checked)? The message says exactly what is wrong.
// A kernel whose whole K is one k_tile (shortk: max_k <= BK), multiplied only as far as K goes: no K
// quantum (the cost model), no MMA count per k_tile nor load in its loop (the SASS checker).
inline bool one_k_tile(const Variant& v) { return v.req.max_k > 0 && v.req.max_k <= v.tile.bk; }

Status check_variant(const Variant& v, const Problem& p, int sm, const void* A = nullptr,
                     const void* B = nullptr, const void* D = nullptr);
Status check_variant(const Variant& v, const Problem& p, int sm, const Operands& x);
// What `v` computes beyond the TN GEMM, in words ("layouts TN NN NT TT; alpha, beta, C apart;
// batch; bias row col; relu gelu_tanh gelu_erf"); "layouts TN" alone for the plain GEMM.
std::string describe_capabilities(const Variant& v);
// The problem a variant sees: a column-major D turned into D^T = B A^T (m, n, A and B, their
// strides and layouts, and the bias's rows and columns swapped); *swapped says whether it was.
Problem row_major_d(const Problem& p, bool* swapped = nullptr);

// auto's choice (pipegemm/introspect/dispatch.hpp: tune cache, cost model, fallback) among the registered
// variants that accept the problem, cuBLAS included. *why says how it chose, or, with nullptr
// returned, what every variant refused.
const Variant* choose_variant(const Problem& p, int sm, const void* A, const void* B,
                              const void* D, std::string* why = nullptr);

// The one run path. gemm(), verify and bench all launch through a GemmCall: make() validates the
// problem once, resolves the variant (a name, "auto", or a Variant), checks it against the
// problem, the device and the pointers, and only then may launch() run -- with no checks of its
// own, so a benchmark times the kernel, not the validation. launch() takes the buffers again
// so a benchmark can rotate them; they must have the alignment of those given to make().
class GemmCall {
 public:
  static Status make(const Problem& p, std::string_view variant, const Operands& x, GemmCall* out);
  static Status make(const Problem& p, const Variant& v, const Operands& x, GemmCall* out);
  Status launch(const Operands& x, cudaStream_t_ stream) const { return launch(x, stream, nullptr); }
  // ran: the name of the variant that ran -- variant(), or the kernel of ours a peer fell back to.
  Status launch(const Operands& x, cudaStream_t_ stream, std::string* ran) const;
  // The same with no C or bias (beta = 0, no bias).
  static Status make(const Problem& p, std::string_view variant, const void* A, const void* B,
                     const void* D, GemmCall* out);
  static Status make(const Problem& p, const Variant& v, const void* A, const void* B, const void* D,
                     GemmCall* out);
  Status launch(const void* A, const void* B, void* D, cudaStream_t_ stream) const;
  // The variant's measuring ahead of time (Variant::prepare) on x, for the problem as launch() runs
  // it; bench and tune call it before timing, prepare() before choosing. Nothing to do: ok.
  Status prepare(const Operands& x, cudaStream_t_ stream, std::string* state = nullptr) const;
  // The bytes of a caller's workspace launch(x) needs (Variant::workspace; 0: none).
  size_t workspace_bytes(const Operands& x) const;
  const Variant& variant() const { return *v_; }
  // Normalized (packed leading dimensions filled), as the variant sees it: D row-major
  // (row_major_d; swapped() says whether A and B trade places at launch).
  const Problem& problem() const { return p_; }
  bool swapped() const { return swapped_; }
  const std::string& why() const { return why_; }  // how the variant was chosen (auto: cache, model, fallback)

 private:
  // M, N, K or batch = 0 (gemm.cpp): nothing, or the epilogue alone for K = 0.
  static Status make_zero_size(const Problem& p, const Operands& x, GemmCall* out);
  const Variant* v_ = nullptr;
  // auto chose a peer: if it finds no algorithm at launch (cuBLASLt's heuristic can offer
  // candidates that all refuse to run), launch() runs the problem on one of ours.
  bool may_fall_back_ = false;
  Problem p_;
  bool swapped_ = false;
  std::string why_;
};

}  // namespace pipegemm
