#include "litmus_report.hpp"

#include "ptxcts/json.hpp"

namespace ptxcts::litmus {

std::string report_json(const Report& r) {
  Json doc = Json::object();
  doc["schema"] = "ptxcts-litmus";
  doc["version"] = 1;
  doc["device"] = r.device;
  doc["seed"] = (unsigned long long)r.seed;
  doc["iters"] = (unsigned long long)r.iters;
  doc["fault"] = r.fault;
  Json cases = Json::array();
  for (const CaseOutcome& c : r.cases) {
    Json row = Json::object();
    row["case"] = c.name;
    row["blocks"] = c.blocks;
    row["checks"] = c.checks;
    row["violations"] = c.violations;
    row["ms"] = c.ms;
    row["ok"] = c.ok;
    cases.push(row);
  }
  doc["cases"] = cases;
  return doc.dump() + "\n";
}

}  // namespace ptxcts::litmus
