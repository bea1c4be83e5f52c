#include "analysis/requests.hpp"

#include <algorithm>
#include <tuple>

namespace memhier::analysis {

bool ChaseWish::operator<(const ChaseWish& o) const {
  return std::tie(path, carveout, mode, stride, bytes, iters, warm) <
         std::tie(o.path, o.carveout, o.mode, o.stride, o.bytes, o.iters, o.warm);
}
bool TlbWish::operator<(const TlbWish& o) const { return std::tie(stride, bytes) < std::tie(o.stride, o.bytes); }

void Requests::add(ChaseWish w) { pchase.push_back(std::move(w)); }
void Requests::add(TlbWish w) { tlb.push_back(std::move(w)); }

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
  for (const auto& w : p)
    j["pchase"].push_back({{"path", w.path}, {"mode", w.mode}, {"bytes", w.bytes}, {"stride", w.stride},
                           {"iters", w.iters}, {"warm", w.warm ? 1 : 0}, {"carveout", w.carveout}});
  for (const auto& w : t) j["tlb"].push_back({{"bytes", w.bytes}, {"stride", w.stride}});
  return j;
}

}  // namespace memhier::analysis
