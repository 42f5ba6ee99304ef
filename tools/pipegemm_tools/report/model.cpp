// The document model's small parts: values, cells, tables, sections; formats and number forms.
#include <cstdio>

#include "pipegemm_tools/report/json.hpp"

namespace pipegemm::report {

using json = nlohmann::json;

// ----- the model ----------------------------------------------------------------------------

Value Value::array(std::vector<Value> items) {
  Value v;
  v.kind_ = Kind::array;
  v.items_ = std::move(items);
  return v;
}

Value Value::object(std::vector<std::pair<std::string, Value>> members) {
  Value v;
  v.kind_ = Kind::object;
  for (auto& [k, x] : members) v.set(k, std::move(x));
  return v;
}

Value& Value::push(Value v) {
  if (kind_ == Kind::absent || kind_ == Kind::null) kind_ = Kind::array;
  items_.push_back(std::move(v));
  return *this;
}

Value& Value::set(std::string key, Value v) {
  if (kind_ == Kind::absent || kind_ == Kind::null) kind_ = Kind::object;
  keys_.push_back(std::move(key));
  items_.push_back(std::move(v));
  return *this;
}

Table& Table::add(std::vector<Cell> cells, Show s) {
  rows.push_back({std::move(cells), s});
  return *this;
}

Table& Section::table(std::string key, std::string title, std::vector<Column> columns) {
  tables.emplace_back();
  Table& t = tables.back();
  t.key = std::move(key);
  t.title = std::move(title);
  t.columns = std::move(columns);
  return t;
}

Section& Document::section(std::string title, bool gap) {
  sections.emplace_back();
  sections.back().title = std::move(title);
  sections.back().gap = gap;
  return sections.back();
}

// ----- JSON values -------------------------------------------------------------------------

json to_json(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::absent:
    case Value::Kind::null: return nullptr;
    case Value::Kind::boolean: return v.as_bool();
    case Value::Kind::integer: return v.as_int();
    case Value::Kind::uinteger: return v.as_uint();
    case Value::Kind::real: return v.as_real();
    case Value::Kind::text: return v.as_text();
    case Value::Kind::array: {
      json a = json::array();
      for (const Value& x : v.items())
        if (!x.absent()) a.push_back(to_json(x));
      return a;
    }
    case Value::Kind::object: {
      json o = json::object();
      for (size_t i = 0; i < v.items().size(); ++i)
        if (!v.items()[i].absent()) o[v.keys()[i]] = to_json(v.items()[i]);
      return o;
    }
  }
  return nullptr;
}

std::string Cell::display() const {
  if (shown) return text;
  switch (value.kind()) {
    case Value::Kind::absent: return "";
    case Value::Kind::null: return "-";
    case Value::Kind::boolean: return value.as_bool() ? "yes" : "no";
    case Value::Kind::integer: return std::to_string(value.as_int());
    case Value::Kind::uinteger: return std::to_string(value.as_uint());
    case Value::Kind::real: {
      char b[64];
      std::snprintf(b, sizeof b, "%g", value.as_real());
      return b;
    }
    case Value::Kind::text: return value.as_text();
    default: return to_json(value).dump();
  }
}

// ----- formats and numbers ------------------------------------------------------------------

bool parse_format(std::string_view s, Format* f) {
  if (s == "text") *f = Format::text;
  else if (s == "json") *f = Format::json;
  else if (s == "csv") *f = Format::csv;
  else if (s == "md" || s == "markdown") *f = Format::markdown;
  else return false;
  return true;
}

std::string render(const Document& d, Format f) {
  switch (f) {
    case Format::json: return render_json(d);
    case Format::csv: return render_csv(d);
    case Format::markdown: return render_markdown(d);
    case Format::text: break;
  }
  return render_text(d);
}

std::string fixed(double v, int prec) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

std::string kib(double bytes) {
  const double k = bytes / 1024.0;
  return fixed(k, k == double(int64_t(k)) ? 0 : 1) + " KB";
}

std::string percent(double fraction) { return fixed(100.0 * fraction, 1) + "%"; }

}  // namespace pipegemm::report
