// What a subcommand reports, as data: a Document of titled sections holding key/value fields,
// tables (columns and rows of typed cells) and notes. One Document renders as text, JSON, CSV or
// markdown, so a builder lays its report out once and every output format follows from it.
//
//   Value   a typed datum (null, bool, integer, real, string, array, object): what JSON and CSV carry
//   Cell    a Value and, optionally, how text shows it ("48 KB" for 49152, "PASS" for true)
//   Field   key (JSON path, '.' nests: "arch.sm") and label (text); either may be empty
//   Table   columns (key + title) and rows of cells; JSON: an array of row objects at its key
//
// Show says where a column, row or table appears: text (text and markdown), data (JSON and CSV),
// or all; a keyless column marked data appears nowhere (the column one mode of a report drops).
// A cell left absent (Cell{}) is omitted from its JSON row and empty in CSV.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace pipegemm::report {

class Value {
 public:
  enum class Kind { absent, null, boolean, integer, uinteger, real, text, array, object };
  Value() = default;
  Value(std::nullptr_t) : kind_(Kind::null) {}
  Value(bool b) : kind_(Kind::boolean), b_(b) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Value(T i) : kind_(std::is_signed_v<T> ? Kind::integer : Kind::uinteger) {
    if constexpr (std::is_signed_v<T>) i_ = int64_t(i);
    else u_ = uint64_t(i);
  }
  Value(double d) : kind_(Kind::real), d_(d) {}
  Value(const char* s) : kind_(Kind::text), s_(s) {}
  Value(std::string s) : kind_(Kind::text), s_(std::move(s)) {}
  static Value array(std::vector<Value> items = {});
  static Value object(std::vector<std::pair<std::string, Value>> members = {});

  Kind kind() const { return kind_; }
  bool absent() const { return kind_ == Kind::absent; }
  bool as_bool() const { return b_; }
  int64_t as_int() const { return i_; }
  uint64_t as_uint() const { return u_; }
  double as_real() const { return d_; }
  const std::string& as_text() const { return s_; }
  const std::vector<Value>& items() const { return items_; }      // array elements, object values
  const std::vector<std::string>& keys() const { return keys_; }  // object keys (parallel to items)
  Value& push(Value v);                                           // append to an array
  Value& set(std::string key, Value v);                           // append to an object

 private:
  Kind kind_ = Kind::absent;
  bool b_ = false;
  int64_t i_ = 0;
  uint64_t u_ = 0;
  double d_ = 0;
  std::string s_;
  std::vector<Value> items_;
  std::vector<std::string> keys_;
};

struct Cell {
  Value value;
  std::string text;   // how text shows the value, when `shown`
  bool shown = false;
  Cell() = default;
  template <class T, std::enable_if_t<std::is_constructible_v<Value, T>, int> = 0>
  Cell(T&& v) : value(std::forward<T>(v)) {}
  template <class T>
  Cell(T&& v, std::string as_text) : value(std::forward<T>(v)), text(std::move(as_text)), shown(true) {}
  std::string display() const;  // `text` when shown, else the value's plain form ("-" for null)
};
// A cell that only text shows (its JSON value is the same string).
inline Cell text_cell(std::string s) { return Cell(s, s); }

enum class Show { all, text, data };

struct Field {
  std::string key;    // JSON path; "" = text only
  std::string label;  // text label; "" = data only
  Cell cell;
};

struct Column {
  std::string key;    // JSON key within a row (may nest: "tile.bm"); CSV header
  std::string title;  // text and markdown header
  Show show = Show::all;
};

struct Row {
  std::vector<Cell> cells;  // one per column
  Show show = Show::all;
};

struct Table {
  std::string key;    // JSON path of the row array; "" = not in JSON
  std::string title;  // a line above the table in text
  std::vector<Column> columns;
  std::vector<Row> rows;
  std::vector<std::string> notes;  // lines under the table in text
  Show show = Show::all;
  Table& add(std::vector<Cell> cells, Show s = Show::all);
};

struct Section {
  std::string title;       // first line(s) in text
  bool gap = true;         // a blank line before it in text (when something precedes it)
  std::vector<Field> fields;
  std::deque<Table> tables;
  std::vector<std::string> notes;  // verbatim text lines (a note ending in '\n' leaves a blank line)
  Section& data(std::string key, Cell c) { fields.push_back({std::move(key), "", std::move(c)}); return *this; }
  Section& line(std::string label, std::string text) {
    fields.push_back({"", std::move(label), text_cell(std::move(text))});
    return *this;
  }
  Section& note(std::string s) { notes.push_back(std::move(s)); return *this; }
  // Tables and sections live in deques: a reference stays valid while more are added.
  Table& table(std::string key, std::string title, std::vector<Column> columns);
};

struct Document {
  std::string title;       // first line(s) of the text
  std::string json_root;   // "" = JSON is the object of every keyed field and table (and the
                           // version); else that path's value
  std::deque<Section> sections;
  Section& section(std::string title = "", bool gap = true);
};

// This build's version ("0.1.0"): every JSON document whose root is an object carries it as
// "pipegemm_version" (a document with a json_root renders that bare value, without it).
std::string version();

// Text: title, then each non-empty section (fields as aligned "label  value" lines, multi-line
// values indented under the first; each table as its title, a fixed-width grid and its notes;
// then the notes). JSON: pretty-printed (2 spaces), keys sorted. Both end in a newline.
std::string render_text(const Document& d);
std::string render_json(const Document& d);
// CSV (RFC 4180) of a table's data columns and rows; arrays and objects as compact JSON. A document:
// every table with a key, each after a "# <key>" line when there are several.
std::string render_csv(const Table& t);
std::string render_csv(const Document& d);
// Markdown: a table's text columns and rows as a GitHub pipe table; a document as its text with
// the tables as pipe tables and multi-line notes fenced.
std::string render_markdown(const Table& t);
std::string render_markdown(const Document& d);

enum class Format { text, json, csv, markdown };
bool parse_format(std::string_view s, Format* f);  // "text", "json", "csv", "md"/"markdown"
std::string render(const Document& d, Format f);

// Number formats the builders share: fixed(3.14159, 2) = "3.14"; kib(49152) = "48 KB",
// kib(1536) = "1.5 KB"; percent(0.125) = "12.5%".
std::string fixed(double v, int prec);
std::string kib(double bytes);
std::string percent(double fraction);

}  // namespace pipegemm::report
