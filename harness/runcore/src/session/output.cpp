#include "output.hpp"

#include <cerrno>
#include <cstring>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "manifest.hpp"
#include "repro.hpp"
#include "util.hpp"

namespace ptxcts::run {

std::string results_text(const RunMeta& m, const std::vector<CaseResult>& results) {
  Json doc = Json::object();
  doc["schema"] = "ptxcts-results";
  // Version 2: toolchain.name/ptxas_path/ptxas_sha256/nvjitlink and the top-level `partial` (harness/results).
  doc["version"] = 2;
  doc["run_id"] = m.run_id;
  doc["tier"] = "run";
  doc["started"] = m.started;
  doc["finished"] = m.finished;
  doc["seed"] = (unsigned long long)m.seed;
  Json sh = Json::object();
  sh["index"] = m.shard_index;
  sh["count"] = m.shard_count;
  if (m.shard_deal != "round-robin") sh["deal"] = m.shard_deal;   // absent: round-robin, as before the option
  doc["shard"] = sh;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  Json h = Json::object();
  h["hostname"] = std::string(host);
  h["cpus"] = (long)sysconf(_SC_NPROCESSORS_ONLN);
  doc["host"] = h;
  Json tc = Json::object();
  const Toolchain& t = m.toolchain;
  auto str_or_null = [](const std::string& v) { return v.empty() ? Json() : Json(v); };
  // A front-end's run is named by the front-end (its baseline and report column); the ptxas fields name the
  // paired toolchain that assembled its output.
  tc["name"] = str_or_null(t.frontend.empty() ? t.name : t.frontend);
  tc["ptxas"] = str_or_null(t.ptxas_version);
  tc["ptxas_path"] = str_or_null(t.ptxas);
  tc["ptxas_sha256"] = str_or_null(t.ptxas_sha256);
  tc["nvjitlink"] = str_or_null(t.nvjitlink_version);
  tc["cuda_runtime"] = str_or_null(m.have_device ? m.device.runtime : "");
  tc["driver"] = str_or_null(m.have_device ? m.device.driver : "");
  doc["toolchain"] = tc;
  if (m.have_device) {
    Json d = Json::object();
    d["name"] = m.device.name;
    d["sm"] = m.device.sm;
    d["cc"] = m.device.cc;
    doc["device"] = d;
  } else {
    doc["device"] = Json();
  }
  if (!m.partial_reason.empty()) {
    Json p = Json::object();
    p["reason"] = m.partial_reason;
    p["done"] = (unsigned long long)m.partial_done;
    p["total"] = (unsigned long long)m.partial_total;
    doc["partial"] = p;
  }
  if (!m.timing.empty()) {
    Json arr = Json::array();
    for (auto& b : m.timing) {
      Json t = Json::object();
      t["load_path"] = b.load_path;
      t["target"] = b.target;
      t["cases"] = (unsigned long long)b.cases;
      t["workers"] = b.workers;
      t["batch_s"] = std::round(b.batch_s * 10) / 10;
      t["rerun_alone"] = (unsigned long long)b.rerun_alone;
      t["rerun_s"] = std::round(b.rerun_s * 10) / 10;
      t["traps"] = (unsigned long long)b.traps;
      t["trap_s"] = std::round(b.trap_s * 10) / 10;
      t["trap_workers"] = b.trap_workers;
      t["trap_rerun_alone"] = (unsigned long long)b.trap_rerun_alone;
      t["trap_rerun_s"] = std::round(b.trap_rerun_s * 10) / 10;
      // When each phase began (Schedule): overlapped, a trap phase begins before the calm phases end.
      if (b.cases > 0 && b.calm_at_s >= 0) t["calm_at_s"] = std::round(b.calm_at_s * 10) / 10;
      if (b.traps > 0 && b.trap_at_s >= 0) t["trap_at_s"] = std::round(b.trap_at_s * 10) / 10;
      arr.push(t);
    }
    doc["timing"] = arr;
  }
  std::vector<std::pair<std::string, std::string>> lines;
  for (auto& r : results) {
    Json j = r.to_json();
    if (!j.get("replay")) {
      // ARCHITECTURE section 3: every case carries the command that replays it alone.
      j["replay"] = replay_command(r.id, r.load_path, m.seed, r.target, t.replay_arg(), t.source_args());
    }
    lines.emplace_back(r.id + '\x01' + r.target + '\x01' + r.ptx + '\x01' + r.load_path, j.dump());
  }
  std::sort(lines.begin(), lines.end());
  std::string head = doc.dump(1);
  // "{\n ...\n}" -> the header fields, then "cases" one per line.
  head = head.substr(0, head.rfind('}'));
  while (!head.empty() && (head.back() == '\n' || head.back() == ' ')) head.pop_back();
  std::string text = head + ",\n \"cases\": [";
  for (size_t i = 0; i < lines.size(); ++i) text += (i ? ",\n  " : "\n  ") + lines[i].second;
  text += lines.empty() ? "]\n}\n" : "\n ]\n}\n";
  return text;
}

std::string write_results(const std::string& dir, const RunMeta& m, const std::vector<CaseResult>& results) {
  if (!make_dirs(dir)) return "cannot create " + dir;
  std::string text = results_text(m, results);
  std::string tmp = dir + "/.results.run." + std::to_string(getpid()) + ".json";
  if (!write_file(tmp, text)) return "cannot write " + tmp + ": " + std::strerror(errno);
  // One writer for every tier: the framework's write_run (harness/framework/documents/writer.py: schema check,
  // results.json, the one JUnit mapping), with harness/ and generator/ on the path as every Python verb has them.
  // A document it refuses is a harness error: it stays beside the results for inspection, nothing is guessed.
  std::string root = ptxcts_root(), log;
  std::string code =
      "import json,sys; sys.path[:0] = sys.argv[3:5]; from framework.documents.writer import write_run; "
      "write_run(sys.argv[1], json.load(open(sys.argv[2])))";
  // shielded: a signal while the document is written waits for it (docs/CLI.md, "Signals")
  int rc = run_process({"python3", "-c", code, dir, tmp, root + "/harness", root + "/generator"}, &log, true);
  if (rc != 0)
    return "the framework's writer refused the run's document (kept as " + tmp + "): " + log.substr(0, 1500);
  ::unlink(tmp.c_str());
  return "";
}

void Progress::add(const CaseResult& r) {
  ++done_;
  if (r.cls != cls::pass && r.cls != cls::not_supported && r.cls != cls::skipped) ++bad_;
  print(false);
}

void Progress::finish() { print(true); }

void Progress::print(bool final) {
  double now = now_s();
  if (t0_ < 0) t0_ = now;
  bool tty = isatty(2);
  if (!final && now - last_ < (tty ? 0.25 : 5.0) && done_ != total_) return;
  last_ = now;
  double el = std::max(1e-6, now - t0_);
  double rate = done_ / el;
  double eta = rate > 0 ? (total_ - done_) / rate : 0;
  std::fprintf(stderr, "%srun %s: %zu/%zu cases, %.0f/s, %zu not passing, %.0fs elapsed, ETA %.0fs%s", tty ? "\r" : "",
               what_.c_str(), done_, total_, rate, bad_, el, eta, tty && !final ? "   " : "\n");
  std::fflush(stderr);
}

void print_summary(FILE* f, const std::vector<CaseResult>& results, double wall_s, const Toolchain& tc) {
  // Rows: family x load path; columns: every class of the closed set.
  std::map<std::string, std::map<std::string, size_t>> t;
  std::map<std::string, size_t> tot;
  for (auto& r : results) {
    t[r.family + " [" + r.load_path + (r.target == "sm_90" || r.target == "sm_90a" || r.target.empty() ? "" : " " + r.target) + "]"][r.cls]++;
    tot[r.cls]++;
  }
  size_t w = 12;
  for (auto& kv : t) w = std::max(w, kv.first.size());
  std::fprintf(f, "\n%-*s", int(w), "family [load path]");
  for (auto* c : kClasses) std::fprintf(f, " %9.9s", c);
  std::fprintf(f, " %7s\n", "total");
  auto row = [&](const std::string& name, std::map<std::string, size_t>& m) {
    std::fprintf(f, "%-*s", int(w), name.c_str());
    size_t n = 0;
    for (auto* c : kClasses) {
      size_t v = m.count(c) ? m[c] : 0;
      n += v;
      if (v) std::fprintf(f, " %9zu", v);
      else std::fprintf(f, " %9s", ".");
    }
    std::fprintf(f, " %7zu\n", n);
  };
  for (auto& kv : t) row(kv.first, kv.second);
  row("TOTAL", tot);
  if (!tc.name.empty()) {
    // The forms beyond the toolchain's own version ran from modules rendered later (render_ptx): say how many.
    std::map<std::string, size_t> later;
    for (auto& r : results)
      if (!r.ptx.empty() && r.ptx != tc.ptx) ++later[r.ptx];
    std::string more;
    for (auto& [v, n] : later) more += ", " + std::to_string(n) + " result(s) of later forms at " + v;
    std::fprintf(f, "%s at %s, modules rendered at PTX ISA %s%s\n", tc.describe().c_str(), tc.ptxas.c_str(),
                 tc.ptx.c_str(), more.c_str());
  }
  // Results of a recorded device finding (device_quirks.hpp: details.recorded_finding) keep their class; named here.
  std::map<std::string, std::map<std::string, size_t>> recorded;
  for (auto& r : results)
    if (const std::string id = r.details.get_str("recorded_finding"); !id.empty()) ++recorded[id][r.cls];
  for (auto& [id, by_class] : recorded) {
    std::string classes;
    for (auto& [k, n] : by_class) classes += (classes.empty() ? "" : ", ") + std::to_string(n) + " " + k;
    std::fprintf(f, "recorded device finding %s (results/findings/%s): %s\n", id.c_str(), id.c_str(), classes.c_str());
  }
  std::fprintf(f, "wall time %.1f s", wall_s);
  if (wall_s > 0) std::fprintf(f, ", %.0f cases/s", results.size() / wall_s);
  std::fprintf(f, "\n");
}

void check_run_document(const Json& doc) {
  if (!doc.is_object() || doc.get_str("schema") != "ptxcts-results" || doc.get_str("tier") != "run")
    throw std::runtime_error("not a run-tier ptxcts-results document (schema 'ptxcts-results', tier 'run')");
  // the versions the Python reader takes too (framework/documents/schema.py READS): a later one may mean
  // something else by a field read here
  const Json* ver = doc.get("version");
  const std::string vt = ver && ver->is_number() ? ver->number_text() : ver ? ver->dump() : "missing";
  if (vt != "1" && vt != "2")
    throw std::runtime_error("version: schema ptxcts-results version " + vt.substr(0, 40) +
                             " is not known to this tool (it reads versions 1, 2); use the ptx-cts release that wrote it");
  const Json* cs = doc.get("cases");
  if (!cs || !cs->is_array()) throw std::runtime_error("field 'cases' must be an array");
  size_t n = 0;
  for (auto& c : cs->arr()) {   // each kept case must be one the run tier wrote: strings, a class of the closed set
    const std::string at = "cases[" + std::to_string(n++) + "]";
    if (!c.is_object()) throw std::runtime_error(at + " must be an object");
    for (const char* k : {"id", "class", "load_path", "target"}) {
      const Json* v = c.get(k);
      if (!v || !v->is_string() || v->str().empty()) throw std::runtime_error(at + "." + k + " must be a non-empty string");
    }
    if (std::find(kClasses.begin(), kClasses.end(), c.get("class")->str()) == kClasses.end())
      throw std::runtime_error(at + ".class '" + c.get("class")->str() + "' is not a result class");
  }
}

}  // namespace ptxcts::run
