// explore.json: written after every segment (classes, rate, divergences, findings with their first and minimal
// case, coverage, segments; the permanent cases; coverage.svg and summary.txt) and read back by --resume.
#include <sys/stat.h>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <cstdio>

#include "explore.hpp"
#include "explore_draw.hpp"
#include "explore_state.hpp"
#include "explored.hpp"
#include "rescue.hpp"

namespace ptxcts::run {
namespace explore_impl {

Json case_json(const RunCase& c, const CaseResult& r) {
  Json j = Json::object();
  j["id"] = c.id;
  j["form"] = c.form->form;
  j["params"] = c.params;
  j["class"] = r.cls;
  j["message"] = r.message.substr(0, 600);
  return j;
}

void Explorer::restore(const Json& doc) {
  auto forms = std::map<std::string, const Form*>();
  for (auto& f : ses_.forms) forms[f.form] = &f;
  for (auto& f : encode_forms()) forms[f.form] = &f;
  auto case_of = [&](const Json& j, CaseResult& r) {
    const std::string form = j.get_str("form"), id = j.get_str("id");
    auto it = forms.find(form);
    if (it == forms.end()) throw MalformedExplore("finding case '" + id + "': form '" + form + "' is not in this manifest");
    auto hash = id.find('#');
    RunCase c = make_case(*it->second, hash == std::string::npos ? id : id.substr(hash + 1), draw::clone(*j.get("params")));
    r.id = c.id;
    r.form = form;
    r.family = c.form->family;
    r.cls = j.get_str("class");
    r.message = j.get_str("message");
    return c;
  };
  next_ = uint64_t(doc.get_int("cases_drawn"));
  ran_ = size_t(doc.get_int("cases_run"));
  nothing_ = size_t(doc.get_int("nothing_to_draw"));
  drawn_s_ = doc.get("draw_s") ? doc.get("draw_s")->num() : 0;
  before_s_ = doc.get("explored_s")->num();
  for (auto& [k, v] : doc.get("classes")->obj()) by_class_[k] = size_t(v.integer());
  for (auto& [k, v] : doc.get("divergences")->obj()) divergences_[k] = size_t(v.integer());
  if (const Json* seg = doc.get("segments")) segments_ = draw::clone(*seg);
  cov_.restore(*doc.get("coverage"));
  if (const Json* g = doc.get("draw_guide")) guide_.restore(*g);
  digest_ = std::stoull(doc.get_str("draws_digest", "0"), nullptr, 16);
  if (const Json* pd = doc.get("pending")) {
    CaseResult unused;
    for (auto& j : pd->arr()) pending_.push_back(case_of(j, unused));
  }
  // Absent from an exploration written before recorded device findings were told apart: none.
  if (const Json* rf = doc.get("recorded_findings"))
    for (auto& [id, j] : rf->obj()) {
      Recorded& x = recorded_[id];
      x.draws = size_t(j.get_int("draws"));
      for (auto& [k, v] : j.get("classes")->obj()) x.classes[k] = size_t(v.integer());
      x.first = draw::clone(*j.get("first"));
    }
  for (auto& j : doc.get("findings")->arr()) {
    Finding f;
    f.sig = j.get_str("signature");
    f.count = size_t(j.get_int("count"));
    f.first = case_of(*j.get("first"), f.first_result);
    if (const Json* m = j.get("minimal")) {
      f.minimal = case_of(*m, f.minimal_result);
      f.shrunk = true;
      f.shrink_rounds = int(j.get_int("shrink_rounds"));
      f.shrink_cases = int(j.get_int("shrink_candidates"));
      f.shrink_s = j.get("shrink_s") ? j.get("shrink_s")->num() : 0;
      f.shrink_stop = j.get_str("shrink_stop");
    }
    findings_.push_back(f);
  }
}

void Explorer::write(double wall, bool interrupted) {
  Json doc = Json::object();
  doc["schema"] = "ptxcts-explore";
  doc["id"] = o_.id;
  doc["seed"] = (unsigned long long)o_.seed;
  doc["time_s"] = o_.time_s;
  doc["explored_s"] = before_s_ + wall;  // every segment's drawing and running
  doc["interrupted"] = interrupted;
  Json dev = Json::object();
  dev["name"] = ses_.device.name;
  dev["sm"] = ses_.device.sm;
  dev["driver"] = ses_.device.driver;
  dev["kind"] = ses_.device_kind;
  doc["device"] = dev;
  doc["toolchain"] = ses_.toolchain.describe();
  doc["forms_drawable"] = (unsigned long long)forms_.size();
  doc["guided"] = !o_.unguided;
  doc["cases_drawn"] = (unsigned long long)next_;
  Json pend = Json::array();   // drawn, not run (interrupted): --resume runs them first
  for (auto& c : pending_) {
    Json j = Json::object();
    j["form"] = c.form->form;
    j["id"] = c.id;
    j["params"] = draw::clone(c.params);
    pend.push(j);
  }
  doc["pending"] = pend;
  doc["cases_run"] = (unsigned long long)ran_;
  doc["nothing_to_draw"] = (unsigned long long)nothing_;
  doc["cases_per_s"] = double(ran_) / std::max(1e-3, before_s_ + wall);
  Json fam = Json::array();
  for (auto& f : o_.families) fam.push(f);
  doc["families"] = fam;  // as asked (empty: every family with a draw)
  Json seg = Json::object();
  seg["started"] = segment_started_;
  seg["explored_s"] = wall;
  seg["cases_run"] = (unsigned long long)(ran_ - ran_before_);
  if (o_.cases) seg["cases_limit"] = (unsigned long long)o_.cases;  // --cases: draws this segment stopped at
  seg["device"] = ses_.device.name + " (" + ses_.device.sm + ", driver " + ses_.device.driver + ")";
  seg["interrupted"] = interrupted;
  Json segs = draw::clone(segments_);
  segs.push(seg);
  doc["segments"] = segs;
  doc["draw_s"] = drawn_s_;  // the parent's time spent drawing (the rest: the workers' build, launch, judge)
  Json cl = Json::object();
  for (auto& [k, v] : by_class_) cl[k] = (unsigned long long)v;
  doc["classes"] = cl;
  Json dv = Json::object();
  for (auto& [k, v] : divergences_) dv[k] = (unsigned long long)v;
  doc["divergences"] = dv;
  Json fs = Json::array();
  std::vector<ExploredRow> rows;
  for (auto& f : findings_) {
    Json j = Json::object();
    j["signature"] = f.sig;
    j["count"] = (unsigned long long)f.count;
    j["first"] = case_json(f.first, f.first_result);
    if (f.shrunk) {
      j["minimal"] = case_json(f.minimal, f.minimal_result);
      j["shrink_rounds"] = f.shrink_rounds;
      j["shrink_candidates"] = f.shrink_cases;
      j["shrink_s"] = f.shrink_s;
      j["shrink_stop"] = f.shrink_stop;
      // The permanent case: named by its signature, so the same finding found again adds no second row.
      ExploredRow row;
      row.form = f.minimal.form->form;
      row.variant = "explored." + hex(case_seed(0, f.sig + "|" + f.minimal.params.dump())).substr(0, 12);
      row.id = row.form + "#" + row.variant;
      row.params = draw::clone(f.minimal.params);
      // A case that traps runs in the run tier's serial trap phase, alone (session.cpp).
      if (f.minimal_result.cls == cls::crash || f.minimal_result.cls == cls::timeout) row.params["traps"] = true;
      Json found = Json::object();
      found["signature"] = f.sig;
      found["class"] = f.minimal_result.cls;
      found["exploration"] = o_.id;
      found["device"] = ses_.device.name + " (" + ses_.device.sm + ", driver " + ses_.device.driver + ")";
      row.found = found;
      j["permanent_case"] = row.id;
      rows.push_back(row);
    }
    fs.push(j);
  }
  doc["findings"] = fs;
  // Results of a recorded device finding (device_quirks.hpp): not open, not shrunk; by id, with the first draw.
  Json rf = Json::object();
  for (auto& [id, x] : recorded_) {
    Json j = Json::object();
    j["draws"] = (unsigned long long)x.draws;
    Json xc = Json::object();
    for (auto& [k, v] : x.classes) xc[k] = (unsigned long long)v;
    j["classes"] = xc;
    j["first"] = draw::clone(x.first);
    rf[id] = j;
  }
  doc["recorded_findings"] = rf;
  doc["coverage"] = cov_.to_json();
  // The drawing's state after the last case drawn: --resume goes on from it, so the segments draw what one
  // exploration would have.
  doc["draw_guide"] = guide_.to_json();
  doc["draws_digest"] = hex(digest_, 16);  // a dry draw of cases_drawn cases of the seed gives the same
  // A write that fails (a read-only folder, a full disk, a file past `ulimit -f`) ends the exploration with the path
  // and the reason, its documents kept in the rescue folder (rescue.hpp): an exploration that exits 0 having written
  // nothing, or that stops without keeping what it ran, would lose every case it ran.
  std::string sum = summary_text(doc);
  const std::pair<const char*, std::string> files[] = {
      {"explore.json", doc.dump(1) + "\n"},
      {"coverage.svg", cov_.svg("exploration " + o_.id + " on " + ses_.device.name)},
      {"summary.txt", sum}};
  auto write_into = [&](const std::string& dir) -> std::string {
    if (!make_dirs(dir)) return dir + ": cannot create the folder: " + std::strerror(errno);
    for (auto& [name, text] : files)
      if (!write_file(dir + "/" + name, text)) return dir + "/" + name + ": cannot write: " + std::strerror(errno);
    return "";
  };
  std::string refused = write_into(o_.out_dir);
  if (!refused.empty())
    refused = rescue(refused, o_.id, o_.out_dir, "explore.json", ran_, write_into, "--resume then goes on from it");
  std::printf("%s", sum.c_str());
  if (!o_.cases_file.empty() && !rows.empty()) {
    if (auto e = add_explored(o_.cases_file, rows); !e.empty()) std::fprintf(stderr, "explore: %s\n", e.c_str());
    else std::printf("permanent cases: %zu finding(s) kept in %s\n", rows.size(), o_.cases_file.c_str());
  }
  std::fflush(stdout);   // the summary and permanent cases before the error line, not interleaved with it
  if (!refused.empty()) throw std::runtime_error(refused);
  std::printf("exploration: %s/explore.json%s\n", o_.out_dir.c_str(),
              interrupted ? " (interrupted: every result and finding so far is in it)" : "");
}

}  // namespace explore_impl

void load_resume(const std::string& dir, ExploreOptions& o) {
  const std::string path = dir + "/explore.json";
  std::string text;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))   // a FIFO would wait for a writer for ever
    throw std::runtime_error(path + ": is " + (S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a folder" :
                             "a device or socket") + ", not an exploration's explore.json");  // a usage error
  try {
    text = read_file(path);
  } catch (const std::exception&) {
    // a usage error; an exploration stopped before it began writes no document (docs/CLI.md, "Signals")
    throw std::runtime_error("no explore.json there: nothing was explored there (an exploration stopped before its "
                             "first case writes none), or it is not an exploration's folder; start it afresh with "
                             "the same options and --out " + dir);
  }
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const std::exception& e) {
    throw MalformedExplore(path + ": " + e.what());
  }
  auto bad = [&](const std::string& what) { return MalformedExplore(path + ": " + what + " (not an exploration to resume)"); };
  if (!doc.is_object() || doc.get_str("schema") != "ptxcts-explore") throw bad("schema is not 'ptxcts-explore'");
  for (const char* k : {"seed", "cases_drawn", "cases_run", "nothing_to_draw", "explored_s"})
    if (!doc.get(k) || !doc.get(k)->is_number()) throw bad(std::string("field '") + k + "' is missing or not a number");
  for (const char* k : {"classes", "divergences", "coverage", "device"})
    if (!doc.get(k) || !doc.get(k)->is_object()) throw bad(std::string("field '") + k + "' is missing or not an object");
  if (!doc.get("findings") || !doc.get("findings")->is_array()) throw bad("field 'findings' is missing or not an array");
  if (const Json* pd = doc.get("pending")) {
    if (!pd->is_array()) throw bad("field 'pending' is not an array");
    for (auto& j : pd->arr())
      if (!j.is_object() || !j.get("form") || !j.get("form")->is_string() || !j.get("id") || !j.get("id")->is_string() ||
          !j.get("params") || !j.get("params")->is_object())
        throw bad("field 'pending': each entry must be {\"form\": ..., \"id\": ..., \"params\": {...}}");
  }
  if (!doc.get("id") || !doc.get("id")->is_string() || doc.get("id")->str().empty())
    throw bad("field 'id' is missing or not a string");
  // Counts and times add up over the segments of an exploration: each must be a finite number >= 0, a count
  // an integer (a negative or fractional one would carry on into every later segment).
  auto count = [&](const Json& v, const std::string& at) {
    if (!v.is_number() || !(v.num() >= 0) || v.num() > 1e18 || v.num() != std::floor(v.num()))
      throw bad("field '" + at + "' must be an integer >= 0");
  };
  for (const char* k : {"cases_drawn", "cases_run", "nothing_to_draw"}) count(*doc.get(k), k);
  if (double x = doc.get("seed")->num(); !(x >= 0) || x != std::floor(x) || x >= 18446744073709551616.0)
    throw bad("field 'seed' must be an integer from 0 to 2^64-1");
  for (const char* k : {"explored_s", "draw_s"})
    if (const Json* v = doc.get(k); v && (!v->is_number() || !(v->num() >= 0) || !std::isfinite(v->num())))
      throw bad(std::string("field '") + k + "' must be a number of seconds >= 0");
  for (const char* k : {"classes", "divergences"})
    for (auto& [name, v] : doc.get(k)->obj()) count(v, std::string(k) + "." + name);
  for (auto& [name, v] : doc.get("coverage")->obj()) {
    if (!v.is_object()) throw bad("field 'coverage." + name + "' must be an object");
    if (const Json* hits = v.get("hits")) {
      if (!hits->is_object()) throw bad("field 'coverage." + name + ".hits' must be an object");
      for (auto& [bin, n] : hits->obj()) count(n, "coverage." + name + ".hits." + bin);
    }
  }
  // Every case run leaves its bins in the coverage: none at all beside cases run is a coverage lost, and
  // resuming would restart the guide from nothing while counting the old cases as covered.
  if (doc.get("coverage")->obj().empty() && doc.get("cases_run")->num() > 0)
    throw bad("field 'coverage' is empty, but cases_run is " + std::to_string(uint64_t(doc.get("cases_run")->num())) +
              ": the coverage of the cases run is missing");
  size_t i = 0;
  for (auto& f : doc.get("findings")->arr()) {
    const std::string at = "findings[" + std::to_string(i++) + "]";
    if (!f.is_object() || f.get_str("signature").empty()) throw bad(at + ".signature is missing");
    if (const Json* n = f.get("count")) count(*n, at + ".count");
    for (const char* k : {"first", "minimal"}) {
      const Json* c = f.get(k);
      if (!c) {
        if (std::string(k) == "first") throw bad(at + ".first is missing");
        continue;
      }
      if (c->get_str("id").empty() || c->get_str("form").empty() || !c->get("params") || !c->get("params")->is_object())
        throw bad(at + "." + k + " needs 'id', 'form' and an object 'params'");
    }
  }
  if (const Json* rf = doc.get("recorded_findings")) {  // optional: an older explore.json has none
    if (!rf->is_object()) throw bad("field 'recorded_findings' must be an object");
    for (auto& [id, j] : rf->obj()) {
      const std::string at = "recorded_findings." + id;
      if (!j.is_object() || !j.get("draws") || !j.get("classes") || !j.get("classes")->is_object())
        throw bad("field '" + at + "' needs 'draws' and an object 'classes'");
      count(*j.get("draws"), at + ".draws");
      for (auto& [k, n] : j.get("classes")->obj()) count(n, at + ".classes." + k);
      const Json* c = j.get("first");
      if (!c || !c->is_object() || c->get_str("id").empty() || c->get_str("form").empty())
        throw bad("field '" + at + ".first' needs 'id' and 'form'");
    }
  }
  if (const Json* fam = doc.get("families")) {
    if (!fam->is_array()) throw bad("field 'families' must be an array of family names (e.g. [\"cp.async.bulk\"])");
    size_t k = 0;
    for (auto& f : fam->arr()) {
      if (!f.is_string() || f.str().empty())
        throw bad("field 'families[" + std::to_string(k) + "]' must be a family name (a non-empty string)");
      o.families.push_back(f.str());
      ++k;
    }
  }
  if (const Json* g = doc.get("draw_guide")) {
    // The drawing's state (DrawGuide::to_json): counts only, each an integer >= 0.
    if (!g->is_object()) throw bad("field 'draw_guide' must be an object");
    auto counts = [&](const Json* obj, const std::string& at) {
      if (!obj) return;
      if (!obj->is_object()) throw bad("field '" + at + "' must be an object");
      for (auto& [k, n] : obj->obj()) count(n, at + "." + k);
    };
    if (const Json* d = g->get("drawn")) {
      if (!d->is_object()) throw bad("field 'draw_guide.drawn' must be an object");
      for (auto& [name, v] : d->obj()) {
        if (!v.is_object()) throw bad("field 'draw_guide.drawn." + name + "' must be an object");
        counts(v.get("hits"), "draw_guide.drawn." + name + ".hits");
      }
    }
    if (const Json* t = g->get("tried")) {
      if (!t->is_object()) throw bad("field 'draw_guide.tried' must be an object");
      for (auto& [name, v] : t->obj()) counts(&v, "draw_guide.tried." + name);
    }
    counts(g->get("form_score"), "draw_guide.form_score");
  }
  if (const Json* g = doc.get("guided"); g && !g->is_bool()) throw bad("field 'guided' must be true or false");
  if (const Json* d = doc.get("draws_digest")) {
    const std::string t = d->is_string() ? d->str() : "";
    if (t.size() < 3 || t.compare(0, 2, "0x") != 0 || t.size() > 18 ||
        t.find_first_not_of("0123456789abcdef", 2) != std::string::npos)
      throw bad("field 'draws_digest' must be a hexadecimal string 0x...");
  }
  if (const Json* g = doc.get("guided")) o.unguided = !g->boolean();
  o.seed = uint64_t(doc.get("seed")->integer());
  o.id = doc.get_str("id");
  o.out_dir = dir;
  o.resumed = std::move(doc);
}

}  // namespace ptxcts::run
