// How "auto" chooses (docs/dispatch.md): among the registered variants that accept the problem --
// cuBLAS and cuBLASLt included, like any other candidate --
//   1. cache:    the fastest one measured for this GPU, types, layouts and shape bucket (prepare()'s
//                choices, tables the caller loaded, then the tables shipped in the library);
//   2. neighbours: else the one that ran closest to the fastest on the nearest tuned shapes of
//                the same GPU, types, layouts, alignment and semantics (neighbour_choice): on
//                shapes no table holds it does far better than the model (docs/dispatch.md);
//   3. model:    else the one the cost model below predicts fastest (waves, last-wave
//                utilisation, memory- vs compute-bound, per-wave fill and epilogue);
//   4. fallback: else (no model for this GPU) the highest rung that accepts, then cuBLAS.
// Every step is CPU arithmetic over registry data, so it is tested without a GPU.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pipegemm/introspect/arch.hpp"
#include "pipegemm/introspect/registry.hpp"

namespace pipegemm {

// ---- the cost model ---------------------------------------------------------------------------
struct CostEstimate {
  bool known = false;      // false: no rate for this variant's MMA on this GPU (why says)
  double us = 0;           // predicted time: launch + max(compute and per-wave costs, DRAM)
  double compute_us = 0;   // waves x (tile's math at the family's efficiency + fill + epilogue)
  double memory_us = 0;    // A + B + D once at the DRAM bandwidth the kernels reach
  long long tiles = 0, waves = 0;
  double last_wave_util = 0;
  int blocks_per_sm = 0;
  int split_k = 1;         // cuBLAS only: the split the model gave it
  bool memory_bound = false;
  double pack_bytes = 0;   // a packed variant: bytes its copies move (0: nothing to pack here)
  std::string why;         // one line: the deciding numbers
};
// blocks_per_sm: resident CTAs of v on one SM (0 = from its shared memory and threads alone).
// resident_blocks(v): CUDA's occupancy of v on this device, asked once per variant (0: unknown,
// e.g. no GPU or a peer).
int resident_blocks(const Variant& v);
CostEstimate estimate_cost(const Variant& v, const Problem& p, const plan::ArchSpec& a, int blocks_per_sm = 0);

// ---- the tune cache ---------------------------------------------------------------------------
// A shape bucket: each of M, N, K as round(4 log2 x) (quarter octaves: exact up to 4, ~19% wide
// above), and the alignment class: the largest power of two <= 16 bytes dividing every row
// (K-major rows, lda, ldb, ldd) and every pointer -- what decides which variants accept.
std::string shape_bucket(const Problem& p, const void* A, const void* B, const void* D);
int alignment_class(const Problem& p, const void* A, const void* B, const void* D);

struct TuneKey {
  std::string gpu;      // DeviceInfo::name, e.g. "NVIDIA H200"
  std::string types;    // "a,b,acc,d": "f16,f16,f32,f16"
  std::string layouts;  // A, B, D: "row,row,row" (the TN GEMM)
  std::string bucket;   // shape_bucket()
};
TuneKey tune_key(const Problem& p, const std::string& gpu, const void* A, const void* B, const void* D);

struct TuneEntry {
  TuneKey key;
  std::string shape;       // the MxNxK that was timed
  std::string best;        // the fastest variant's name
  double best_us = 0;
  std::vector<std::pair<std::string, double>> timed;  // every candidate timed, fastest first (us)
  std::vector<std::string> pruned;                    // candidates the model ruled out, not timed
  std::string date, pipegemm;
  // With a cuBLASLt best: the algorithm it timed (cublasLtMatmulAlgo_t as hex), which the peer runs
  // for every problem of the bucket that cuBLASLt accepts it for; "": the heuristic's first.
  std::string lt_algo;
  double timed_us(const std::string& variant) const;  // its median in `timed`; 0: not timed
};

class TuneTable {
 public:
  // The JSON of `pipegemm tune` ({"format": "pipegemm-tune/1", "entries": [...]}); a malformed
  // file is refused with where and why.
  static Status parse(const std::string& text, const std::string& where, TuneTable* out);
  static Status load(const std::string& path, TuneTable* out);  // a missing file: an empty table
  std::string to_json() const;
  Status save(const std::string& path) const;  // written beside, then renamed over: never half a file
  const TuneEntry* find(const TuneKey& k) const;  // a hash lookup: auto asks on every call
  void put(TuneEntry e);  // replaces the entry of the same key
  const std::vector<TuneEntry>& entries() const { return entries_; }
  std::string source;     // the file it came from, or "shipped:<name>"

 private:
  std::vector<TuneEntry> entries_;                   // in file order
  std::unordered_map<std::string, size_t> index_;    // joined key -> entries_ index
};

// A tune table file auto reads without being asked to: only the one $PIPEGEMM_TUNE_CACHE names
// (opt-in; "" when unset or "off"). Nothing under $HOME is read unless named: a choice depends on
// the problem, the GPU, the pipegemm version and the tables the caller loaded (load_choices).
std::string tune_cache_path();
// Where `pipegemm tune` writes without --output: $XDG_CACHE_HOME/pipegemm/tune.json, else
// $HOME/.cache/pipegemm/tune.json ("" without either).
std::string default_tune_output();
// The tables auto reads, in order: prepare()'s choices, the load_choices() tables, the
// $PIPEGEMM_TUNE_CACHE file, then those shipped (data/tune/*.json, compiled in). Read once per
// process; reload_tune_tables() reads them again (after a tune). A $PIPEGEMM_TUNE_CACHE file that
// cannot be parsed is skipped, and `warning` says so (auto's why repeats it).
struct TuneTables {
  std::vector<TuneTable> tables;
  std::string warning;
};
std::shared_ptr<const TuneTables> tune_tables();
void reload_tune_tables();
const std::vector<TuneTable>& shipped_tune_tables();
// prepare()'s entry for its bucket (replacing one of the same key); auto sees it at once.
void put_prepared(TuneEntry e);
// The entry prepare() made or a loaded table holds for key (not the shipped ones, nor
// $PIPEGEMM_TUNE_CACHE); nullptr: none. prepare() re-times only where this is null (or forced).
const TuneEntry* prepared_or_loaded(const TuneKey& key);

// ---- the choice -------------------------------------------------------------------------------
struct Choice {
  const Variant* variant = nullptr;
  std::string source;  // "cache", "neighbours", "model", "fallback"
  std::string why;     // one line, e.g. "cache ~/.cache/pipegemm/tune.json: bucket ..., timed 4096x4096x4096: ..."
};
// auto's candidates: the registered variants with auto_candidate that accept p (validated,
// normalized, D row-major: row_major_d) on this device with these pointers (any may be null). tune and bench --candidates time the same list.
std::vector<const Variant*> accepting_variants(const Problem& p, int sm, const void* A, const void* B,
                                               const void* D, std::string* refusals = nullptr);
std::vector<const Variant*> accepting_variants(const Problem& p, int sm, const Operands& x,
                                               std::string* refusals = nullptr);
// auto's choice for a validated, normalized problem; `tables` as tune_tables(). A null variant
// means nothing accepts (why then lists each refusal). `dev` gives the GPU's name (the cache
// key) and its limits (the model; dev.present false: the model has no GPU to model).
Choice choose_auto(const Problem& p, const DeviceInfo& dev, const void* A, const void* B, const void* D,
                   const TuneTables& tables);
Choice choose_auto(const Problem& p, const DeviceInfo& dev, const Operands& x, const TuneTables& tables);
// Step 2 alone: among cands, the one with the lowest weighted mean log(time / fastest) (plus half
// its worst) over the nearest (up to 8, within 5 octaves) entries of `tables` for dev's GPU with
// key's types, layouts and bucket rest (alignment, batch, epilogue), not key's own bucket (unless
// with_own_bucket: the plain GEMM's entries standing in for an epilogue no table timed); a peer
// is favoured by tune's 2%, and cublasGemmEx yields to cuBLASLt. Null where no neighbour timed
// a candidate; why gets the numbers.
const Variant* neighbour_choice(const DeviceInfo& dev, const TuneKey& key, const std::vector<const Variant*>& cands,
                                const TuneTables& tables, std::string* why, bool with_own_bucket = false);
// A tune entry's choice among timed (name, us) pairs: our fastest only where it beats the fastest
// cuBLAS peer by 2%, otherwise that peer (dispatch.cpp says why); "" for no pairs. tune stores it,
// `tune --repick` re-applies it, and auto applies it to an entry's candidates when the stored pick
// is not one.
std::string pick_best(const std::vector<std::pair<std::string, double>>& timed);
// What gemm(..., "auto") calls: choose_auto on this device and tune_tables(), remembered per
// problem (shape, strides, types, layouts, each pointer's alignment) for the process, so a repeated
// call does not re-check ~60 variants and re-run the model. reload_tune_tables() forgets.
Choice auto_choice(const Problem& p, const void* A, const void* B, const void* D);
Choice auto_choice(const Problem& p, const Operands& x);

}  // namespace pipegemm
