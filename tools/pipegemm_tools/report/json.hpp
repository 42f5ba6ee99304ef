// Inside pipegemm_tools only: a report Value as nlohmann::json (the JSON and CSV renderers).
#pragma once

#include <nlohmann/json.hpp>

#include "pipegemm_tools/report.hpp"

namespace pipegemm::report {

nlohmann::json to_json(const Value& v);

// The text and markdown grid of a table: its text columns' titles and its text rows' cells.
void text_grid(const Table& t, std::vector<std::string>* header, std::vector<std::vector<std::string>>* rows);

}  // namespace pipegemm::report
