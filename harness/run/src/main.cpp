// ptxcts-run: the run tier's command line (`./ptxcts run ...`) and, with --worker, the isolated worker process
// the batch executor starts.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>

#include "batch.hpp"
#include "cli.hpp"
#include "manifest.hpp"
#include "output.hpp"
#include "plan.hpp"
#include "repro.hpp"
#include "util.hpp"

using namespace ptxcts::run;

namespace {

const char* kUsage =
    "usage: ptxcts-run [options]    (or ./ptxcts run [options])\n"
    "Runs every valid case of the manifest on the GPU, judged by harness/refmodel; writes results/<run-id>/.\n"
    "  --case ID            run this run case only (repeatable; IDs from --list)\n"
    "  --family F           only this family (repeatable), e.g. cp.async.bulk\n"
    "  --filter S           only case IDs containing S (repeatable)\n"
    "  --load-path P        cubin | jit | both (default both)\n"
    "  --lower-targets L    also JIT the forms' PTX for these older targets, comma separated (default sm_80;\n"
    "                       'none' for none)\n"
    "  --seed N             run seed (default 1); each case derives its own from it and its ID\n"
    "  --shard i/n          run the i-th of n shards (0-based); GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS also work\n"
    "  --jobs N             worker processes at once (default 4)\n"
    "  --timeout S          host watchdog per case, seconds (default 5)\n"
    "  --deadline S         start no case after S seconds; the rest is reported skipped\n"
    "  --level L            0 smoke, 1 suite (default), 2 extended\n"
    "  --out DIR            results folder (default results/<run-id>)\n"
    "  --run-id ID          run id (default <UTC stamp>-<sm>-run)\n"
    "  --list               print the selected case IDs and exit\n"
    "  --quiet              no progress line\n";

int worker(int argc, char** argv) {
  std::string load_path = "cubin", modules, target = "sm_90", ptx = "9.0", log_dir = ".";
  uint64_t seed = 1;
  double timeout = 10;
  PlanOptions po;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--load-path") load_path = val();
    else if (a == "--modules") modules = val();
    else if (a == "--target") target = val();
    else if (a == "--ptx") ptx = val();
    else if (a == "--seed") seed = std::stoull(val());
    else if (a == "--timeout") timeout = std::stod(val());
    else if (a == "--log-dir") log_dir = val();
    else if (a == "--level") po.level = std::stoi(val());
    else if (a == "--max-smem") po.max_smem = std::stoi(val());
    else if (a == "--plan-families") { for (auto& f : split(val(), ',')) if (!f.empty()) po.families.push_back(f); }
  }
  std::vector<Form> forms;
  std::vector<RunCase> cases;
  try {
    forms = load_forms(ptxcts_root());
    cases = plan_cases(forms, po);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "worker: %s\n", e.what());
    return 2;
  }
  std::map<std::string, RunCase*> by_id;
  for (auto& c : cases) by_id[c.id] = &c;
  ModuleSet ms;
  ms.target = target;
  ms.ptx = ptx;
  if (auto e = modules.empty() ? std::string() : scan_modules(modules, ms); !e.empty()) { std::fprintf(stderr, "worker: %s\n", e.c_str()); return 2; }
  Executor ex;
  if (auto e = ex.init(load_path, ms, timeout); !e.empty()) { std::fprintf(stderr, "worker: %s\n", e.c_str()); return 2; }
  std::string repro_dir = log_dir + "/repro";
  std::string id;
  while (std::getline(std::cin, id)) {
    if (id.empty()) continue;
    CaseResult r;
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      r.id = id; r.cls = cls::fail; r.load_path = load_path;
      r.message = "harness: the worker's plan has no case " + id;
      std::printf("R %s\n", r.to_json().dump().c_str());
      std::fflush(stdout);
      continue;
    }
    RunCase c = *it->second;
    c.target = target;
    c.ptx = ptx;
    uint64_t cs = case_seed(seed, c.id);
    Setup s;
    std::string harness_error;
    double tb = now_s();
    try {
      build_setup(c, cs, po, s);
    } catch (const std::exception& e) {
      harness_error = e.what();
    }
    double build_ms = (now_s() - tb) * 1e3;
    if (std::string inj = env("PTXCTS_RUN_INJECT"); !inj.empty()) {
      auto colon = inj.find(':');
      if (colon != std::string::npos && c.id.find(inj.substr(colon + 1)) != std::string::npos) s.inject = inj.substr(0, colon);
    }
    ex.preload(c.form->kernel);
    std::printf("S %s\n", c.id.c_str());
    std::fflush(stdout);
    if (!harness_error.empty()) {
      r.id = c.id; r.family = c.form->family; r.form = c.form->form; r.target = target; r.ptx = ptx;
      r.load_path = load_path; r.cls = cls::fail;
      r.message = "harness: cannot build the case: " + harness_error;
    } else {
      r = ex.run(c, s);
    }
    r.details["build_ms"] = build_ms;
    r.details["seed"] = (unsigned long long)seed;
    r.details["case_seed"] = hex(cs);
    if (r.cls == cls::fail || r.cls == cls::spec_divergence) {
      write_repro(repro_dir, c, s, harness_error.empty() ? &ex.last_actual() : nullptr, r, seed, cs,
                  ex.module_path(c.form->kernel));
      r.details["repro"] = repro_dir + "/" + sanitize(c.id) + "." + load_path;
    }
    r.details["replay"] = replay_command(c.id, load_path, seed, target);
    std::printf("R %s\n", r.to_json().dump().c_str());
    std::fflush(stdout);
    if (ex.poisoned()) return 3;  // the context is gone: the parent restarts a worker for the rest
  }
  return 0;
}

std::string ptxas_version() {
  std::string out;
  if (run_process({ptxas_path(), "--version"}, &out) != 0) return "";
  auto p = out.find("V");
  size_t q = out.rfind(", V");
  if (q != std::string::npos) p = q + 3;
  std::string v;
  if (p != std::string::npos)
    while (p < out.size() && (isdigit((unsigned char)out[p]) || out[p] == '.')) v += out[p++];
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--worker") return worker(argc, argv);
  apply_ctest_resources();
  Session ses;
  ses.self = self_exe(argv[0]);
  // The driver's JIT of the same forms' PTX for an older target is part of the default run (cp.async: sm_80).
  ses.lower_targets = {"sm_80"};
  Selection sel;
  std::string out, run_id;
  bool list = false;
  double deadline_s = 0;
  std::string prepare_only;
  bool dry_build = false, dry_judge = false;  // build every selected case's images and expectation on the CPU, launch nothing  // assemble the modules for this target and stop (no device needed)
  std::string gi = env("GTEST_SHARD_INDEX"), gt = env("GTEST_TOTAL_SHARDS");
  if (!gi.empty() && !gt.empty()) parse_shard(gi + "/" + gt, sel.shard_index, sel.shard_count);
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "ptxcts-run: %s needs a value\n%s", a.c_str(), kUsage); std::exit(2); }
      return argv[++i];
    };
    try {
      if (a == "--case") sel.cases.push_back(val());
      else if (a == "--family") sel.families.push_back(val());
      else if (a == "--filter") sel.filters.push_back(val());
      else if (a == "--load-path") {
        std::string p = val();
        if (p == "both") ses.load_paths = {"cubin", "jit"};
        else if (p == "cubin" || p == "jit") ses.load_paths = {p};
        else { std::fprintf(stderr, "ptxcts-run: --load-path '%s': expected cubin, jit or both\n", p.c_str()); return 2; }
      } else if (a == "--lower-targets") {
        ses.lower_targets.clear();
        for (auto& t : split(val(), ',')) if (!t.empty() && t != "none") ses.lower_targets.push_back(t);
      }
      else if (a == "--target") ses.lower_targets = {val()};  // replay of a lower-target JIT case
      else if (a == "--seed") ses.seed = std::stoull(val());
      else if (a == "--shard") {
        std::string s = val();
        if (!parse_shard(s, sel.shard_index, sel.shard_count)) { std::fprintf(stderr, "ptxcts-run: --shard '%s': expected i/n with 0 <= i < n\n", s.c_str()); return 2; }
      } else if (a == "--jobs") ses.jobs = std::stoi(val());
      else if (a == "--timeout") ses.timeout_s = std::stod(val());
      else if (a == "--deadline") deadline_s = std::stod(val());
      else if (a == "--level") ses.plan.level = std::stoi(val());
      else if (a == "--out") out = val();
      else if (a == "--run-id") run_id = val();
      else if (a == "--list") list = true;
      else if (a == "--prepare-only") prepare_only = val();
      else if (a == "--dry-build") dry_build = true;
      else if (a == "--dry-judge") dry_build = dry_judge = true;
      else if (a == "--quiet") ses.quiet = true;
      else if (a == "-h" || a == "--help") { std::printf("%s", kUsage); return 0; }
      else { std::fprintf(stderr, "ptxcts-run: unknown option '%s'\n%s", a.c_str(), kUsage); return 2; }
    } catch (const std::exception&) {
      std::fprintf(stderr, "ptxcts-run: %s: bad value\n", a.c_str());
      return 2;
    }
  }
  RunMeta meta;
  meta.started = now_iso();
  meta.seed = ses.seed;
  meta.shard_index = sel.shard_index;
  meta.shard_count = sel.shard_count;
  ses.no_device = probe_device(&ses.device);
  meta.have_device = ses.no_device.empty();
  meta.device = ses.device;
  if (meta.have_device && ses.device.max_smem_optin > 0) ses.plan.max_smem = ses.device.max_smem_optin;
  try {
    ses.load(sel);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxcts-run: %s\n", e.what());
    return 2;
  }
  if (list) {
    for (auto& c : ses.cases) std::printf("%s\n", c.id.c_str());
    return 0;
  }
  if (dry_build) {
    int bad = 0;
    double t0 = now_s();
    for (auto& c : ses.cases) {
      if (!c.not_supported.empty()) continue;
      Setup s;
      try {
        build_setup(c, case_seed(ses.seed, c.id), ses.plan, s);
        if (dry_judge && !s.encode_only) {
          // Judge a corrupted copy of the expectation: exercises the failure path (alternatives, messages).
          Image act = s.expected;
          if (!act.smem.empty()) act.smem[act.smem.size() / 2] ^= 1;
          std::vector<uint32_t> st(size_t(s.ranks) * kStatusWords, 0);
          for (uint32_t k = 0; k < s.ranks; ++k) { st[k * kStatusWords] = 1; st[k * kStatusWords + 1] = (s.waiters >> k) & 1; st[k * kStatusWords + 2] = s.expect_bits; }
          CaseResult r;
          double tj = now_s();
          judge(c, s, s.gsrc, act, st, r);
          std::printf("%s: %s %.1f ms: %s\n", c.id.c_str(), r.cls.c_str(), (now_s() - tj) * 1e3, r.message.substr(0, 300).c_str());
        }
      } catch (const std::exception& e) {
        ++bad;
        std::printf("harness error: %s: %s\n", c.id.c_str(), e.what());
      }
    }
    std::printf("dry build: %zu cases, %d harness error(s), %.2f s\n", ses.cases.size(), bad, now_s() - t0);
    return bad ? 1 : 0;
  }
  if (!prepare_only.empty()) {
    ModuleSet ms;
    double t0 = now_s();
    std::string tag = ses.families.size() == 1 ? sanitize(ses.families[0]) : "all";
    for (auto& lp : ses.load_paths) tag += "-" + lp;
    if (auto e = prepare_modules(prepare_only, "9.0", ses.families, tag, true, int(sysconf(_SC_NPROCESSORS_ONLN)), ms, false); !e.empty()) {
      std::fprintf(stderr, "ptxcts-run: %s\n", e.c_str());
      return 2;
    }
    std::printf("%zu kernels in %zu modules under %s, %zu ptxas failure(s), %.1f s\n", ms.module_of.size(), ms.cubin_of.size(),
                ms.dir.c_str(), ms.ptxas_error.size(), now_s() - t0);
    for (auto& [m, e] : ms.ptxas_error) std::printf("ptxas failed on %s:\n%s\n", m.c_str(), e.c_str());
    return ms.ptxas_error.empty() ? 0 : 1;
  }
  if (run_id.empty()) run_id = now_stamp() + "-" + (meta.have_device ? ses.device.sm : std::string("nogpu")) + "-run";
  meta.run_id = run_id;
  ses.out_dir = out.empty() ? ptxcts_root() + "/results/" + run_id : out;
  meta.ptxas_version = ptxas_version();
  if (!meta.have_device) std::fprintf(stderr, "run: %s: every case is reported skipped\n", ses.no_device.c_str());
  else std::fprintf(stderr, "run: %zu case(s) x %zu load path(s) on %s (%s), seed %llu, %d worker(s)\n", ses.cases.size(),
                    ses.load_paths.size(), ses.device.name.c_str(), ses.device.sm.c_str(), (unsigned long long)ses.seed, ses.jobs);
  double t0 = now_s();
  if (deadline_s > 0) ses.deadline = t0 + deadline_s;
  // SIGTERM / SIGINT: stop starting cases, keep every result so far, write the results folder.
  signal(SIGTERM, [](int) { g_stop_requested = 1; });
  signal(SIGINT, [](int) { g_stop_requested = 1; });
  std::vector<CaseResult> results;
  try {
    results = ses.execute();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxcts-run: %s\n", e.what());
    return 2;
  }
  double wall = now_s() - t0;
  meta.finished = now_iso();
  print_summary(stdout, results, wall);
  int bad = 0;
  for (auto& r : results) {
    if (r.cls == cls::fail || r.cls == cls::crash || r.cls == cls::timeout || r.cls == cls::compile_error) ++bad;
  }
  // The fails and divergences, each with the command that replays it alone.
  for (auto& r : results)
    if (r.cls != cls::pass && r.cls != cls::skipped && r.cls != cls::not_supported)
      std::printf("%-15s %s [%s] %s\n    replay: %s\n", r.cls.c_str(), r.id.c_str(), r.load_path.c_str(),
                  r.message.substr(0, 400).c_str(), replay_command(r.id, r.load_path, ses.seed, r.target).c_str());
  if (!meta.have_device) {
    // harness/results' schema needs a device for a run-tier document: a run with no GPU leaves no results folder.
    std::printf("no results written: %s\n", ses.no_device.c_str());
    return 0;
  }
  if (auto e = write_results(ses.out_dir, meta, results); !e.empty()) {
    std::fprintf(stderr, "ptxcts-run: %s\n", e.c_str());
    return 2;
  }
  std::printf("results: %s/results.json\n", ses.out_dir.c_str());
  return bad ? 1 : 0;
}
