#include "session.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>

#include "phases.hpp"
#include "judge.hpp"
#include "manifest.hpp"
#include "model_device.hpp"
#include "options.hpp"
#include "output.hpp"
#include "schedule.hpp"
#include "util.hpp"

namespace ptxcts::run {

std::string result_key(const std::string& load_path, const std::string& target, const std::string& id) {
  return load_path + "|" + target + "|" + id;
}

std::vector<std::string> known_families(const std::vector<Form>& forms) {
  std::set<std::string> s = {"tensormap.encode"};
  for (auto& f : forms) s.insert(f.family);
  return {s.begin(), s.end()};
}

std::string self_exe(const char* argv0) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, size_t(n));
  return argv0;
}

void Session::load(const Selection& sel) {
  forms = load_forms(ptxcts_root());
  auto known = known_families(forms);
  std::string list;
  if (auto f = first_unknown(sel.families, known, &list); !f.empty())
    throw UsageError("--family '" + f + "': no such family in the manifest (known: " + list + ")");
  std::vector<RunCase> all = plan_cases(forms, plan);
  std::set<std::string> want(sel.cases.begin(), sel.cases.end());
  std::set<std::string> fams(sel.families.begin(), sel.families.end());
  std::set<std::string> seen;
  size_t k = 0, k_calm = 0;
  for (auto& c : all) {
    bool ok = true;
    if (!want.empty()) ok = want.count(c.id) > 0;
    if (ok && !fams.empty()) ok = fams.count(c.form->family) > 0;
    for (auto& f : sel.filters) ok = ok && c.id.find(f) != std::string::npos;
    if (!ok) continue;
    seen.insert(c.id);
    if (!c.form->kernel.empty() && std::find(families.begin(), families.end(), c.form->family) == families.end())
      families.push_back(c.form->family);
    // --shard i/n, --shard-deal: which shard the case belongs to (deal_shard)
    const bool traps = expects_trap(c);
    const int shard = deal_shard(sel.shard_deal, traps, k++, traps ? k_calm : k_calm++, sel.shard_count);
    if (shard != sel.shard_index) continue;
    // Every module is rendered at the toolchain's PTX version, a form beyond it at the newest the toolchain knows
    // (render_ptx); a form newer than that is not_supported, naming the toolchain (never a compile_error).
    c.ptx = toolchain.ptx.empty() ? c.ptx : render_ptx(*c.form, toolchain);
    if (c.not_supported.empty() && !toolchain.ptx.empty()) c.not_supported = toolchain_support(*c.form, "", toolchain);
    cases.push_back(c);
  }
  for (auto& w : want)
    if (!seen.count(w)) throw UsageError("--case '" + w + "': no such run case in the plan (list them with --list)");
  if (seen.empty())   // never a run that passes by judging nothing
    throw UsageError("the selection matches no case (0 cases): check --family, --case and --filter (--list lists them)");
}

int deal_shard(const std::string& deal, bool traps, size_t k, size_t k_calm, int count) {
  if (count <= 1) return 0;
  if (deal == "traps") return traps ? 0 : 1 + int(k_calm % size_t(count - 1));
  return int(k % size_t(count));
}

int default_trap_jobs(int jobs) {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return std::max(1, std::min(std::max(jobs, 8), int(cpus > 0 ? cpus : 1)));
}

std::vector<CaseResult> Session::execute() {
  std::vector<CaseResult> out;
  auto done = [&](const std::string& lp, const std::string& target, const std::string& id) {
    return !done_keys.empty() && done_keys.count(result_key(lp, target, id)) > 0;
  };
  auto make = [&](const RunCase& c, const std::string& lp, const std::string& target, const char* k,
                  const std::string& msg) {
    CaseResult r;
    r.id = c.id; r.family = c.form->family; r.form = c.form->form; r.target = target; r.ptx = c.ptx;
    r.load_path = lp; r.cls = k; r.message = msg;
    return r;
  };
  auto skip_all = [&](const std::string& why) {
    for (auto& lp : load_paths)
      for (auto& c : cases) {
        if (c.form->kernel.empty() && lp != load_paths.front()) continue;
        out.push_back(make(c, lp, c.target, cls::skipped, why));
      }
  };
  if (!no_device.empty()) { skip_all(no_device); return out; }

  // Modules: the device's exact target and its `a` variant (sm_90 and sm_90a run on an sm_90 device), where the
  // toolchain has them.
  std::string base = device.sm;
  // One module set per (target, PTX version): the toolchain's version, then each later one that a form beyond it
  // is rendered at (render_ptx), holding only those forms.
  std::vector<std::string> targets, target_ptx, lacking;
  for (auto t : {base, base + "a"}) {
    std::string why = toolchain_target_support(t, toolchain);
    (why.empty() ? targets : lacking).push_back(why.empty() ? t : why);
    if (why.empty()) target_ptx.push_back(toolchain.ptx);
  }
  std::set<std::string> beyond;
  for (auto& c : cases)
    if (!c.form->kernel.empty() && c.not_supported.empty() && c.ptx != toolchain.ptx) beyond.insert(c.ptx);
  for (auto& v : beyond)
    for (auto t : {base, base + "a"})
      if (toolchain_target_support(t, toolchain, v).empty()) { targets.push_back(t); target_ptx.push_back(v); }
  std::vector<ModuleSet> sets(targets.size());
  std::string tag = families.size() == 1 ? sanitize(families[0]) : "all";
  for (auto& lp : load_paths) tag += "-" + lp;
  int cpus = int(sysconf(_SC_NPROCESSORS_ONLN));
  bool want_cubin = std::find(load_paths.begin(), load_paths.end(), "cubin") != load_paths.end();
  bool any_kernel = false;
  for (auto& c : cases) any_kernel |= !c.form->kernel.empty() && c.not_supported.empty();
  bool interrupted = false;
  const bool on_gpu = device_kind == "gpu";  // the model device (model_device.hpp) launches nothing: no modules
  // With the phases overlapped (Schedule), the batches of the first target start once its modules are prepared;
  // the modules of the others (sm_90a: only when a kernel the first lacks needs them) and of the lower targets
  // (sm_80) are prepared while they run.
  const bool overlap_now = overlap && on_gpu && !traps_alone;
  size_t prepared = 0;  // targets whose modules are prepared
  auto prepare_targets = [&](size_t upto) {
    for (; prepared < upto && any_kernel && !interrupted && on_gpu; ++prepared) {
      const size_t i = prepared;
      std::string e = prepare_modules(toolchain, targets[i], target_ptx[i], families, tag, want_cubin, cpus, sets[i], quiet);
      if (e == "interrupted" || g_stop_requested) interrupted = true;   // a child that died of the stop too
      else if (!e.empty()) throw std::runtime_error(e);
      // A prebuilt folder names the front-end that wrote it: the results are that front-end's.
      if (toolchain.frontend.empty() && !sets[i].written_by.empty()) toolchain.frontend = sets[i].written_by;
    }
  };
  prepare_targets(overlap_now ? 1 : targets.size());
  // Lower targets (JIT only): the same forms' PTX assembled by the driver for an older .target.
  std::vector<ModuleSet> lower(lower_targets.size());
  auto prepare_lower = [&]() {
    for (size_t i = 0; i < lower_targets.size() && any_kernel && !interrupted && on_gpu; ++i) {
      std::string e = prepare_modules(toolchain, lower_targets[i], "", families, tag, false, cpus, lower[i], quiet);
      if (e == "interrupted" || g_stop_requested) interrupted = true;   // a child that died of the stop too
      else if (!e.empty()) throw std::runtime_error(e);
    }
  };
  if (!overlap_now) prepare_lower();
  // Which module set each case uses: the first target whose modules hold its kernel. Before every target's modules
  // are prepared (`final` false), a kernel none of them holds yet waits in `later`.
  std::vector<CaseResult> pre;
  std::map<size_t, std::vector<const RunCase*>> runnable;  // module set (targets[i] at target_ptx[i]) -> cases
  std::vector<const RunCase*> later;
  auto assign = [&](const std::vector<const RunCase*>& which, bool final) {
    for (const RunCase* cp : which) {
      const RunCase& c = *cp;
      std::string found;
      size_t found_i = 0;
      for (size_t i = 0; i < sets.size(); ++i)
        if (!c.form->kernel.empty() && (target_ptx[i].empty() || target_ptx[i] == c.ptx) && sets[i].module_of.count(c.form->kernel)) {
          found = targets[i];
          found_i = i;
          break;
        }
      auto mk = [&](const char* k, const std::string& msg, const std::string& lp) {
        std::string t = found.empty() ? base : found;
        if (!done(lp, t, c.id)) pre.push_back(make(c, lp, t, k, msg));
      };
      if (!c.not_supported.empty()) {
        for (auto& lp : load_paths)
          if (!c.form->kernel.empty() || lp == load_paths.front()) mk(cls::not_supported, c.not_supported, lp);
        continue;
      }
      if (c.form->kernel.empty() || !on_gpu) {  // driver-API case or the model device: no module
        found = base;
        found_i = targets.size();
        for (size_t i = 0; i < targets.size(); ++i)
          if (targets[i] == base && (target_ptx[i].empty() || target_ptx[i] == c.ptx)) { found_i = i; break; }
        if (found_i == targets.size() && !on_gpu) {  // the model device runs what no toolchain target holds
          targets.push_back(base);
          target_ptx.push_back(c.ptx);
          sets.emplace_back();
        }
      }
      if (found.empty() && !final && !interrupted) {
        later.push_back(&c);
        continue;
      }
      if (found.empty() && interrupted) {
        for (auto& lp : load_paths) mk(cls::skipped, "interrupted", lp);
        continue;
      }
      if (found.empty()) {
        // Every planned variant gets its own result, so that every case is accounted for.
        std::string why = "not runnable on " + device.name + " (" + base + "): the form's targets are " +
                          c.form->targets + "; no " + base + "/" + base + "a module holds it";
        for (auto& l : lacking) why += "; " + l;
        // A front-end's modules: the reason it gave for not writing this kernel, or for having no modules.
        for (size_t i = 0; i < sets.size(); ++i) {
          if (auto nw = sets[i].not_written.find(c.form->kernel); nw != sets[i].not_written.end()) {
            why = sets[i].written_by + " did not write this kernel for " + targets[i] + ": " + nw->second;
            break;
          }
          if (!sets[i].unavailable.empty()) why += "; " + sets[i].unavailable;
        }
        for (auto& lp : load_paths) mk(cls::not_supported, why, lp);
        continue;
      }
      const_cast<RunCase&>(c).target = found;
      runnable[found_i].push_back(&c);
    }
  };
  std::vector<const RunCase*> all;
  for (auto& c : cases) all.push_back(&c);
  assign(all, prepared == targets.size());
  auto runs_of = [&]() {  // the results the runnable cases will have
    size_t n = 0;
    for (auto& [i, v] : runnable)
      for (auto* c : v)
        for (auto& lp : load_paths)
          if (i < targets.size() && (!c->form->kernel.empty() || lp == load_paths.front()) && !done(lp, targets[i], c->id))
            ++n;
    return n;
  };
  size_t total = pre.size() + runs_of();
  // The lower targets' cases, once their modules are prepared (their RunCases stay where they are: the batches
  // hold pointers to them).
  std::vector<std::pair<std::string, std::vector<RunCase>>> lower_cases;
  lower_cases.reserve(lower.size());
  auto plan_lower = [&]() {
    size_t n = 0;
    for (size_t i = 0; i < lower.size(); ++i) {
      std::vector<RunCase> v;
      for (auto& c : cases)
        if (c.not_supported.empty() && (interrupted || lower[i].module_of.count(c.form->kernel)) && !c.form->kernel.empty()) {
          RunCase x = c;
          x.target = lower_targets[i];
          if (!done("jit", x.target, x.id)) v.push_back(x);
        }
      n += v.size();
      lower_cases.emplace_back(lower_targets[i], std::move(v));
    }
    return n;
  };
  if (!overlap_now) total += plan_lower();
  Progress prog(total, "tier");
  std::mutex prog_m;  // the Schedule's two threads and this one report results
  auto report = [&](const CaseResult& r) {
    std::lock_guard<std::mutex> l(prog_m);
    if (!quiet) prog.add(r);
  };
  for (auto& r : pre) { out.push_back(r); report(r); }
  PhaseOptions po;
  po.trap_jobs = trap_jobs > 0 ? trap_jobs : default_trap_jobs(jobs);
  po.traps_alone = traps_alone;
  po.prestart_traps = trap_prestart;
  po.rerun_alone = rerun_crashes_alone;
  po.quiet = quiet;
  Schedule sched(po, overlap_now, report);
  // One batch per load path and target, handed to the schedule: its results decided before any launch, then its
  // phases (phases.hpp).
  auto batch = [&](const std::string& lp, const std::string& target, const std::string& ptx, const ModuleSet& ms,
                   const std::vector<const RunCase*>& all_cs) {
    std::vector<const RunCase*> cs;
    for (auto* c : all_cs)
      // A driver-API case (no kernel) has no load path of its own: it runs once, with the first load path.
      if ((!c->form->kernel.empty() || lp == load_paths.front()) && !done(lp, target, c->id)) cs.push_back(c);
    std::vector<CaseResult> head;
    std::vector<const RunCase*> go;
    if (interrupted || g_stop_requested) {
      // Interrupted before this batch began: none of it was attempted.
      for (auto* c : cs) { head.push_back(make(*c, lp, target, cls::skipped, "interrupted")); report(head.back()); }
    } else {
      // A case whose cubin ptxas could not produce is a compile_error of the cubin path; not a launch.
      for (auto* c : cs) {
        auto mit = ms.module_of.find(c->form->kernel);
        if (lp == "cubin" && mit != ms.module_of.end() && ms.ptxas_error.count(mit->second)) {
          head.push_back(make(*c, lp, target, cls::compile_error,
                              "ptxas -arch=" + target + " (" + toolchain.describe() + ") failed on " + mit->second + ": " +
                                  ms.ptxas_error.at(mit->second)));
          report(head.back());
          continue;
        }
        go.push_back(c);
      }
    }
    BatchOptions bo;
    bo.self = self;
    bo.load_path = lp;
    bo.modules = ms.dir;
    bo.target = target;
    bo.ptx = ptx;
    bo.toolchain = toolchain.replay_arg();
    bo.source = toolchain.source_args();
    bo.seed = seed;
    bo.jobs = jobs;
    bo.timeout_s = timeout_s;
    bo.deadline = deadline;
    bo.log_dir = out_dir;
    bo.device = device_kind;
    bo.repro = repro;
    bo.plan_args = {"--level", std::to_string(plan.level), "--max-smem", std::to_string(plan.max_smem),
                    "--smem-guard", std::to_string(plan.smem_guard)};
    // The worker plans only the families of its batch (the same cases, less start-up time).
    std::set<std::string> famset;
    for (auto* c : go) famset.insert(c->form->family);
    std::string fams;
    for (auto& f : famset) fams += (fams.empty() ? "" : ",") + f;
    bo.plan_args.push_back("--plan-families");
    bo.plan_args.push_back(fams);
    Batch b = plan_phases(go, bo, po);
    b.head = std::move(head);
    sched.add(std::move(b));
  };
  auto batches = [&]() {
    for (auto& lp : load_paths)
      for (size_t i = 0; i < targets.size(); ++i)
        if (runnable.count(i)) batch(lp, targets[i], target_ptx[i], sets[i], runnable[i]);
  };
  batches();
  if (!later.empty()) {  // overlapped: the other targets' modules (only when a kernel needs them), their batches
    prepare_targets(targets.size());
    const size_t known = pre.size();
    runnable.clear();
    const std::vector<const RunCase*> rest = std::move(later);
    later.clear();
    assign(rest, true);
    {
      std::lock_guard<std::mutex> l(prog_m);
      prog.add_total(pre.size() - known + runs_of());
    }
    for (size_t k = known; k < pre.size(); ++k) { out.push_back(pre[k]); report(pre[k]); }
    batches();
  }
  if (overlap_now) {
    prepare_lower();
    const size_t n = plan_lower();
    std::lock_guard<std::mutex> l(prog_m);
    prog.add_total(n);
  }
  for (size_t i = 0; i < lower_cases.size(); ++i) {
    std::vector<const RunCase*> v;
    for (auto& c : lower_cases[i].second) v.push_back(&c);
    batch("jit", lower_targets[i], toolchain.ptx, lower[i], v);
  }
  sched.finish();
  // Where the time goes, per load path and target: results.json's timing (the schedule prints it on stderr, so
  // the summary on stdout stays a table).
  for (auto& b : sched.batches()) {
    for (auto& r : phase_results(b)) out.push_back(r);
    if (!b.calm.empty() || !b.trapping.empty()) timing.push_back(b.t);
  }
  if (!quiet) prog.finish();
  return out;
}

int dry_build(Session& ses, bool judge_too) {
  int bad = 0, unsupported = 0;
  double t0 = now_s();
  for (auto& c : ses.cases) {
    if (!c.not_supported.empty()) {
      ++unsupported;
      std::printf("not_supported: %s: %s\n", c.id.c_str(), c.not_supported.c_str());
      continue;
    }
    Setup s;
    try {
      build_setup(c, case_seed(ses.seed, c.id), ses.plan, s);
      if (judge_too && !s.encode_only) {
        Image act = s.expected;
        if (!act.smem.empty()) act.smem[act.smem.size() / 2] ^= 1;  // a corrupted copy of the expectation
        CaseResult r;
        double tj = now_s();
        judge(c, s, s.gsrc, act, correct_status(s), r);
        std::printf("%s: %s %.1f ms: %s\n", c.id.c_str(), r.cls.c_str(), (now_s() - tj) * 1e3, r.message.substr(0, 300).c_str());
      }
    } catch (const std::exception& e) {
      ++bad;
      std::printf("harness error: %s: %s\n", c.id.c_str(), e.what());
    }
  }
  std::printf("dry build: %zu cases (%d not_supported by %s), %d harness error(s), %.2f s\n", ses.cases.size(),
              unsupported, ses.toolchain.describe().c_str(), bad, now_s() - t0);
  return bad ? 1 : 0;
}

}  // namespace ptxcts::run
