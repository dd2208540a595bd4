// The exploration's state, shared by its two halves: explore.cpp (drawing, running, shrinking) and explore_doc.cpp
// (explore.json written after every segment and read back by --resume). Internal to the exploration tier.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "session.hpp"
#include "explore_coverage.hpp"
#include "explore_guide.hpp"
#include "explore_options.hpp"
#include "util.hpp"

namespace ptxcts::run::explore_impl {

// The recorded device finding a result belongs to (details.recorded_finding, set by the batch executor:
// device_quirks.hpp, recorded_finding), or "".
inline std::string recorded_finding_of(const CaseResult& r) { return r.details.get_str("recorded_finding"); }

// An open finding: a class that is fail, crash, timeout or compile_error, of no recorded device finding.
inline bool is_finding(const CaseResult& r) {
  return (r.cls == cls::fail || r.cls == cls::crash || r.cls == cls::timeout || r.cls == cls::compile_error) &&
         recorded_finding_of(r).empty();
}

// The draws of one recorded device finding: counted by class, never shrunk (the family is on record); the first
// case kept for the record.
struct Recorded {
  size_t draws = 0;
  std::map<std::string, size_t> classes;
  Json first;  // case_json of the first draw
};

struct Finding {
  std::string sig;
  size_t count = 0;                 // drawn cases with this signature
  RunCase first;                    // the first drawn case that showed it
  CaseResult first_result;
  RunCase minimal;                  // after shrinking
  CaseResult minimal_result;
  int shrink_rounds = 0, shrink_cases = 0;
  double shrink_s = 0;
  bool shrunk = false;
  std::string shrink_stop;          // why shrinking stopped
};

class Explorer {
 public:
  Explorer(Session& ses, const ExploreOptions& o) : ses_(ses), o_(o) {}
  int run();
  int dry_draw();  // --dry-draw (explore_dry.cpp)

 private:
  // The next n cases; fewer when `until` (now_s(); 0: never) passes or a stop is requested: the next chunk
  // starts where this one stopped, so the cases drawn are the same.
  std::vector<RunCase> draw_chunk(size_t n, double until = 0);
  std::vector<CaseResult> execute(std::vector<RunCase> cases);
  void shrink(Finding& f, double until);
  void write(double wall, bool interrupted);
  void restore(const Json& doc);
  RunCase make_case(const Form& f, const std::string& variant, const Json& params) const;
  void set_up();    // the forms to draw from, the bins no case reaches, the guide

  Session& ses_;
  const ExploreOptions& o_;
  std::vector<const Form*> forms_;
  uint64_t next_ = 0;               // drawn-case counter (the case's seed derives from it)
  uint64_t digest_ = 0;             // of every drawn case's id and params, in draw order: equal digests, equal draws
  size_t ran_ = 0, nothing_ = 0;
  std::map<std::string, size_t> by_class_;
  std::map<std::string, size_t> divergences_;  // spec_divergence signature -> count
  std::vector<Finding> findings_;
  std::map<std::string, Recorded> recorded_;  // recorded device finding id -> its draws (explore.json "recorded_findings")
  // Drawn but not run when a signal stopped the exploration (the chunk running, the chunk drawn ahead): kept in
  // explore.json ("pending") and run first by --resume, so that the seed's cases are each run once, interrupted or
  // not (the drawing's state went past them).
  std::vector<RunCase> pending_;
  Coverage cov_;                    // of the executed cases
  DrawGuide guide_;                 // of the drawn cases (drawing's state: restored by --resume)
  double drawn_s_ = 0;
  double before_s_ = 0;             // explored seconds of the earlier segments (--resume)
  size_t ran_before_ = 0;           // cases run by the earlier segments
  std::string segment_started_ = now_stamp();
  Json segments_ = Json::array();   // one row per segment: when, how long, how many cases, where
};

// One case and its result as explore.json keeps it (a finding's first and minimal case).
Json case_json(const RunCase& c, const CaseResult& r);

}  // namespace ptxcts::run::explore_impl
