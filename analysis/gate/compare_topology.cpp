// memhier-compare's topology rows: every leaf of the two reports (topology_fields flatten), judged
// by its class: structural values by their stated ranges, measured ones like counters,
// bookkeeping as INFO at most.
#include <cmath>
#include <set>

#include "analysis/gate/compare_detail.hpp"
#include "analysis/gate/topology_fields.hpp"

namespace memhier::analysis::compare_detail {

void compare_topology(const nlohmann::json& a, const nlohmann::json& b, const CompareOptions& o,
                      std::vector<CompareRow>& rows) {
  const FlatTopology fa = flatten(a), fb = flatten(b);
  std::set<std::string> keys;
  for (auto& [k, v] : fa) keys.insert(k);
  for (auto& [k, v] : fb) keys.insert(k);
  for (const auto& k : keys) {
    CompareRow row;
    row.kind = "topology";
    row.name = k;
    const bool ina = fa.count(k), inb = fb.count(k);
    row.base = ina ? fa.at(k) : nlohmann::json();
    row.now = inb ? fb.at(k) : nlohmann::json();
    row.n_base = ina;
    row.n_now = inb;
    const nlohmann::json va = row.base;
    const nlohmann::json vb = row.now;
    const FieldClass cls = topology_class(k, va.is_string() || vb.is_string());
    row.field_class = field_class_name(cls);
    row.direction = cls == FieldClass::structural ? Direction::structure
                    : cls == FieldClass::bookkeeping ? Direction::ignore
                                                     : topology_direction(k);
    if (row.direction == Direction::structure && cls == FieldClass::measured) row.direction = Direction::unknown;
    const bool equal = va == vb || (va.is_number() && vb.is_number() && va.get<double>() == vb.get<double>());
    if (va.is_number() && vb.is_number() && !equal && va.get<double>() != 0)
      row.change = (vb.get<double>() - va.get<double>()) / std::fabs(va.get<double>());
    if (cls == FieldClass::measured && va.is_number() && vb.is_number()) {
      judge(row, {va.get<double>()}, {vb.get<double>()}, o, is_fraction(k));
      row.base = va;  // keep integers as integers
      row.now = vb;
      if (row.verdict == Verdict::changed) {  // no better/worse direction: not a verdict
        row.verdict = Verdict::info;
        row.note = "measured, no better direction";
      }
      rows.push_back(std::move(row));
      continue;
    }
    row.test = "exact";
    if (equal) {
      row.verdict = Verdict::same;
      rows.push_back(std::move(row));
      continue;
    }
    if (cls == FieldClass::bookkeeping) {
      row.verdict = Verdict::info;
      row.note = "bookkeeping";
    } else if (cls == FieldClass::measured) {
      row.verdict = Verdict::info;
      row.note = !ina || va.is_null() ? "measured in new only" : !inb || vb.is_null() ? "measured in base only" : "measured";
    } else if (!ina || !inb || va.is_null() || vb.is_null()) {
      // Determined in one run only: not a contradiction of the other run.
      row.verdict = Verdict::info;
      row.note = !ina ? "only in new" : !inb ? "only in base" : va.is_null() ? "now determined" : "no longer determined";
    } else {
      const StructuralJudgement sj = judge_structural(fa, fb, k, o.size_tolerance);
      row.test = sj.test;
      row.verdict = sj.changed ? Verdict::changed : sj.low_confidence ? Verdict::info : Verdict::same;
      row.note = sj.note;
    }
    rows.push_back(std::move(row));
  }
}

}  // namespace memhier::analysis::compare_detail
