// ptxcts-explore: the exploration tier's command line (./ptxcts explore ...). See explore.hpp.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "ptxcts/boundary.hpp"
#include "ptxcts/given.hpp"
#include "ptxcts/no_device.hpp"
#include "batch.hpp"
#include "explore.hpp"
#include "explored.hpp"
#include "manifest.hpp"
#include "model_device.hpp"
#include "options.hpp"
#include "rescue.hpp"
#include "util.hpp"

using namespace ptxcts::run;

namespace {

const char* kUsage =
    "usage: ptxcts-explore [options]    (or ./ptxcts explore [options])\n"
    "Draws cases at random over every parameter the chapter and the driver API name, runs them on the GPU in the\n"
    "run tier's isolated workers, judges each by harness/refmodel and its named alternatives, shrinks every\n"
    "disagreement no alternative explains to a minimal case and keeps it as a permanent run-tier case.\n"
    "  --time S          seconds of drawing and running, > 0 (default 60)\n"
    "  --cases N         also stop after N draws of this call, 1..10^9 (whichever comes first): every drawn case\n"
    "                    runs, so the same seed runs the same cases however fast the machine is; an interrupted\n"
    "                    exploration's drawn cases not run yet run first on --resume, without counting; with\n"
    "                    --resume, --cases 0 runs only them\n"
    "  --seed N          exploration seed, 0..2^64-1 (default 1): the same seed draws the same cases\n"
    "  --family F        only this family (repeatable); default every family with a draw\n"
    "  --shrink-time S   seconds for shrinking the findings after the exploration (default 120); 0: none, a\n"
    "                    later --resume shrinks them\n"
    "  --resume DIR      go on with the exploration in DIR (its explore.json): the same seed draws on from the\n"
    "                    next case, counts, coverage and findings add up; same device, driver and toolchain\n"
    "  --jobs N          worker processes at once, 1..256 (default 8)\n"
    "  --timeout S       host watchdog per case, seconds (default 5)\n"
    "  --toolchain T     as for ./ptxcts run\n"
    "  --out DIR         results folder (default results/explore/<id>)\n"
    "  --cases-file P    where permanent cases go (default results/explore/explored.jsonl); 'none': nowhere\n"
    "  --device D        gpu (default), or model[:FAULT]: no GPU, the reference model is the device, with FAULT\n"
    "                    planted (the CPU self-test of exploration and shrinking)\n"
    "  --quiet           no progress line\n"
    "  --unguided        no coverage guidance: every form, rule and bin at random (by default half the draws take\n"
    "                    the form drawn least, and some tensor draws break the encode rule or reach the im2col\n"
    "                    bin drawn least)\n"
    "  --dry-draw N      draw N cases (1..10^9) as the exploration would, run none (no GPU, no toolchain), and\n"
    "                    report the draws' coverage; with --out DIR also DIR/draws.json\n"
    "An option's value may also be given as --opt=value; one value given twice differently is refused.\n"
    "Exit: 0 nothing unexplained found, 1 findings (each shrunk and kept), 2 usage, 3 a malformed input file,\n"
    "77 skipped: no usable GPU (nothing explored; --device model needs none), 130/143 interrupted (every result\n"
    "and finding so far is written).\n";

int usage_error(const std::string& m) {
  std::fprintf(stderr, "ptxcts-explore: %s\n", m.c_str());
  return 2;
}


// Every --family must be one exploration draws for: exit 2 naming it, 3 for an unreadable manifest, else 0. The
// manifest's forms go to *forms when asked for.
int check_families(const ExploreOptions& o, std::vector<Form>* forms) {
  try {
    std::vector<Form> all = load_forms(ptxcts_root());
    auto known = explorable_families(all);
    std::string list;
    if (auto f = first_unknown(o.families, known, &list); !f.empty())
      return usage_error("--family '" + f + "': not a family exploration draws for (these are: " + list + ")");
    if (forms) *forms = std::move(all);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxcts-explore: %s\n", e.what());
    return 3;
  }
  return 0;
}

// --dry-draw: the forms of the manifest and the drawing, nothing else (no device, toolchain or worker).
int dry_draw_main(ExploreOptions& o) {
  Session ses;
  if (int rc = check_families(o, &ses.forms)) return rc;
  // The draws of an exploration on the model device's target: a whole-product form valid only elsewhere is not
  // drawn there (explore's drawable, Form::may_run_on).
  ses.device.sm = kModelDeviceSm;
  try {
    return explore(ses, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxcts-explore: %s\n", e.what());
    return 2;
  }
}

}  // namespace

int explore_main(int argc, char** argv) {
  // SIGTERM / SIGINT from the start (util.hpp): stop drawing, keep everything measured (exit 130 / 143); before
  // the exploration begins, nothing is written.
  stop_on_signals();
  std::vector<std::string> args(argv + 1, argv + argc);
  for (auto& a : args)
    if (a == "-h" || a == "--help") { std::printf("%s", kUsage); return 0; }
  if (auto e = check_tree(); !e.empty()) return usage_error(e);
  Session ses;
  ExploreOptions o;
  o.cases_file = explored_cases_path();
  std::string toolchain, device = "gpu";
  bool toolchain_given = false;
  std::string resume;
  std::vector<std::string> what_options;  // options a resumed exploration takes from its explore.json
  ses.jobs = 8;
  ses.quiet = true;  // the run tier's own progress lines: exploration prints its own
  try {
    ptxcts::OptionReader opt(args);   // --opt value and --opt=value alike
    while (opt.next()) {
      const std::string a = opt.name();
      auto val = [&]() { return opt.value(); };
      if (a == "--time") o.time_s = parse_seconds(a, val(), 7 * 86400);
      else if (a == "--cases") {
        o.cases = uint64_t(parse_int(a, val(), 0, 1000000000));
        o.only_pending = o.cases == 0;
      }
      else if (a == "--seed") { o.seed = parse_u64(a, val()); what_options.push_back(a); }
      else if (a == "--family") {
        o.families.push_back(opt.each());
        if (o.families.back().empty()) throw UsageError("--family '': expected a family, e.g. cp.async.bulk");
        what_options.push_back(a);
      }
      else if (a == "--shrink-time") {
        const std::string v = val();
        o.shrink_s = v == "0" ? 0 : parse_seconds(a, v, 7 * 86400);
      }
      else if (a == "--resume") {
        resume = val();
        if (resume.empty()) throw UsageError("--resume '': expected an exploration's folder");
        if (auto p = ptxcts::given::path_problem("--resume ", resume, ptxcts::given::Kind::Resume); !p.empty()) throw UsageError(p);
      }
      else if (a == "--jobs") ses.jobs = parse_int(a, val(), 1, 256);
      else if (a == "--timeout") ses.timeout_s = parse_seconds(a, val(), 86400);
      else if (a == "--toolchain") { toolchain = val(); toolchain_given = true; }
      else if (a == "--out") {
        o.out_dir = val();
        if (o.out_dir.empty()) throw UsageError("--out '': expected a folder");
        if (auto p = ptxcts::given::path_problem("--out ", o.out_dir, ptxcts::given::Kind::NewFolder); !p.empty()) throw UsageError(p);
        what_options.push_back(a);
      }
      else if (a == "--cases-file") {
        o.cases_file = val();
        if (o.cases_file == "none") o.cases_file.clear();
        else if (o.cases_file.empty()) throw UsageError("--cases-file '': expected a file or none");
        else if (auto p = ptxcts::given::path_problem("--cases-file ", o.cases_file, ptxcts::given::Kind::NewFile); !p.empty())
          throw UsageError(p + " (the file of explored cases, or none)");
      }
      else if (a == "--device") {
        device = val();
        if (device != "gpu" && !model_device_known(device)) throw UsageError("--device '" + device + "': " + model_device_help());
      }
      else if (a == "--quiet") o.quiet = true;
      else if (a == "--unguided") { o.unguided = true; what_options.push_back(a); }
      else if (a == "--dry-draw") o.dry_draws = uint64_t(parse_int(a, val(), 1, 1000000000));
      else throw UsageError("unknown option '" + opt.given() + "' (--help lists them)");
    }
    if (!resume.empty() && !what_options.empty())
      throw UsageError(what_options.front() + " with --resume: a resumed exploration keeps the seed, families and folder of " + resume);
  } catch (const UsageError& e) {
    return usage_error(e.what());
  }
  if (o.dry_draws) {
    if (!resume.empty()) return usage_error("--dry-draw with --resume: a dry draw starts at the seed's first case");
    if (o.cases || o.only_pending) return usage_error("--cases with --dry-draw: a dry draw's count is its own (--dry-draw N)");
    return dry_draw_main(o);
  }
  if (o.only_pending && resume.empty())
    return usage_error("--cases 0: only with --resume DIR (it runs the cases an interruption left drawn and not run)");
  // Where the cases run go when the disk refuses the documents (rescue.hpp): unusable, it is said now, not after
  // the exploration.
  if (auto e = rescue_problem(); !e.empty()) return usage_error(e);
  if (!resume.empty()) {
    try {
      load_resume(resume, o);
    } catch (const MalformedExplore& e) {
      std::fprintf(stderr, "ptxcts-explore: --resume: %s\n", e.what());
      return 3;
    } catch (const std::exception& e) {
      return usage_error("--resume '" + resume + "': " + e.what());
    }
  }
  std::string spec;
  try {
    spec = toolchain_spec(toolchain, toolchain_given);
  } catch (const UsageError& e) {
    return usage_error(e.what());
  }
  if (auto e = resolve_toolchain(spec, ses.toolchain); !e.empty()) return stopped_or("explore", usage_error(e));
  ses.self = self_exe(argv[0]);
  // The workers are ptxcts-run's (beside this binary).
  auto slash = ses.self.rfind('/');
  ses.self = (slash == std::string::npos ? std::string(".") : ses.self.substr(0, slash)) + "/ptxcts-run";
  if (access(ses.self.c_str(), X_OK) != 0) return usage_error("the worker " + ses.self + " is missing (build ptxcts-run)");
  ses.load_paths = {"cubin"};
  ses.device_kind = device;
  ses.repro = false;
  ses.rerun_crashes_alone = false;  // a drawn case is replayed from explore.json, not from a bundle
  // The families first: a bad --family is refused with or without a GPU.
  if (int rc = check_families(o, nullptr)) return rc;
  if (device == "gpu") {
    ses.no_device = probe_device(&ses.device);   // without one: skipped (exit 77) once every input is checked
    if (ses.device.max_smem_optin > 0) ses.plan.max_smem = ses.device.max_smem_optin;
  } else {
    ses.device.name = "reference model (" + device + ")";
    ses.device.sm = kModelDeviceSm;
    ses.device.cc = "9.0";
    ses.device.driver = "none";
  }
  Selection sel;
  try {
    ses.plan.explored = false;
    ses.load(sel);
  } catch (const UsageError& e) {
    return stopped_or("explore", usage_error(e.what()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxcts-explore: %s\n", e.what());
    return stopped_or("explore", 3);
  }
  if (!o.families.empty()) ses.families = o.families;
  if (!o.resumed.is_null() && ses.no_device.empty()) {
    // One exploration, one device and toolchain: its results say where they came from.
    const Json& d = *o.resumed.get("device");
    if (d.get_str("sm") != ses.device.sm || d.get_str("driver") != ses.device.driver ||
        d.get_str("name") != ses.device.name || d.get_str("kind") != ses.device_kind)
      return usage_error("--resume '" + resume + "': explored on " + d.get_str("name") + " (" + d.get_str("sm") + ", driver " +
                         d.get_str("driver") + ", " + d.get_str("kind") + "), this is " + ses.device.name + " (" +
                         ses.device.sm + ", driver " + ses.device.driver + ", " + ses.device_kind + ")");
    if (o.resumed.get_str("toolchain") != ses.toolchain.describe())
      return usage_error("--resume '" + resume + "': explored with toolchain " + o.resumed.get_str("toolchain") + ", this is " +
                         ses.toolchain.describe());
  } else {
    o.id = now_stamp() + "-" + ses.device.sm + "-explore-" + std::to_string(getpid());
  }
  if (o.out_dir.empty()) o.out_dir = ptxcts_root() + "/results/explore/" + o.id;
  if (resume.empty()) {   // a new exploration never writes over another run or exploration
    struct stat st {};
    if (stat(o.out_dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
      return usage_error("--out " + o.out_dir + ": exists and is not a folder");
    if (std::string held = held_run(o.out_dir); !held.empty())
      return usage_error("--out " + o.out_dir + ": already holds a run (" + held + "); use --resume " + o.out_dir +
                         " to go on with an exploration, or choose another folder");
  }
  // The permanent cases file this exploration adds its findings to is read first: a malformed one is refused now,
  // not after the exploration has run (the run tier reads it too).
  if (!o.cases_file.empty()) {
    try {
      read_explored(o.cases_file);
    } catch (const MalformedCasesFile& e) {
      std::fprintf(stderr, "ptxcts-explore: --cases-file %s\n", e.what());
      return 3;
    } catch (const UnusableCasesPath& e) {
      return usage_error(e.what());
    }
  }
  if (!ses.no_device.empty()) {   // after every usage check: a skip must not hide a bad option or file
    std::fprintf(stderr, "explore: skipped, no GPU here: %s: nothing explored, exit %d (--device model explores "
                 "against the model on the CPU)\n", ses.no_device.c_str(), ptxcts::kExitSkipped);
    return ptxcts::kExitSkipped;
  }
  // One writer per folder, as for ./ptxcts run and compile: a second exploration into it is refused.
  if (g_stop_requested) return stopped_or("explore", 0);   // not even the output folder made yet
  FolderLock lock;
  if (auto e = lock.acquire(o.out_dir, resume.empty()); !e.empty()) return usage_error(e);
  ses.out_dir = o.out_dir + "/work";
  try {
    return explore(ses, o);
  } catch (const MalformedExplore& e) {
    std::fprintf(stderr, "ptxcts-explore: --resume: %s\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxcts-explore: %s\n", e.what());
    return 2;
  }
}

// The error boundary: an exception no handler above expected is a bug of ptx-cts, reported as one line (never a
// std::terminate); docs/CLI.md, "Internal errors".
int main(int argc, char** argv) {
  return exit_after_stop(ptxcts::guarded_main("ptxcts-explore", explore_main, argc, argv));
}
