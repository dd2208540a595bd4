// The isolated batch executor on the CPU (no GPU needed): a fake worker crashes, hangs and poisons itself on
// chosen cases; every case must come back exactly once with the right class, and only the faulting cases may
// be lost to a fault.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <csignal>
#include <map>
#include <set>
#include <sstream>

#include "batch.hpp"
#include "phases.hpp"
#include "rerun_alone.hpp"
#include "exec.hpp"
#include "schedule.hpp"
#include "util.hpp"

#ifndef PTXCTS_FAKE_WORKER
#define PTXCTS_FAKE_WORKER "fake_worker"
#endif

using namespace ptxcts::run;

namespace {

struct Fixture {
  Form form;
  std::vector<RunCase> cases;
  explicit Fixture(const std::vector<std::string>& variants) {
    form.form = "fake/form";
    form.family = "fake";
    form.kernel = "k_fake";
    for (auto& v : variants) {
      RunCase c;
      c.id = form.form + "#" + v;
      c.form = &form;
      c.variant = v;
      cases.push_back(c);
    }
  }
  std::vector<CaseResult> run(int jobs, double timeout) {
    std::vector<const RunCase*> ptrs;
    for (auto& c : cases) ptrs.push_back(&c);
    BatchOptions o;
    o.self = PTXCTS_FAKE_WORKER;
    o.load_path = "cubin";
    o.target = "sm_90";
    o.ptx = "9.0";
    o.jobs = jobs;
    o.timeout_s = timeout;
    o.kill_margin_s = 1;
    o.log_dir = testing::TempDir() + "/ptxcts-batch-test";
    return run_batch(ptrs, o, nullptr);
  }
};

std::map<std::string, std::string> by_id(const std::vector<CaseResult>& rs) {
  std::map<std::string, std::string> m;
  for (auto& r : rs) m[r.id] = r.cls;
  return m;
}

std::vector<std::string> list_dir(const std::string& d) {
  std::vector<std::string> v;
  if (DIR* h = opendir(d.c_str())) {
    while (dirent* e = readdir(h))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") v.push_back(e->d_name);
    closedir(h);
  }
  return v;
}

}  // namespace

TEST(BatchExecutor, EveryCaseAccountedForAcrossCrashes) {
  std::vector<std::string> v;
  for (int i = 0; i < 40; ++i) v.push_back("ok_" + std::to_string(i));
  v.insert(v.begin() + 5, "crash_a");
  v.insert(v.begin() + 17, "poison_b");
  v.insert(v.begin() + 30, "crash_c");
  Fixture f(v);
  auto rs = f.run(2, 5);
  ASSERT_EQ(rs.size(), f.cases.size());
  auto m = by_id(rs);
  ASSERT_EQ(m.size(), f.cases.size()) << "a case came back twice or not at all";
  EXPECT_EQ(m["fake/form#crash_a"], "crash");
  EXPECT_EQ(m["fake/form#crash_c"], "crash");
  EXPECT_EQ(m["fake/form#poison_b"], "crash");
  int pass = 0;
  for (auto& [id, k] : m) pass += k == "pass";
  EXPECT_EQ(pass, 40) << "a crash cost a case other than its own";
}

TEST(BatchExecutor, HangIsKilledAndRecordedAsTimeout) {
  Fixture f({"ok_0", "hang_x", "ok_1", "ok_2"});
  // The parent allows the worker's watchdog (timeout) plus a margin before it kills a silent worker.
  auto rs = f.run(1, 0.5);
  auto m = by_id(rs);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m["fake/form#hang_x"], "timeout");
  EXPECT_EQ(m["fake/form#ok_0"], "pass");
  EXPECT_EQ(m["fake/form#ok_1"], "pass");
  EXPECT_EQ(m["fake/form#ok_2"], "pass");
}

TEST(BatchExecutor, MissingWorkerBinaryFailsLoudly) {
  Fixture f({"ok_0", "ok_1"});
  std::vector<const RunCase*> ptrs = {&f.cases[0], &f.cases[1]};
  BatchOptions o;
  o.self = "/nonexistent/ptxcts-run";
  o.load_path = "jit";
  o.jobs = 1;
  o.log_dir = testing::TempDir() + "/ptxcts-batch-test2";
  auto rs = run_batch(ptrs, o, nullptr);
  ASSERT_EQ(rs.size(), 2u);
  for (auto& r : rs) EXPECT_EQ(r.cls, "crash") << r.message;
}

// A signal that reached the tier after its document was written and its last check made (the session's teardown):
// the exit still says so, 128 + the signal, whatever the tier returned (exit_after_stop; ptxcts-run and
// ptxcts-explore call it in main); a code that already says interrupted is kept, and no signal changes nothing.
TEST(ExitAfterStop, ASignalDuringTeardownMakesTheExitSayInterrupted) {
  g_stop_requested = 0;
  EXPECT_EQ(exit_after_stop(0), 0);
  EXPECT_EQ(exit_after_stop(1), 1);
  EXPECT_EQ(exit_after_stop(77), 77);
  g_stop_requested = SIGTERM;  // as the signal handler would
  EXPECT_EQ(exit_after_stop(0), 143);
  EXPECT_EQ(exit_after_stop(1), 143);
  EXPECT_EQ(exit_after_stop(77), 143);
  EXPECT_EQ(exit_after_stop(130), 130);
  g_stop_requested = SIGINT;
  EXPECT_EQ(exit_after_stop(0), 130);
  g_stop_requested = 0;
}

// SIGINT/SIGTERM during a batch: the workers are killed at once (none outlives it), every case measured keeps its
// result and every other one comes back `skipped` with the message "interrupted"; none is lost or doubled.
TEST(BatchExecutor, InterruptStopsWorkersAndSkipsTheRest) {
  std::vector<std::string> v;
  for (int i = 0; i < 30; ++i) v.push_back("ok_" + std::to_string(i));
  Fixture f(v);
  std::string pids = testing::TempDir() + "/ptxcts-batch-pids";
  make_dirs(pids);
  for (auto& name : list_dir(pids)) ::unlink((pids + "/" + name).c_str());
  setenv("FAKE_WORKER_DELAY_MS", "100", 1);
  setenv("FAKE_WORKER_PIDS", pids.c_str(), 1);
  std::vector<const RunCase*> ptrs;
  for (auto& c : f.cases) ptrs.push_back(&c);
  BatchOptions o;
  o.self = PTXCTS_FAKE_WORKER;
  o.load_path = "cubin";
  o.jobs = 2;
  o.timeout_s = 5;
  o.log_dir = testing::TempDir() + "/ptxcts-batch-test3";
  size_t seen = 0;
  g_stop_requested = 0;
  auto rs = run_batch(ptrs, o, [&](const CaseResult&) {
    if (++seen == 4) g_stop_requested = SIGINT;  // as the signal handler would
  });
  g_stop_requested = 0;
  unsetenv("FAKE_WORKER_DELAY_MS");
  unsetenv("FAKE_WORKER_PIDS");
  ASSERT_EQ(rs.size(), f.cases.size());
  auto m = by_id(rs);
  ASSERT_EQ(m.size(), f.cases.size());
  size_t pass = 0, skipped = 0;
  for (auto& r : rs) {
    if (r.cls == "pass") ++pass;
    if (r.cls == "skipped") { ++skipped; EXPECT_EQ(r.message, "interrupted"); }
  }
  EXPECT_GE(pass, 4u);
  EXPECT_GT(skipped, 0u);
  EXPECT_EQ(pass + skipped, f.cases.size()) << "an interrupted case must be skipped, never crash";
  for (auto& name : list_dir(pids)) EXPECT_NE(kill(std::stoi(name), 0), 0) << "worker " << name << " outlived the batch";
}

// The phases of a batch (run_phases): calm cases, then the cases expected to trap (params.traps), each in a
// worker of its own. The fake worker logs when each case starts and ends, so the tests can see what ran beside
// what.
namespace {

struct Interval {
  std::string id;
  long long start = 0, end = 0;
};

struct PhaseRun {
  std::vector<CaseResult> results;
  BatchTiming timing;
  std::vector<Interval> intervals;  // in the order the cases started
  size_t workers = 0;               // worker processes started
  size_t preloads = 0;              // modules spares were asked to load ahead ("P <kernel>")
  std::vector<long long> preload_at;  // when each was asked
};

// Cases named "<variant>"; those whose variant starts with trap, victim or explored carry params.traps.
void mark_traps(Fixture& f) {
  for (auto& c : f.cases) {
    c.params = Json::object();
    if (c.variant.rfind("trap", 0) == 0 || c.variant.rfind("victim", 0) == 0 || c.variant.rfind("explored", 0) == 0)
      c.params["traps"] = true;
  }
}

// The fake worker's logs of one run: set up before, read after (what ran when, workers, modules loaded ahead).
struct EventLog {
  std::string dir, log, running, pids;
  EventLog(int delay_ms) {
    dir = testing::TempDir() + "/ptxcts-phases-" + std::to_string(getpid());
    log = dir + "/events.log", running = dir + "/running", pids = dir + "/pids";
    make_dirs(running);
    make_dirs(pids);
    for (auto& name : list_dir(pids)) ::unlink((pids + "/" + name).c_str());
    for (auto& name : list_dir(running)) ::unlink((running + "/" + name).c_str());
    ::unlink(log.c_str());
    setenv("FAKE_WORKER_PIDS", pids.c_str(), 1);
    setenv("FAKE_WORKER_LOG", log.c_str(), 1);
    setenv("FAKE_WORKER_RUNNING", running.c_str(), 1);
    setenv("FAKE_WORKER_DELAY_MS", std::to_string(delay_ms).c_str(), 1);
  }
  BatchOptions options(const std::string& load_path, int jobs) const {
    BatchOptions o;
    o.self = PTXCTS_FAKE_WORKER;
    o.load_path = load_path;
    o.target = "sm_90";
    o.ptx = "9.0";
    o.jobs = jobs;
    o.timeout_s = 5;
    o.log_dir = dir + "/logs";
    return o;
  }
  // Reads the log into `out` (intervals, workers, preloads); every worker must have ended.
  void read(PhaseRun& out);
};

PhaseRun run_phases_logged(Fixture& f, int jobs, const PhaseOptions& po, int delay_ms) {
  mark_traps(f);
  EventLog ev(delay_ms);
  std::vector<const RunCase*> ptrs;
  for (auto& c : f.cases) ptrs.push_back(&c);
  BatchOptions o = ev.options("jit", jobs);
  PhaseRun out;
  PhaseOptions quiet = po;
  quiet.quiet = true;
  out.results = run_phases(ptrs, o, quiet, nullptr, out.timing);
  ev.read(out);
  return out;
}

void EventLog::read(PhaseRun& out) {
  unsetenv("FAKE_WORKER_LOG");
  unsetenv("FAKE_WORKER_RUNNING");
  unsetenv("FAKE_WORKER_DELAY_MS");
  unsetenv("FAKE_WORKER_PIDS");
  // Workers, spares among them, all end with the batch.
  out.workers = list_dir(pids).size();
  for (auto& name : list_dir(pids)) EXPECT_NE(kill(std::stoi(name), 0), 0) << "worker " << name << " outlived the batch";
  std::map<std::string, std::vector<size_t>> open;  // id -> intervals started, not ended
  std::istringstream in(read_file(log));
  std::string what, id;
  long long ns = 0;
  while (in >> what >> ns >> id) {
    if (what == "P") {
      out.preloads += id == "k_fake";
      out.preload_at.push_back(ns);
    } else if (what == "X") {
      continue;  // a worker closed its pipes and began its exit
    } else if (what == "S") {
      open[id].push_back(out.intervals.size());
      out.intervals.push_back({id, ns, 0});
    } else if (!open[id].empty()) {
      out.intervals[open[id].front()].end = ns;
      open[id].erase(open[id].begin());
    }
  }
}

bool traps(const std::string& id) {
  return id.find("#trap") != std::string::npos || id.find("#victim") != std::string::npos ||
         id.find("#explored") != std::string::npos;
}
bool calm(const std::string& id) { return !traps(id); }

// The most intervals of `which` cases open at one moment.
size_t most_at_once(const std::vector<Interval>& v, bool (*which)(const std::string&)) {
  size_t most = 0;
  for (auto& a : v) {
    if (!which(a.id)) continue;
    size_t n = 0;
    for (auto& b : v) n += which(b.id) && b.start <= a.start && a.start < b.end;
    most = std::max(most, n);
  }
  return most;
}

const CaseResult& result_of(const std::vector<CaseResult>& rs, const std::string& variant) {
  for (auto& r : rs)
    if (r.id == "fake/form#" + variant) return r;
  throw std::runtime_error("no result for " + variant);
}

}  // namespace

TEST(TrapPhase, RunsAtMostTrapJobsAtOnceAndNeverBesideACalmCase) {
  std::vector<std::string> v;
  for (int i = 0; i < 12; ++i) {
    v.push_back("ok_" + std::to_string(i));
    if (i < 9) v.push_back("trap_" + std::to_string(i));
  }
  Fixture f(v);
  PhaseOptions po;
  po.trap_jobs = 3;
  auto run = run_phases_logged(f, 2, po, 150);
  ASSERT_EQ(run.results.size(), f.cases.size());
  ASSERT_EQ(by_id(run.results).size(), f.cases.size()) << "a case came back twice or not at all";
  for (auto& r : run.results) {
    if (!traps(r.id)) { EXPECT_EQ(r.cls, "pass") << r.id; continue; }
    EXPECT_EQ(r.cls, "spec_divergence") << r.id;
    EXPECT_TRUE(r.details.get("beside_other_workers")) << r.id << ": a trap seen beside others must say so";
    EXPECT_FALSE(r.details.get("first_attempt_with_other_workers")) << r.id << ": the predicted trap is not run again";
  }
  EXPECT_LE(most_at_once(run.intervals, traps), 3u) << "more trapping cases at once than --trap-jobs";
  EXPECT_GE(most_at_once(run.intervals, traps), 2u) << "the trap phase ran one case after another";
  long long last_calm_end = 0;
  for (auto& i : run.intervals)
    if (!traps(i.id)) last_calm_end = std::max(last_calm_end, i.end);
  for (auto& i : run.intervals)
    if (traps(i.id)) EXPECT_GT(i.start, last_calm_end) << i.id << " started while a calm case ran";
  EXPECT_EQ(run.timing.cases, 12u);
  EXPECT_EQ(run.timing.traps, 9u);
  EXPECT_EQ(run.timing.trap_workers, 3);
  EXPECT_EQ(run.timing.trap_rerun_alone, 0u);
  // A worker per trap, spares that stood by besides (the last ones may never be given a case).
  EXPECT_GE(run.workers, 2u + 9u) << "a worker per trapping case";
  EXPECT_GT(run.preloads, 0u) << "no spare was asked to load the module of the case it would take";
}

// A neighbour's trap must never make a case look like it trapped as predicted: another error, a kernel stopped
// before its frame began, or any class but the predicted trap runs again alone, and that verdict stands.
TEST(TrapPhase, ResultOtherThanThePredictedTrapRunsAgainAloneAndThatVerdictStands) {
  Fixture f({"trap_0", "victim_error", "trap_1", "victim_unbegun", "trap_2", "victim_crash", "trap_3"});
  PhaseOptions po;
  po.trap_jobs = 7;
  auto run = run_phases_logged(f, 2, po, 400);
  ASSERT_EQ(by_id(run.results).size(), f.cases.size());
  struct Want { const char* variant; const char* alone; const char* beside; };
  for (const Want& w : {Want{"victim_error", "pass", "spec_divergence"}, Want{"victim_unbegun", "fail", "spec_divergence"},
                        Want{"victim_crash", "pass", "crash"}}) {
    const CaseResult& r = result_of(run.results, w.variant);
    EXPECT_EQ(r.cls, w.alone) << w.variant << ": the verdict alone must stand";
    const Json* first = r.details.get("first_attempt_with_other_workers");
    ASSERT_TRUE(first) << w.variant << ": the first attempt is kept";
    EXPECT_EQ(first->get_str("class"), w.beside) << w.variant;
    EXPECT_FALSE(r.details.get("beside_other_workers")) << w.variant;
  }
  for (auto* t : {"trap_0", "trap_1", "trap_2", "trap_3"}) EXPECT_EQ(result_of(run.results, t).cls, "spec_divergence") << t;
  EXPECT_EQ(run.timing.trap_rerun_alone, 3u);
  // The re-runs ran alone: each victim's last interval overlaps no other case.
  for (auto* name : {"victim_error", "victim_unbegun", "victim_crash"}) {
    const Interval* last = nullptr;
    for (auto& i : run.intervals)
      if (i.id == std::string("fake/form#") + name) last = &i;
    ASSERT_TRUE(last && last->end) << name;
    for (auto& i : run.intervals)
      if (&i != last) EXPECT_TRUE(i.end <= last->start || i.start >= last->end) << name << " re-ran beside " << i.id;
  }
}

TEST(TrapPhase, TrapsAloneRunsThemOneAfterAnotherInTheOldOrder) {
  Fixture f({"ok_0", "trap_0", "ok_1", "trap_1", "victim_error", "trap_2", "ok_2"});
  PhaseOptions po;
  po.trap_jobs = 8;
  po.traps_alone = true;
  auto run = run_phases_logged(f, 2, po, 50);
  ASSERT_EQ(by_id(run.results).size(), f.cases.size());
  EXPECT_EQ(most_at_once(run.intervals, traps), 1u);
  std::vector<std::string> order;
  for (auto& i : run.intervals)
    if (traps(i.id)) order.push_back(i.id.substr(i.id.find('#') + 1));
  EXPECT_EQ(order, (std::vector<std::string>{"trap_0", "trap_1", "victim_error", "trap_2"}));
  // The calm results, then the trapping ones in their order; none marked or run again.
  std::vector<std::string> ids;
  for (auto& r : run.results) ids.push_back(r.id.substr(r.id.find('#') + 1));
  EXPECT_EQ(ids, (std::vector<std::string>{"ok_0", "ok_1", "ok_2", "trap_0", "trap_1", "victim_error", "trap_2"}));
  for (auto& r : run.results) {
    EXPECT_FALSE(r.details.get("beside_other_workers")) << r.id;
    EXPECT_FALSE(r.details.get("first_attempt_with_other_workers")) << r.id;
  }
  EXPECT_EQ(result_of(run.results, "victim_error").cls, "pass") << "alone, nothing can kill it";
  EXPECT_EQ(run.timing.trap_workers, 1);
  EXPECT_EQ(run.timing.trap_rerun_alone, 0u);
}

// `trusted` refuses a trap result whose kernel reported another error (a neighbour's kill) or stopped elsewhere
// than between its frame's start and the end of its wait.
static void expect_own_kernel_trap_required(const CaseResult& r, bool (*trusted)(const CaseResult&)) {
  CaseResult other = r;
  other.details["kernel_error"] = "cudaErrorLaunchFailure";
  EXPECT_FALSE(trusted(other)) << "another error: a collateral kill";
  for (auto* stop : {frame_stop::not_begun, frame_stop::past_wait, frame_stop::at_end}) {
    other = r;
    other.details["frame_stop"] = stop;
    EXPECT_FALSE(trusted(other)) << stop;
  }
}

TEST(TrapPhase, OnlyThePredictedTrapOfTheCasesOwnKernelIsTrusted) {
  CaseResult r;
  r.cls = "spec_divergence";
  r.details = Json::object();
  r.details["predicted_trap"] = "innermost start not a multiple of 16 bytes";
  r.details["kernel_error"] = kPredictedTrapError;
  r.details["frame_stop"] = frame_stop::before_wait;
  EXPECT_TRUE(trapped_as_predicted(r));
  expect_own_kernel_trap_required(r, trapped_as_predicted);
  CaseResult other = r;
  other.details = Json::object();
  other.details["predicted_trap"] = "x";
  EXPECT_FALSE(trapped_as_predicted(other)) << "no error or stop recorded (an older worker, the model device)";
  for (auto* k : {"pass", "fail", "crash", "timeout"}) {
    other = r;
    other.cls = k;
    EXPECT_FALSE(trapped_as_predicted(other)) << k;
  }
}

TEST(TrapPhase, ATrapOfTheCasesOwnKernelThatNoAlternativePredictsStandsBesideOthers) {
  CaseResult r;
  r.cls = "crash";
  r.message = "kernel trapped: cudaErrorIllegalInstruction";
  r.details = Json::object();
  r.details["kernel_error"] = kPredictedTrapError;
  r.details["frame_stop"] = frame_stop::before_wait;
  EXPECT_TRUE(trapped_by_own_kernel(r));
  EXPECT_FALSE(trapped_as_predicted(r)) << "no alternative predicted it";
  EXPECT_TRUE(stands_beside_traps(r));
  expect_own_kernel_trap_required(r, stands_beside_traps);
  for (auto* k : {"fail", "timeout"}) {
    CaseResult other = r;
    other.cls = k;
    EXPECT_FALSE(stands_beside_traps(other)) << k << " with the trap's error and stop";
  }
  // In a trap phase: kept as seen, not run again alone.
  Fixture f({"trap_crash_0", "trap_0", "trap_crash_1", "trap_1", "victim_crash"});
  PhaseOptions po;
  po.trap_jobs = 5;
  auto run = run_phases_logged(f, 2, po, 300);
  ASSERT_EQ(by_id(run.results).size(), f.cases.size());
  for (auto* t : {"trap_crash_0", "trap_crash_1"}) {
    const CaseResult& c = result_of(run.results, t);
    EXPECT_EQ(c.cls, "crash") << t;
    EXPECT_FALSE(c.details.get("first_attempt_with_other_workers")) << t << ": its own trap is not run again";
    EXPECT_TRUE(c.details.get("beside_other_workers")) << t;
  }
  EXPECT_EQ(result_of(run.results, "victim_crash").cls, "pass") << "a neighbour's kill still runs again alone";
  EXPECT_EQ(run.timing.trap_rerun_alone, 1u);
}

// A worker that reported its case and closed its pipes is not waited for while its exit (a dead context's
// teardown) takes its time: the next cases are fed meanwhile; the batch still returns with every worker gone.
TEST(TrapPhase, AWorkersSlowExitDoesNotHoldUpTheNextCase) {
  std::vector<std::string> v;
  for (int i = 0; i < 6; ++i) v.push_back("trap_" + std::to_string(i));
  Fixture f(v);
  PhaseOptions po;
  po.trap_jobs = 2;
  setenv("FAKE_WORKER_EXIT_MS", "700", 1);
  const double t0 = now_s();
  auto run = run_phases_logged(f, 2, po, 20);
  const double took = now_s() - t0;
  unsetenv("FAKE_WORKER_EXIT_MS");
  ASSERT_EQ(by_id(run.results).size(), f.cases.size());
  long long first = LLONG_MAX, last = 0;
  for (auto& i : run.intervals) {
    first = std::min(first, i.start);
    last = std::max(last, i.start);
  }
  // Waiting on each exit would start the 3rd pair of cases 2 x 700 ms after the first.
  EXPECT_LT(double(last - first) / 1e9, 0.6) << "the cases waited on earlier workers' exits";
  EXPECT_GE(took, 0.7) << "the batch returned before its workers' exits ended";
}

// The trap phase's workers start while the calm phase runs (one per case expected to trap), each loading the
// module of the case it will take, and launch nothing until the calm phase is over; without prestart they start
// with their phase.
TEST(TrapPhase, ItsWorkersStartDuringTheCalmPhaseAndLaunchAfterIt) {
  for (bool prestart : {true, false}) {
    std::vector<std::string> v;
    for (int i = 0; i < 6; ++i) v.push_back("ok_" + std::to_string(i));
    for (int i = 0; i < 5; ++i) v.push_back("trap_" + std::to_string(i));
    Fixture f(v);
    PhaseOptions po;
    po.trap_jobs = 2;
    po.prestart_traps = prestart;
    auto run = run_phases_logged(f, 2, po, 250);
    ASSERT_EQ(by_id(run.results).size(), f.cases.size());
    long long calm_end = 0;
    for (auto& i : run.intervals)
      if (calm(i.id)) calm_end = std::max(calm_end, i.end);
    for (auto& i : run.intervals)
      if (traps(i.id)) EXPECT_GT(i.start, calm_end) << i.id << " launched while a calm case ran";
    size_t early = 0;
    for (long long at : run.preload_at) early += at < calm_end;
    if (prestart) {
      EXPECT_GE(early, 5u) << "a worker per trapping case loads its module during the calm phase";
      EXPECT_EQ(run.timing.trap_workers, 2);
      EXPECT_EQ(run.preload_at.size(), 5u) << "one worker per trapping case, and none besides";
    } else {
      EXPECT_EQ(early, 0u) << "without prestart the trap phase's workers start with it";
      EXPECT_GT(run.preloads, 0u) << "no spare stood by, loading the module of the case it would take";
    }
    for (auto& r : run.results) EXPECT_EQ(r.cls, traps(r.id) ? "spec_divergence" : "pass") << r.id;
  }
}

// The schedule of a session's batches (Schedule): the trap phases beside the calm phases, what a neighbour
// could have caused re-run alone afterwards; or, with overlap off, each batch's phases one after another.
namespace {

struct ScheduledRun {
  std::vector<std::vector<CaseResult>> results;  // per batch, in the order added
  std::vector<BatchTiming> timing;
  PhaseRun log;                                   // intervals of every batch's cases
};

// One batch per fixture: the first on the cubin path, the next on jit, ...; `jobs` calm workers each.
ScheduledRun run_schedule_logged(const std::vector<Fixture*>& fs, int jobs, PhaseOptions po, bool overlap,
                                 int delay_ms, ProgressFn progress = nullptr) {
  EventLog ev(delay_ms);
  po.quiet = true;
  ScheduledRun out;
  {
    Schedule sched(po, overlap, progress);
    const char* paths[] = {"cubin", "jit"};
    for (size_t k = 0; k < fs.size(); ++k) {
      mark_traps(*fs[k]);
      std::vector<const RunCase*> ptrs;
      for (auto& c : fs[k]->cases) ptrs.push_back(&c);
      sched.add(plan_phases(ptrs, ev.options(paths[k % 2], jobs), po));
    }
    sched.finish();
    for (auto& b : sched.batches()) {
      out.results.push_back(phase_results(b));
      out.timing.push_back(b.t);
    }
  }
  ev.read(out.log);
  return out;
}

bool meet(const Interval& a, const Interval& b) { return a.start < b.end && b.start < a.end; }

// The last run of `id` (its re-run alone, when it ran twice).
const Interval* last_run(const std::vector<Interval>& v, const std::string& id) {
  const Interval* last = nullptr;
  for (auto& i : v)
    if (i.id == id) last = &i;
  return last;
}

}  // namespace

// Two batches' case names: `calm` calm cases, then `traps` cases expected to trap, each name tagged by its batch.
std::vector<std::string> batch_ids(char batch, int calm, int traps) {
  std::vector<std::string> ids;
  for (int i = 0; i < calm; ++i) ids.push_back(std::string("ok_") + batch + std::to_string(i));
  for (int i = 0; i < traps; ++i) ids.push_back(std::string("trap_") + batch + std::to_string(i));
  return ids;
}

TEST(Schedule, OverlapRunsTheTrapPhasesBesideTheCalmPhases) {
  Fixture fa(batch_ids('a', 8, 4)), fb(batch_ids('b', 8, 4));
  PhaseOptions po;
  po.trap_jobs = 2;
  auto run = run_schedule_logged({&fa, &fb}, 2, po, true, 120);
  ASSERT_EQ(run.results.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    ASSERT_EQ(by_id(run.results[k]).size(), (k ? fb : fa).cases.size()) << "a case came back twice or not at all";
    for (auto& r : run.results[k]) {
      EXPECT_EQ(r.cls, traps(r.id) ? "spec_divergence" : "pass") << r.id;
      EXPECT_FALSE(r.details.get("first_attempt_with_other_workers")) << r.id << ": nothing to run again";
    }
    EXPECT_EQ(run.timing[k].rerun_alone + run.timing[k].trap_rerun_alone, 0u);
  }
  bool overlapped = false;
  for (auto& c : run.log.intervals)
    for (auto& t : run.log.intervals) overlapped |= calm(c.id) && traps(t.id) && meet(c, t);
  EXPECT_TRUE(overlapped) << "no trapping case ran while a calm one did";
  EXPECT_LT(run.timing[0].trap_at_s, run.timing[0].calm_at_s + run.timing[0].batch_s)
      << "the first trap phase began after the calm phases";
  // Each kind of phase keeps its order: the second batch's calm cases start after the first's end, and so do
  // its trapping ones.
  auto last_end = [&](const char* part) {
    long long e = 0;
    for (auto& i : run.log.intervals) if (i.id.find(part) != std::string::npos) e = std::max(e, i.end);
    return e;
  };
  for (auto& i : run.log.intervals) {
    if (i.id.find("ok_b") != std::string::npos) EXPECT_GT(i.start, last_end("ok_a")) << i.id;
    if (i.id.find("trap_b") != std::string::npos) EXPECT_GT(i.start, last_end("trap_a")) << i.id;
  }
}

// Beside a trap phase a calm crash runs again alone, a calm fail stands (its kernel ended cleanly); in the trap
// phase a pass and a divergence by bytes stand (no neighbour can cause them), a timeout and a fail run again
// alone. The re-runs run with nothing beside them.
TEST(Schedule, WhatANeighbourCouldCauseRunsAgainAloneAfterTheOverlap) {
  Fixture f({"calm_victim_crash", "calm_fail", "ok_0", "ok_1", "trap_0", "explored_pass", "trap_1",
             "explored_div", "trap_2", "explored_timeout", "trap_3", "explored_fail", "trap_4", "trap_5"});
  PhaseOptions po;
  po.trap_jobs = 3;
  auto run = run_schedule_logged({&f}, 1, po, true, 300);
  ASSERT_EQ(run.results.size(), 1u);
  const auto& rs = run.results[0];
  ASSERT_EQ(by_id(rs).size(), f.cases.size());
  struct Want { const char* variant; const char* cls; const char* first; };  // first: "" for not re-run
  for (const Want& w : {Want{"calm_victim_crash", "pass", "crash"}, Want{"calm_fail", "fail", ""},
                        Want{"ok_0", "pass", ""}, Want{"explored_pass", "pass", ""},
                        Want{"explored_div", "spec_divergence", ""}, Want{"explored_timeout", "timeout", "timeout"},
                        Want{"explored_fail", "fail", "fail"}, Want{"trap_0", "spec_divergence", ""}}) {
    const CaseResult& r = result_of(rs, w.variant);
    EXPECT_EQ(r.cls, w.cls) << w.variant;
    const Json* first = r.details.get("first_attempt_with_other_workers");
    if (*w.first) {
      ASSERT_TRUE(first) << w.variant << ": must run again alone";
      EXPECT_EQ(first->get_str("class"), w.first) << w.variant;
    } else {
      EXPECT_FALSE(first) << w.variant << ": must not run again";
    }
  }
  for (auto* v : {"explored_pass", "explored_div", "trap_0"})
    EXPECT_TRUE(result_of(rs, v).details.get("beside_other_workers")) << v << ": seen beside others, and says so";
  EXPECT_EQ(run.timing[0].rerun_alone, 1u);
  EXPECT_EQ(run.timing[0].trap_rerun_alone, 2u);
  for (auto* v : {"calm_victim_crash", "explored_timeout", "explored_fail"}) {
    const Interval* last = last_run(run.log.intervals, std::string("fake/form#") + v);
    ASSERT_TRUE(last && last->end) << v;
    for (auto& i : run.log.intervals)
      if (&i != last) EXPECT_FALSE(meet(i, *last)) << v << " re-ran beside " << i.id;
  }
}

TEST(Schedule, WithoutOverlapEachBatchRunsItsPhasesInTurn) {
  Fixture fa({"calm_victim_crash", "ok_a0", "ok_a1", "trap_a0", "trap_a1", "trap_a2"});
  Fixture fb({"ok_b0", "ok_b1", "trap_b0", "trap_b1"});
  PhaseOptions po;
  po.trap_jobs = 2;
  auto run = run_schedule_logged({&fa, &fb}, 1, po, false, 60);
  // calm a, traps a, calm b, traps b: each group starts after the one before it ended.
  auto group = [](const std::string& id) {
    const bool t = traps(id), second = id.find("_b") != std::string::npos;
    return (second ? 2 : 0) + (t ? 1 : 0);
  };
  for (auto& x : run.log.intervals)
    for (auto& y : run.log.intervals)
      if (group(x.id) < group(y.id)) EXPECT_LT(x.end, y.start) << x.id << " did not end before " << y.id << " began";
  // Nothing ran beside the calm phase (one worker): its case that a neighbour would hurt passes at once.
  const CaseResult& v = result_of(run.results[0], "calm_victim_crash");
  EXPECT_EQ(v.cls, "pass");
  EXPECT_FALSE(v.details.get("first_attempt_with_other_workers"));
  EXPECT_EQ(run.timing[0].rerun_alone, 0u);
  EXPECT_LT(run.timing[0].calm_at_s, run.timing[0].trap_at_s);
  EXPECT_LT(run.timing[0].trap_at_s, run.timing[1].calm_at_s);
}

// SIGINT while calm and trap phases run at once: both stop, every case measured keeps its result and every other
// one comes back skipped "interrupted"; none lost, none doubled, no worker left.
TEST(Schedule, InterruptMidOverlapAccountsForEveryCase) {
  Fixture fa(batch_ids('a', 12, 6)), fb(batch_ids('b', 12, 6));
  PhaseOptions po;
  po.trap_jobs = 2;
  size_t seen = 0;
  g_stop_requested = 0;
  auto run = run_schedule_logged({&fa, &fb}, 2, po, true, 100, [&](const CaseResult&) {
    if (++seen == 5) g_stop_requested = SIGINT;  // as the signal handler would
  });
  g_stop_requested = 0;
  ASSERT_EQ(run.results.size(), 2u);
  size_t skipped = 0, judged = 0;
  for (size_t k = 0; k < 2; ++k) {
    ASSERT_EQ(run.results[k].size(), (k ? fb : fa).cases.size());
    ASSERT_EQ(by_id(run.results[k]).size(), run.results[k].size()) << "a case came back twice";
    for (auto& r : run.results[k]) {
      if (r.cls == "skipped") { ++skipped; EXPECT_EQ(r.message, "interrupted") << r.id; continue; }
      ++judged;
      EXPECT_EQ(r.cls, traps(r.id) ? "spec_divergence" : "pass") << r.id << ": an interrupted case must be skipped";
    }
  }
  EXPECT_GE(judged, 5u);
  EXPECT_GT(skipped, 0u);
}

// What stands beside other workers without a re-run: a clean kernel end with the model's bytes or a named
// alternative's; what a calm phase beside a trap phase runs again: a crash, any timeout, any kernel error.
TEST(Schedule, OnlyACleanKernelEndIsBeyondNeighbours) {
  CaseResult r;
  r.details = Json::object();
  for (auto* k : {"pass", "spec_divergence"}) {
    r.cls = k;
    EXPECT_TRUE(beyond_neighbours(r)) << k;
    EXPECT_FALSE(calm_suspect_beside_traps(r)) << k;
  }
  for (auto* k : {"fail", "crash", "timeout", "not_supported", "compile_error"}) {
    r.cls = k;
    EXPECT_FALSE(beyond_neighbours(r)) << k;
  }
  r.cls = "fail";
  EXPECT_FALSE(calm_suspect_beside_traps(r)) << "bytes are judged only after a clean kernel end";
  for (auto* k : {"crash", "timeout"}) {
    r.cls = k;
    EXPECT_TRUE(calm_suspect_beside_traps(r)) << k;
  }
  r.cls = "spec_divergence";
  r.details["kernel_error"] = kPredictedTrapError;
  EXPECT_FALSE(beyond_neighbours(r)) << "a trap, predicted or not, is not a clean end";
  EXPECT_TRUE(calm_suspect_beside_traps(r)) << "a kill could imitate it";
}

TEST(AtomicWrite, ReplacesWholeOrNotAtAll) {
  std::string d = testing::TempDir() + "/ptxcts-atomic";
  make_dirs(d);
  std::string p = d + "/results.json";
  ASSERT_TRUE(write_file(p, "old\n"));
  ASSERT_TRUE(write_file(p, std::string(1 << 20, 'x')));
  EXPECT_EQ(read_file(p).size(), size_t(1) << 20);
  for (auto& name : list_dir(d)) EXPECT_EQ(name, "results.json") << "a temporary file was left behind";
  // A write that cannot complete leaves the old file as it was.
  EXPECT_FALSE(write_file(d + "/no/such/folder/results.json", "new"));
  EXPECT_EQ(read_file(p).size(), size_t(1) << 20);
}

TEST(FolderLockTest, ANewRunRefusesAFolderThatHoldsOneOnceLocked) {
  std::string d = testing::TempDir() + "/ptxcts-lock-new-run-" + std::to_string(getpid());
  FolderLock a;
  ASSERT_EQ(a.acquire(d, true), "");
  EXPECT_TRUE(file_exists(d + "/.ptxcts.lock")) << "the file the Python tiers lock too";
  a.release();
  ASSERT_TRUE(write_file(d + "/results.json", "{}"));   // another tier's run, written since this one looked
  FolderLock b;
  std::string e = b.acquire(d, true);
  EXPECT_NE(e.find("already holds a run (results.json)"), std::string::npos) << e;
  EXPECT_FALSE(file_exists(d + "/.ptxcts.lock")) << "refused: the lock is released";
  FolderLock c;
  EXPECT_EQ(c.acquire(d), "") << "--resume: a folder with a run is its to take";
  c.release();
  ::unlink((d + "/results.json").c_str());
  ::rmdir(d.c_str());
}

TEST(FolderLockTest, SecondHolderIsRefusedNamingThePid) {
  std::string d = testing::TempDir() + "/ptxcts-lock";
  FolderLock a;
  ASSERT_EQ(a.acquire(d), "");
  // flock locks belong to the open file: a second process is refused. Fork one to ask.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    FolderLock b;
    std::string e = b.acquire(d);
    ssize_t n = write(fds[1], e.data(), e.size());
    _exit(n < 0 ? 2 : 0);
  }
  close(fds[1]);
  char buf[512] = {0};
  ssize_t n = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  int st;
  waitpid(pid, &st, 0);
  std::string e(buf, n > 0 ? size_t(n) : 0);
  EXPECT_NE(e.find("another run (pid " + std::to_string(getpid()) + ")"), std::string::npos) << e;
  EXPECT_NE(e.find(d), std::string::npos) << e;
  a.release();
  FolderLock c;
  EXPECT_EQ(c.acquire(d), "") << "released: the folder is free again";
}
