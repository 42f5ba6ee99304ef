#include <iostream>

#include "cli.hpp"

namespace pipegemm::cli {

static std::string tile_str(const TileConfig& t) {
  if (t.bm == 0) return "-";
  return std::to_string(t.bm) + "x" + std::to_string(t.bn) + "x" + std::to_string(t.bk) + "/" +
         std::to_string(t.stages);
}

void add_list(CLI::App& app, int* rc) {
  auto* cmd = app.add_subcommand("list", "list the registered variants (the one registry)");
  auto json_flag = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json_flag, "machine-readable output");
  cmd->callback([rc, json_flag] {
    const bool json = *json_flag;
    if (json) {
      nlohmann::json j = nlohmann::json::array();
      for (const Variant& v : variants())
        j.push_back({{"name", v.name}, {"family", v.family}, {"rung", v.rung}, {"description", v.description},
                     {"min_sm", v.min_sm}, {"max_sm", v.max_sm}, {"a", to_string(v.a_type)},
                     {"acc", to_string(v.acc_type)}, {"d", to_string(v.d_type)},
                     {"tile", {{"bm", v.tile.bm}, {"bn", v.tile.bn}, {"bk", v.tile.bk}, {"stages", v.tile.stages},
                               {"threads", v.tile.threads}, {"smem_bytes", v.tile.smem_bytes}}},
                     {"requires", {{"m_multiple", v.req.m_multiple}, {"n_multiple", v.req.n_multiple},
                                   {"k_multiple", v.req.k_multiple}, {"ptr_align_bytes", v.req.ptr_align_bytes},
                                   {"ld_multiple", v.req.ld_multiple}, {"d_align_bytes", v.req.d_align()},
                                   {"ldd_multiple", v.req.ldd_mult()}, {"any_layout", v.req.any_layout}}}});
      std::cout << j.dump(2) << "\n";
    } else {
      std::vector<std::vector<std::string>> rows;
      for (const Variant& v : variants()) {
        // Only the constraints that bind: "any M,N,K" means no size rule at all.
        std::string req;
        auto add = [&req](const std::string& r) { req += (req.empty() ? "" : " ") + r; };
        if (v.req.m_multiple > 1) add("M%" + std::to_string(v.req.m_multiple));
        if (v.req.n_multiple > 1) add("N%" + std::to_string(v.req.n_multiple));
        if (v.req.k_multiple > 1) add("K%" + std::to_string(v.req.k_multiple));
        if (v.req.ld_multiple > 1)
          add((v.req.ldd_mult() == v.req.ld_multiple ? "ld%" : "lda,ldb%") + std::to_string(v.req.ld_multiple));
        if (v.req.ldd_mult() > 1 && v.req.ldd_mult() != v.req.ld_multiple) add("ldd%" + std::to_string(v.req.ldd_mult()));
        if (req.empty()) req = "any M,N,K";
        if (v.req.ptr_align_bytes > 1)
          req += ", " + std::to_string(v.req.ptr_align_bytes) +
                 (v.req.d_align() == v.req.ptr_align_bytes ? "B ptrs" : "B A,B ptrs");
        rows.push_back({v.name, v.family, v.rung < 0 ? "peer" : "k" + std::to_string(v.rung),
                        std::string(to_string(v.a_type)) + "/" + to_string(v.acc_type) + "/" + to_string(v.d_type),
                        tile_str(v.tile), v.tile.smem_bytes ? std::to_string(v.tile.smem_bytes / 1024) + " KB" : "-",
                        "sm_" + std::to_string(v.min_sm) + (v.max_sm ? "a only" : "+"), req});
      }
      std::cout << table({"variant", "family", "rung", "in/acc/out", "tile/stages", "smem", "arch", "takes"}, rows);
    }
    *rc = kOk;
  });
}

}  // namespace pipegemm::cli
