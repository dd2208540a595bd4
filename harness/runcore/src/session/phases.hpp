// The phases of a batch (one load path and target): the calm cases, then the cases expected to trap, each in
// workers of their own, never one beside a case of another phase; what is not trusted beside others runs again
// alone (rerun_alone.hpp). session.cpp runs them in turn (run_in_turn) or, with --overlap, the trap phases beside
// the calm phases (Schedule, schedule.hpp).
#pragma once
#include <vector>

#include "batch.hpp"

namespace ptxcts::run {

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

}  // namespace ptxcts::run
