// The isolated batch executor on the CPU (no GPU needed): a fake worker crashes, hangs and poisons itself on
// chosen cases; every case must come back exactly once with the right class, and only the faulting cases may
// be lost to a fault.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <map>
#include <set>

#include "batch.hpp"
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
