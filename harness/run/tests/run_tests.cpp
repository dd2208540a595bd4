// GoogleTest front of the run tier: one test per run case (testing::RegisterTest), suites per family and load
// path. Before the first test, a test environment runs every case that will run on this shard (after gtest's
// own filter and sharding) through the isolated batch executor; each test then reports its case's class:
// pass -> success, spec_divergence -> success with the finding printed and recorded as a property,
// not_supported / skipped -> GTEST_SKIP() with the reason, a finding class (fail, crash, timeout, compile_error)
// covered by an unexpired reviewed finding (results/expectations/run.toml) or waiver (results/waivers.toml) ->
// success as a known finding (printed with its id and replay, property `known_finding`, counted at the end),
// anything else -> failure. The matching is harness/framework/documents/known.py's (the gate's waiver rules, one implementation).
// Without a CUDA device every case is skipped; the binary exits 77 when nothing passed or failed, which CTest
// turns into "skipped" (SKIP_RETURN_CODE). Each run writes its results shard (results.json + junit.xml).
// --from-results FILE reports the cases of a results.json written elsewhere (no device needed).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "session.hpp"
#include "manifest.hpp"
#include "options.hpp"
#include "output.hpp"
#include "repro.hpp"
#include "util.hpp"

using namespace ptxcts::run;

namespace {

Session g_session;
std::map<std::string, CaseResult> g_results;  // key: load path + " " + case ID
std::map<std::string, Json> g_known;          // same key: `results known`'s answer for a finding-class result
std::map<std::string, size_t> g_known_count;  // finding/waiver name -> cases it covered
std::string g_fatal;                          // harness error: every test fails with it
std::string g_replay_toolchain;
Json g_device, g_toolchain;                   // what `results known` matches device/driver/toolkit ranges against

std::string suite_name(const std::string& family, const std::string& lp) {
  std::string s;
  for (char c : family) s += (isalnum((unsigned char)c) ? c : '_');
  return s + "_" + lp;
}

bool finding_class(const std::string& k) {
  return k == cls::fail || k == cls::crash || k == cls::timeout || k == cls::compile_error;
}

// The results layer's known findings (harness/framework/documents/known.py), as a process: `python3 -m results known ARGS`,
// generator/ and harness/ on PYTHONPATH, the request (if any) on stdin from the file `in`.
std::vector<std::string> known_cmd(const std::string& args, const std::string& in = "") {
  std::string sh = "PYTHONPATH=\"$0/generator:$0/harness${PYTHONPATH:+:$PYTHONPATH}\" exec python3 -m results known " + args;
  if (!in.empty()) sh += " < \"$1\"";
  std::vector<std::string> argv = {"sh", "-c", sh, ptxcts_root()};
  if (!in.empty()) argv.push_back(in);
  return argv;
}

// Asks `results known` about every finding-class result; fills g_known. Returns "" or an error.
std::string match_known() {
  Json req = Json::object(), cases = Json::array();
  std::vector<std::string> keys;
  for (auto& [k, r] : g_results) {
    if (!finding_class(r.cls)) continue;
    Json c = Json::object();
    c["id"] = r.id; c["target"] = r.target; c["ptx"] = r.ptx; c["load_path"] = r.load_path; c["class"] = r.cls;
    cases.push(c);
    keys.push_back(k);
  }
  if (keys.empty()) return "";
  req["device"] = g_device;
  req["toolchain"] = g_toolchain;
  req["cases"] = cases;
  std::string in = build_root() + "/harness/run/.known-request." + std::to_string(getpid()) + ".json";
  if (!write_file(in, req.dump())) return "cannot write " + in;
  std::string out, err;
  int rc = run_capture(known_cmd("--match", in), &out, &err);
  ::unlink(in.c_str());
  if (rc != 0) return "python3 -m results known --match exited " + std::to_string(rc) + ": " + err;
  try {
    Json a = Json::parse(out);
    auto& arr = a.get("cases")->arr();
    if (arr.size() != keys.size()) return "python3 -m results known answered " + std::to_string(arr.size()) + " cases, asked " + std::to_string(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) g_known[keys[i]] = arr[i];
  } catch (const std::exception& e) {
    return std::string("python3 -m results known printed an unreadable answer: ") + e.what();
  }
  return "";
}

class RunCaseTest : public testing::Test {
 public:
  RunCaseTest(std::string key) : key_(std::move(key)) {}
  void TestBody() override {
    if (!g_fatal.empty()) FAIL() << g_fatal;
    auto it = g_results.find(key_);
    if (it == g_results.end()) FAIL() << "harness: no result for " << key_;
    const CaseResult& r = it->second;
    if (r.cls == cls::pass) return;
    if (r.cls == cls::skipped || r.cls == cls::not_supported) GTEST_SKIP() << r.cls << ": " << r.message;
    std::string replay = replay_command(r.id, r.load_path, g_session.seed, r.target, g_replay_toolchain,
                                        g_session.toolchain.source_args());
    // A spec_divergence is a finding, not a failure of the device against itself: the device matched a named
    // alternative of the model. It is printed and recorded here, counted in the results and guarded by the gate
    // (a change of class is a regression there), as the compile tier does with its reviewed findings.
    if (r.cls == cls::spec_divergence) {
      RecordProperty("spec_divergence", r.message);
      std::printf("spec_divergence: %s\n    replay: %s\n", r.message.c_str(), replay.c_str());
      return;
    }
    std::string note;
    if (auto k = g_known.find(key_); k != g_known.end()) {
      std::string verdict = k->second.get_str("verdict"), name = k->second.get_str("name");
      if (verdict == "known") {
        RecordProperty("known_finding", name);
        RecordProperty("known_finding_class", r.cls);
        ++g_known_count[name];
        std::printf("known finding %s: %s: %s\n    %s\n    replay: %s\n", name.c_str(), r.cls.c_str(),
                    r.message.substr(0, 300).c_str(), k->second.get_str("text").c_str(), replay.c_str());
        return;
      }
      note = k->second.get_str("text");
    }
    FAIL() << r.cls << ": " << r.message << (note.empty() ? "" : "\n    " + note) << "\n    replay: " << replay;
  }

 private:
  std::string key_;
};

struct Planned { std::string id, family, lp; const testing::TestInfo* info = nullptr; };
std::vector<Planned> g_planned;
std::string g_results_dir;  // where this test's results shard goes
RunMeta g_meta;

class BatchEnvironment : public testing::Environment {
 public:
  void SetUp() override {
    // Only the tests that will run (filter and shard applied by gtest) are executed on the device.
    std::map<std::string, bool> want;
    for (auto& p : g_planned)
      if (p.info && p.info->should_run()) want[p.lp + " " + p.id] = true;
    if (want.empty()) return;
    std::vector<RunCase> all = g_session.cases;
    std::vector<CaseResult> results;
    try {
      for (auto& lp : std::vector<std::string>(g_session.load_paths)) {
        Session s = g_session;
        s.load_paths = {lp};
        s.cases.clear();
        for (auto& c : all)
          if (want.count(lp + " " + c.id)) s.cases.push_back(c);
        if (s.cases.empty()) continue;
        for (auto& r : s.execute()) { g_results[r.load_path + " " + r.id] = r; results.push_back(r); }
      }
    } catch (const std::exception& e) {
      g_fatal = std::string("harness: ") + e.what();
      return;
    }
    // This test's shard of the run: merged with the other tests' by `python3 -m results merge` / report.
    g_meta.finished = now_iso();
    FolderLock lock;
    if (auto e = lock.acquire(g_results_dir); !e.empty()) { g_fatal = "harness: " + e; return; }
    if (auto e = write_results(g_results_dir, g_meta, results); !e.empty()) { g_fatal = "harness: " + e; return; }
    std::printf("run: results of this test: %s/results.json\n", g_results_dir.c_str());
    if (auto e = match_known(); !e.empty()) g_fatal = "harness: " + e;
  }
};

int usage(const std::string& m, int rc = 2) {
  std::fprintf(stderr, "ptxcts-run-tests: %s\n", m.c_str());
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  // Our own options first (gtest's are left for InitGoogleTest).
  Selection sel;
  std::vector<std::string> lps = {"cubin", "jit"};
  std::vector<char*> rest = {argv[0]};
  std::string toolchain, from_results;
  bool toolchain_given = false;
  if (auto e = check_tree(); !e.empty()) return usage(e);
  try {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      auto val = [&]() -> std::string {
        if (i + 1 >= argc) throw UsageError(a + " needs a value");
        return argv[++i];
      };
      if (a == "--family") sel.families.push_back(val());
      else if (a == "--case") sel.cases.push_back(val());
      else if (a == "--filter") sel.filters.push_back(val());
      else if (a == "--load-path") {
        std::string p = val();
        if (p == "both") lps = {"cubin", "jit"};
        else if (p == "cubin" || p == "jit") lps = {p};
        else throw UsageError("--load-path '" + p + "': expected cubin, jit or both");
      } else if (a == "--level") g_session.plan.level = parse_int(a, val(), 0, 2);
      else if (a == "--jobs") g_session.jobs = parse_int(a, val(), 1, 256);
      else if (a == "--seed") g_session.seed = parse_u64(a, val());
      else if (a == "--toolchain") { toolchain = val(); toolchain_given = true; }
      else if (a == "--from-results") from_results = val();
      else if (a == "--shard") {
        // --shard i/n maps onto GoogleTest's own sharding variables.
        int si = 0, sn = 1;
        parse_shard_text(a, val(), si, sn);
        setenv("GTEST_SHARD_INDEX", std::to_string(si).c_str(), 1);
        setenv("GTEST_TOTAL_SHARDS", std::to_string(sn).c_str(), 1);
      } else if (a.rfind("--gtest_", 0) == 0 || a == "--help" || a == "-h") rest.push_back(argv[i]);
      else throw UsageError("unknown option '" + a + "'");
    }
    int si = 0, sn = 1;
    shard_from_env(si, sn);  // gtest shards by them: an out-of-range index would silently run nothing
    check_inject_env();
    std::string gpu = apply_ctest_resources();
    if (!gpu.empty()) std::printf("run: CTest resource gpus id %s -> CUDA_VISIBLE_DEVICES=%s\n", gpu.c_str(), gpu.c_str());
    std::string rid = env("PTXCTS_RUN_ID");
    if (!rid.empty()) check_run_id("PTXCTS_RUN_ID", rid);
  } catch (const UsageError& e) {
    return usage(e.what());
  }
  int rargc = int(rest.size());
  rest.push_back(nullptr);
  testing::InitGoogleTest(&rargc, rest.data());
  {
    // The reviewed findings and waivers must parse before anything runs (exit 3 names file, line and field).
    std::string out, err;
    int rc = run_capture(known_cmd("--check"), &out, &err);
    if (rc != 0) return usage(err.empty() ? "python3 -m results known --check exited " + std::to_string(rc) : err, rc == 2 ? 2 : 3);
  }
  std::string fam = sel.families.size() == 1 ? sanitize(sel.families[0]) : "all";

  if (!from_results.empty()) {
    // Report a results.json written elsewhere (e.g. a GPU run), through the same tests and known findings.
    Json doc;
    try {
      doc = Json::parse(read_file(from_results));
      if (!doc.get("cases") || !doc.get("cases")->is_array()) throw std::runtime_error("field 'cases' must be an array");
    } catch (const std::exception& e) {
      return usage("--from-results " + from_results + ": " + e.what(), 3);
    }
    if (auto* d = doc.get("device")) g_device = *d;
    if (auto* t = doc.get("toolchain")) g_toolchain = *t;
    if (auto* s = doc.get("seed"); s && s->is_number()) g_session.seed = (uint64_t)s->integer();
    // The toolchain's name, or (a document older than toolchain.name) the major.minor of its ptxas version.
    g_replay_toolchain = g_toolchain.is_object() ? g_toolchain.get_str("name") : "";
    if (g_replay_toolchain.empty() && g_toolchain.is_object()) {
      auto v = split(g_toolchain.get_str("ptxas"), '.');
      if (v.size() >= 2) g_replay_toolchain = v[0] + "." + v[1];
    }
    std::set<std::string> want_f(sel.families.begin(), sel.families.end()), want_c(sel.cases.begin(), sel.cases.end());
    for (auto& j : doc.get("cases")->arr()) {
      CaseResult r = CaseResult::from_json(j);
      if (std::find(lps.begin(), lps.end(), r.load_path) == lps.end()) continue;
      if (!want_f.empty() && !want_f.count(r.family)) continue;
      if (!want_c.empty() && !want_c.count(r.id)) continue;
      bool ok = true;
      for (auto& f : sel.filters) ok = ok && r.id.find(f) != std::string::npos;
      if (!ok) continue;
      std::string key = r.load_path + " " + r.id;
      if (r.target != "sm_90" && r.target != "sm_90a" && !r.target.empty()) key += " " + r.target;
      if (g_results.count(key)) continue;
      g_results[key] = r;
      g_planned.push_back({r.id + (key.size() > r.load_path.size() + 1 + r.id.size() ? "@" + r.target : ""), r.family, r.load_path});
      auto& p = g_planned.back();
      p.info = testing::RegisterTest(suite_name(r.family, r.load_path).c_str(), p.id.c_str(), nullptr, nullptr,
                                     __FILE__, __LINE__, [key]() -> testing::Test* { return new RunCaseTest(key); });
    }
    if (auto e = match_known(); !e.empty()) return usage(e, 3);
  } else {
    std::string spec;
    try {
      spec = toolchain_spec(toolchain, toolchain_given);
    } catch (const UsageError& e) {
      return usage(e.what());
    }
    g_session.no_device = probe_device(&g_session.device);
    if (auto e = resolve_toolchain(spec, g_session.toolchain); !e.empty()) {
      // Without a device nothing is assembled and every case is skipped: the toolchain is not needed then.
      if (g_session.no_device.empty()) return usage(e);
      std::fprintf(stderr, "ptxcts-run-tests: warning (no device, every case skipped): %s\n", e.c_str());
    }
    g_replay_toolchain = g_session.toolchain.replay_arg();
    g_session.self = env("PTXCTS_RUN_EXE", build_root() + "/harness/run/ptxcts-run");
    g_session.load_paths = lps;
    g_session.quiet = false;
    if (g_session.no_device.empty() && g_session.device.max_smem_optin > 0) g_session.plan.max_smem = g_session.device.max_smem_optin;
    try {
      g_session.load(sel);
    } catch (const std::exception& e) {
      return usage(e.what());
    }
    g_session.out_dir = build_root() + "/harness/run/ctest-logs/" + fam;
    // The results shard of this test: PTXCTS_RUN_RESULTS (a folder per ctest invocation, scripts/test.sh), else
    // build/harness/run/ctest-results; one subfolder per family, load path and gtest shard.
    std::string lpn;
    for (auto& lp : lps) lpn += (lpn.empty() ? "" : "+") + lp;
    std::string base = env("PTXCTS_RUN_RESULTS", build_root() + "/harness/run/ctest-results");
    std::string si = env("GTEST_SHARD_INDEX"), sn = env("GTEST_TOTAL_SHARDS");
    g_results_dir = base + "/" + fam + "." + lpn + (sn.empty() || sn == "1" ? "" : ".shard" + si + "of" + sn);
    g_meta.started = now_iso();
    g_meta.seed = g_session.seed;
    g_meta.toolchain = g_session.toolchain;
    g_meta.have_device = g_session.no_device.empty();
    g_meta.device = g_session.device;
    // Each test is its own run (own run id; merge unites them: their keys differ by family and load path).
    g_meta.run_id = env("PTXCTS_RUN_ID", now_stamp() + "-" + (g_meta.have_device ? g_session.device.sm : std::string("nogpu")) + "-run") +
                    "-" + fam + "." + lpn + (sn.empty() || sn == "1" ? "" : ".shard" + si + "of" + sn) + "-" + std::to_string(getpid());
    if (g_meta.have_device) {
      g_device = Json::object();
      g_device["name"] = g_session.device.name; g_device["sm"] = g_session.device.sm; g_device["cc"] = g_session.device.cc;
      g_toolchain = Json::object();
      g_toolchain["name"] = g_session.toolchain.name; g_toolchain["ptxas"] = g_session.toolchain.ptxas_version;
      g_toolchain["driver"] = g_session.device.driver; g_toolchain["cuda_runtime"] = g_session.device.runtime;
    }
    for (auto& lp : lps)
      for (auto& c : g_session.cases)
        if (!c.form->kernel.empty() || lp == lps.front()) g_planned.push_back({c.id, c.form->family, lp});  // driver-API: once
    for (auto& p : g_planned) {
      std::string key = p.lp + " " + p.id;
      p.info = testing::RegisterTest(suite_name(p.family, p.lp).c_str(), p.id.c_str(), nullptr, nullptr,
                                     __FILE__, __LINE__, [key]() -> testing::Test* { return new RunCaseTest(key); });
    }
    if (!g_session.no_device.empty()) {
      for (auto& p : g_planned) {
        CaseResult r;
        r.id = p.id;
        r.load_path = p.lp;
        r.cls = cls::skipped;
        r.message = g_session.no_device;
        g_results[p.lp + " " + p.id] = r;
      }
    } else {
      testing::AddGlobalTestEnvironment(new BatchEnvironment);
    }
  }
  int rc = RUN_ALL_TESTS();
  size_t known = 0;
  std::string names;
  for (auto& [n, k] : g_known_count) { known += k; names += (names.empty() ? "" : ", ") + n + " x" + std::to_string(k); }
  std::printf("run: known findings: %zu%s%s%s (they do not fail the tests; results.json keeps their class)\n", known,
              names.empty() ? "" : " (", names.c_str(), names.empty() ? "" : ")");
  const testing::UnitTest& u = *testing::UnitTest::GetInstance();
  if (rc == 0 && u.successful_test_count() == 0 && u.skipped_test_count() > 0) return 77;
  return rc;
}
