// ptxcts-litmus --json FILE: the run's document, written through the project's JSON writer (ptxcts::Json), so a
// device name, like any other text, is escaped as JSON needs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ptxcts::litmus {

struct CaseOutcome {
  std::string name;
  int blocks = 0;
  long long checks = 0;
  unsigned long long violations = 0;
  double ms = 0;
  bool ok = false;  // no violation, or with --fault: the planted fault was caught
};

struct Report {
  std::string device;  // cudaDeviceProp::name
  uint64_t seed = 0, iters = 0;
  bool fault = false;
  std::vector<CaseOutcome> cases;
};

// {"schema": "ptxcts-litmus", "version": 1, "device", "seed", "iters", "fault", "cases": [{"case", "blocks",
// "checks", "violations", "ms", "ok"}, ...]} and a newline.
std::string report_json(const Report& r);

}  // namespace ptxcts::litmus
