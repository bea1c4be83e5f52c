#include "analysis/core/requests.hpp"

#include <algorithm>
#include <string>
#include <tuple>

namespace memhier::analysis {

bool ChaseWish::operator<(const ChaseWish& o) const {
  return std::tie(path, carveout, mode, stride, bytes, iters, warm) <
         std::tie(o.path, o.carveout, o.mode, o.stride, o.bytes, o.iters, o.warm);
}
bool TlbWish::operator<(const TlbWish& o) const {
  return std::tie(alloc, stride, bytes, lines, timed) < std::tie(o.alloc, o.stride, o.bytes, o.lines, o.timed);
}

nlohmann::json TlbWish::to_json() const {
  nlohmann::json e = {{"bytes", bytes}, {"stride", stride}, {"alloc", alloc}};
  if (lines) e["lines"] = lines;
  if (timed) e["timed"] = timed;
  return e;
}

void Requests::set_limits(const std::map<std::string, std::string>& ctx) {
  const std::string pre = "chase_limit_bytes_";
  for (const auto& [k, v] : ctx) {
    std::uint64_t x = 0;
    try {
      x = std::stoull(v);
    } catch (...) {
      continue;
    }
    if (k.compare(0, pre.size(), pre) == 0) chase_limit[k.substr(pre.size())] = x;
    if (k == "tlb_limit_bytes") tlb_limit = x;
    if (k == "tlb_limit_bytes_vmm") tlb_limit_vmm = x;
  }
  auto backend = ctx.find("device_backend");
  auto optin = ctx.find("smem_per_block_optin_bytes");
  if (backend != ctx.end() && backend->second == "cuda" && optin != ctx.end()) {
    try {
      shared_limit = std::stoull(optin->second);
    } catch (...) {
    }
  }
}

bool Requests::fits(const ChaseWish& w) const {
  auto it = chase_limit.find(w.path);
  if (it != chase_limit.end() && w.bytes > it->second) return false;
  const std::uint64_t records = w.mode == "fine" ? (w.max_records ? w.max_records : 4096) : 0;
  const std::uint64_t shared = 8 * records + (w.mode == "count" ? 4096 : 0) + (w.path == "shared" ? w.bytes : 0);
  return shared_limit == 0 || shared <= shared_limit;
}
bool Requests::fits(const TlbWish& w) const {
  if (w.alloc != "malloc") return tlb_limit_vmm > 0 && w.bytes <= tlb_limit_vmm;
  return tlb_limit == 0 || w.bytes <= tlb_limit;
}

bool Requests::add(ChaseWish w) {
  if (!fits(w)) return false;
  pchase.push_back(std::move(w));
  return true;
}
bool Requests::add(TlbWish w) {
  if (!fits(w)) return false;
  tlb.push_back(std::move(w));
  return true;
}

nlohmann::json Requests::to_json() const {
  auto p = pchase;
  auto t = tlb;
  std::sort(p.begin(), p.end());
  p.erase(std::unique(p.begin(), p.end(), [](auto& a, auto& b) { return !(a < b) && !(b < a); }), p.end());
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end(), [](auto& a, auto& b) { return !(a < b) && !(b < a); }), t.end());
  nlohmann::json j;
  j["format"] = "memhier-requests/1";
  j["pchase"] = nlohmann::json::array();
  j["tlb"] = nlohmann::json::array();
  for (const auto& w : p) {
    nlohmann::json e = {{"path", w.path}, {"mode", w.mode}, {"bytes", w.bytes}, {"stride", w.stride},
                        {"iters", w.iters}, {"warm", w.warm ? 1 : 0}, {"carveout", w.carveout}};
    if (w.max_records) e["max_records"] = w.max_records;
    j["pchase"].push_back(e);
  }
  for (const auto& w : t) j["tlb"].push_back(w.to_json());
  return j;
}

}  // namespace memhier::analysis
