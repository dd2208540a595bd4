// A run session, shared by ptxcts-run (its command line, harness/run/src/run_cli.cpp), the GoogleTest binary and
// ptxcts-explore: select cases, prepare modules, run the isolated batches per load path, collect results.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "batch.hpp"
#include "case.hpp"
#include "exec.hpp"
#include "plan.hpp"
#include "toolchain.hpp"

namespace ptxcts::run {

struct Selection {
  std::vector<std::string> cases;     // exact run case IDs
  std::vector<std::string> families;  // family names
  std::vector<std::string> filters;   // substrings of the case ID
  int shard_index = 0, shard_count = 1;
  // --shard-deal: how the selection is dealt to the shards (deal_shard in session.cpp)
  std::string shard_deal = "round-robin";
};

// Which shard of `count` a selected case belongs to. round-robin: the k-th selected case, shard k % count.
// traps (count >= 2): every case the planner expects to trap (params.traps) to shard 0, the k_calm-th other case to
// shard 1 + k_calm % (count - 1): the driver handles traps one at a time for the whole host
// (results/bench/README.md), so shards that trap side by side wait on each other, while calm shards do not.
// k and k_calm count the selected cases before this one (all of them, and the calm ones).
int deal_shard(const std::string& deal, bool traps, size_t k, size_t k_calm, int count);

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
  std::string device_kind = "gpu";    // gpu, or model[:FAULT]: workers judge against the model itself, no modules
  bool repro = true;                  // workers write repro bundles (exploration turns them off)
  bool rerun_crashes_alone = true;    // exploration: off (its shrinking runs a finding again, alone or not)
  int trap_jobs = 0;                  // cases expected to trap at once (--trap-jobs); 0: default_trap_jobs(jobs)
  bool traps_alone = false;           // --traps-alone: the trap phase one case after another, nothing beside it
                                      // (no overlap either)
  bool trap_prestart = false;         // the trap phase's workers start during the calm phase (--trap-prestart)
  bool overlap = false;               // the trap phases beside the calm phases (Schedule); --overlap: on.
                                      // On the GPU only, and never with traps_alone
  DeviceInfo device;
  Toolchain toolchain;                // resolved at start (resolve_toolchain): ptxas, PTX version, targets
  std::vector<std::string> families;  // the selection's families (module preparation); empty: all
  // --resume: results already judged, key result_key(); these are not run again.
  std::set<std::string> done_keys;
  std::vector<BatchTiming> timing;    // filled by execute(), one per batch run

  // Loads the manifest and plans; throws UsageError for a selection that names nothing (unknown family),
  // std::runtime_error for a missing or malformed manifest.
  void load(const Selection& sel);
  // Runs every selected case on every load path; with no device every case is `skipped`. After SIGINT/SIGTERM
  // (g_stop_requested) the workers are stopped and every case not judged yet comes back `skipped` with the
  // message "interrupted".
  std::vector<CaseResult> execute();
};

// The key of a result within one run (results.json's key less the device): "<load path>|<target>|<id>".
std::string result_key(const std::string& load_path, const std::string& target, const std::string& id);
// The families a selection may name: the manifest's, plus the driver-API family tensormap.encode.
std::vector<std::string> known_families(const std::vector<Form>& forms);
std::string self_exe(const char* argv0);
// --trap-jobs when not given: as many as --jobs, at least 8, at most the online CPUs (each trapping case starts a
// worker: a process, a CUDA context and its module load).
int default_trap_jobs(int jobs);
// ptxcts-run --dry-build [--dry-judge]: builds every selected case's images and expectation on the CPU, and with
// judge=true judges a corrupted copy of each (the failure path: alternatives, messages). Returns the exit status.
int dry_build(Session& ses, bool judge);

}  // namespace ptxcts::run
