// ptxcts-run: the run tier's command line (`./ptxcts run ...`) and, with --worker, the isolated worker process
// the batch executor starts.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>

#include "batch.hpp"
#include "ptxcts/boundary.hpp"
#include "explored.hpp"
#include "model_device.hpp"
#include "session.hpp"
#include "manifest.hpp"
#include "options.hpp"
#include "output.hpp"
#include "plan.hpp"
#include "rejudge.hpp"
#include "repro.hpp"
#include "util.hpp"
#include "worker.hpp"

using namespace ptxcts::run;

namespace {

const char* kUsage =
    "usage: ptxcts-run [options]    (or ./ptxcts run [options])\n"
    "Runs every valid case of the manifest on the GPU, judged by harness/refmodel; writes results/<run-id>/.\n"
    "  --case ID            run this run case only (repeatable; IDs from --list)\n"
    "  --family F           only this family (repeatable), e.g. cp.async.bulk\n"
    "  --filter S           only case IDs containing S (repeatable)\n"
    "  --load-path P        cubin | jit | both (default both)\n"
    "  --toolchain T        the toolchain: a name (13.0) or a ptxas path; default PTXCTS_TOOLCHAIN, else the\n"
    "                       installed CUDA toolkit (resolved by ./ptxcts toolchains resolve --json)\n"
    "  --frontend NAME      the kernels are written whole by this compiler front-end (harness/frontend, e.g.\n"
    "                       llvm-22) and assembled by --toolchain, its paired ptxas; a form it cannot write is\n"
    "                       not_supported with its reason (default PTXCTS_FRONTEND; none: the hand-written PTX)\n"
    "  --modules DIR        a front-end's modules written elsewhere, one folder per target (DIR/sm_90, written by\n"
    "                       ./ptxcts modules --frontend F --target sm_90 --valid-only --out DIR/sm_90); refused\n"
    "                       when not written from this tree's manifest, contract and templates\n"
    "  --lower-targets L    also JIT the forms' PTX for these older targets, comma separated (default sm_80;\n"
    "                       'none' for none)\n"
    "  --seed N             run seed, 0..2^64-1 (default 1); each case derives its own from it and its ID\n"
    "  --shard i/n          run the i-th of n shards (0-based); GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS also work\n"
    "  --shard-deal D       round-robin (default: the k-th selected case to shard k % n) or traps (the cases\n"
    "                       expected to trap to shard 0, the others over shards 1..n-1: traps are handled one\n"
    "                       at a time host-wide, calm cases are not); every shard of a run gives the same D\n"
    "  --device D           gpu (default), or model[:FAULT]: no GPU, the reference model is the device (the\n"
    "                       CPU stand-in of a GPU: every case judged against the model's own answer, FAULT\n"
    "                       planted; e.g. the fleet tests' fake devices)\n"
    "  --device-name NAME   the model device's name in the results (default 'reference model (D)'): stand-ins\n"
    "                       for several devices keep their report columns apart\n"
    "  --jobs N             worker processes at once, 1..256 (default 4)\n"
    "  --timeout S          host watchdog per case, seconds, > 0 (default 5)\n"
    "  --trap-jobs N        cases expected to trap at once, each in a worker of its own, 1..256 (default: --jobs,\n"
    "                       at least 8, at most the CPUs); a result other than the predicted trap runs again alone\n"
    "  --traps-alone        run the cases expected to trap one after another, one worker, nothing beside them\n"
    "                       (the phase before --trap-jobs; implies --no-overlap)\n"
    "  --trap-prestart      start the trap phase's workers while the calm phase runs, one per case expected\n"
    "                       to trap, launching nothing until it ends (off by default: on the H100 the calm\n"
    "                       phase then waits on the driver longer than the trap phase saves)\n"
    "  --no-trap-prestart   start them when the trap phase begins (the default)\n"
    "  --overlap            run the trap phases beside the calm phases; what a trap beside them could have\n"
    "                       caused runs again alone (off by default: the driver handles a trap's fault and\n"
    "                       context one at a time for the whole host, and the calm phases wait on it too, so\n"
    "                       they slow down by what the overlap saves; harness/run/RUNNING.md)\n"
    "  --no-overlap         each batch's trap phase after its calm phase (the default)\n"
    "  --deadline S         start no case after S seconds; the rest is reported skipped\n"
    "  --no-rerun-alone     keep each crash and watchdog timeout seen beside other workers as it is, marked\n"
    "                       details.beside_other_workers, instead of running it again alone (the self-test\n"
    "                       confirms alone only the ones its verdict needs)\n"
    "  --level L            0 smoke, 1 suite (default), 2 extended\n"
    "  --smem-guard B       tensor cases: shared-memory guard bytes compared past the box, 16..196608 in steps of\n"
    "                       16 (default 256); a larger band shows where a device writes beyond the model's box\n"
    "  --out DIR            results folder (default results/<run-id>); locked while the run writes it\n"
    "  --run-id ID          run id (default <UTC stamp with ms>-<sm>-run-<pid>)\n"
    "  --resume DIR         finish an interrupted run in DIR: only the cases not judged yet, same selection,\n"
    "                       seed and run id (the options of how it runs may be given again)\n"
    "  --list               print the selected case IDs and exit\n"
    "  --dry-build          build every selected case's inputs and expectation on the CPU; launch nothing\n"
    "  --quiet              no progress line\n"
    "  --rejudge RESULTS    judge a run document's recorded encodes and traps again with this tree's model, on\n"
    "                       the CPU; the classes it changes and a summary (--rejudge --help; RUNNING.md)\n"
    "Exit: 0 all judged cases pass (or diverge by a named policy), 1 a fail/crash/timeout/compile_error,\n"
    "2 usage (a bad option or environment variable, a copied build folder, an unknown toolchain), 3 a malformed\n"
    "input file, 130/143 interrupted by SIGINT/SIGTERM (the results so far are written, marked partial).\n";

}  // namespace

namespace {

// Options that say what a run is (saved with the run, so that --resume runs exactly the same selection) and
// options that only say how it runs (allowed again with --resume).
bool how_option(const std::string& a) {
  return a == "--jobs" || a == "--timeout" || a == "--deadline" || a == "--quiet" || a == "--no-rerun-alone" ||
         a == "--trap-jobs" || a == "--traps-alone" || a == "--no-overlap" || a == "--overlap" ||
         a == "--trap-prestart" || a == "--no-trap-prestart";
}

volatile sig_atomic_t g_signal = 0;
void on_signal(int sig) {
  g_signal = sig;
  g_stop_requested = sig;
}

struct Cli {
  Session& ses;
  Selection& sel;
  std::string out, run_id, resume, prepare_only, toolchain, frontend, prebuilt, device = "gpu", device_name;
  bool toolchain_given = false, lower_given = false, list = false, dry_build = false, dry_judge = false;
  bool shard_given = false;
  double deadline_s = 0;
  std::vector<std::string> lower;
  std::vector<std::string> saved;  // the "what" options, for DIR/run-args.json

  // Parses argv[from..); throws UsageError. `resuming`: only the "how" options are allowed.
  void parse(const std::vector<std::string>& args, bool resuming, bool saving) {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto val = [&]() -> std::string {
        if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
        return args[++i];
      };
      if (resuming && !how_option(a) && a != "--resume")
        throw UsageError(a + ": --resume runs the interrupted run's own selection; only --jobs, --trap-jobs, "
                             "--traps-alone, --trap-prestart, --no-trap-prestart, --overlap, --no-overlap, --timeout, --deadline, --quiet and "
                             "--no-rerun-alone may be given with it");
      size_t first = i;
      bool what = true;
      if (a == "--case") sel.cases.push_back(val());
      else if (a == "--family") sel.families.push_back(val());
      else if (a == "--filter") {
        std::string f = val();
        if (f.empty()) throw UsageError("--filter '': expected a non-empty part of a case ID");
        sel.filters.push_back(f);
      } else if (a == "--load-path") {
        std::string p = val();
        if (p == "both") ses.load_paths = {"cubin", "jit"};
        else if (p == "cubin" || p == "jit") ses.load_paths = {p};
        else throw UsageError("--load-path '" + p + "': expected cubin, jit or both");
      } else if (a == "--lower-targets" || a == "--target") {
        std::string v = val();
        lower.clear();
        lower_given = true;
        for (auto& t : split(v, ',')) {
          if (t == "none" && a == "--lower-targets") continue;
          if (!target_syntax(t))
            throw UsageError(a + " '" + v + "': '" + t + "' is not a target like sm_80 (comma separated" +
                             (a == "--lower-targets" ? std::string(", or none)") : std::string(")")));
          lower.push_back(t);
        }
        if (a == "--target" && lower.size() != 1) throw UsageError("--target '" + v + "': expected one target, e.g. sm_80");
      } else if (a == "--toolchain") { toolchain = val(); toolchain_given = true; }
      else if (a == "--frontend") {
        frontend = val();
        if (frontend.empty() || frontend.find_first_of("/ \t") != std::string::npos)
          throw UsageError("--frontend '" + frontend + "': expected a front-end name, e.g. llvm-22 (./ptxcts frontend list)");
      } else if (a == "--modules") {
        prebuilt = val();
        struct stat st {};
        if (prebuilt.empty() || stat(prebuilt.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
          throw UsageError("--modules '" + prebuilt + "': not a folder (one sub-folder per target, written by ./ptxcts modules --frontend F)");
      }
      else if (a == "--device") {
        device = val();
        if (device != "gpu" && !model_device_known(device)) throw UsageError("--device '" + device + "': " + model_device_help());
      } else if (a == "--device-name") {
        device_name = val();
        if (device_name.empty() || device_name.size() > 200 || device_name.find_first_of("\n\r\t") != std::string::npos)
          throw UsageError("--device-name '" + device_name + "': expected a name of 1 to 200 characters on one line");
      }
      else if (a == "--seed") ses.seed = parse_u64(a, val());
      else if (a == "--shard") { parse_shard_text(a, val(), sel.shard_index, sel.shard_count); shard_given = true; }
      else if (a == "--shard-deal") {
        sel.shard_deal = val();
        if (sel.shard_deal != "round-robin" && sel.shard_deal != "traps")
          throw UsageError("--shard-deal '" + sel.shard_deal + "': expected round-robin or traps");
      }
      else if (a == "--jobs") { ses.jobs = parse_int(a, val(), 1, 256); what = false; }
      else if (a == "--timeout") { ses.timeout_s = parse_seconds(a, val(), 86400); what = false; }
      else if (a == "--trap-jobs") { ses.trap_jobs = parse_int(a, val(), 1, 256); what = false; }
      else if (a == "--traps-alone") { ses.traps_alone = true; what = false; }
      else if (a == "--no-overlap") { ses.overlap = false; what = false; }
      else if (a == "--trap-prestart") { ses.trap_prestart = true; what = false; }
      else if (a == "--no-trap-prestart") { ses.trap_prestart = false; what = false; }
      else if (a == "--overlap") { ses.overlap = true; what = false; }
      else if (a == "--deadline") { deadline_s = parse_seconds(a, val(), 30 * 86400); what = false; }
      else if (a == "--level") ses.plan.level = parse_int(a, val(), 0, 2);
      else if (a == "--smem-guard") {
        ses.plan.smem_guard = parse_int(a, val(), 16, 196608);
        if (ses.plan.smem_guard % 16) throw UsageError("--smem-guard '" + std::to_string(ses.plan.smem_guard) + "': expected a multiple of 16");
      }
      else if (a == "--out") { out = val(); if (out.empty()) throw UsageError("--out '': expected a folder"); what = false; }
      else if (a == "--run-id") { run_id = val(); check_run_id(a, run_id); what = false; }
      else if (a == "--resume") { resume = val(); if (resume.empty()) throw UsageError("--resume '': expected the interrupted run's folder"); what = false; }
      else if (a == "--list") { list = true; what = false; }
      else if (a == "--prepare-only") {
        prepare_only = val();
        if (!target_syntax(prepare_only)) throw UsageError("--prepare-only '" + prepare_only + "': expected a target like sm_90");
        what = false;
      }
      else if (a == "--dry-build") { dry_build = true; what = false; }
      else if (a == "--dry-judge") { dry_build = dry_judge = true; what = false; }
      else if (a == "--quiet") { ses.quiet = true; what = false; }
      else if (a == "--no-rerun-alone") { ses.rerun_crashes_alone = false; what = false; }
      else throw UsageError("unknown option '" + a + "' (--help lists them)");
      if (what && saving)
        for (size_t k = first; k <= i; ++k) saved.push_back(args[k]);
    }
  }
};

int usage_error(const std::string& m) {
  std::fprintf(stderr, "ptxcts-run: %s\n", m.c_str());
  return 2;
}

// The interrupted run's folder: its saved selection, and the results it holds.
struct Resumed {
  std::vector<std::string> args;
  Json doc;
};

int load_resume(const std::string& dir, Resumed& r) {
  std::string args_path = dir + "/run-args.json", res_path = dir + "/results.json";
  if (!file_exists(res_path)) return usage_error("--resume " + dir + ": no results.json there (is it a run folder?)");
  if (!file_exists(args_path))
    return usage_error("--resume " + dir + ": no run-args.json there (written by ptxcts-run at the start of each run; "
                       "this folder was not written by one that can resume)");
  try {
    Json a = Json::parse(read_file(args_path));
    const Json* v = a.get("args");
    if (!v || !v->is_array()) throw std::runtime_error("field 'args' must be an array of strings");
    for (auto& x : v->arr()) {
      if (!x.is_string()) throw std::runtime_error("field 'args' must be an array of strings");
      r.args.push_back(x.str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxcts-run: %s: %s\n", args_path.c_str(), e.what());
    return 3;
  }
  try {
    r.doc = Json::parse(read_file(res_path));
    check_run_document(r.doc);
    if (!r.doc.get("seed") || !r.doc.get("seed")->is_number() || !(r.doc.get("seed")->num() >= 0) ||
        r.doc.get("seed")->num() != std::floor(r.doc.get("seed")->num()))
      throw std::runtime_error("field 'seed' must be an integer >= 0");
    if (r.doc.get_str("run_id").empty()) throw std::runtime_error("field 'run_id' is missing");
    // The shard decides which cases this run holds (case k belongs to shard k % count): a count below 1 or an
    // index outside 0..count-1 would divide by zero or select nothing.
    if (const Json* sh = r.doc.get("shard")) {
      const Json* i = sh->is_object() ? sh->get("index") : nullptr;
      const Json* n = sh->is_object() ? sh->get("count") : nullptr;
      if (!i || !n || !i->is_number() || !n->is_number() || !(n->num() >= 1) || n->num() > 1e6 ||
          !(i->num() >= 0) || i->num() >= n->num() || i->num() != std::floor(i->num()) ||
          n->num() != std::floor(n->num()))
        throw std::runtime_error("field 'shard' must be {\"index\": i, \"count\": n} with 0 <= i < n");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxcts-run: %s: %s\n", res_path.c_str(), e.what());
    return 3;
  }
  return 0;
}

}  // namespace

int run_main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--worker") return worker_main(argc, argv);
  // --rejudge FILE: a recorded run judged again by this tree's model, on the CPU (rejudge.hpp).
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--rejudge") return rejudge_main(std::vector<std::string>(argv + 1, argv + argc));
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
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    check_inject_env();
    shard_from_env(sel.shard_index, sel.shard_count);
    apply_ctest_resources();
    for (size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == "--resume") cli.resume = args[i + 1];
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
  // The toolchain, once: its ptxas assembles the cubins, its PTX version renders the modules.
  std::string spec;
  try {
    spec = toolchain_spec(cli.toolchain, cli.toolchain_given);
  } catch (const UsageError& e) {
    return usage_error(e.what());
  }
  if (auto e = resolve_toolchain(spec, ses.toolchain); !e.empty()) return usage_error(e);
  if (cli.frontend.empty()) cli.frontend = env("PTXCTS_FRONTEND");
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
    ses.device.sm = "sm_90";
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
    return usage_error(e.what());
  } catch (const MalformedCasesFile& e) {
    std::fprintf(stderr, "ptxcts-run: %s\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    return usage_error(e.what());
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
    if (auto e = prepare_modules(tc, cli.prepare_only, ses.families, tag, true, int(sysconf(_SC_NPROCESSORS_ONLN)), ms, false); !e.empty())
      return usage_error(e);
    std::printf("%zu kernels in %zu modules under %s, %zu ptxas failure(s), %.1f s (%s, PTX ISA %s)\n", ms.module_of.size(),
                ms.cubin_of.size(), ms.dir.c_str(), ms.ptxas_error.size(), now_s() - t0, tc.describe().c_str(), tc.ptx.c_str());
    if (!ms.unavailable.empty()) std::printf("%s\n", ms.unavailable.c_str());
    if (!ms.not_written.empty())
      std::printf("%zu kernel(s) %s did not write (each is not_supported in a run, with its reason)\n",
                  ms.not_written.size(), ms.written_by.c_str());
    for (auto& [m, e] : ms.ptxas_error) std::printf("ptxas failed on %s:\n%s\n", m.c_str(), e.c_str());
    return ms.ptxas_error.empty() ? 0 : 1;
  }
  if (!meta.have_device) {
    // the results schema (harness/framework/documents/schema.py) needs a device for a run-tier document: a run with no GPU leaves no results folder.
    std::fprintf(stderr, "run: %s: every case is reported skipped\n", ses.no_device.c_str());
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
    for (const char* held : {"results.json", "results.json.gz", "explore.json", "explore.json.gz", "selftest.json"})
      if (file_exists(ses.out_dir + "/" + held))
        return usage_error("--out " + ses.out_dir + ": already holds a run (" + held + "); use --resume " +
                           ses.out_dir + " to finish an interrupted run, or choose another folder");
  }
  FolderLock lock;
  std::vector<CaseResult> kept;  // --resume: the results judged before the interruption
  if (meta.have_device) {
    if (auto e = lock.acquire(ses.out_dir); !e.empty()) return usage_error(e);
    if (!cli.resume.empty()) {
      meta.started = resumed.doc.get_str("started", meta.started);
      for (auto& j : resumed.doc.get("cases")->arr()) {
        CaseResult r = CaseResult::from_json(j);
        if (r.cls == cls::skipped) continue;  // not attempted: run now
        ses.done_keys.insert(result_key(r.load_path, r.target, r.id));
        kept.push_back(r);
      }
    } else {
      if (file_exists(ses.out_dir + "/results.json"))
        return usage_error("--out " + ses.out_dir + ": already holds a results.json (use --resume " + ses.out_dir +
                           " to finish an interrupted run, or choose another folder)");
      Json a = Json::object(), arr = Json::array();
      for (auto& s : cli.saved) arr.push(s);
      a["args"] = arr;
      a["toolchain"] = tc.replay_arg();
      if (!write_file(ses.out_dir + "/run-args.json", a.dump(1) + "\n"))
        return usage_error("--out " + ses.out_dir + ": cannot write run-args.json");
    }
  }
  std::fprintf(stderr, "run: %s%zu case(s) x %zu load path(s) on %s (%s), %s at %s, PTX ISA %s, seed %llu, %d worker(s)\n",
               cli.resume.empty() ? "" : ("resuming " + cli.run_id + " (" + std::to_string(kept.size()) + " judged): ").c_str(),
               ses.cases.size(), ses.load_paths.size(), meta.have_device ? ses.device.name.c_str() : "no device",
               meta.have_device ? ses.device.sm.c_str() : "-", tc.describe().c_str(), tc.ptxas.c_str(), tc.ptx.c_str(),
               (unsigned long long)ses.seed, ses.jobs);
  double t0 = now_s();
  if (cli.deadline_s > 0) ses.deadline = t0 + cli.deadline_s;
  // SIGTERM / SIGINT: the workers are stopped, the results so far written (marked partial), exit 128 + signal.
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  std::vector<CaseResult> results;
  try {
    results = ses.execute();
  } catch (const std::exception& e) {
    return usage_error(e.what());
  }
  size_t fresh = results.size();
  for (auto& r : kept) results.push_back(r);
  double wall = now_s() - t0;
  meta.finished = now_iso();
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
  int sig = g_signal;
  if (!meta.have_device) {
    std::printf("no results written: %s\n", ses.no_device.c_str());
    return sig ? 128 + sig : 0;
  }
  if (sig) {
    meta.partial_reason = std::string("interrupted by ") + (sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal");
    meta.partial_total = results.size();
    meta.partial_done = results.size() - interrupted;
  }
  if (auto e = write_results(ses.out_dir, meta, results); !e.empty()) return usage_error(e);
  std::printf("results: %s/results.json%s\n", ses.out_dir.c_str(),
              sig ? (" (partial: " + std::to_string(meta.partial_done) + " of " + std::to_string(meta.partial_total) +
                     " judged; finish it with ./ptxcts run --resume " + ses.out_dir + ")").c_str() : "");
  (void)fresh;
  if (sig) return 128 + sig;
  return bad ? 1 : 0;
}

// The error boundary: an exception no handler above expected is a bug of ptx-cts, reported as one line (never a
// std::terminate); docs/CLI.md, "Internal errors".
int main(int argc, char** argv) { return ptxcts::guarded_main("ptxcts-run", run_main, argc, argv); }
