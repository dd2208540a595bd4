// The phases of a batch: planned, run in turn, their results confirmed alone where a neighbour could have caused them.
#include "phases.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <thread>

#include "rerun_alone.hpp"
#include "util.hpp"

namespace ptxcts::run {

namespace {

// A crash or a timeout of the host or parent watchdog: what a neighbour's trap can cause among calm workers (the
// driver recovers the whole engine).
bool crash_or_watchdog(const CaseResult& r) {
  return r.cls == cls::crash || (r.cls == cls::timeout && (r.message.rfind("host watchdog", 0) == 0 ||
                                                           r.message.rfind("parent watchdog", 0) == 0));
}

}  // namespace

Batch plan_phases(const std::vector<const RunCase*>& cases, const BatchOptions& o, const PhaseOptions& po) {
  // Cases the planner expects to trap (params.traps: a named alternative predicts it) run in a phase of their
  // own: a trap ends its worker, and it can take down kernels that other workers run on the GPU at that moment.
  Batch b;
  for (auto* c : cases) (expects_trap(*c) ? b.trapping : b.calm).push_back(c);
  b.o = o;
  b.t.load_path = o.load_path;
  b.t.target = o.target;
  b.t.cases = b.calm.size();
  b.t.workers = o.jobs;
  b.t.traps = b.trapping.size();
  // The model device (model_device.hpp) loses no context to a trap: it keeps the serial phase, one worker and its plan.
  b.traps_beside = o.device == "gpu" && !po.traps_alone && po.trap_jobs > 1 && b.trapping.size() > 1;
  b.t.trap_workers = b.trapping.empty() ? 0 : b.traps_beside ? std::min<int>(po.trap_jobs, int(b.trapping.size())) : 1;
  BatchOptions& to = b.trap_o;
  to = o;
  to.jobs = b.t.trap_workers;
  to.log_tag = "trap";
  // Every trap starts a worker: it plans only the trapping cases' families.
  std::set<std::string> fams;
  for (auto* c : b.trapping) fams.insert(c->form->family);
  std::string list;
  for (auto& f : fams) list += (list.empty() ? "" : ",") + f;
  for (size_t k = 0; k + 1 < to.plan_args.size(); ++k)
    if (to.plan_args[k] == "--plan-families") to.plan_args[k + 1] = list;
  if (b.traps_beside) {
    to.ahead = 1;                   // a trap ends its worker: each worker holds one case
    to.spares = b.t.trap_workers;   // and a warm one stands by for each worker running
    // Started ahead (run_in_turn): a worker for every case, as far as kMaxPrestartedTrapWorkers allows.
    b.prestart_traps = po.prestart_traps && !b.calm.empty();
    if (b.prestart_traps)
      to.spares = std::max(to.spares, std::min<int>(int(b.trapping.size()), kMaxPrestartedTrapWorkers) - to.jobs);
  } else {
    to.spares = 0;
  }
  return b;
}

void run_calm(Batch& b, ProgressFn progress) {
  b.calm_from = now_s();
  if (!b.calm.empty()) b.calm_rs = run_batch(b.calm, b.o, progress);
  b.calm_to = now_s();
  b.t.batch_s = b.calm_to - b.calm_from;
}

void run_traps(Batch& b, const PhaseOptions& po, ProgressFn progress) {
  if (b.trapping.empty()) return;
  if (g_stop_requested) {
    b.trap_rs = run_batch(b.trapping, b.o, progress);  // interrupted before the phase: every case comes back skipped
    return;
  }
  if (!po.quiet)
    std::fprintf(stderr, "\nrun: %s %s: %zu case(s) expected to trap, %d at once%s%s\n", b.t.load_path.c_str(),
                 b.t.target.c_str(), b.trapping.size(), b.trap_o.jobs,
                 b.traps_beside ? ", each in its own worker" : " (alone)",
                 b.trap_o.hold_fd >= 0 ? "; their workers start now, beside the calm phase, and launch after it" : "");
  b.trap_from = now_s();
  b.trap_rs = run_batch(b.trapping, b.trap_o, progress);
  b.trap_to = now_s();
  b.t.trap_s = b.trap_to - b.trap_from;
}

void confirm_calm(Batch& b, const PhaseOptions& po, bool beside_traps) {
  // Several calm workers: a crash or a watchdog timeout may be a neighbour's doing (an unexpected trap). Beside
  // a trap phase, more may be: calm_suspect_beside_traps. Each runs again alone, and that verdict stands.
  std::function<bool(const CaseResult&)> suspect;
  if (beside_traps) suspect = calm_suspect_beside_traps;
  else if (b.o.jobs > 1) suspect = crash_or_watchdog;
  else return;
  const double t0 = now_s();
  if (po.rerun_alone) {
    b.t.rerun_alone = rerun_alone(b.calm, b.calm_rs, suspect, b.o,
                                  beside_traps ? "case(s) seen beside a trap phase (crash/timeout/kernel error)"
                                               : "crash/timeout case(s)",
                                  po.quiet);
  } else {
    for (auto& r : b.calm_rs)
      if (suspect(r)) r.details["beside_other_workers"] = true;  // --no-rerun-alone: not confirmed alone
  }
  b.t.rerun_s = now_s() - t0;
}

void confirm_traps(Batch& b, const PhaseOptions& po, bool beside_calm) {
  if (b.trap_rs.empty() || !(b.traps_beside || beside_calm)) return;
  // Beside other workers only a trap of the case's own kernel (predicted or not) and a result no neighbour can
  // cause stand (stands_beside_traps); anything else (a fail, another error, a kernel stopped before it began or
  // after its wait, a timeout) runs again alone.
  const double t0 = now_s();
  auto not_trusted = [](const CaseResult& r) { return r.cls != cls::skipped && !stands_beside_traps(r); };
  if (po.rerun_alone)
    b.t.trap_rerun_alone =
        rerun_alone(b.trapping, b.trap_rs, not_trusted, b.trap_o, "trap-phase case(s) not trusted beside others", po.quiet);
  for (auto& r : b.trap_rs)
    if (r.cls != cls::skipped && !r.details.get("first_attempt_with_other_workers"))
      r.details["beside_other_workers"] = true;
  b.t.trap_rerun_s = now_s() - t0;
}

std::vector<CaseResult> phase_results(const Batch& b) {
  std::vector<CaseResult> rs = b.head;
  rs.insert(rs.end(), b.calm_rs.begin(), b.calm_rs.end());
  rs.insert(rs.end(), b.trap_rs.begin(), b.trap_rs.end());
  return rs;
}

void print_batch_timing(const BatchTiming& t) {
  std::fprintf(stderr,
               "\nrun: %s %s: %zu case(s) in %.1f s with %d worker(s); %zu re-run alone in %.1f s; "
               "%zu expected trap(s) in %.1f s, %d at once; %zu of them re-run alone in %.1f s",
               t.load_path.c_str(), t.target.c_str(), t.cases, t.batch_s, t.workers, t.rerun_alone, t.rerun_s,
               t.traps, t.trap_s, t.trap_workers, t.trap_rerun_alone, t.trap_rerun_s);
  if (t.calm_at_s >= 0 && t.trap_at_s >= 0)
    std::fprintf(stderr, " (calm phase from %.1f s, trap phase from %.1f s)", t.calm_at_s, t.trap_at_s);
  std::fprintf(stderr, "\n");
}

void run_in_turn(Batch& b, const PhaseOptions& po, ProgressFn progress, double t0) {
  b.t.calm_at_s = now_s() - t0;
  int hold[2] = {-1, -1};
  std::thread traps;
  if (b.prestart_traps && !g_stop_requested && pipe2(hold, O_CLOEXEC) == 0) {
    // The trap phase's workers start now, beside the calm phase: they make their contexts, plans and modules
    // and launch nothing until the hold ends (run_batch), so the calm phase is not beside traps.
    b.trap_o.hold_fd = hold[0];
    traps = std::thread([&b, &po, progress] { run_traps(b, po, progress); });
  }
  run_calm(b, progress);
  confirm_calm(b, po, false);
  b.t.trap_at_s = b.trapping.empty() ? -1 : now_s() - t0;
  if (traps.joinable()) {
    const double released = now_s();
    close(hold[1]);  // the hold ends: the warm workers take their cases
    traps.join();
    close(hold[0]);
    b.trap_o.hold_fd = -1;
    b.trap_from = released;  // the phase is its cases' time, not its workers' wait
    b.t.trap_s = b.trap_to - released;
  } else {
    run_traps(b, po, progress);
  }
  confirm_traps(b, po, false);
}

std::vector<CaseResult> run_phases(const std::vector<const RunCase*>& cases, const BatchOptions& o,
                                   const PhaseOptions& po, ProgressFn progress, BatchTiming& t) {
  Batch b = plan_phases(cases, o, po);
  run_in_turn(b, po, progress, now_s());
  t = b.t;
  if (!po.quiet) print_batch_timing(t);
  return phase_results(b);
}

}  // namespace ptxcts::run
