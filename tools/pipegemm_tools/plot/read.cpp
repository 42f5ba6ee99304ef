// plot.hpp: reading a report back -- the CSV renderer's form ("# key: value" lines, a "# results"
// table) or the JSON one (any array of row objects with "variant" and "ms_median").
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "pipegemm_tools/plot.hpp"
#include "pipegemm_tools/report/json.hpp"

namespace pipegemm::plot {
namespace {

Status bad(const std::string& name, const std::string& why) {
  return Status::error(StatusCode::invalid_argument, name + ": " + why);
}

// One CSV record: fields split at commas outside quotes, "" inside quotes is a quote.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
    else if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.emplace_back();
    else if (c != '\r') out.back() += c;
  }
  return out;
}

double to_double(const std::string& s) {
  try {
    return s.empty() ? 0.0 : std::stod(s);
  } catch (...) {
    return 0.0;
  }
}

Row row_from(const std::function<std::string(const char*)>& get) {
  Row r;
  r.shape = get("shape");
  r.variant = get("variant");
  r.chose = get("chose");
  r.a_type = get("a_type");
  r.d_type = get("d_type");
  r.m = int64_t(to_double(get("m")));
  r.n = int64_t(to_double(get("n")));
  r.k = int64_t(to_double(get("k")));
  r.ms = to_double(get("ms_median"));
  r.tflops = to_double(get("tflops"));
  r.gbps = to_double(get("gbps"));
  r.pct_of_cublas = to_double(get("pct_of_cublas"));
  r.copy_gbps = to_double(get("copy_gbps"));
  const std::string ok = get("ok");
  r.ok = (ok == "true" || ok == "1") && r.ms > 0;
  if (r.shape.empty() && r.m > 0) r.shape = std::to_string(r.m) + "x" + std::to_string(r.n) + "x" + std::to_string(r.k);
  return r;
}

Status parse_csv(const std::string& text, const std::string& name, Results* out) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  bool in_results = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("# ", 0) == 0) {
      const std::string body = line.substr(2);
      in_results = body == "results";
      header.clear();
      if (const size_t c = body.find(": "); c != std::string::npos) out->meta.emplace_back(body.substr(0, c), body.substr(c + 2));
      continue;
    }
    if (line.empty()) {
      in_results = false;
      continue;
    }
    if (!in_results) continue;
    if (header.empty()) {
      header = csv_fields(line);
      continue;
    }
    const std::vector<std::string> f = csv_fields(line);
    std::map<std::string, std::string> m;
    for (size_t i = 0; i < header.size() && i < f.size(); ++i) m[header[i]] = f[i];
    out->rows.push_back(row_from([&](const char* k) {
      auto it = m.find(k);
      return it == m.end() ? std::string() : it->second;
    }));
  }
  if (out->rows.empty()) return bad(name, "no \"# results\" table with timed rows (a `bench --output FILE.csv` report?)");
  return Status::success();
}

std::string json_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) {
    std::ostringstream o;
    o.precision(17);
    o << v.get<double>();
    return o.str();
  }
  return "";
}

// Rows: every array of objects that have "variant" and "ms_median"; meta: the "environment" and
// "suite" fields wherever they are, flattened with '.'.
void walk_json(const nlohmann::json& j, const std::string& path, Results* out) {
  if (j.is_array()) {
    for (const auto& e : j) {
      if (e.is_object() && e.contains("variant") && e.contains("ms_median"))
        out->rows.push_back(row_from([&](const char* k) { return e.contains(k) ? json_text(e[k]) : std::string(); }));
      else
        walk_json(e, path, out);
    }
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string key = path.empty() ? it.key() : path + "." + it.key();
      if (it.value().is_primitive()) out->meta.emplace_back(key, json_text(it.value()));
      else walk_json(it.value(), key, out);
    }
  }
}

}  // namespace

std::string Results::meta_value(const std::string& key) const {
  for (const auto& [k, v] : meta)
    if (k == key || (k.size() > key.size() && k.compare(k.size() - key.size() - 1, std::string::npos, "." + key) == 0))
      return v;
  return "";
}

Status parse_results(const std::string& text, const std::string& name, Results* out) {
  *out = Results{};
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) return bad(name, "not valid JSON");
    walk_json(j, "", out);
    if (out->rows.empty()) return bad(name, "no rows with \"variant\" and \"ms_median\" (a bench, tune or suite report?)");
    return Status::success();
  }
  return parse_csv(text, name, out);
}

Status read_results(const std::string& path, Results* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::error(StatusCode::io_error, path + ": cannot be read");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_results(ss.str(), path, out);
}

Status parse_kind(const std::string& s, Kind* out) {
  if (s == "ratio") *out = Kind::ratio;
  else if (s == "tflops") *out = Kind::tflops;
  else if (s == "roofline") *out = Kind::roofline;
  else return Status::error(StatusCode::invalid_argument, "--kind " + s + ": one of ratio, tflops, roofline");
  return Status::success();
}

}  // namespace pipegemm::plot
