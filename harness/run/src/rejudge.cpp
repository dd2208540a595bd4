#include "rejudge.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sys/stat.h>

#include "judge.hpp"
#include "manifest.hpp"
#include "options.hpp"
#include "ptxcts/given.hpp"
#include "output.hpp"
#include "plan.hpp"
#include "tensor_maps.hpp"
#include "tree.hpp"
#include "util.hpp"

namespace ptxcts::run {

namespace {

// The address a worker encodes a case's map against, as far as the model reads it (its alignment): Executor::run
// places every part of its arena (cudaMalloc'd, so at least 256-byte aligned) at a multiple of 1024 bytes, and the
// tensor at gsrc_off / gdst_off within its buffer; the validator asks for 16 or 32 bytes.
constexpr uint64_t kArenaStandIn = uint64_t(1) << 32;

// A value with its object members sorted: two documents that hold the same value compare equal however their
// writers ordered the members (results.json is written with sorted keys, the worker writes them in its order).
std::string canonical(const Json& v) {
  if (v.is_object()) {
    std::vector<std::pair<std::string, const Json*>> m;
    for (auto& [k, x] : v.obj()) m.emplace_back(k, &x);
    std::sort(m.begin(), m.end(), [](auto& a, auto& b) { return a.first < b.first; });
    std::string s = "{";
    for (auto& [k, x] : m) s += (s.size() > 1 ? "," : "") + Json(k).dump() + ":" + canonical(*x);
    return s + "}";
  }
  if (v.is_array()) {
    std::string s = "[";
    for (auto& x : v.arr()) s += (s.size() > 1 ? "," : "") + canonical(x);
    return s + "]";
  }
  if (v.is_number()) return v.number_text();
  return v.dump();
}

// A tensor map as the worker records it, less what the planner's validator says of it (expect_ok, validator):
// those are the model's verdict, which the re-judge takes from today's plan.
std::string map_identity(const Json& t) {
  Json m = Json::object();
  for (auto& [k, x] : t.obj())
    if (k != "expect_ok" && k != "validator") m[k] = x;
  return canonical(m);
}

// An optional string field: "" when absent.
std::string field_str(const Json& c, const std::string& at, const char* key) {
  const Json* v = c.get(key);
  if (!v) return "";
  if (!v->is_string()) throw MalformedDocument(at + "." + key + " must be a string");
  return v->str();
}

uint64_t parse_seed(const Json& doc) {
  const Json* s = doc.get("seed");
  if (!s || !s->is_number()) throw MalformedDocument("field 'seed' must be an integer from 0 to 2^64-1");
  const std::string t = s->number_text();
  if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos || t.size() > 20)
    throw MalformedDocument("field 'seed' must be an integer from 0 to 2^64-1, not " + t);
  try {
    return parse_u64("seed", t);
  } catch (const std::exception&) {
    throw MalformedDocument("field 'seed' must be an integer from 0 to 2^64-1, not " + t);
  }
}

// device.cc "9.0" -> 90, the compute capability the worker validates encodes with.
unsigned parse_cc(const Json& doc) {
  const Json* d = doc.get("device");
  const std::string cc = d && d->is_object() ? d->get_str("cc") : "";
  const auto dot = cc.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 >= cc.size() ||
      cc.find_first_not_of("0123456789.") != std::string::npos || cc.find('.', dot + 1) != std::string::npos)
    throw MalformedDocument("field 'device.cc' must be a compute capability like \"9.0\" (a run-tier document names its device)");
  return unsigned(std::atoi(cc.substr(0, dot).c_str()) * 10 + std::atoi(cc.substr(dot + 1).c_str()));
}

// Today's plan, at the suite's level and, for a case it lacks, the extended level's (a run made with --level 2).
struct Plan {
  const std::vector<Form>& forms;
  std::map<int, std::vector<RunCase>> by_level;
  std::map<int, std::map<std::string, const RunCase*>> index;
  PlanOptions options(int level) const {
    PlanOptions o;
    o.level = level;
    return o;
  }
  const RunCase* find(const std::string& id, int& level) {
    for (int l : {1, 2}) {
      if (!by_level.count(l)) {
        by_level[l] = plan_cases(forms, options(l));
        for (auto& c : by_level[l]) index[l][c.id] = &c;
      }
      auto it = index[l].find(id);
      if (it != index[l].end()) {
        level = l;
        return it->second;
      }
    }
    return nullptr;
  }
};

}  // namespace

Json read_run_document(const std::string& given) {
  std::string path = given;
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    path = file_exists(given + "/results.json") || !file_exists(given + "/results.json.gz") ? given + "/results.json"
                                                                                            : given + "/results.json.gz";
  // the document a folder stands for is named too: the caller names only what was given
  const std::string in = path == given ? "" : path + ": ";
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw MalformedDocument(in + "cannot be opened");
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      int code = 0;
      std::string why = gzerror(f, &code);
      gzclose(f);
      throw MalformedDocument(in + "not a readable gzip file (" + why + ")");
    }
    if (n == 0) break;
    text.append(buf, size_t(n));
  }
  // A gzip member cut short reads as its data so far and no error: zlib reports it at the close.
  if (gzclose(f) != Z_OK) throw MalformedDocument(in + "not a readable gzip file (truncated)");
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const JsonError& e) {
    throw MalformedDocument(in + std::string("not JSON: ") + e.what());
  }
  try {
    check_run_document(doc);
  } catch (const std::runtime_error& e) {
    throw MalformedDocument(in + e.what());
  }
  return doc;
}

std::vector<Rejudged> rejudge(const Json& doc, const std::vector<Form>& forms) {
  const uint64_t seed = parse_seed(doc);
  const unsigned cc = parse_cc(doc);
  Plan plan{forms, {}, {}};
  std::vector<Rejudged> out;
  std::set<std::string> seen;
  size_t n = 0;
  for (const Json& c : doc.get("cases")->arr()) {
    const std::string at = "cases[" + std::to_string(n++) + "]";
    Rejudged r;   // id, target, load_path and class were checked by read_run_document (check_run_document)
    r.id = c.get_str("id");
    r.target = c.get_str("target");
    r.ptx = field_str(c, at, "ptx");
    r.load_path = c.get_str("load_path");
    r.recorded = c.get_str("class");
    if (!seen.insert(r.load_path + "|" + r.target + "|" + r.ptx + "|" + r.id).second)
      throw MalformedDocument(at + ": the case " + r.id + " [" + r.load_path + " " + r.target + "] is listed twice");
    static const Json kNone = Json::object();
    const Json* dp = c.get("details");
    if (dp && !dp->is_object()) throw MalformedDocument(at + ".details must be an object");
    const Json& d = dp ? *dp : kNone;
    const std::string dat = at + ".details";
    r.recorded_policy = field_str(d, dat, "matched_policy");
    const std::string encode_result = field_str(d, dat, "encode_result");
    const std::string kernel_error = field_str(d, dat, "kernel_error");
    const Json* tmap = d.get("tensor_map");
    if (tmap && !tmap->is_object()) throw MalformedDocument(dat + ".tensor_map must be an object");
    if (!encode_result.empty() && !tmap) throw MalformedDocument(dat + ": encode_result without tensor_map");
    out.push_back(r);
    Rejudged& x = out.back();
    auto not_rejudged = [&](const char* reason, std::string why = "") {
      x.reason = reason;
      x.why = std::move(why);
    };
    if (r.recorded == cls::not_supported || r.recorded == cls::compile_error || r.recorded == cls::skipped) {
      not_rejudged(kNotNoJudgement);
      continue;
    }
    // What decided the recorded class: a refused encode (or the encode of a driver-API case), else a trap.
    const bool driver_api = c.get_str("family") == "tensormap.encode";
    const bool by_encode = !encode_result.empty() && (encode_result != "CUDA_SUCCESS" || driver_api);
    const bool by_trap = !by_encode && !kernel_error.empty();
    if (!by_encode && !by_trap) {
      not_rejudged(r.recorded == cls::crash || r.recorded == cls::timeout ? kNotNoKernelError : kNotBytes);
      continue;
    }
    // The case as today's plan builds it, and the same case as the document's (variant, seed, tensor map).
    int level = 1;
    const RunCase* planned = plan.find(r.id, level);
    if (!planned) {
      not_rejudged(kNotPlanned, "no case " + r.id + " in today's plan (manifest, explored.jsonl)");
      continue;
    }
    RunCase rc = *planned;
    rc.target = r.target;
    if (!r.ptx.empty()) rc.ptx = r.ptx;
    const uint64_t cs = case_seed(seed, rc.id);
    if (const Json* v = d.get("variant"); v && canonical(*v) != canonical(rc.params)) {
      not_rejudged(kNotSameCase, "details.variant differs from today's plan: " + canonical(*v).substr(0, 200) + " vs " +
                                     canonical(rc.params).substr(0, 200));
      continue;
    }
    if (const std::string s = field_str(d, dat, "case_seed"); !s.empty() && s != hex(cs)) {
      not_rejudged(kNotSameCase, "details.case_seed " + s + ", today's " + hex(cs));
      continue;
    }
    Setup s;
    try {
      build_setup(rc, cs, plan.options(level), s);
    } catch (const std::exception& e) {
      not_rejudged(kNotBuilt, e.what());
      continue;
    }
    CaseResult today;
    if (by_encode) {
      if (s.tmap.kind == TensorMapSpec::None) {
        not_rejudged(kNotSameCase, "today's plan encodes no tensor map for it");
        continue;
      }
      if (map_identity(*tmap) != map_identity(s.tmap.to_json())) {
        not_rejudged(kNotSameCase, "details.tensor_map differs from today's plan's: " + map_identity(*tmap).substr(0, 300) +
                                       " vs " + map_identity(s.tmap.to_json()).substr(0, 300));
        continue;
      }
      const uint64_t gaddr = kArenaStandIn + (s.tmap.on_dst ? s.gdst_off : s.gsrc_off);
      if (!judge_encode(s.tmap, tmaps::params_of(s.tmap, gaddr), cc, s.encode_only, encode_result, today)) {
        // accepted and launched: the class came from the kernel, not from the encode
        not_rejudged(kernel_error.empty() ? kNotBytes : kNotNoKernelError, "today's judge_encode lets it launch");
        continue;
      }
      x.rule = "encode";
    } else {
      // Executor::run: a trap a named alternative alone predicts is a spec_divergence naming it, else a crash.
      if (!judge_trap(s, "kernel trapped: " + kernel_error, today)) {
        today.cls = cls::crash;
        today.message = "kernel trapped: " + kernel_error;
      }
      x.rule = "trap";
    }
    x.today = today.cls;
    x.today_policy = today.details.get_str("matched_policy");
    x.message = today.message;
  }
  return out;
}

namespace {

int usage(const std::string& m) {
  std::fprintf(stderr, "ptxcts-run: --rejudge: %s\n", m.c_str());
  return 2;
}

const char* kRejudgeUsage =
    "usage: ptxcts-run --rejudge RESULTS [--json OUT] [--quiet]\n"
    "Judges again, with this tree's model and plan, the device outcomes a run document keeps (results.json,\n"
    "results.json.gz or a run folder): each encode the class was decided by (judge_encode) and each kernel trap\n"
    "(judge_trap). Prints every case whose class today's model changes and a summary; the rest is counted as not\n"
    "re-judgeable, by reason (harness/run/RUNNING.md, 'Stale baselines').\n"
    "  --json OUT   also write every case, its recorded and today's class or its reason, as JSON\n"
    "  --quiet      the summary only, no list of changed cases\n"
    "An option's value may also be given as --opt=value.\n"
    "Exit: 0 no class changes, 1 a class today's model changes, 2 usage, 3 a malformed document.\n";

}  // namespace

int rejudge_main(const std::vector<std::string>& args) {
  std::string in, json_out;
  bool quiet = false;
  try {
    ptxcts::OptionReader opt(args);   // --opt value and --opt=value alike
    while (opt.next()) {
      const std::string& a = opt.name();
      auto val = [&](std::string& to) {
        to = opt.value();
        if (to.empty()) throw UsageError(a + " needs a value");
      };
      auto checked = [&](std::string& to, ptxcts::given::Kind kind) {
        val(to);
        if (auto p = ptxcts::given::path_problem(a + " ", to, kind); !p.empty()) throw UsageError(p);
      };
      if (a == "--rejudge") checked(in, ptxcts::given::Kind::Input);
      else if (a == "--json") checked(json_out, ptxcts::given::Kind::NewFile);
      else if (a == "--quiet") quiet = true;
      else if (a == "-h" || a == "--help") { std::printf("%s", kRejudgeUsage); return 0; }
      else throw UsageError("unknown option '" + opt.given() + "' (with --rejudge: --json OUT, --quiet)");
    }
  } catch (const UsageError& e) {
    return usage(e.what());
  }
  if (auto e = check_tree(); !e.empty()) return usage(e);
  struct stat st {};
  if (stat(in.c_str(), &st) != 0) return usage(in + ": no such file or folder");
  if (!json_out.empty()) {
    struct stat o {};
    if (stat(json_out.c_str(), &o) == 0 && S_ISDIR(o.st_mode)) return usage("--json " + json_out + ": is a folder");
    // the document read, or the run document of the folder read: the re-judge would replace the run
    if (auto e = ptxcts::given::output_over_input("--json ", json_out, in); !e.empty()) return usage(e);
  }
  double t0 = now_s();
  std::vector<Rejudged> cases;
  Json doc;
  try {
    doc = read_run_document(in);
    std::vector<Form> forms = load_forms(ptxcts_root());
    cases = rejudge(doc, forms);
  } catch (const MalformedDocument& e) {
    std::fprintf(stderr, "ptxcts-run: %s: %s\n", in.c_str(), e.what());
    return 3;
  }
  // The counts, and the changed cases.
  size_t rejudged = 0, changed = 0, other_policy = 0;
  std::map<std::string, size_t> by_rule, by_reason;
  std::map<std::string, std::string> reason_example;
  for (auto& r : cases) {
    if (r.rejudged()) {
      ++rejudged;
      ++by_rule[r.rule];
      if (r.changed()) ++changed;
      else if (r.today_policy != r.recorded_policy) ++other_policy;
    } else {
      ++by_reason[r.reason];
      if (!reason_example.count(r.reason) && !r.why.empty()) reason_example[r.reason] = r.id + ": " + r.why;
    }
  }
  const Json* dev = doc.get("device");
  std::printf("rejudge: %s: run %s, %s (%s), toolchain %s, seed %s: %zu cases, judged again by this tree's model\n",
              in.c_str(), doc.get_str("run_id").c_str(), dev ? dev->get_str("name").c_str() : "?",
              dev ? dev->get_str("sm").c_str() : "?",
              doc.get("toolchain") && doc.get("toolchain")->is_object() ? doc.get("toolchain")->get_str("name").c_str() : "?",
              doc.get("seed")->number_text().c_str(), cases.size());
  if (!quiet)
    for (auto& r : cases) {
      if (!r.changed()) continue;
      std::printf("changed: %s [%s %s]: %s -> %s (%s%s%s)\n    today: %s\n", r.id.c_str(), r.load_path.c_str(),
                  r.target.c_str(), r.recorded.c_str(), r.today.c_str(), r.rule.c_str(),
                  r.today_policy.empty() ? "" : ", matched_policy ", r.today_policy.c_str(), r.message.substr(0, 400).c_str());
    }
  std::printf("rejudge summary (%.2f s):\n", now_s() - t0);
  std::printf("  %-76s %7zu\n", "cases in the document", cases.size());
  std::printf("  %-76s %7zu\n", "re-judged", rejudged);
  for (auto& [rule, k] : by_rule) std::printf("    %-74s %7zu\n", ("by " + rule).c_str(), k);
  std::printf("  %-76s %7zu\n", "  unchanged (same class)", rejudged - changed);
  if (other_policy) std::printf("  %-76s %7zu\n", "    of them naming another matched_policy", other_policy);
  std::printf("  %-76s %7zu\n", "  changed (today's model gives another class)", changed);
  std::printf("  %-76s %7zu\n", "not re-judgeable", cases.size() - rejudged);
  for (auto& [reason, k] : by_reason) {
    std::printf("    %-74s %7zu\n", reason.c_str(), k);
    if (reason_example.count(reason)) std::printf("      e.g. %s\n", reason_example[reason].substr(0, 300).c_str());
  }
  if (!json_out.empty()) {
    Json j = Json::object(), arr = Json::array();
    j["schema"] = "ptxcts-rejudge";
    j["version"] = 1;
    j["document"] = in;
    j["run_id"] = doc.get_str("run_id");
    if (dev) j["device"] = *dev;
    if (const Json* t = doc.get("toolchain")) j["toolchain"] = *t;
    Json sum = Json::object();
    sum["cases"] = (unsigned long long)cases.size();
    sum["rejudged"] = (unsigned long long)rejudged;
    sum["unchanged"] = (unsigned long long)(rejudged - changed);
    sum["changed"] = (unsigned long long)changed;
    Json nr = Json::object();
    for (auto& [reason, k] : by_reason) nr[reason] = (unsigned long long)k;
    sum["not_rejudgeable"] = nr;
    j["summary"] = sum;
    for (auto& r : cases) {
      Json o = Json::object();
      o["id"] = r.id;
      o["target"] = r.target;
      o["ptx"] = r.ptx;
      o["load_path"] = r.load_path;
      o["recorded"] = r.recorded;
      if (r.rejudged()) {
        o["rule"] = r.rule;
        o["today"] = r.today;
        if (!r.today_policy.empty()) o["matched_policy"] = r.today_policy;
        if (!r.recorded_policy.empty()) o["recorded_policy"] = r.recorded_policy;
        o["message"] = r.message;
      } else {
        o["reason"] = r.reason;
        if (!r.why.empty()) o["why"] = r.why;
      }
      arr.push(o);
    }
    // one case per line, as the results documents are written
    Json head = j;
    head["cases"] = Json::array();
    std::string text = head.dump(1);
    text = text.substr(0, text.rfind(']'));
    std::string body;
    for (size_t k = 0; k < arr.arr().size(); ++k) body += (k ? ",\n  " : "\n  ") + arr.arr()[k].dump();
    text += body + "\n ]\n}\n";
    if (!write_file(json_out, text)) return usage("--json " + json_out + ": cannot be written");   // atomic
  }
  return changed ? 1 : 0;
}

}  // namespace ptxcts::run
