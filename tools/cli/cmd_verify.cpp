// `pipegemm verify`: every selected variant against the CPU reference, every element compared.
#include <iostream>
#include <memory>

#include "cli.hpp"

namespace pipegemm::cli {

int run_verify(const VerifyRequest& r, bool json) {
  VerifyReport rep;
  Status s = pipegemm::run_verify(r, &rep);
  if (!s.ok()) return fail(s);
  for (const std::string& e : rep.errors) std::cerr << "pipegemm: " << e << "\n";
  emit(document(rep), json);
  return rep.failures ? kFail : kOk;
}

void add_verify(CLI::App& app, int* rc) {
  auto o = std::make_shared<VerifyRequest>();
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("verify", "run variants on random (or .npy) inputs and compare every element of D "
                                           "with the CPU reference, within the error bound it prints (exact for int32)");
  add_problem_options(cmd, &o->problem, "512x512x512", true);
  add_selection_options(cmd, &o->selection);
  cmd->add_option("--seed", o->seed, "random seed (default: fresh each run, printed)");
  cmd->add_flag("--json", *json, "machine-readable output");
  cmd->callback([o, json, rc] { *rc = run_verify(*o, *json); });
}

}  // namespace pipegemm::cli
