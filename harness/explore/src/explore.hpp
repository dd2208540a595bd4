// The exploration tier (./ptxcts explore): cases drawn at random from every parameter the chapter and the
// driver API name (each family's draw, abi.hpp), run in the run tier's isolated workers and judged byte for byte
// by the model and its named alternatives. A disagreement no alternative explains is shrunk (each family's
// simplify, greedily, while it still reproduces), deduplicated by a signature, and kept as a permanent case of
// the regular run tier (results/explore/explored.jsonl). Writes DIR/explore.json (counts, rate, findings,
// coverage), DIR/coverage.svg and DIR/summary.txt.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "session.hpp"
#include "explore_options.hpp"

namespace ptxcts::run {

// --resume DIR: the earlier segments' explore.json, checked (throws MalformedExplore naming the file and field);
// sets the options a resumed exploration takes from it (seed, families, id, out_dir).
struct MalformedExplore : std::runtime_error {
  using std::runtime_error::runtime_error;
};
void load_resume(const std::string& dir, ExploreOptions& o);

// The families exploration can draw for (a form whose ABI has a draw).
std::vector<std::string> explorable_families(const std::vector<Form>& forms);

// Runs the exploration on `ses` (loaded forms, device, toolchain). Returns the process exit status: 0 no
// unexplained finding, 1 findings, 130/143 interrupted (what was measured is written).
int explore(Session& ses, const ExploreOptions& o);

}  // namespace ptxcts::run
