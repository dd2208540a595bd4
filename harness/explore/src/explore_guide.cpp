#include "explore_guide.hpp"

namespace ptxcts::run {

void DrawGuide::set_forms(const std::vector<const Form*>& forms) {
  forms_ = forms;
  form_score_.assign(forms.size(), 0);
}

const Form& DrawGuide::pick_form(Rng& r, bool guided) {
  size_t k = 0;
  if (guided && r.below(2) == 0) {
    size_t low = SIZE_MAX, ties = 0;
    for (size_t i = 0; i < form_score_.size(); ++i) {
      if (form_score_[i] < low) { low = form_score_[i]; ties = 0; }
      if (form_score_[i] == low) ++ties;
    }
    size_t want = r.below(ties);
    for (k = 0; k < form_score_.size(); ++k)
      if (form_score_[k] == low && want-- == 0) break;
  } else {
    k = r.below(forms_.size());
  }
  last_form_ = k;
  return *forms_[k];
}

void DrawGuide::drew_form(bool run_case) { form_score_[last_form_] += run_case ? 4 : 1; }

uint64_t DrawGuide::least_value(const std::string& param, uint64_t lo, uint64_t hi, Rng& r, uint64_t fallback) {
  std::vector<std::string> c;
  for (auto& b : drawn.bins(param)) {
    auto [blo, bhi] = bin_range(b);
    if (bhi && blo >= lo && bhi <= hi && !drawn.unreachable(param, b)) c.push_back(b);
  }
  if (c.empty()) return fallback;
  auto [blo, bhi] = bin_range(least(param, c, r));
  return blo + r.below(bhi - blo + 1);
}

std::string DrawGuide::least(const std::string& param, const std::vector<std::string>& candidates, Rng& r) {
  if (candidates.empty()) return "";
  auto& tried = tried_[param];
  std::vector<const std::string*> best;
  size_t low = SIZE_MAX;
  for (auto& b : candidates) {
    auto t = tried.find(b);
    const size_t n = drawn.hits(param, b) + (t == tried.end() ? 0 : t->second);
    if (n < low) { low = n; best.clear(); }
    if (n == low) best.push_back(&b);
  }
  const std::string& pick = *best[r.below(best.size())];
  ++tried[pick];
  return pick;
}

std::string DrawGuide::least(const std::string& param, Rng& r) {
  std::vector<std::string> c;
  for (auto& b : drawn.bins(param))
    if (!drawn.unreachable(param, b)) c.push_back(b);
  return least(param, c, r);
}

Json DrawGuide::to_json() const {
  Json j = Json::object(), t = Json::object();
  for (auto& [param, bins] : tried_) {
    Json b = Json::object();
    for (auto& [bin, n] : bins) b[bin] = (unsigned long long)n;
    t[param] = b;
  }
  Json f = Json::object();
  for (size_t i = 0; i < forms_.size(); ++i)
    if (form_score_[i]) f[forms_[i]->form] = (unsigned long long)form_score_[i];
  j["drawn"] = drawn.to_json();
  j["tried"] = t;
  j["form_score"] = f;
  return j;
}

void DrawGuide::restore(const Json& j) {
  if (const Json* d = j.get("drawn")) drawn.restore(*d);
  if (const Json* t = j.get("tried"))
    for (auto& [param, bins] : t->obj())
      for (auto& [bin, n] : bins.obj()) tried_[param][bin] += size_t(n.integer());
  if (const Json* f = j.get("form_score"))
    for (size_t i = 0; i < forms_.size(); ++i)
      if (const Json* n = f->get(forms_[i]->form)) form_score_[i] += size_t(n->integer());
}

}  // namespace ptxcts::run
