#include "explore.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <future>
#include <map>
#include <regex>
#include <set>

#include "abi.hpp"
#include "batch.hpp"
#include "explore_coverage.hpp"
#include "explore_draw.hpp"
#include "explore_encode_rules.hpp"
#include "explore_registry.hpp"
#include "explore_state.hpp"
#include "explored.hpp"
#include "util.hpp"

namespace ptxcts::run {

using explore_impl::Explorer;

const ExploreRegistry& explore_registry() {
  static const ExploreRegistry r = [] {
    ExploreRegistry x;
    register_explore_tensor(x);
    register_explore_bulk(x);
    return x;
  }();
  return r;
}

namespace {

// The forms of the selected families whose ABI has a draw: valid ones. `unreachable` gets those the run tier runs
// no case of (every case it plans is not_supported, e.g. a load mode it does not drive yet), with the reason;
// they are never drawn.
// A whole-product combination the device cannot run (Form::may_run_on; `sm` "" when no device was asked) is not
// drawn either.
std::vector<const Form*> drawable(const std::vector<Form>& forms, const std::vector<std::string>& families,
                                  const PlanOptions& plan, const std::string& sm = "",
                                  std::vector<std::pair<const Form*, std::string>>* unreachable = nullptr) {
  std::vector<const Form*> v;
  for (auto& f : forms) {
    if (!f.valid()) continue;
    auto it = explore_registry().find(f.abi);
    if (it == explore_registry().end() || !it->second.draw) continue;
    if (!families.empty() && std::find(families.begin(), families.end(), f.family) == families.end()) continue;
    if (!f.may_run_on(sm)) {
      if (unreachable) unreachable->push_back({&f, "not valid on " + sm + " or " + sm + "a: its targets are " + f.targets});
      continue;
    }
    std::string why;
    if (auto ab = abi_registry().find(f.abi); ab != abi_registry().end()) {
      auto vs = ab->second.variants(f, plan);
      for (auto& [name, params] : vs) {
        why = params.get_str("not_supported");
        if (why.empty()) break;
      }
    }
    if (why.empty()) v.push_back(&f);
    else if (unreachable) unreachable->push_back({&f, "no case of the run tier runs it: " + why});
  }
  return v;
}

const Form* encode_form_for(const Json& params) {
  bool im2col = params.get("map") && params.get("map")->get_str("kind") == "im2col";
  for (auto& f : encode_forms())
    if ((f.instr == "cuTensorMapEncodeIm2col") == im2col) return &f;
  return nullptr;
}

// A finding's kind, without the numbers of one instance: family, class and the message's shape (numbers and hex
// words become '#', names with digits stay, the first mismatch's place is kept, values are dropped).
std::string shape_of_message(const std::string& m) {
  std::string s;
  for (size_t i = 0; i < m.size() && s.size() < 400; ++i) {
    char c = m[i];
    // A digit inside a word (im2col, f32, interleave32_swizzle32, sm_90) is part of a name, kept as written.
    const bool in_word = i > 0 && (std::isalpha(static_cast<unsigned char>(m[i - 1])) || m[i - 1] == '_' ||
                                   (std::isdigit(static_cast<unsigned char>(m[i - 1])) && !s.empty() && s.back() != '#'));
    if (std::isdigit(static_cast<unsigned char>(c)) && !in_word) {
      while (i + 1 < m.size() && (std::isxdigit(static_cast<unsigned char>(m[i + 1])) || m[i + 1] == 'x')) ++i;
      if (s.empty() || s.back() != '#') s += '#';
      continue;
    }
    if (c == ':' && m.compare(i, 11, ": expected ") == 0) break;  // the values of the first mismatch
    s += c;
  }
  return s;
}

// Instance detail that does not change what a finding is: the coordinates of the first mismatching element, the
// list of alternatives the judge tried, and where the device's and the model's bytes went (judge.cpp's written).
std::string without_instance(std::string s) {
  static const std::regex detail(R"( ?\(and from every alternative involved:[^)]*\)|coords \([^)]*\)|; the device changed .*$)");
  return std::regex_replace(s, detail, "");
}

std::string signature(const CaseResult& r) {
  return r.family + " | " + r.cls + " | " + without_instance(shape_of_message(r.message));
}



// The sibling form of one rank less (same family and ABI, every run field equal but dims): where a tensor
// case's dimension is dropped. nullptr when the manifest has none.
const Form* rank_down_form(const std::vector<Form>& forms, const Form& f, long long rank) {
  Json want = draw::clone(f.run);
  want[contract::field::dims] = rank;
  for (auto& g : forms)
    if (g.valid() && g.family == f.family && g.abi == f.abi && g.run.dump() == want.dump()) return &g;
  return nullptr;
}


}  // namespace

namespace explore_impl {

RunCase Explorer::make_case(const Form& f, const std::string& variant, const Json& params) const {
  RunCase c;
  c.form = &f;
  c.variant = variant;
  c.id = f.form + "#" + variant;
  c.params = params;
  c.explicit_params = true;
  c.ptx = ses_.toolchain.ptx.empty() ? c.ptx : ses_.toolchain.ptx;
  return c;
}

std::vector<RunCase> Explorer::draw_chunk(size_t n, double until) {
  std::vector<RunCase> out;
  out.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    if (k % 64 == 63 && (g_stop_requested || (until > 0 && now_s() > until))) break;
    const uint64_t idx = next_++;
    const uint64_t cs = case_seed(o_.seed, "explore#" + std::to_string(idx));
    Rng r(cs);
    const Form& f = guide_.pick_form(r, !o_.unguided);
    Json p = explore_registry().at(f.abi).draw(f, r, ses_.plan, o_.unguided ? nullptr : &guide_);
    guide_.drew_form(!p.is_null() && !p.get("encode_only"));
    if (p.is_null()) { ++nothing_; continue; }
    const Form* g = p.get("encode_only") ? encode_form_for(p) : &f;
    if (p.get("encode_only")) p["drawn_for"] = f.form;
    out.push_back(make_case(*g, "x" + hex(o_.seed) + "." + std::to_string(idx), p));
    guide_.drawn.add(out.back());
    digest_ = case_seed(digest_, out.back().id + "|" + p.dump());
  }
  return out;
}

std::vector<CaseResult> Explorer::execute(std::vector<RunCase> cases) {
  ses_.cases = std::move(cases);
  return ses_.execute();
}

// Greedy shrinking: all one-step simplifications of the current case run as one batch; the first (in the
// family's order: nearest the simplest first) that still shows the same signature becomes the current case.
void Explorer::shrink(Finding& f, double until) {
  const double t0 = now_s();
  RunCase cur = f.first;
  CaseResult cur_r = f.first_result;
  const std::string want = f.sig;
  int round = 0;
  f.shrink_stop = "no simpler case reproduces";
  while (!g_stop_requested) {
    if (now_s() > until) { f.shrink_stop = "shrink time spent"; break; }
    auto it = explore_registry().find(cur.form->abi);
    const ExploreDriver* d = it == explore_registry().end() ? nullptr : &it->second;
    if (!d || !d->simplify) { f.shrink_stop = "the family has no simplifications"; break; }
    std::vector<RunCase> cands;
    for (auto& q : d->simplify(*cur.form, cur.params)) {
      const Form* g = cur.form;
      Json p = q;
      if (auto* rd = p.get("rank_down")) {
        g = rank_down_form(ses_.forms, *cur.form, rd->integer());
        Json clean = Json::object();
        for (auto& [k, v] : p.obj())
          if (k != "rank_down") clean[k] = v;
        p = clean;
        if (!g) continue;
      }
      RunCase c = make_case(*g, f.first.variant + ".s" + std::to_string(round) + "." + std::to_string(cands.size()), p);
      Setup s;
      try {
        build_setup(c, case_seed(ses_.seed, c.id), ses_.plan, s);  // a candidate the builder refuses is not legal
      } catch (const std::exception&) {
        continue;
      }
      cands.push_back(c);
    }
    if (cands.empty()) break;
    f.shrink_cases += int(cands.size());
    auto rs = execute(cands);
    std::map<std::string, const CaseResult*> by_id;
    for (auto& r : rs) by_id[r.id] = &r;
    bool moved = false;
    for (auto& c : cands) {
      auto it = by_id.find(c.id);
      if (it != by_id.end() && signature(*it->second) == want) {
        cur = c;
        cur_r = *it->second;
        moved = true;
        break;
      }
    }
    ++round;
    if (!moved) break;
  }
  f.minimal = cur;
  f.minimal_result = cur_r;
  f.shrink_rounds = round;
  f.shrink_s = now_s() - t0;
  f.shrunk = true;
}

// --resume: the earlier segments' counts, coverage and findings (their first and, when shrunk, minimal cases);
// drawing goes on at the next case index of the same seed, so the segments draw what one run would have.

void Explorer::set_up() {
  std::vector<std::pair<const Form*, std::string>> unreachable;
  forms_ = drawable(ses_.forms, o_.families, ses_.plan, ses_.device.sm, &unreachable);
  if (forms_.empty()) throw std::runtime_error("no form of the selected families can be drawn");
  std::vector<const Form*> all = forms_;
  for (auto& [f, why] : unreachable) all.push_back(f);
  guide_.set_forms(forms_);
  for (Coverage* c : {&cov_, &guide_.drawn}) {
    c->set_forms(all);
    for (auto& [f, why] : unreachable) c->set_unreachable("form", f->form, why);
    for (auto& t : encode_rule_targets())
      if (!t.unreachable.empty()) c->set_unreachable("encode.rule_broken", t.rule, t.unreachable);
  }
}

int Explorer::run() {
  set_up();
  if (!o_.resumed.is_null()) restore(o_.resumed);
  ran_before_ = ran_;
  const double t0 = now_s(), end = t0 + o_.time_s;
  ses_.deadline = end;
  // --cases: the draw index this segment stops at (the deadline still applies).
  const uint64_t last = o_.only_pending ? next_ : o_.cases ? next_ + o_.cases : UINT64_MAX;
  size_t chunk = 256;
  double last_print = -1e9;  // the first progress line after the first chunk, then one every 2 s or so
  std::fprintf(stderr, "explore: %zu form(s), seed %llu, %.0f s on %s (%s)%s\n", forms_.size(),
               (unsigned long long)o_.seed, o_.time_s, ses_.device.name.c_str(), ses_.device.sm.c_str(),
               o_.resumed.is_null() ? "" : (", resuming " + o_.id + " at case " + std::to_string(next_) + " after " +
                                            std::to_string(int(before_s_)) + " s").c_str());
  // The next chunk is drawn while the current one runs (the parent draws, the workers build, launch and judge).
  auto draw_async = [&](size_t n) {
    return std::async(std::launch::async, [this, n, end, last] {
      const double td = now_s();
      // a chunk still drawing at the end stops: nothing would run it
      auto v = draw_chunk(size_t(std::min<uint64_t>(n, last - next_)), end);
      drawn_s_ += now_s() - td;
      return v;
    });
  };
  // the cases an earlier segment drew and a signal kept from running come first (they hold no draw of this call)
  std::vector<RunCase> resumed = std::move(pending_);
  pending_.clear();
  auto next = draw_async(resumed.empty() ? chunk : 0);
  while (now_s() < end && !g_stop_requested) {
    const bool from_pending = !resumed.empty();
    auto cases = from_pending ? std::move(resumed) : next.get();
    resumed.clear();
    if (cases.empty() && next_ >= last) break;  // --cases drawn, and each of them run
    std::map<std::string, const RunCase*> by_id;
    for (auto& c : cases) by_id[c.id] = &c;
    const double tc = now_s();
    if (next.valid()) next.wait();   // the empty draw started beside the pending cases
    next = draw_async(chunk);
    auto rs = execute(cases);
    const double took = now_s() - tc;
    std::set<std::string> ran_ids;
    for (auto& r : rs)
      if (r.cls != cls::skipped) ran_ids.insert(r.id);
    if (g_stop_requested || now_s() >= end)   // stopped in this chunk: what it did not run waits for --resume
      for (auto& c : cases)
        if (!ran_ids.count(c.id)) pending_.push_back(c);
    for (auto& r : rs) {
      if (r.cls == cls::skipped) continue;
      auto it = by_id.find(r.id);
      if (it == by_id.end()) continue;
      ++ran_;
      ++by_class_[r.cls];
      cov_.add(*it->second);
      if (r.cls == cls::spec_divergence) ++divergences_[r.family + " | " + r.details.get_str("matched_policy", shape_of_message(r.message))];
      if (const std::string rec = recorded_finding_of(r); !rec.empty()) {
        Recorded& x = recorded_[rec];
        if (x.draws++ == 0) x.first = case_json(*it->second, r);
        ++x.classes[r.cls];
        continue;
      }
      if (!is_finding(r)) continue;
      std::string sig = signature(r);
      auto fit = std::find_if(findings_.begin(), findings_.end(), [&](const Finding& x) { return x.sig == sig; });
      if (fit != findings_.end()) { ++fit->count; continue; }
      Finding f;
      f.sig = sig;
      f.count = 1;
      f.first = *it->second;
      f.first_result = r;
      findings_.push_back(f);
    }
    // The chunk after next: about 30 s of cases at the rate just measured (each chunk starts and ends its
    // workers, whose contexts the driver makes and tears down one at a time: fewer chunks, less of that).
    size_t executed = 0;
    for (auto& r : rs) executed += r.cls != cls::skipped;
    const double rate = double(executed) / std::max(0.05, took);
    chunk = size_t(std::clamp(rate * 30.0, 256.0, 60000.0));
    const double el = now_s() - t0;
    if (!o_.quiet && (el - last_print > 2 || now_s() >= end)) {
      last_print = el;
      size_t recorded = 0;
      for (auto& [id, x] : recorded_) recorded += x.draws;
      std::fprintf(stderr, "\rexplore: %zu cases, %.0f/s, %zu finding signature(s), %zu divergence signature(s), "
                   "%zu of recorded device findings, %.0f s left   ",
                   ran_, double(ran_) / std::max(1e-3, before_s_ + el), findings_.size(), divergences_.size(),
                   recorded, std::max(0.0, end - now_s()));
    }
  }
  const double explore_s = now_s() - t0;
  if (next.valid()) {   // no chunk in flight when --cases' last one ran
    auto ahead = next.get();
    // drawn ahead and never run: the drawing's state is past them, so they wait for --resume (an exploration that
    // ends at its time runs them then too; one that ends at --cases has none)
    if (g_stop_requested || now_s() >= end)
      for (auto& c : ahead) pending_.push_back(std::move(c));
  }
  for (auto& c : resumed) pending_.push_back(std::move(c));   // stopped before the pending cases ran
  std::fprintf(stderr, "\n");
  // Shrinking: each finding in turn, within the shrink budget (the same isolated workers; no deadline).
  ses_.deadline = 0;
  const double shrink_end = now_s() + o_.shrink_s;
  std::vector<Finding*> todo;  // --shrink-time 0 shrinks none: a later --resume does
  for (auto& f : findings_)
    if (!f.shrunk && o_.shrink_s > 0) todo.push_back(&f);
  for (size_t i = 0; i < todo.size() && !g_stop_requested; ++i) {
    auto& f = *todo[i];
    const double share = (shrink_end - now_s()) / double(todo.size() - i);
    shrink(f, now_s() + std::max(0.0, share));
    std::fprintf(stderr, "explore: shrank %s in %d round(s), %d candidate(s), %.1f s: %s\n", f.sig.c_str(),
                 f.shrink_rounds, f.shrink_cases, f.shrink_s, f.minimal.id.c_str());
  }
  write(explore_s, g_stop_requested != 0);
  if (g_stop_requested) return 128 + int(g_stop_requested);
  return findings_.empty() ? 0 : 1;  // recorded device findings alone leave it 0: none is open
}



}  // namespace explore_impl

std::vector<std::string> explorable_families(const std::vector<Form>& forms) {
  std::set<std::string> s;
  for (auto* f : drawable(forms, {}, PlanOptions{})) s.insert(f->family);
  return {s.begin(), s.end()};
}

int explore(Session& ses, const ExploreOptions& o) {
  Explorer e(ses, o);
  return o.dry_draws ? e.dry_draw() : e.run();
}


}  // namespace ptxcts::run
