// `pipegemm list`: the registry.
#include <memory>

#include "cli.hpp"

namespace pipegemm::cli {

void add_list(CLI::App& app, int* rc) {
  auto* cmd = app.add_subcommand("list", "list the kernel variants and the cuBLAS / cuBLASLt peers: types, tile and "
                                         "stages, arch, the shapes each takes and what it computes");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "machine-readable output");
  cmd->callback([rc, json] {
    emit(document(list_registry()), *json);
    *rc = kOk;
  });
}

}  // namespace pipegemm::cli
