// Shared helpers of the model tests: the message of a refusal, the rule names of a verdict, docs/POLICIES.md.
#pragma once

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ptxcts/ref/policy.hpp"
#include "ptxcts/ref/tensormap.hpp"
#include "ptxcts/ref/types.hpp"

namespace ptxcts::ref::testing {

// The message of the ModelError f() throws, or "(no ModelError)".
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const ModelError& e) {
    return e.what();
  }
  return "(no ModelError)";
}

// The rule names of a verdict's violations (or open points).
inline std::set<std::string> rules_of(const std::vector<RuleViolation>& v) {
  std::set<std::string> s;
  for (const auto& r : v) s.insert(r.rule);
  return s;
}

// docs/POLICIES.md (PTXCTS_POLICIES_MD, set by CMake); "" when it cannot be read.
inline std::string policies_md() {
  std::ifstream f(PTXCTS_POLICIES_MD);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The table row of policy `name` in POLICIES.md (from "| `name` |" to the end of its line); "" when it has none.
inline std::string policy_row(const std::string& doc, const std::string& name) {
  const std::size_t row = doc.find("| `" + name + "` |");
  return row == std::string::npos ? "" : doc.substr(row, doc.find('\n', row) - row);
}

// Each policy of the catalog with its row in POLICIES.md ("" where it has none).
inline std::vector<std::pair<const PolicyInfo*, std::string>> policy_rows() {
  const std::string doc = policies_md();
  std::vector<std::pair<const PolicyInfo*, std::string>> rows;
  for (const PolicyInfo& p : policy_catalog()) rows.emplace_back(&p, policy_row(doc, p.name));
  return rows;
}

}  // namespace ptxcts::ref::testing
