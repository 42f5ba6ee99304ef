// CSV and markdown renderers: a table's data as CSV, its text as a pipe table.
#include <sstream>

#include "pipegemm_tools/report/json.hpp"

namespace pipegemm::report {

using json = nlohmann::json;

// ----- CSV and markdown ---------------------------------------------------------------------

namespace {

std::string csv_field(const Value& v) {
  std::string s;
  switch (v.kind()) {
    case Value::Kind::absent:
    case Value::Kind::null: return "";
    case Value::Kind::text: s = v.as_text(); break;
    default: s = to_json(v).dump(); break;
  }
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string md_cell(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '|' ? std::string("\\|") : c == '\n' ? std::string("<br>") : std::string(1, c);
  return o;
}

}  // namespace

std::string render_csv(const Table& t) {
  std::ostringstream os;
  std::vector<size_t> cols;
  for (size_t c = 0; c < t.columns.size(); ++c)
    if (t.columns[c].show != Show::text && !t.columns[c].key.empty()) cols.push_back(c);
  for (size_t i = 0; i < cols.size(); ++i) os << (i ? "," : "") << csv_field(Value(t.columns[cols[i]].key));
  os << "\r\n";
  for (const Row& r : t.rows) {
    if (r.show == Show::text) continue;
    for (size_t i = 0; i < cols.size(); ++i)
      os << (i ? "," : "") << (cols[i] < r.cells.size() ? csv_field(r.cells[cols[i]].value) : "");
    os << "\r\n";
  }
  return os.str();
}

std::string render_csv(const Document& d) {
  std::vector<const Table*> ts;
  for (const Section& s : d.sections)
    for (const Table& t : s.tables)
      if (!t.key.empty() && t.show != Show::text) ts.push_back(&t);
  // The document's own data first, as comment lines (`# environment.gpu: NVIDIA H200`): a results
  // file says its GPU, software, date and options by itself.
  std::string out;
  for (const Section& s : d.sections)
    for (const Field& f : s.fields)
      if (!f.key.empty() && f.cell.value.kind() != Value::Kind::absent)
        out += "# " + f.key + ": " + (f.cell.value.kind() == Value::Kind::text ? f.cell.value.as_text()
                                                                             : to_json(f.cell.value).dump()) + "\r\n";
  const bool head = !out.empty();
  for (const Table* t : ts) {
    if (!out.empty()) out += "\r\n";
    if (ts.size() > 1 || head) out += "# " + t->key + "\r\n";
    out += render_csv(*t);
  }
  return out;
}

std::string render_markdown(const Table& t) {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  text_grid(t, &header, &rows);
  std::ostringstream os;
  auto line = [&](const std::vector<std::string>& r) {
    os << "|";
    for (const std::string& c : r) os << " " << md_cell(c) << " |";
    os << "\n";
  };
  line(header);
  os << "|";
  for (size_t i = 0; i < header.size(); ++i) os << "---|";
  os << "\n";
  for (auto& r : rows) line(r);
  return os.str();
}

std::string render_markdown(const Document& d) {
  std::ostringstream os;
  auto para = [&](const std::string& s) {
    if (s.find('\n') == std::string::npos) os << s << "\n\n";
    else os << "```\n" << s << (s.back() == '\n' ? "" : "\n") << "```\n\n";
  };
  if (!d.title.empty()) para(d.title);
  for (const Section& s : d.sections) {
    if (!s.title.empty()) para(s.title);
    bool any = false;
    for (const Field& f : s.fields)
      if (!f.label.empty()) os << "- **" << f.label << "**: " << md_cell(f.cell.display()) << "\n", any = true;
    if (any) os << "\n";
    for (const Table& t : s.tables) {
      if (t.show == Show::data) continue;
      if (!t.title.empty()) para(t.title);
      os << render_markdown(t) << "\n";
      for (const std::string& n : t.notes) para(n);
    }
    for (const std::string& n : s.notes) para(n);
  }
  return os.str();
}

}  // namespace pipegemm::report
