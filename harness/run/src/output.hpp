// What a run leaves: results/<run-id>/results.json and junit.xml (ARCHITECTURE section 3; written through
// harness/results' write_run when Python and that package are present, else in the same format here), the
// progress line while it runs and the closing summary table (family x class).
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "case.hpp"
#include "exec.hpp"

namespace ptxcts::run {

struct RunMeta {
  std::string run_id, started, finished;
  uint64_t seed = 1;
  int shard_index = 0, shard_count = 1;
  bool have_device = false;
  DeviceInfo device;
  std::string ptxas_version;
};

// Writes DIR/results.json and DIR/junit.xml; returns "" or an error.
std::string write_results(const std::string& dir, const RunMeta& m, const std::vector<CaseResult>& results);

class Progress {
 public:
  Progress(size_t total, std::string what) : total_(total), what_(std::move(what)) {}
  void add(const CaseResult& r);
  void finish();
 private:
  void print(bool final);
  size_t total_, done_ = 0, bad_ = 0;
  std::string what_;
  double t0_ = -1, last_ = 0;
};

void print_summary(FILE* f, const std::vector<CaseResult>& results, double wall_s);

}  // namespace ptxcts::run
