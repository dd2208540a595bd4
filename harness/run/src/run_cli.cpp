// ptxcts-run: the run tier's command line (`./ptxcts run ...`) and, with --worker, the isolated worker process
// the batch executor starts.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>

#include "ptxcts/boundary.hpp"
#include "ptxcts/no_device.hpp"
#include "cli_options.hpp"
#include "explored.hpp"
#include "model_device.hpp"
#include "session.hpp"
#include "manifest.hpp"
#include "options.hpp"
#include "output.hpp"
#include "plan.hpp"
#include "rejudge.hpp"
#include "resume.hpp"
#include "repro.hpp"
#include "rescue.hpp"
#include "util.hpp"
#include "worker.hpp"

using namespace ptxcts::run;

namespace {

int stopped_or(int rc) { return ptxcts::run::stopped_or("run", rc); }

}  // namespace

int run_main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--worker") return worker_main(argc, argv);
  stop_on_signals();   // from the start: a signal at any moment ends the run as interrupted (util.hpp)
  // --rejudge FILE: a recorded run judged again by this tree's model, on the CPU (rejudge.hpp).
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string given;
  if (ptxcts::find_option(args, "--rejudge", &given)) return rejudge_main(args);
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "-h" || std::string(argv[i]) == "--help") { std::printf("%s", kUsage); return 0; }
  if (auto e = check_tree(); !e.empty()) return usage_error(e);
  Session ses;
  ses.self = self_exe(argv[0]);
  Selection sel;
  Cli cli{ses, sel};
  // The driver's JIT of the same forms' PTX for an older target is part of the default run (cp.async: sm_80).
  cli.lower = {"sm_80"};
  Resumed resumed;
  try {
    check_inject_env();
    shard_from_env(sel.shard_index, sel.shard_count);
    apply_ctest_resources();
    ptxcts::find_option(args, "--resume", &cli.resume);
    if (!cli.resume.empty()) {
      if (int rc = load_resume(cli.resume, resumed)) return rc;
      cli.parse(resumed.args, false, true);  // the interrupted run's own selection
      cli.parse(args, true, false);          // then how to run the rest
      ses.seed = (uint64_t)resumed.doc.get("seed")->integer();
      cli.out = cli.resume;
      cli.run_id = resumed.doc.get_str("run_id");
      if (auto* sh = resumed.doc.get("shard")) {
        sel.shard_index = int(sh->get_int("index"));
        sel.shard_count = int(sh->get_int("count", 1));
      }
    } else {
      cli.parse(args, false, true);
    }
    if (cli.shard_given && !env("GTEST_TOTAL_SHARDS").empty())
      std::fprintf(stderr, "run: --shard %d/%d given: GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS are ignored\n",
                   sel.shard_index, sel.shard_count);
    if (!cli.device_name.empty() && cli.device == "gpu")
      throw UsageError("--device-name " + cli.device_name + ": names the model device only (--device model); a GPU "
                       "is named by its driver");
  } catch (const UsageError& e) {
    return usage_error(e.what());
  }
  // Where the judged cases go when the disk refuses the document: unusable, it is said now, not after the run.
  if (auto e = rescue_problem(); !e.empty()) return usage_error(e);
  // The toolchain, once: its ptxas assembles the cubins, its PTX version renders the modules.
  std::string spec;
  try {
    spec = toolchain_spec(cli.toolchain, cli.toolchain_given);
  } catch (const UsageError& e) {
    return usage_error(e.what());
  }
  if (auto e = resolve_toolchain(spec, ses.toolchain); !e.empty()) return stopped_or(usage_error(e));
  if (!cli.frontend_given) {
    try {
      cli.frontend = checked_frontend("PTXCTS_FRONTEND", env("PTXCTS_FRONTEND"), getenv("PTXCTS_FRONTEND") != nullptr);
    } catch (const UsageError& e) {
      return usage_error(e.what());
    }
  }
  if (!cli.frontend.empty() && !cli.prebuilt.empty())
    return usage_error("--frontend " + cli.frontend + " and --modules " + cli.prebuilt + ": give one (a prebuilt folder names its front-end)");
  ses.toolchain.frontend = cli.frontend;
  ses.toolchain.prebuilt = cli.prebuilt;
  const Toolchain& tc = ses.toolchain;
  for (auto& t : cli.lower) {
    std::string why = toolchain_target_support(t, tc);
    if (why.empty()) ses.lower_targets.push_back(t);
    else if (cli.lower_given) return usage_error((cli.prepare_only.empty() ? "--lower-targets " : "--target ") + t + ": " + why);
    else if (!ses.quiet) std::fprintf(stderr, "run: no JIT of the %s modules: %s\n", t.c_str(), why.c_str());
  }
  if (!cli.prepare_only.empty())
    if (auto why = toolchain_target_support(cli.prepare_only, tc); !why.empty())
      return usage_error("--prepare-only " + cli.prepare_only + ": " + why);

  RunMeta meta;
  meta.started = now_iso();
  meta.seed = ses.seed;
  meta.shard_index = sel.shard_index;
  meta.shard_count = sel.shard_count;
  meta.shard_deal = sel.shard_deal;
  meta.toolchain = tc;
  std::string fake = env("PTXCTS_RUN_FAKE_DEVICE");
  if (!fake.empty()) {
    // Self-test hook (CPU tests of the whole parent: interruption, resume, lock): a pretend device of that
    // architecture and the worker named by PTXCTS_RUN_WORKER (harness/run/tests/fake_worker.cpp).
    std::string w = env("PTXCTS_RUN_WORKER");
    if (!target_syntax(fake) || fake.back() == 'a' || fake.back() == 'f')
      return usage_error("PTXCTS_RUN_FAKE_DEVICE='" + fake + "': expected a device architecture like sm_90");
    if (w.empty() || access(w.c_str(), X_OK) != 0)
      return usage_error("PTXCTS_RUN_FAKE_DEVICE needs PTXCTS_RUN_WORKER, an executable worker ('" + w + "' is not)");
    ses.self = w;
    ses.device.name = "fake device (PTXCTS_RUN_FAKE_DEVICE)";
    ses.device.sm = fake;
    int n = std::atoi(fake.c_str() + 3);
    ses.device.cc = std::to_string(n / 10) + "." + std::to_string(n % 10);
    ses.device.runtime = "0.0";
    ses.device.driver = "fake";
  } else if (cli.device != "gpu") {
    // The model device (model_device.hpp): the workers judge each case against the model's own answer, no GPU.
    ses.device_kind = cli.device;
    ses.device.name = cli.device_name.empty() ? "reference model (" + cli.device + ")" : cli.device_name;
    ses.device.sm = kModelDeviceSm;
    ses.device.cc = "9.0";
    ses.device.major = 9;
    ses.device.runtime = "none";
    ses.device.driver = "none";
  } else {
    ses.no_device = probe_device(&ses.device);
  }
  meta.have_device = ses.no_device.empty();
  meta.device = ses.device;
  if (meta.have_device && ses.device.max_smem_optin > 0) ses.plan.max_smem = ses.device.max_smem_optin;
  try {
    ses.load(sel);
  } catch (const UsageError& e) {
    return stopped_or(usage_error(e.what()));
  } catch (const MalformedCasesFile& e) {
    std::fprintf(stderr, "ptxcts-run: %s\n", e.what());
    return stopped_or(3);
  } catch (const std::exception& e) {
    return stopped_or(usage_error(e.what()));
  }
  if (int(cli.list) + int(cli.dry_build) + int(!cli.prepare_only.empty()) > 1)   // each ends the run its own way
    return usage_error("--list, --dry-build/--dry-judge and --prepare-only: give one of them");
  if (cli.list) {
    for (auto& c : ses.cases) std::printf("%s\n", c.id.c_str());
    return 0;
  }
  if (cli.dry_build) return dry_build(ses, cli.dry_judge);
  if (!cli.prepare_only.empty()) {
    ModuleSet ms;
    double t0 = now_s();
    std::string tag = ses.families.size() == 1 ? sanitize(ses.families[0]) : "all";
    for (auto& lp : ses.load_paths) tag += "-" + lp;
    if (auto e = prepare_modules(tc, cli.prepare_only, "", ses.families, tag, true, int(sysconf(_SC_NPROCESSORS_ONLN)), ms, false); !e.empty())
      return g_stop_requested ? 128 + int(g_stop_requested) : usage_error(e);
    std::printf("%zu kernels in %zu modules under %s, %zu ptxas failure(s), %.1f s (%s, PTX ISA %s)\n", ms.module_of.size(),
                ms.cubin_of.size(), ms.dir.c_str(), ms.ptxas_error.size(), now_s() - t0, tc.describe().c_str(), tc.ptx.c_str());
    if (!ms.unavailable.empty()) std::printf("%s\n", ms.unavailable.c_str());
    if (!ms.not_written.empty())
      std::printf("%zu kernel(s) %s did not write (each is not_supported in a run, with its reason)\n",
                  ms.not_written.size(), ms.written_by.c_str());
    for (auto& [m, e] : ms.ptxas_error) std::printf("ptxas failed on %s:\n%s\n", m.c_str(), e.c_str());
    return ms.ptxas_error.empty() ? 0 : 1;
  }
  // Unique run ids: a millisecond stamp and this process's id (two runs started in the same second differ).
  if (cli.run_id.empty())
    cli.run_id = now_stamp() + "-" + (meta.have_device ? ses.device.sm : std::string("nogpu")) + "-run-" + std::to_string(getpid());
  meta.run_id = cli.run_id;
  ses.out_dir = cli.out.empty() ? ptxcts_root() + "/results/" + cli.run_id : cli.out;
  if (cli.resume.empty()) {   // never over another run, with or without a device
    struct stat st {};
    if (stat(ses.out_dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
      return usage_error("--out " + ses.out_dir + ": exists and is not a folder");
    if (std::string held = held_run(ses.out_dir); !held.empty())
      return usage_error("--out " + ses.out_dir + ": already holds a run (" + held + "); use --resume " +
                         ses.out_dir + " to finish an interrupted run, or choose another folder");
  }
  if (g_stop_requested) return stopped_or(0);   // not even the output folder made yet
  if (!meta.have_device) {
    // No GPU is never a pass: every case is skipped, the reason said, exit 77 (CTest's skip; docs/CLI.md), after
    // every usage check (a skip must not hide a bad option). The document records the skip: device null, every case
    // `skipped` with the reason (the schema allows nothing else without a device; harness/framework/documents/
    // schema.py). A --resume keeps the interrupted run's document as it is: nothing judged is ever overwritten.
    std::string where = "no results written";
    if (cli.resume.empty()) {
      FolderLock skip_lock;
      if (auto e = skip_lock.acquire(ses.out_dir, true); !e.empty()) return usage_error(e);
      std::vector<CaseResult> results = ses.execute();   // every case skipped, with the reason (Session::execute)
      meta.finished = finished_iso(meta.started, 0);
      if (auto e = write_results(ses.out_dir, meta, results); !e.empty()) return usage_error(e);
      where = "recorded in " + ses.out_dir + "/results.json";
    }
    std::fprintf(stderr, "run: skipped, no GPU here: %s: all %zu case(s) skipped, %s, exit %d "
                 "(--device model judges the cases against the model on the CPU)\n", ses.no_device.c_str(),
                 ses.cases.size(), where.c_str(), ptxcts::kExitSkipped);
    return ptxcts::kExitSkipped;
  }
  FolderLock lock;
  std::vector<CaseResult> kept;  // --resume: the results judged before the interruption
  if (meta.have_device) {
    if (auto e = lock.acquire(ses.out_dir, cli.resume.empty()); !e.empty()) return usage_error(e);
    if (!cli.resume.empty()) {
      meta.started = resumed.doc.get_str("started", meta.started);
      for (auto& j : resumed.doc.get("cases")->arr()) {
        CaseResult r = CaseResult::from_json(j);
        if (r.cls == cls::skipped) continue;  // not attempted: run now
        ses.done_keys.insert(result_key(r.load_path, r.target, r.id));
        kept.push_back(r);
      }
    } else {
      Json a = Json::object(), arr = Json::array();
      for (auto& s : cli.saved) arr.push(s);
      a["args"] = arr;
      a["toolchain"] = tc.replay_arg();
      if (!write_file(ses.out_dir + "/run-args.json", a.dump(1) + "\n"))
        return usage_error("--out " + ses.out_dir + ": cannot write run-args.json: " + std::strerror(errno));
    }
  }
  std::fprintf(stderr, "run: %s%zu case(s) x %zu load path(s) on %s (%s), %s at %s, PTX ISA %s, seed %llu, %d worker(s)\n",
               cli.resume.empty() ? "" : ("resuming " + cli.run_id + " (" + std::to_string(kept.size()) + " judged): ").c_str(),
               ses.cases.size(), ses.load_paths.size(), meta.have_device ? ses.device.name.c_str() : "no device",
               meta.have_device ? ses.device.sm.c_str() : "-", tc.describe().c_str(), tc.ptxas.c_str(), tc.ptx.c_str(),
               (unsigned long long)ses.seed, ses.jobs);
  double t0 = now_s();
  if (cli.deadline_s > 0) ses.deadline = t0 + cli.deadline_s;
  // SIGTERM / SIGINT (stop_on_signals, above): the workers are stopped, every case not judged is recorded skipped
  // ("interrupted"), the results so far written (marked partial), exit 128 + signal.
  std::vector<CaseResult> results;
  try {
    results = ses.execute();
  } catch (const std::exception& e) {
    return usage_error(e.what());
  }
  size_t fresh = results.size();
  for (auto& r : kept) results.push_back(r);
  double wall = now_s() - t0;
  meta.finished = finished_iso(meta.started, wall);
  meta.timing = ses.timing;
  meta.toolchain = ses.toolchain;  // a prebuilt folder named its front-end while the modules were prepared
  print_summary(stdout, results, wall, tc);
  int bad = 0;
  size_t interrupted = 0;
  for (auto& r : results) {
    if (r.cls == cls::fail || r.cls == cls::crash || r.cls == cls::timeout || r.cls == cls::compile_error) ++bad;
    if (r.cls == cls::skipped && r.message == "interrupted") ++interrupted;
  }
  // The fails and divergences, each with the command that replays it alone.
  for (auto& r : results)
    if (r.cls != cls::pass && r.cls != cls::skipped && r.cls != cls::not_supported)
      std::printf("%-15s %s [%s] %s\n    replay: %s\n", r.cls.c_str(), r.id.c_str(), r.load_path.c_str(),
                  r.message.substr(0, 400).c_str(), replay_command(r.id, r.load_path, ses.seed, r.target, tc.replay_arg(), tc.source_args()).c_str());
  int sig = g_stop_requested;
  if (sig) {
    meta.partial_reason = stop_reason();
    meta.partial_total = results.size();
    meta.partial_done = results.size() - interrupted;
  }
  if (auto e = write_results(ses.out_dir, meta, results); !e.empty()) {
    // A full disk, a folder remounted read-only: the judged cases are kept elsewhere (rescue.hpp).
    return usage_error(rescue(e, meta.run_id, ses.out_dir, "results.json", results.size(),
                              [&](const std::string& dir) { return write_results(dir, meta, results); },
                              "a partial run's --resume then finishes it"));
  }
  std::printf("results: %s/results.json%s\n", ses.out_dir.c_str(),
              sig ? (" (partial: " + std::to_string(meta.partial_done) + " of " + std::to_string(meta.partial_total) +
                     " judged; finish it with ./ptxcts run --resume " + ses.out_dir + ")").c_str() : "");
  (void)fresh;
  // A signal that came while the whole document was written, or after, still ends the run as interrupted: the exit
  // says what reached it, the document is complete (explore.cpp ends the same way; docs/CLI.md, "Signals").
  if (int s = sig ? sig : int(g_stop_requested)) return 128 + s;
  return bad ? 1 : 0;
}

// The error boundary: an exception no handler above expected is a bug of ptx-cts, reported as one line (never a
// std::terminate); docs/CLI.md, "Internal errors".
int main(int argc, char** argv) {
  return exit_after_stop(ptxcts::guarded_main("ptxcts-run", run_main, argc, argv));
}
