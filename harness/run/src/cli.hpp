// The run tier's driver, shared by ptxcts-run (CLI) and the GoogleTest binary: select cases, prepare modules,
// run the isolated batches per load path, collect results.
#pragma once
#include <string>
#include <vector>

#include "case.hpp"
#include "exec.hpp"
#include "plan.hpp"

namespace ptxcts::run {

struct Selection {
  std::vector<std::string> cases;     // exact run case IDs
  std::vector<std::string> families;  // family names
  std::vector<std::string> filters;   // substrings of the case ID
  int shard_index = 0, shard_count = 1;
};

struct Session {
  std::string self;                   // this binary (for workers)
  std::vector<Form> forms;
  std::vector<RunCase> cases;         // the selected cases
  PlanOptions plan;
  uint64_t seed = 1;
  std::vector<std::string> load_paths = {"cubin", "jit"};
  std::vector<std::string> lower_targets;  // extra JIT targets below the device (e.g. sm_80 for cp.async)
  int jobs = 4;
  double timeout_s = 5;
  double deadline = 0;                // now_s() after which no new case starts (0: none)
  std::string out_dir;                // results/<run-id>
  bool quiet = false;
  std::string no_device;              // reason, when no GPU is usable
  DeviceInfo device;
  std::string ptxas_version;
  std::vector<std::string> families;  // the selection's families (module preparation); empty: all

  // Loads the manifest and plans; throws with a message on a missing or malformed manifest.
  void load(const Selection& sel);
  // Runs every selected case on every load path; with no device every case is `skipped`.
  std::vector<CaseResult> execute();
};

// Applies CTEST_RESOURCE_GROUP_0_GPUS (id:N,slots:M) to CUDA_VISIBLE_DEVICES when present.
void apply_ctest_resources();
bool parse_shard(const std::string& s, int& index, int& count);
std::string self_exe(const char* argv0);

}  // namespace ptxcts::run
