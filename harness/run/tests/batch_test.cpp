// The isolated batch executor on the CPU (no GPU needed): a fake worker crashes, hangs and poisons itself on
// chosen cases; every case must come back exactly once with the right class, and only the faulting cases may
// be lost to a fault.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "batch.hpp"

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
