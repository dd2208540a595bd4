// Coverage-guided drawing: the coverage of the cases drawn so far (explore_coverage's bins, fed in draw order by
// the explorer) and how often each guided choice was tried. A drawer asks it for the least reached of a
// parameter's bins and draws a value in it. Its state depends only on the seed and the number of cases drawn,
// so the same seed draws the same cases however the drawing is split into chunks or segments (--resume restores
// it from explore.json).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "explore_coverage.hpp"
#include "json.hpp"
#include "util.hpp"

namespace ptxcts::run {

class DrawGuide {
 public:
  Coverage drawn;  // every drawn case

  // The forms a case is drawn for. pick_form: guided, half the draws take the form drawn least so far (ties
  // broken by r), the other half any form; unguided, any form. drew_form: what the last pick's draw gave (a run
  // case of the form counts 4, a draw that gave none, e.g. an illegal map judged by the encode call, 1).
  void set_forms(const std::vector<const Form*>& forms);
  const Form& pick_form(Rng& r, bool guided);
  void drew_form(bool run_case);

  // Of `candidates` (bins of `param`), the one reached least by the draws so far and the guided tries of it (a
  // bin tried and missed yields to the others); ties broken by r. Counts the try. "" when candidates is empty.
  std::string least(const std::string& param, const std::vector<std::string>& candidates, Rng& r);
  // The same over every reachable bin of `param`.
  std::string least(const std::string& param, Rng& r);
  // A value of the least reached of the bins of `param` that lie within [lo, hi] (value ranges: bin_range);
  // `fallback` when none does.
  uint64_t least_value(const std::string& param, uint64_t lo, uint64_t hi, Rng& r, uint64_t fallback);

  Json to_json() const;          // {"drawn": coverage, "tried": {param: {bin: n}}, "form_score": {form: n}}
  void restore(const Json& j);   // adds an earlier segment's counts (a fresh guide: the same state again)

 private:
  std::map<std::string, std::map<std::string, size_t>> tried_;
  std::vector<const Form*> forms_;
  std::vector<size_t> form_score_;  // per forms_ entry: what its draws gave (drew_form)
  size_t last_form_ = 0;
};

// A drawer's value, or in `percent` of a guided draw's calls (guide not null) a value in the least reached of the
// bins of `param` within [lo, hi]. An unguided draw takes no random number here: it draws as it always did.
inline uint64_t steer(DrawGuide* guide, Rng& r, unsigned percent, const std::string& param, uint64_t lo, uint64_t hi,
                      uint64_t value) {
  if (!guide || r.below(100) >= percent) return value;
  return guide->least_value(param, lo, hi, r, value);
}

}  // namespace ptxcts::run
