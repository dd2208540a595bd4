// Results beside other workers: which stand, and running again alone the ones that do not.
#include "rerun_alone.hpp"

#include <cstdio>

#include "exec.hpp"
#include "util.hpp"

namespace ptxcts::run {

bool trapped_by_own_kernel(const CaseResult& r) {
  const Json* err = r.details.get("kernel_error");
  const Json* stop = r.details.get("frame_stop");
  return err && err->is_string() && err->str() == kPredictedTrapError && stop && stop->is_string() &&
         stop->str() == frame_stop::before_wait;
}

bool trapped_as_predicted(const CaseResult& r) {
  return r.cls == cls::spec_divergence && r.details.get("predicted_trap") && trapped_by_own_kernel(r);
}

bool stands_beside_traps(const CaseResult& r) {
  return trapped_as_predicted(r) || (r.cls == cls::crash && trapped_by_own_kernel(r)) || beyond_neighbours(r);
}

size_t rerun_alone(const std::vector<const RunCase*>& cs, std::vector<CaseResult>& rs,
                   const std::function<bool(const CaseResult&)>& suspect, const BatchOptions& o, const char* what,
                   bool quiet) {
  std::vector<const RunCase*> again;
  std::vector<size_t> where;
  for (size_t i = 0; i < rs.size(); ++i)
    if (suspect(rs[i])) {
      again.push_back(cs[i]);
      where.push_back(i);
    }
  if (again.empty() || g_stop_requested) return 0;
  if (!quiet) std::fprintf(stderr, "\nrun: %zu %s again, alone (jobs 1)\n", again.size(), what);
  BatchOptions alone = o;
  alone.jobs = 1;
  alone.ahead = 8;
  alone.spares = 0;
  alone.hold_fd = -1;
  auto rs2 = run_batch(again, alone, nullptr);
  for (size_t k = 0; k < rs2.size(); ++k) {
    // Interrupted (or past the deadline) during the re-run: the first verdict stands (it was measured), marked
    // as seen beside other workers only.
    if (rs2[k].cls == cls::skipped) {
      rs[where[k]].details["beside_other_workers"] = true;
      continue;
    }
    Json first = Json::object();
    first["class"] = rs[where[k]].cls;
    first["message"] = rs[where[k]].message;
    rs2[k].details["first_attempt_with_other_workers"] = first;
    rs[where[k]] = rs2[k];
  }
  return again.size();
}

bool beyond_neighbours(const CaseResult& r) {
  return (r.cls == cls::pass || r.cls == cls::spec_divergence) && !r.details.get("kernel_error");
}

bool calm_suspect_beside_traps(const CaseResult& r) {
  return r.cls == cls::crash || r.cls == cls::timeout || r.details.get("kernel_error");
}

}  // namespace ptxcts::run
