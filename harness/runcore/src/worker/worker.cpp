// The isolated worker process (ptxcts-run --worker, started by the batch executor, batch.hpp): reads cases on
// stdin -- a run case ID of its own plan, or an explicit case as one JSON object (case_line) -- and for each
// writes "S <id>" before and "R <result json>" after it on stdout, and "X <why>" when it ends before its stdin
// does (its CUDA context is lost); "P <kernel>" (a spare, batch.hpp) loads that kernel's module ahead of the
// case and answers nothing. With --device model[:FAULT] it launches
// nothing: the "device" is harness/refmodel itself, optionally with a planted fault (model_device.hpp), which is
// how the exploration tier's shrinking is tested on a machine without a GPU.
#include <cstdio>
#include <iostream>
#include <map>
#include <unistd.h>

#include "worker.hpp"

#include "exec.hpp"
#include "manifest.hpp"
#include "model_device.hpp"
#include "options.hpp"
#include "plan.hpp"
#include "repro.hpp"
#include "util.hpp"

namespace ptxcts::run {

std::string case_line(const RunCase& c) {
  if (!c.explicit_params) return c.id;
  Json j = Json::object();
  j["id"] = c.id;
  j["form"] = c.form->form;
  j["variant"] = c.variant;
  j["params"] = c.params;
  return j.dump();
}

namespace {

struct WorkerOptions {
  std::string load_path = "cubin", modules, target = "sm_90", ptx, log_dir = ".", toolchain, device = "gpu";
  std::vector<std::string> source;  // the replay's module source (Toolchain::source_args)
  uint64_t seed = 1;
  double timeout = 10;
  bool repro = true;
  PlanOptions po;
};

// The parent writes these options; a bad one is still refused, never guessed.
WorkerOptions parse_worker(int argc, char** argv) {
  WorkerOptions w;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--load-path") w.load_path = val();
    else if (a == "--modules") w.modules = val();
    else if (a == "--target") w.target = val();
    else if (a == "--ptx") w.ptx = val();
    else if (a == "--toolchain") w.toolchain = val();
    else if (a == "--frontend" || a == "--prebuilt") { w.source = {a == "--frontend" ? "--frontend" : "--modules", val()}; }
    else if (a == "--seed") w.seed = parse_u64(a, val());
    else if (a == "--timeout") w.timeout = parse_seconds(a, val(), 86400);
    else if (a == "--log-dir") w.log_dir = val();
    else if (a == "--level") w.po.level = parse_int(a, val(), 0, 2);
    else if (a == "--max-smem") w.po.max_smem = parse_int(a, val(), 1, 1 << 30);
    else if (a == "--smem-guard") w.po.smem_guard = parse_int(a, val(), 16, 196608);
    else if (a == "--plan-families") { for (auto& f : split(val(), ',')) if (!f.empty()) w.po.families.push_back(f); }
    else if (a == "--no-repro") w.repro = false;
    else if (a == "--device") {
      w.device = val();
      if (w.device != "gpu" && !model_device_known(w.device)) throw UsageError("--device '" + w.device + "': " + model_device_help());
    }
    else throw UsageError("unknown worker option '" + a + "'");
  }
  if (w.ptx.empty()) throw UsageError("--ptx is required (the PTX ISA version the modules were rendered at)");
  return w;
}

// An explicit case line: {"id", "form", "variant", "params"}; the form must be one of the worker's.
RunCase explicit_case(const std::string& line, const std::map<std::string, const Form*>& forms) {
  Json j = Json::parse(line);
  RunCase c;
  c.id = j.get_str("id");
  auto it = forms.find(j.get_str("form"));
  if (c.id.empty() || it == forms.end()) throw std::runtime_error("no form '" + j.get_str("form") + "' for case '" + c.id + "'");
  c.form = it->second;
  c.variant = j.get_str("variant");
  if (auto* p = j.get("params")) c.params = *p;
  c.explicit_params = true;
  return c;
}

}  // namespace

int worker_main(int argc, char** argv) {
  WorkerOptions w;
  try {
    w = parse_worker(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "worker: %s\n", e.what());
    return 2;
  }
  std::vector<Form> forms;
  std::vector<RunCase> cases;
  try {
    forms = load_forms(ptxcts_root());
    cases = plan_cases(forms, w.po);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "worker: %s\n", e.what());
    return 2;
  }
  std::map<std::string, RunCase*> by_id;
  for (auto& c : cases) by_id[c.id] = &c;
  std::map<std::string, const Form*> form_of;
  for (auto& f : forms) form_of[f.form] = &f;
  for (auto& f : encode_forms()) form_of[f.form] = &f;
  const bool on_gpu = w.device == "gpu";
  ModuleSet ms;
  ms.target = w.target;
  ms.ptx = w.ptx;
  Executor ex;
  if (on_gpu) {
    if (auto e = w.modules.empty() ? std::string() : scan_modules(w.modules, ms); !e.empty()) { std::fprintf(stderr, "worker: %s\n", e.c_str()); return 2; }
    if (auto e = ex.init(w.load_path, ms, w.timeout); !e.empty()) { std::fprintf(stderr, "worker: %s\n", e.c_str()); return 2; }
  }
  std::string repro_dir = w.log_dir + "/repro";
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    if (line.rfind("P ", 0) == 0) {  // a spare of the batch executor: load this kernel's module ahead of its case
      if (on_gpu) ex.preload(line.substr(2));
      continue;
    }
    CaseResult r;
    RunCase c;
    try {
      if (line[0] == '{') {
        c = explicit_case(line, form_of);
      } else {
        auto it = by_id.find(line);
        if (it == by_id.end()) throw std::runtime_error("the worker's plan has no case " + line);
        c = *it->second;
      }
    } catch (const std::exception& e) {
      r.id = line[0] == '{' ? line.substr(0, 200) : line;
      r.cls = cls::fail; r.load_path = w.load_path;
      r.message = std::string("harness: ") + e.what();
      std::printf("R %s\n", r.to_json().dump().c_str());
      std::fflush(stdout);
      continue;
    }
    c.target = w.target;
    c.ptx = w.ptx;
    uint64_t cs = case_seed(w.seed, c.id);
    Setup s;
    std::string harness_error;
    double tb = now_s();
    try {
      build_setup(c, cs, w.po, s);
    } catch (const std::exception& e) {
      harness_error = e.what();
    }
    double build_ms = (now_s() - tb) * 1e3;
    if (std::string inj = env("PTXCTS_RUN_INJECT"); !inj.empty()) {  // checked by the parent (check_inject_env)
      auto colon = inj.find(':');
      if (colon != std::string::npos && c.id.find(inj.substr(colon + 1)) != std::string::npos) s.inject = inj.substr(0, colon);
    }
    if (on_gpu) ex.preload(c.form->kernel);
    std::printf("S %s\n", c.id.c_str());
    std::fflush(stdout);
    if (!harness_error.empty()) {
      r.id = c.id; r.family = c.form->family; r.form = c.form->form; r.target = w.target; r.ptx = w.ptx;
      r.load_path = w.load_path; r.cls = cls::fail;
      r.message = "harness: cannot build the case: " + harness_error;
    } else if (on_gpu) {
      r = ex.run(c, s);
    } else {
      r = run_on_model(c, s, w.device);
      r.load_path = w.load_path;
    }
    r.details["build_ms"] = build_ms;
    r.details["seed"] = (unsigned long long)w.seed;
    r.details["case_seed"] = hex(cs);
    if (w.repro && on_gpu && (r.cls == cls::fail || r.cls == cls::spec_divergence)) {
      write_repro(repro_dir, c, s, harness_error.empty() ? &ex.last_actual() : nullptr, r, w.seed, cs,
                  ex.module_path(c.form->kernel), w.toolchain, w.source);
      r.details["repro"] = repro_dir + "/" + sanitize(c.id) + "." + w.load_path;
    }
    if (!c.explicit_params) r.details["replay"] = replay_command(c.id, w.load_path, w.seed, w.target, w.toolchain, w.source);
    std::printf("R %s\n", r.to_json().dump().c_str());
    std::fflush(stdout);
    if (on_gpu && ex.poisoned()) {
      // The context is gone: the parent restarts a worker for the rest. The pipes close before the driver tears
      // the dead context down (host-wide, one context at a time: RUNNING.md, "Where a trap's time goes"), so the
      // parent sees this worker's end at once and feeds the next case meanwhile; nothing of the dead context is
      // worth a destructor. "X" first: the parent gives it no further case.
      std::printf("X context lost\n");
      std::fflush(stdout);
      close(1);
      close(0);
      _exit(3);
    }
  }
  // Stdin ended: every case is reported. The parent sees the end now, not after the context's teardown.
  std::fflush(stdout);
  close(1);
  return 0;
}

}  // namespace ptxcts::run
