// Text and JSON renderers of a Document (report.hpp says what each shows).
#include <algorithm>
#include <cctype>
#include <sstream>

#include "pipegemm/pipegemm.hpp"
#include "pipegemm_tools/report/json.hpp"

namespace pipegemm::report {

using json = nlohmann::json;

std::string version() { return library_version(); }

// ----- JSON ---------------------------------------------------------------------------------

namespace {

// The node at a dotted path, created on the way; an all-digit segment indexes an array.
json& at_path(json& root, std::string_view path) {
  json* node = &root;
  while (!path.empty()) {
    const size_t dot = path.find('.');
    const std::string_view seg = path.substr(0, dot);
    const bool index = !seg.empty() && std::all_of(seg.begin(), seg.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    node = index ? &(*node)[size_t(std::stoull(std::string(seg)))] : &(*node)[std::string(seg)];
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  }
  return *node;
}

json table_json(const Table& t) {
  json rows = json::array();
  for (const Row& r : t.rows) {
    if (r.show == Show::text) continue;
    json o = json::object();
    for (size_t c = 0; c < t.columns.size() && c < r.cells.size(); ++c)
      if (t.columns[c].show != Show::text && !t.columns[c].key.empty() && !r.cells[c].value.absent())
        at_path(o, t.columns[c].key) = to_json(r.cells[c].value);
    rows.push_back(std::move(o));
  }
  return rows;
}

}  // namespace

std::string render_json(const Document& d) {
  json root = json::object();
  for (const Section& s : d.sections) {
    for (const Field& f : s.fields)
      if (!f.key.empty() && !f.cell.value.absent()) at_path(root, f.key) = to_json(f.cell.value);
    for (const Table& t : s.tables)
      if (!t.key.empty() && t.show != Show::text) at_path(root, t.key) = table_json(t);
  }
  if (d.json_root.empty()) root["pipegemm_version"] = version();  // the one place every report gets it
  const json& out = d.json_root.empty() ? root : at_path(root, d.json_root);
  return out.dump(2) + "\n";
}

// ----- text ---------------------------------------------------------------------------------

// The text columns and rows of a table, as strings (also the markdown grid).
void text_grid(const Table& t, std::vector<std::string>* header, std::vector<std::vector<std::string>>* rows) {
  std::vector<size_t> cols;
  for (size_t c = 0; c < t.columns.size(); ++c)
    if (t.columns[c].show != Show::data) cols.push_back(c), header->push_back(t.columns[c].title);
  for (const Row& r : t.rows) {
    if (r.show == Show::data) continue;
    std::vector<std::string> x;
    for (size_t c : cols) x.push_back(c < r.cells.size() ? r.cells[c].display() : "");
    rows->push_back(std::move(x));
  }
}

namespace {

// Fixed width, two spaces between columns, a dashed rule under the header.
std::string fixed_grid(const Table& t) {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  text_grid(t, &header, &rows);
  std::vector<size_t> w(header.size());
  for (size_t i = 0; i < header.size(); ++i) w[i] = header[i].size();
  for (auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  std::ostringstream os;
  auto line = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < w.size(); ++i) os << (i ? "  " : "") << r[i] << std::string(w[i] - r[i].size(), ' ');
    os << "\n";
  };
  line(header);
  std::vector<std::string> dash;
  for (size_t x : w) dash.push_back(std::string(x, '-'));
  line(dash);
  for (auto& r : rows) line(r);
  return os.str();
}

std::string section_text(const Section& s) {
  std::ostringstream os;
  if (!s.title.empty()) os << s.title << "\n";
  size_t w = 0;
  for (const Field& f : s.fields) w = std::max(w, f.label.size());
  for (const Field& f : s.fields) {
    if (f.label.empty()) continue;
    const std::string v = f.cell.display(), pad(w + 2, ' ');
    os << f.label << std::string(w + 2 - f.label.size(), ' ');
    for (char c : v) os << c << (c == '\n' ? pad : "");
    os << "\n";
  }
  for (const Table& t : s.tables) {
    if (t.show == Show::data) continue;
    if (!t.title.empty()) os << t.title << "\n";
    os << fixed_grid(t);
    for (const std::string& n : t.notes) os << n << "\n";
  }
  for (const std::string& n : s.notes) os << n << "\n";
  return os.str();
}

}  // namespace

std::string render_text(const Document& d) {
  std::string out = d.title.empty() ? "" : d.title + "\n";
  for (const Section& s : d.sections) {
    const std::string t = section_text(s);
    if (t.empty()) continue;
    if (s.gap && !out.empty()) out += "\n";
    out += t;
  }
  return out;
}

// ----- CSV and markdown: report/tables.cpp -----------------------------------------------

}  // namespace pipegemm::report
