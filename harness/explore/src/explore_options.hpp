// What one exploration is asked to do (explore.hpp): set by its command line, or by --resume from the earlier
// segments' explore.json.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "json.hpp"

namespace ptxcts::run {

struct ExploreOptions {
  double time_s = 60;                 // drawing stops after this; shrinking may run on within shrink_s
  uint64_t cases = 0;                 // --cases N: drawing also stops after N draws of this segment (0: no limit)
  bool only_pending = false;          // --cases 0 (with --resume): no draw, only the cases an interruption left
  uint64_t seed = 1;
  std::vector<std::string> families;  // empty: every family with a draw
  double shrink_s = 120;              // time for shrinking all findings of the run; 0: none (a --resume shrinks)
  std::string out_dir;
  std::string cases_file;             // permanent cases (default results/explore/explored.jsonl); "" = none
  std::string id;                     // the exploration's id (folder name)
  bool quiet = false;                 // no progress line
  bool unguided = false;              // --unguided: no coverage guidance (explore_guide.hpp), every choice at random
  uint64_t dry_draws = 0;             // --dry-draw N: draw N cases, run none, report the draws' coverage
  Json resumed;                       // --resume: the earlier segments' explore.json (null: a new exploration)
};

}  // namespace ptxcts::run
