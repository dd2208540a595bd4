// The isolated batch executor: cases run in worker processes (fork + exec of ptxcts-run --worker), results stream
// back per case; a worker that traps, hangs or dies costs exactly the case it was running (recorded as crash or
// timeout), and a fresh worker takes the remaining cases. Every case is accounted for. run_phases keeps the cases
// expected to trap apart from the others, and runs again alone what cannot be trusted beside other workers.
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

// How the cases of one batch (one load path and target) are kept apart: the phases session.cpp runs.
struct PhaseOptions {
  int trap_jobs = 8;          // --trap-jobs: cases expected to trap, at once (each in a worker of its own)
  bool traps_alone = false;   // --traps-alone: the trap phase one case after another, one worker
  bool rerun_alone = true;    // a result beside other workers that is not trusted runs again alone (--no-rerun-alone)
  bool prestart_traps = false; // the trap phase's workers, one per case expected to trap (at most
                               // kMaxPrestartedTrapWorkers), start while the calm phase runs: context, plan and
                               // module made before the phase, which then costs only the traps (--trap-prestart).
                               // Off: on the H100 the calm phase then waits on the driver as long as the trap
                               // phase saves, and longer (RUNNING.md, "The trap phase")
  bool quiet = false;         // no stderr lines
};

// The most trap-phase workers started ahead of their phase (each holds a context on the GPU while it waits).
inline constexpr int kMaxPrestartedTrapWorkers = 48;

// The error a kernel of a trap-phase case must report for its trap beside other trapping workers to count as its
// own: the one every trap the model's alternatives predict raised on the H100 (25 per load path in
// results/2026-11-25-sm_90-h100-run). Any other error runs again alone: a collateral kill, or a device that traps
// otherwise.
inline constexpr const char* kPredictedTrapError = "cudaErrorIllegalInstruction";

// One batch (one load path and target) split into its phases, so that a session can run the phases of its
// batches one after another (run_phases) or the trap phases beside the calm phases (Schedule, schedule.hpp).
struct Batch {
  std::vector<const RunCase*> calm, trapping;  // params without / with "traps"
  BatchOptions o;             // the calm phase's
  BatchOptions trap_o;        // the trap phase's: po.trap_jobs at once, one case per worker, warm spares, and a
                              // plan of the trapping cases' families only
  bool traps_beside = false;  // several trapping cases at once (trap_o.jobs > 1)
  std::vector<CaseResult> head;             // results decided before any launch (compile errors, interrupted)
  std::vector<CaseResult> calm_rs, trap_rs; // same order as calm, trapping
  BatchTiming t;
  double calm_from = 0, calm_to = 0, trap_from = 0, trap_to = 0;  // now_s() around each phase; equal: did not run
  bool prestart_traps = false;  // its workers start while the calm phase runs (PhaseOptions; run_in_turn)
};

// Splits `cases` into their phases and sets the trap phase's options: po.trap_jobs at once, each in its own
// worker (o.ahead 1, warm spares); with po.traps_alone, or on the model device (o.device other than gpu), one
// worker, one case after another.
Batch plan_phases(const std::vector<const RunCase*>& cases, const BatchOptions& o, const PhaseOptions& po);
// The calm phase: o.jobs workers.
void run_calm(Batch& b, ProgressFn progress);
// The trap phase (every case comes back skipped after g_stop_requested).
void run_traps(Batch& b, const PhaseOptions& po, ProgressFn progress);
// Runs again alone the calm results a neighbour could have caused. Beside a trap phase (`beside_traps`): every
// crash, timeout and result with a kernel error (calm_suspect_beside_traps); else, with several workers,
// every crash and host or parent watchdog timeout. With po.rerun_alone off they are only marked
// details.beside_other_workers.
void confirm_calm(Batch& b, const PhaseOptions& po, bool beside_traps);
// Runs again alone the trap-phase results seen beside other workers (several trapping workers, or calm phases:
// `beside_calm`) that do not stand beside them (stands_beside_traps); the others are marked
// details.beside_other_workers.
void confirm_traps(Batch& b, const PhaseOptions& po, bool beside_calm);
// A batch's phases in turn: the calm phase and its re-runs alone, then the trap phase and its re-runs. With
// b.prestart_traps the trap phase's workers start (on a thread of their own) while the calm phase runs, and its
// cases are fed once the calm phase and its re-runs are done. calm_at_s and trap_at_s count from `t0`.
void run_in_turn(Batch& b, const PhaseOptions& po, ProgressFn progress, double t0);
// The batch's results: head, calm, trapping.
std::vector<CaseResult> phase_results(const Batch& b);
// The line that closes a batch on stderr: where its time went.
void print_batch_timing(const BatchTiming& t);

// Runs `cases` in phases, never one beside a case of another phase: (1) the calm cases, o.jobs workers, each
// crash or watchdog timeout of several workers again alone (confirm_calm); (2) the cases expected to trap
// (run_traps), each result that is not trusted again alone (confirm_traps). Returns the calm results, then the
// trapping ones; fills `t`.
std::vector<CaseResult> run_phases(const std::vector<const RunCase*>& cases, const BatchOptions& o,
                                   const PhaseOptions& po, ProgressFn progress, BatchTiming& t);

// A result no neighbour's trap can have caused: a kernel that ended without an error (a kill reports one: the
// worker judges no bytes then, exec.cpp) whose bytes equal the model's (pass) or a named alternative's
// (spec_divergence with no details.kernel_error).
bool beyond_neighbours(const CaseResult& r);
// A calm result seen beside a trap phase that runs again alone: a crash, a timeout (host, parent or device
// watchdog: a neighbour's recovery may stall a kernel) or any result with a kernel error (a trap an alternative
// predicts, which a kill could imitate). Not a fail: its kernel ended without an error, as a pass's did, and the
// worker judges no bytes of a kernel that reports one (a kill does).
bool calm_suspect_beside_traps(const CaseResult& r);

// A trap of the case's own kernel: the kernel's own error kPredictedTrapError (details.kernel_error), and the
// issuing CTA stopped after the frame's start, before its wait ended (details.frame_stop is
// frame_stop::before_wait, exec.hpp): not killed before it began, nor after it got past its instruction. A
// neighbour's trap that kills a kernel makes it report the kill, not an illegal instruction of its own.
bool trapped_by_own_kernel(const CaseResult& r);
// The predicted trap (spec_divergence naming details.predicted_trap) of the case's own kernel.
bool trapped_as_predicted(const CaseResult& r);
// A trap-phase result beside other trapping workers that stands as it is: the predicted trap, a trap of its own
// kernel that no alternative predicts (a crash: a device finding, which a neighbour could no more imitate than the
// predicted one), or a result no neighbour can cause (beyond_neighbours).
bool stands_beside_traps(const CaseResult& r);

// Runs again alone (one worker, nothing beside it) each case of `cs` whose result in `rs` (same order) `suspect`
// flags; that verdict replaces it, the first kept in details.first_attempt_with_other_workers. A case the re-run
// did not reach (interrupt, deadline) keeps its first verdict, marked details.beside_other_workers. Returns how
// many ran again.
size_t rerun_alone(const std::vector<const RunCase*>& cs, std::vector<CaseResult>& rs,
                   const std::function<bool(const CaseResult&)>& suspect, const BatchOptions& o, const char* what,
                   bool quiet);

}  // namespace ptxcts::run
