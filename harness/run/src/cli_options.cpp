#include "cli_options.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>

#include "model_device.hpp"
#include "tree.hpp"
#include "options.hpp"
#include "ptxcts/given.hpp"
#include "util.hpp"

namespace ptxcts::run {

const char* const kUsage =
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
    "An option's value may also be given as --opt=value; one value given twice differently is refused.\n"
    "Exit: 0 all judged cases pass (or diverge by a named policy), 1 a fail/crash/timeout/compile_error,\n"
    "2 usage (a bad option or environment variable, a copied build folder, an unknown toolchain), 3 a malformed\n"
    "input file, 77 skipped: no usable GPU (no device, the driver failed, CUDA_VISIBLE_DEVICES empty; nothing\n"
    "written; --device model needs none), 130/143 interrupted by SIGINT/SIGTERM (the results so far are written,\n"
    "marked partial).\n";

bool how_option(const std::string& a) {
  return a == "--jobs" || a == "--timeout" || a == "--deadline" || a == "--quiet" || a == "--no-rerun-alone" ||
         a == "--trap-jobs" || a == "--traps-alone" || a == "--no-overlap" || a == "--overlap" ||
         a == "--trap-prestart" || a == "--no-trap-prestart";
}

void Cli::parse(const std::vector<std::string>& args, bool resuming, bool saving) {
  ptxcts::OptionReader opt(args);   // --opt value and --opt=value alike
  while (opt.next()) {
    const std::string a = opt.name();
    auto val = [&]() { return opt.value(); };
    if (resuming && !how_option(a) && a != "--resume")
      throw UsageError(a + ": --resume runs the interrupted run's own selection; only --jobs, --trap-jobs, "
                           "--traps-alone, --trap-prestart, --no-trap-prestart, --overlap, --no-overlap, --timeout, --deadline, --quiet and "
                           "--no-rerun-alone may be given with it");
    bool what = true;
    if (a == "--case") sel.cases.push_back(opt.each());
    else if (a == "--family") sel.families.push_back(opt.each());
    else if (a == "--filter") {
      std::string f = opt.each();
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
      frontend = checked_frontend("--frontend", val(), true);
      frontend_given = true;
    } else if (a == "--modules") {
      prebuilt = val();
      if (auto p = ptxcts::given::path_problem("--modules ", prebuilt, ptxcts::given::Kind::Folder); !p.empty())
        throw UsageError(p + " (one sub-folder per target, written by ./ptxcts modules --frontend F)");
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
    else if (a == "--out") {
      out = val();
      if (out.empty()) throw UsageError("--out '': expected a folder");
      if (auto p = ptxcts::given::path_problem("--out ", out, ptxcts::given::Kind::NewFolder); !p.empty()) throw UsageError(p);
      what = false;
    }
    else if (a == "--run-id") { run_id = val(); check_run_id(a, run_id); what = false; }
    else if (a == "--resume") {
      resume = val();
      if (resume.empty()) throw UsageError("--resume '': expected the interrupted run's folder");
      if (auto p = ptxcts::given::path_problem("--resume ", resume, ptxcts::given::Kind::Resume); !p.empty()) throw UsageError(p);
      what = false;
    }
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
    else throw UsageError("unknown option '" + opt.given() + "' (--help lists them)");
    if (what && saving)
      for (size_t k = opt.first(); k <= opt.last(); ++k) saved.push_back(args[k]);
  }
}

std::string checked_frontend(const std::string& source, const std::string& name, bool set) {
  if (!set) return "";
  std::string what = source + (source.rfind("--", 0) == 0 ? " '" : "='") + name + "'";
  if (name.find_first_not_of(" \t\n") == std::string::npos)
    throw UsageError(what + ": set but empty; name a front-end (e.g. llvm-22), or leave it out for the hand-written PTX");
  const std::string catalog = ptxcts_root() + "/toolchains/frontends.toml";
  std::ifstream f(catalog);
  if (!f) throw UsageError(what + ": cannot read " + catalog + ", the front-ends' catalog");
  std::string line, known;
  for (const std::string head = "[frontend.\""; std::getline(f, line);) {
    size_t close = line.find("\"]", head.size());   // [frontend."NAME"], not one of its sub-tables
    if (line.rfind(head, 0) != 0 || close == std::string::npos || close + 2 != line.find_last_not_of(" \t\r") + 1)
      continue;
    std::string n = line.substr(head.size(), close - head.size());
    if (n == name) return name;
    known += (known.empty() ? "" : ", ") + n;
  }
  throw UsageError(what + ": no such front-end (the known ones are " + known + ": toolchains/frontends.toml)");
}

int usage_error(const std::string& m) {
  std::fprintf(stderr, "ptxcts-run: %s\n", m.c_str());
  return 2;
}

}  // namespace ptxcts::run
