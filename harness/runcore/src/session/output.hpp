// What a run leaves: results/<run-id>/results.json and junit.xml (ARCHITECTURE section 3; written by the
// framework's write_run, harness/framework/documents/writer.py, the one writer and JUnit mapping of every tier), the
// progress line while it runs and the closing summary table (family x class).
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "batch.hpp"
#include "case.hpp"
#include "exec.hpp"
#include "toolchain.hpp"

namespace ptxcts::run {

struct RunMeta {
  std::string run_id, started, finished;
  uint64_t seed = 1;
  int shard_index = 0, shard_count = 1;
  std::string shard_deal = "round-robin";
  bool have_device = false;
  DeviceInfo device;
  Toolchain toolchain;
  // A run stopped before its end (SIGINT/SIGTERM): results.json's top-level "partial" {reason, done, total}.
  std::string partial_reason;
  size_t partial_done = 0, partial_total = 0;
  std::vector<BatchTiming> timing;  // results.json's `timing` (omitted when empty)
};

// The document's text: header fields one per line, then one case per line, sorted by key (as harness/results'
// schema.dumps writes it), so a 10000-case run is diffable and greppable.
std::string results_text(const RunMeta& m, const std::vector<CaseResult>& results);

// Writes DIR/results.json and DIR/junit.xml, each atomically (temporary file + rename: a reader or a run cut off
// half-way never sees a torn file); returns "" or an error.
std::string write_results(const std::string& dir, const RunMeta& m, const std::vector<CaseResult>& results);

// What every reader of a run document written by write_results checks before it uses one (--resume, --rejudge):
// a run-tier ptxcts-results object whose `cases` is an array of objects, each with id, class, load_path and target
// non-empty strings and a class of the closed set. Throws std::runtime_error saying what is wrong (the caller
// names the file).
void check_run_document(const Json& doc);

class Progress {
 public:
  Progress(size_t total, std::string what) : total_(total), what_(std::move(what)) {}
  void add(const CaseResult& r);
  void add_total(size_t n) { total_ += n; }  // cases known only once under way (modules prepared meanwhile)
  void finish();
 private:
  void print(bool final);
  size_t total_, done_ = 0, bad_ = 0;
  std::string what_;
  double t0_ = -1, last_ = 0;
};

void print_summary(FILE* f, const std::vector<CaseResult>& results, double wall_s, const Toolchain& tc);

}  // namespace ptxcts::run
