// --resume DIR: the interrupted run's folder read back, its saved selection (run-args.json) and the results it
// holds (results.json), each checked before anything runs.
#pragma once
#include <string>
#include <vector>

#include "json.hpp"

namespace ptxcts::run {

// The interrupted run's folder: its saved selection, and the results it holds.
struct Resumed {
  std::vector<std::string> args;
  Json doc;
};

// Reads DIR's run-args.json and results.json into r; 0, or the exit status of the message it printed (2: not a
// run folder, 3: a malformed file).
int load_resume(const std::string& dir, Resumed& r);

}  // namespace ptxcts::run
