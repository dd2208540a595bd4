#include "explore_coverage.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "ptxcts/ref/tensormap.hpp"
#include "ptxcts/xml.hpp"
#include "tensor_form.hpp"
#include "tensor_map_json.hpp"
#include "tensor_maps.hpp"
#include "util.hpp"

namespace ptxcts::run {

namespace {

// Power-of-two bins from `low` (a power of two) up to `top`: low 1 gives "1", "2", "3-4", "5-8", ...; low 16
// gives "16", "17-32", "33-64", ... (a parameter whose values start at 16 has no bins below it to miss).
std::vector<std::string> pow2_bins(uint64_t top, uint64_t low = 1) {
  std::vector<std::string> v = {std::to_string(low)};
  for (uint64_t lo = low + 1, hi = low * 2; hi <= top; lo = hi + 1, hi *= 2)
    v.push_back(lo == hi ? std::to_string(hi) : std::to_string(lo) + "-" + std::to_string(hi));
  return v;
}
std::string pow2_bin(uint64_t x, uint64_t low = 1) {
  if (x <= low) return std::to_string(low);
  uint64_t hi = low * 2;
  while (hi < x) hi *= 2;
  return hi / 2 + 1 == hi ? std::to_string(hi) : std::to_string(hi / 2 + 1) + "-" + std::to_string(hi);
}
// The largest power of two dividing x (x = 0: "0").
std::string granule(uint64_t x, uint64_t cap) {
  if (x == 0) return "0";
  uint64_t g = 1;
  while (x % (g * 2) == 0 && g * 2 <= cap) g *= 2;
  return std::to_string(g);
}
std::vector<std::string> names(std::initializer_list<const char*> v) { return {v.begin(), v.end()}; }
std::vector<std::string> range_bins(int lo, int hi) {
  std::vector<std::string> v;
  for (int i = lo; i <= hi; ++i) v.push_back(std::to_string(i));
  return v;
}

// Where a coordinate puts the box along one dimension.
const char* coord_place(int64_t c, int64_t span, int64_t dim) {
  if (c + span <= 0) return "outside_low";
  if (c < 0) return "low_edge";
  if (c >= dim) return "outside_high";
  if (c + span > dim) return "high_edge";
  return "inside";
}

const std::map<std::string, std::vector<std::string>>& fixed_bins() {
  static const std::map<std::string, std::vector<std::string>> m = [] {
    std::map<std::string, std::vector<std::string>> b;
    std::vector<std::string> dt, rules;
    for (int i = 0; i < 16; ++i) dt.push_back(ref::to_string(ref::TensorDataType(i)));
    for (auto& [n, s] : ref::encode_rules()) rules.push_back(n);
    b["tensor.dtype"] = dt;
    b["tensor.rank"] = range_bins(1, 5);
    b["tensor.mode"] = names({"tile", "im2col", "im2col_no_offs"});
    b["tensor.direction"] = names({"load", "store", "reduce", "prefetch"});
    for (int i = 0; i < 4; ++i) b["tensor.swizzle"].push_back(ref::to_string(ref::Swizzle(i)));  // sm_90's modes
    for (int i = 0; i < 3; ++i) b["tensor.interleave"].push_back(ref::to_string(ref::Interleave(i)));
    for (int i = 0; i < 2; ++i) b["tensor.oob_fill"].push_back(ref::to_string(ref::OobFill(i)));
    for (int i = 0; i < 4; ++i) b["tensor.l2_promotion"].push_back(ref::to_string(ref::L2Promotion(i)));
    b["tensor.box"] = pow2_bins(256);
    b["tensor.inner_box_vs_swizzle_span"] = names({"below", "at", "above"});
    b["tensor.element_stride"] = range_bins(1, 8);
    b["tensor.coords"] = names({"inside", "low_edge", "high_edge", "outside_low", "outside_high"});
    b["tensor.strides"] = names({"dense", "padded"});
    b["tensor.smem_offset_granule"] = names({"16", "32", "64", "128", "256", "512", "1024"});
    b["tensor.global_base_granule"] = names({"0", "16", "32", "64", "128"});
    b["im2col.channels_per_pixel"] = pow2_bins(256);
    b["im2col.pixels_per_column"] = pow2_bins(1024);
    b["im2col.corners"] = names({"negative", "zero", "positive"});
    b["encode.verdict"] = names({"legal", "illegal"});
    b["encode.rule_broken"] = rules;
    b["cluster.size"] = range_bins(1, 16);
    b["cluster.mask_bits"] = pow2_bins(16);
    b["cluster.peer"] = names({"0", "other"});
    b["bulk.size"] = pow2_bins(1 << 18, 16);
    b["bulk.align"] = names({"16", "32", "48", "64", "80", "96", "112", "128"});
    b["cp_async.cp_size"] = names({"4", "8", "16"});
    b["cp_async.src_size"] = names({"zero", "partial", "full"});
    b["cp_async.ignore_src"] = names({"0", "1"});
    b["cp_async.align"] = names({"4", "8", "16", "32", "64", "128", "256", "512", "1024"});
    return b;
  }();
  return m;
}

// The named alternatives that add encode rules of their own: those a rule's sentence names ("Measured, not
// documented (policy im2col_channel_bytes=multiple_16B): ..."). An alternative that drops a documented rule
// breaks none, and the validator runs for every drawn map: the others are not asked.
const std::vector<ref::PolicySet>& alternatives_with_rules() {
  static const std::vector<ref::PolicySet> v = [] {
    std::vector<ref::PolicySet> out;
    for (auto& [name, ps] : ref::single_deviations(ref::PolicySet{}))
      for (auto& [rule, sentence] : ref::encode_rules())
        if (sentence.find("(policy " + name + ")") != std::string::npos) {
          out.push_back(ps);
          break;
        }
    return out;
  }();
  return v;
}

}  // namespace

Coverage::Param& Coverage::param(const std::string& name) {
  auto it = params_.find(name);
  if (it != params_.end()) return it->second;
  order_.push_back(name);
  Param& p = params_[name];
  auto fb = fixed_bins().find(name);
  if (fb != fixed_bins().end()) p.bins = fb->second;
  return p;
}

void Coverage::hit(const std::string& name, const std::string& bin) { ++param(name).hits[bin]; }

void Coverage::set_forms(const std::vector<const Form*>& forms) {
  Param& p = param("form");
  for (auto* f : forms) p.bins.push_back(f->form);
  // Every parameter listed from the start, reached or not: an exploration that never reached one shows it.
  for (auto& [n, b] : fixed_bins()) param(n);
}

void Coverage::set_unreachable(const std::string& name, const std::string& bin, const std::string& reason) {
  param(name).unreachable[bin] = reason;
}

const std::vector<std::string>& Coverage::bins(const std::string& name) const {
  static const std::vector<std::string> none;
  auto it = params_.find(name);
  return it == params_.end() ? none : it->second.bins;
}

size_t Coverage::hits(const std::string& name, const std::string& bin) const {
  auto it = params_.find(name);
  if (it == params_.end()) return 0;
  auto h = it->second.hits.find(bin);
  return h == it->second.hits.end() ? 0 : h->second;
}

bool Coverage::unreachable(const std::string& name, const std::string& bin) const {
  auto it = params_.find(name);
  return it != params_.end() && it->second.unreachable.count(bin) > 0;
}

std::pair<size_t, size_t> Coverage::reached(const std::string& name) const {
  auto it = params_.find(name);
  if (it == params_.end()) return {0, 0};
  size_t reached = 0, reachable = 0;
  for (auto& b : it->second.bins) {
    if (it->second.unreachable.count(b)) continue;
    ++reachable;
    reached += it->second.hits.count(b);
  }
  return {reached, reachable};
}

void Coverage::add(const RunCase& c) {
  const Json& p = c.params;
  if (c.form->family != "tensormap.encode") hit("form", c.form->form);
  if (const Json* mj = p.get("map")) {
    const ref::TensorMapParams m = tmaps::map_from_json(*mj);
    auto v = ref::validate_encode(m, 90);
    hit("encode.verdict", v.must_reject() ? "illegal" : "legal");
    // A rule is broken where the documented rules or a named alternative of them (the judge tries each) say so:
    // im2col_channel_bytes_multiple16 is a rule of an alternative only.
    std::set<std::string> broken;
    for (auto& x : v.violations) broken.insert(x.rule);
    for (auto& ps : alternatives_with_rules())
      for (auto& x : ref::validate_encode(m, 90, ps).violations) broken.insert(x.rule);
    for (auto& rule : broken) hit("encode.rule_broken", rule);
    hit("tensor.dtype", ref::to_string(m.dtype));
    hit("tensor.rank", std::to_string(m.rank));
    hit("tensor.swizzle", ref::to_string(m.swizzle));
    hit("tensor.interleave", ref::to_string(m.interleave));
    hit("tensor.oob_fill", ref::to_string(m.oob_fill));
    hit("tensor.l2_promotion", ref::to_string(m.l2_promotion));
    bool padded = false;
    auto dense = ref::dense_strides(m.dtype, m.rank, m.dims);
    for (unsigned i = 0; i + 1 < m.rank; ++i) padded |= m.strides[i] != dense[i];
    hit("tensor.strides", padded ? "padded" : "dense");
    hit("tensor.global_base_granule", granule(m.global_address - 1024, 128));
    if (m.kind == ref::EncodeKind::tiled) {
      for (unsigned i = 0; i < m.rank; ++i) {
        hit("tensor.box", pow2_bin(m.box[i]));
        hit("tensor.element_stride", std::to_string(m.element_strides[i]));
      }
      if (unsigned span = ref::swizzle_span(m.swizzle)) {
        uint64_t bytes = uint64_t(m.box[0]) * ref::element_bits(m.dtype) / 8;
        hit("tensor.inner_box_vs_swizzle_span", bytes < span ? "below" : bytes == span ? "at" : "above");
      }
    } else {
      hit("im2col.channels_per_pixel", pow2_bin(m.channels_per_pixel));
      hit("im2col.pixels_per_column", pow2_bin(m.pixels_per_column));
      for (unsigned s = 0; s + 2 < m.rank; ++s)
        for (int x : {m.lower_corner[s], m.upper_corner[s]}) hit("im2col.corners", x < 0 ? "negative" : x == 0 ? "zero" : "positive");
    }
    if (const Json* aj = p.get("access"); aj && c.form->family != "tensormap.encode") {
      const ref::TensorAccess a = tmaps::access_from_json(*aj);
      const TensorForm t = tform(*c.form);
      hit("tensor.mode", ref::to_string(a.mode));
      hit("tensor.direction", t.prefetch ? "prefetch" : t.reduce ? "reduce" : t.store ? "store" : "load");
      hit("tensor.smem_offset_granule", granule(a.smem_offset, 1024));
      for (unsigned i = 0; i < m.rank; ++i) {
        int64_t span = m.kind == ref::EncodeKind::tiled ? int64_t(m.box[i]) : 1;
        hit("tensor.coords", coord_place(a.coords[i], span, int64_t(m.dims[i])));
      }
    }
  } else if (p.get("cp_size")) {
    const uint64_t cp = uint64_t(p.get_int("cp_size")), ss = uint64_t(p.get_int("src_size"));
    hit("cp_async.cp_size", std::to_string(cp));
    hit("cp_async.src_size", ss == 0 ? "zero" : ss < cp ? "partial" : "full");
    hit("cp_async.ignore_src", std::to_string(p.get_int("ignore_src")));
    hit("cp_async.align", std::to_string(p.get_int("align")));
  } else if (p.get("size")) {
    hit("bulk.size", pow2_bin(uint64_t(p.get_int("size")), 16));
    hit("bulk.align", std::to_string(p.get_int("align")));
  }
  if (c.form->family != "tensormap.encode" && !p.get("cp_size")) {
    const uint64_t cluster = uint64_t(p.get_int("cluster", 1)), mask = uint64_t(p.get_int("cta_mask"));
    hit("cluster.size", std::to_string(cluster));
    if (mask) hit("cluster.mask_bits", pow2_bin(uint64_t(__builtin_popcountll(mask))));
    if (cluster > 1 && !mask) hit("cluster.peer", p.get_int("peer") ? "other" : "0");
  }
}

Json Coverage::to_json() const {
  Json out = Json::object();
  for (auto& name : order_) {
    const Param& p = params_.at(name);
    Json j = Json::object(), bins = Json::array(), hits = Json::object();
    size_t reached = 0;
    for (auto& b : p.bins) {
      bins.push(b);
      auto it = p.hits.find(b);
      if (it != p.hits.end()) ++reached;
    }
    for (auto& [b, n] : p.hits) hits[b] = (unsigned long long)n;
    j["bins"] = bins;
    j["hits"] = hits;
    j["reached"] = (unsigned long long)reached;
    j["of"] = (unsigned long long)p.bins.size();
    if (!p.unreachable.empty()) {
      Json u = Json::object();
      for (auto& [b, why] : p.unreachable) u[b] = why;
      j["unreachable"] = u;
      j["reachable"] = (unsigned long long)(p.bins.size() - p.unreachable.size());
    }
    out[name] = j;
  }
  return out;
}

void Coverage::restore(const Json& coverage) {
  for (auto& [name, j] : coverage.obj()) {
    auto it = params_.find(name);
    if (it == params_.end()) continue;  // a parameter this build no longer bins
    if (const Json* hits = j.get("hits"))
      for (auto& [bin, n] : hits->obj()) it->second.hits[bin] += size_t(n.integer());
  }
}

std::string Coverage::svg(const std::string& title) const {
  const int row = 18, left = 260, width = 400;
  std::ostringstream s;
  const int h = 40 + row * int(order_.size());
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + width + 90 << "\" height=\"" << h
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n<text x=\"4\" y=\"16\" font-weight=\"bold\">" << xml_escape(title)
    << ": share of each parameter's value bins reached</text>\n";
  int y = 30;
  for (auto& name : order_) {
    const auto [reached, reachable] = this->reached(name);
    const double share = reachable == 0 ? 0 : double(reached) / double(reachable);
    const char* colour = share >= 0.999 ? "#3a7d44" : share >= 0.5 ? "#d9a21b" : "#c0392b";
    s << "<text x=\"4\" y=\"" << y + 12 << "\">" << xml_escape(name) << "</text>"
      << "<rect x=\"" << left << "\" y=\"" << y + 2 << "\" width=\"" << width << "\" height=\"" << row - 4
      << "\" fill=\"#eee\"/><rect x=\"" << left << "\" y=\"" << y + 2 << "\" width=\"" << int(width * share)
      << "\" height=\"" << row - 4 << "\" fill=\"" << colour << "\"/>"
      << "<text x=\"" << left + width + 6 << "\" y=\"" << y + 12 << "\">" << reached << "/" << reachable << "</text>\n";
    y += row;
  }
  s << "</svg>\n";
  return s.str();
}

std::string coverage_text(const Json& coverage) {
  std::ostringstream s;
  char line[512];
  for (auto& [k, v] : coverage.obj()) {
    if (const Json* reachable = v.get("reachable"))
      std::snprintf(line, sizeof line, "  %-36s %4lld / %-4lld (of %lld; %lld unreachable, listed below)\n", k.c_str(),
                    v.get_int("reached"), reachable->integer(), v.get_int("of"), v.get_int("of") - reachable->integer());
    else
      std::snprintf(line, sizeof line, "  %-36s %4lld / %-4lld\n", k.c_str(), v.get_int("reached"), v.get_int("of"));
    s << line;
  }
  // What no case can reach, grouped by the reason.
  for (auto& [k, v] : coverage.obj()) {
    const Json* u = v.get("unreachable");
    if (!u) continue;
    std::map<std::string, std::vector<std::string>> by_reason;
    for (auto& [bin, why] : u->obj()) by_reason[why.str()].push_back(bin);
    s << "\nunreachable " << k << " (" << u->obj().size() << ")\n";
    for (auto& [why, bins] : by_reason) {
      s << "  " << why << ":\n   ";
      size_t width = 3, shown = 0;
      for (auto& b : bins) {
        if (shown == 6) break;  // the rest are in explore.json's coverage.<param>.unreachable
        if (width + b.size() + 1 > 118) { s << "\n   "; width = 3; }
        s << " " << b;
        width += b.size() + 1;
        ++shown;
      }
      if (bins.size() > shown) s << " ... (" << bins.size() - shown << " more)";
      s << "\n";
    }
  }
  return s.str();
}

std::pair<uint64_t, uint64_t> bin_range(const std::string& bin) {
  try {
    size_t used = 0;
    const uint64_t lo = std::stoull(bin, &used);
    if (used == bin.size()) return {lo, lo};
    if (bin[used] != '-') return {0, 0};
    size_t used_hi = 0;
    const uint64_t hi = std::stoull(bin.substr(used + 1), &used_hi);
    if (used + 1 + used_hi != bin.size()) return {0, 0};
    return {lo, hi};
  } catch (const std::exception&) {
    return {0, 0};
  }
}

std::string summary_text(const Json& doc) {
  std::ostringstream s;
  char line[512];
  s << "exploration " << doc.get_str("id") << ": " << doc.get("device")->get_str("name") << " ("
    << doc.get("device")->get_str("sm") << ", driver " << doc.get("device")->get_str("driver") << "), "
    << doc.get_str("toolchain") << ", seed " << doc.get("seed")->integer() << "\n";
  std::snprintf(line, sizeof line, "%llu cases run in %.1f s (%.0f cases/s), %llu forms drawable\n",
                (unsigned long long)doc.get("cases_run")->integer(), doc.get("explored_s")->num(),
                doc.get("cases_per_s")->num(), (unsigned long long)doc.get("forms_drawable")->integer());
  s << line;
  s << "\nclass               cases\n";
  for (auto& [k, v] : doc.get("classes")->obj()) {
    std::snprintf(line, sizeof line, "%-18s %7lld\n", k.c_str(), v.integer());
    s << line;
  }
  s << "\nexplained by a named policy alternative (spec_divergence)\n";
  for (auto& [k, v] : doc.get("divergences")->obj()) {
    std::snprintf(line, sizeof line, "  %6lld  %s\n", v.integer(), k.c_str());
    s << line;
  }
  s << "\nfindings (no alternative explains them), each shrunk to a minimal case\n";
  if (doc.get("findings")->arr().empty()) s << "  none\n";
  for (auto& f : doc.get("findings")->arr()) {
    std::snprintf(line, sizeof line, "  %6lld  %s\n", f.get_int("count"), f.get_str("signature").c_str());
    s << line;
    if (auto* m = f.get("minimal"))
      s << "          minimal: " << m->get_str("id") << " (" << f.get_int("shrink_rounds") << " rounds, "
        << f.get_str("shrink_stop") << ")\n          params: " << m->get("params")->dump() << "\n";
  }
  s << "\nrecorded device findings (results/findings/<id>: on record, counted, not shrunk)\n";
  const Json* rf = doc.get("recorded_findings");
  if (!rf || rf->obj().empty()) s << "  none\n";
  if (rf)
    for (auto& [id, x] : rf->obj()) {
      std::string classes;
      for (auto& [k, n] : x.get("classes")->obj()) classes += (classes.empty() ? "" : ", ") + std::to_string(n.integer()) + " " + k;
      std::snprintf(line, sizeof line, "  %6lld  %s (%s)\n", x.get_int("draws"), id.c_str(), classes.c_str());
      s << line;
      if (const Json* c = x.get("first")) s << "          first: " << c->get_str("id") << "\n";
    }
  s << "\ncoverage (value bins reached)\n";
  s << coverage_text(*doc.get("coverage"));
  return s.str();
}

}  // namespace ptxcts::run
