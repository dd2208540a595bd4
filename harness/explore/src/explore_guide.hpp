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

  // The forms a case is drawn for. pick_form: guided, half the draws take the form chosen least so far (ties
  // broken by r), the other half any form; unguided, any form.
  void set_forms(const std::vector<const Form*>& forms);
  const Form& pick_form(Rng& r, bool guided);

  // Of `candidates` (bins of `param`), the one reached least by the draws so far and the guided tries of it (a
  // bin tried and missed yields to the others); ties broken by r. Counts the try. "" when candidates is empty.
  std::string least(const std::string& param, const std::vector<std::string>& candidates, Rng& r);
  // The same over every reachable bin of `param`.
  std::string least(const std::string& param, Rng& r);

  Json to_json() const;          // {"drawn": coverage, "tried": {param: {bin: n}}, "form_picks": {form: n}}
  void restore(const Json& j);   // adds an earlier segment's counts (a fresh guide: the same state again)

 private:
  std::map<std::string, std::map<std::string, size_t>> tried_;
  std::vector<const Form*> forms_;
  std::vector<size_t> form_picks_;  // per forms_ entry
};

}  // namespace ptxcts::run
