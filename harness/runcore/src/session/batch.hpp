// The isolated batch executor: cases run in worker processes (fork + exec of ptxcts-run --worker), results stream
// back per case; a worker that traps, hangs or dies costs exactly the case it was running (recorded as crash or
// timeout), and a fresh worker takes the remaining cases. Every case is accounted for. The phases that keep the
// cases expected to trap apart from the others: phases.hpp; what runs again alone: rerun_alone.hpp.
#pragma once
#include <csignal>
#include <functional>
#include <string>
#include <vector>

#include "case.hpp"

namespace ptxcts::run {

struct BatchOptions {
  std::string self;               // path of the ptxcts-run binary (worker mode)
  std::string load_path;          // cubin | jit
  std::string modules;            // module folder (ModuleSet dir)
  std::string target, ptx;
  std::string toolchain;          // --toolchain of the replay commands (the worker assembles nothing)
  std::vector<std::string> source;  // the replay commands' module source (Toolchain::source_args)
  uint64_t seed = 1;
  int jobs = 4;                   // workers running cases at once
  int ahead = 8;                  // cases sent to a worker before it reports them (1: one at a time)
  int spares = 0;                 // workers started with no case yet, so that a warm one (context made, plan
                                  // built, the module of the case it will likely take loaded: "P <kernel>")
                                  // takes the next case when a worker ends (the trap phase: every case ends its
                                  // worker); never more than the cases left to give them
  int hold_fd = -1;               // when set, no case is fed until it reads EOF: until then every slot's worker
                                  // (jobs + spares) starts as a spare (the trap phase's workers start while the
                                  // calm phase runs: PhaseOptions::prestart_traps)
  double timeout_s = 10;          // per case, the worker's watchdog; the parent allows a margin on top
  double kill_margin_s = 20;      // the parent kills a worker silent for timeout_s + this after a case started
  double deadline = 0;            // now_s() after which nothing new starts (0: none); the rest is `skipped`
  std::string log_dir;            // worker stderr logs and repro bundles go here
  std::string log_tag;            // in the worker logs' names (worker-<load path>[-<tag>]-<n>.log): the trap
                                  // phase's ("trap") may run while a calm phase of the same load path does
  std::vector<std::string> plan_args;  // options that shape the plan, forwarded to workers
  std::string device = "gpu";     // gpu, or model[:FAULT]: the reference model stands in for the GPU (model_device.hpp)
  bool repro = true;              // workers write repro bundles for fails and divergences
};

// Where one batch's time went (results.json's `timing`, harness/framework/documents/schema.py TIMING_FIELDS).
// The calm phase (`cases` with `workers` at once), its crashes and timeouts re-run alone (`rerun_alone`), the
// trap phase (`traps` with `trap_workers` at once, 1: one after another) and the trap-phase results re-run alone
// because they were not the predicted trap (`trap_rerun_alone`).
struct BatchTiming {
  std::string load_path, target;
  size_t cases = 0, rerun_alone = 0, traps = 0;
  int workers = 0;
  double batch_s = 0, rerun_s = 0, trap_s = 0;
  int trap_workers = 0;
  size_t trap_rerun_alone = 0;
  double trap_rerun_s = 0;
  // When each phase began, seconds after the session's first batch began (-1: it did not run); with the phases
  // overlapped (Schedule) a trap phase begins while calm phases run.
  double calm_at_s = -1, trap_at_s = -1;
};

using ProgressFn = std::function<void(const CaseResult&)>;

// After g_stop_requested (util.hpp) run_batch stops its workers at once (kills them; none outlives the batch),
// keeps every result measured, and reports every other case `skipped` with the message "interrupted".
std::vector<CaseResult> run_batch(const std::vector<const RunCase*>& cases, const BatchOptions& o, ProgressFn progress);

}  // namespace ptxcts::run
