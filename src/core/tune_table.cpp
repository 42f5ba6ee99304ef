// The tune cache file: JSON written by `pipegemm tune`, read by auto (dispatch.cpp).
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "pipegemm/introspect/dispatch.hpp"

namespace pipegemm {
namespace {

constexpr const char* kFormat = "pipegemm-tune/1";
using nlohmann::json;

Status bad(const std::string& where, const std::string& why) {
  return Status::error(StatusCode::invalid_argument, where + ": " + why);
}

}  // namespace

double TuneEntry::timed_us(const std::string& variant) const {
  for (const auto& [name, us] : timed)
    if (name == variant) return us;
  return 0;
}

Status TuneTable::parse(const std::string& text, const std::string& where, TuneTable* out) {
  TuneTable t;
  t.source = where;
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return bad(where, "not JSON");
  if (!j.is_object() || j.value("format", "") != kFormat)
    return bad(where, std::string("not a tune cache (expected \"format\": \"") + kFormat + "\")");
  if (!j.contains("entries") || !j["entries"].is_array()) return bad(where, "no \"entries\" array");
  int i = 0;
  for (const json& x : j["entries"]) {
    const std::string at = "entry " + std::to_string(i++);
    if (!x.is_object()) return bad(where, at + " is not an object");
    TuneEntry e;
    try {
      e.key.gpu = x.at("gpu").get<std::string>();
      e.key.types = x.at("types").get<std::string>();
      e.key.layouts = x.at("layouts").get<std::string>();
      e.key.bucket = x.at("bucket").get<std::string>();
      e.shape = x.value("shape", "");
      e.best = x.at("best").get<std::string>();
      e.best_us = x.value("best_us", 0.0);
      for (const json& c : x.value("timed", json::array()))
        e.timed.emplace_back(c.at("variant").get<std::string>(), c.at("us").get<double>());
      for (const json& c : x.value("pruned", json::array())) e.pruned.push_back(c.get<std::string>());
      e.date = x.value("date", "");
      e.pipegemm = x.value("pipegemm", "");
      e.lt_algo = x.value("cublaslt_algo", "");
    } catch (const json::exception& ex) {
      return bad(where, at + ": " + ex.what());
    }
    if (e.best.empty()) return bad(where, at + ": empty \"best\"");
    t.put(std::move(e));
  }
  *out = std::move(t);
  return Status::success();
}

Status TuneTable::load(const std::string& path, TuneTable* out) {
  std::ifstream f(path);
  if (!f) {  // no cache yet: an empty table
    *out = TuneTable{};
    out->source = path;
    return Status::success();
  }
  std::stringstream ss;
  ss << f.rdbuf();
  return parse(ss.str(), path, out);
}

std::string TuneTable::to_json() const {
  json entries = json::array();
  for (const TuneEntry& e : entries_) {
    json timed = json::array();
    for (const auto& [name, us] : e.timed) timed.push_back({{"variant", name}, {"us", us}});
    entries.push_back({{"gpu", e.key.gpu}, {"types", e.key.types}, {"layouts", e.key.layouts},
                       {"bucket", e.key.bucket}, {"shape", e.shape}, {"best", e.best}, {"best_us", e.best_us},
                       {"timed", timed}, {"pruned", e.pruned}, {"date", e.date}, {"pipegemm", e.pipegemm}});
    if (!e.lt_algo.empty()) entries.back()["cublaslt_algo"] = e.lt_algo;
  }
  return json{{"format", kFormat}, {"entries", entries}}.dump(1) + "\n";
}

Status TuneTable::save(const std::string& path) const {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    if (!(f << to_json()) || !f.flush()) return Status::error(StatusCode::io_error, "cannot write '" + tmp + "'");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return Status::error(StatusCode::io_error, "cannot rename '" + tmp + "' to '" + path + "'");
  return Status::success();
}

namespace {
std::string joined(const TuneKey& k) { return k.gpu + '\n' + k.types + '\n' + k.layouts + '\n' + k.bucket; }
}  // namespace

const TuneEntry* TuneTable::find(const TuneKey& k) const {
  auto it = index_.find(joined(k));
  return it == index_.end() ? nullptr : &entries_[it->second];
}

void TuneTable::put(TuneEntry e) {
  const std::string key = joined(e.key);
  auto it = index_.find(key);
  if (it != index_.end()) {
    entries_[it->second] = std::move(e);
    return;
  }
  index_.emplace(key, entries_.size());
  entries_.push_back(std::move(e));
}

}  // namespace pipegemm
