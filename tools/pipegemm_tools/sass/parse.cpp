// cuobjdump -sass text -> records (-res-usage: sass/cuobjdump.cpp over the toolchain). One pass over the lines; no regex engine (listings reach MBs).
#include <algorithm>
#include <cctype>
#include <map>

#include "pipegemm_tools/sass.hpp"
#include "pipegemm_tools/toolchain.hpp"

namespace pipegemm::sass {

namespace {

using toolchain::starts_with;
using toolchain::trim;

int64_t parse_hex(std::string_view s) {
  if (starts_with(s, "0x") || starts_with(s, "0X")) s.remove_prefix(2);
  if (s.empty()) return -1;
  int64_t v = 0;
  for (char c : s) {
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
            : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
            : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                        : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// Splits at commas outside [] () {}.
std::vector<std::string> split_operands(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '[' || c == '(' || c == '{') ++depth;
    if (c == ']' || c == ')' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.emplace_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) out.emplace_back(trim(cur));
  return out;
}

// "/*1700*/  @!P1 LDGSTS.E.128 [R151], [R142.64] ;  /* 0x... */" -> Instr. False for other lines.
bool parse_instr(std::string_view line, Instr* in, std::string* pending_label_target) {
  line = trim(line);
  if (!starts_with(line, "/*")) return false;
  size_t close = line.find("*/");
  if (close == std::string_view::npos) return false;
  int64_t addr = parse_hex(trim(line.substr(2, close - 2)));
  if (addr < 0) return false;  // an encoding line "/* 0x000fe4... */" has a space and 0x: still hex
  std::string_view rest = trim(line.substr(close + 2));
  if (rest.empty()) return false;  // encoding-only continuation line
  size_t semi = rest.find(';');
  if (semi != std::string_view::npos) rest = trim(rest.substr(0, semi));
  // The encoding line of the older format is "/* 0x00... */" alone: rest empty, handled above.
  in->addr = uint32_t(addr);
  in->text = std::string(rest);
  if (!rest.empty() && rest.front() == '@') {
    size_t sp = rest.find_first_of(" \t");
    in->pred = std::string(rest.substr(0, sp));
    rest = sp == std::string_view::npos ? std::string_view{} : trim(rest.substr(sp));
    in->text = std::string(rest);
  }
  size_t sp = rest.find_first_of(" \t");
  std::string_view mnem = rest.substr(0, sp);
  std::string_view ops = sp == std::string_view::npos ? std::string_view{} : trim(rest.substr(sp));
  size_t dot = mnem.find('.');
  in->opcode = std::string(mnem.substr(0, dot));
  while (dot != std::string_view::npos) {
    size_t next = mnem.find('.', dot + 1);
    in->mods.emplace_back(mnem.substr(dot + 1, next == std::string_view::npos ? next : next - dot - 1));
    dot = next;
  }
  in->operands = split_operands(ops);
  if (in->branch() || in->is("CALL")) {
    for (const std::string& op : in->operands) {
      std::string_view o = op;
      if (starts_with(o, "`(") && o.back() == ')') {  // `(.L_x_12)
        *pending_label_target = std::string(o.substr(2, o.size() - 3));
      } else if (starts_with(o, "0x")) {
        in->target = parse_hex(o);
      }
    }
  }
  return true;
}

}  // namespace

bool Instr::has_mod(std::string_view m) const {
  return std::find(mods.begin(), mods.end(), m) != mods.end();
}

bool Instr::branch() const { return opcode == "BRA" || opcode == "BRX" || opcode == "JMP" || opcode == "JMX"; }

int Function::index_of(uint32_t a) const {
  auto it = std::lower_bound(code.begin(), code.end(), a,
                             [](const Instr& i, uint32_t x) { return i.addr < x; });
  return (it != code.end() && it->addr == a) ? int(it - code.begin()) : -1;
}

std::vector<std::string> Listing::archs() const {
  std::vector<std::string> out = elf_archs;
  for (const Function& f : functions)
    if (std::find(out.begin(), out.end(), f.arch) == out.end()) out.push_back(f.arch);
  return out;
}

int sm_of(std::string_view arch) {
  if (starts_with(arch, "sm_")) arch.remove_prefix(3);
  int v = 0, digits = 0;
  while (digits < int(arch.size()) && std::isdigit(static_cast<unsigned char>(arch[digits])))
    v = v * 10 + (arch[digits++] - '0');
  return digits ? v : 0;
}

// One glob for the planner and the checker: pipegemm_tools/toolchain.hpp.
bool symbol_matches(std::string_view name, std::string_view symbol) { return toolchain::symbol_matches(name, symbol); }

bool parse_sass(std::string_view text, Listing* out, std::string* err) {
  out->functions.clear();
  std::string arch;
  Function* cur = nullptr;
  std::vector<std::string> labels;                         // labels waiting for the next instruction
  std::vector<std::pair<size_t, std::string>> label_refs;  // (instr index, label) in cur
  std::map<std::string, uint32_t> label_addr;

  auto finish = [&] {
    if (!cur) return;
    for (auto& [idx, name] : label_refs) {
      auto it = label_addr.find(name);
      if (it != label_addr.end()) cur->code[idx].target = it->second;
    }
    label_refs.clear();
    label_addr.clear();
    labels.clear();
  };

  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view t = trim(line);
    if (t.empty()) continue;
    if (starts_with(t, "code for ")) {  // "code for sm_80": one ELF image per arch
      arch = std::string(trim(t.substr(9)));
      continue;
    }
    if (starts_with(t, "Function : ")) {
      finish();
      out->functions.emplace_back();
      cur = &out->functions.back();
      cur->name = std::string(trim(t.substr(11)));
      cur->arch = arch;
      continue;
    }
    if (!cur) continue;
    if (t.front() == '.' && t.back() == ':' && t.find(' ') == std::string_view::npos) {  // ".L_x_12:"
      labels.emplace_back(t.substr(0, t.size() - 1));
      continue;
    }
    Instr in;
    std::string label_target;
    if (!parse_instr(t, &in, &label_target)) continue;
    for (std::string& l : labels) label_addr[l] = in.addr;
    in.labels = std::move(labels);
    labels.clear();
    if (!label_target.empty()) label_refs.emplace_back(cur->code.size(), label_target);
    cur->code.push_back(std::move(in));
  }
  finish();
  out->functions.erase(std::remove_if(out->functions.begin(), out->functions.end(),
                                      [](const Function& f) { return f.code.empty(); }),
                       out->functions.end());
  if (out->functions.empty()) {
    if (err) *err = "no SASS function in the listing (no 'Function : <name>' followed by instructions)";
    return false;
  }
  return true;
}

}  // namespace pipegemm::sass
