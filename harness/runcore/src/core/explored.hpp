// The permanent cases exploration found (results/explore/explored.jsonl): one JSON object per line,
// {"id", "form", "variant", "params", "found": {...}}, sorted by id. The regular run tier plans every row whose
// form is selected (plan.cpp) as an explicit case, so what exploration found once is checked on every run.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "case.hpp"

namespace ptxcts::run {

std::string explored_cases_path();  // <tree>/results/explore/explored.jsonl, or $PTXCTS_EXPLORED_CASES

// A permanent-cases file that cannot be read as one (exit 3 where a command meets it).
struct MalformedCasesFile : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A permanent-cases path that is not a file (a folder, a device): exit 2 where a command meets it.
struct UnusableCasesPath : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ExploredRow {
  std::string id, form, variant;
  Json params, found;
};

// Reads the file (missing: no rows); throws MalformedCasesFile naming the file, line and field of a bad row, and
// UnusableCasesPath when the path is there but not a file (PTXCTS_EXPLORED_CASES naming a folder).
std::vector<ExploredRow> read_explored(const std::string& path);
// Adds rows (a row whose id is already there is left as it was) and rewrites the file atomically, sorted.
std::string add_explored(const std::string& path, const std::vector<ExploredRow>& rows);

}  // namespace ptxcts::run
