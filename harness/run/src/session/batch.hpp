// The isolated batch executor: cases run in worker processes (fork + exec of ptxcts-run --worker), results stream
// back per case; a worker that traps, hangs or dies costs exactly the case it was running (recorded as crash or
// timeout), and a fresh worker takes the remaining cases. Every case is accounted for.
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
  int jobs = 4;                   // worker processes at once
  double timeout_s = 10;          // per case, the worker's watchdog; the parent allows a margin on top
  double kill_margin_s = 20;      // the parent kills a worker silent for timeout_s + this after a case started
  double deadline = 0;            // now_s() after which nothing new starts (0: none); the rest is `skipped`
  std::string log_dir;            // worker stderr logs and repro bundles go here
  std::vector<std::string> plan_args;  // options that shape the plan, forwarded to workers
  std::string device = "gpu";     // gpu, or model[:FAULT]: the reference model stands in for the GPU (model_device.hpp)
  bool repro = true;              // workers write repro bundles for fails and divergences
};

// Where one batch's time went (results.json's `timing`, harness/results/schema.py TIMING_FIELDS).
struct BatchTiming {
  std::string load_path, target;
  size_t cases = 0, rerun_alone = 0, traps = 0;
  int workers = 0;
  double batch_s = 0, rerun_s = 0, trap_s = 0;
};

using ProgressFn = std::function<void(const CaseResult&)>;

// After g_stop_requested (util.hpp) run_batch stops its workers at once (kills them; none outlives the batch),
// keeps every result measured, and reports every other case `skipped` with the message "interrupted".
std::vector<CaseResult> run_batch(const std::vector<const RunCase*>& cases, const BatchOptions& o, ProgressFn progress);

}  // namespace ptxcts::run
