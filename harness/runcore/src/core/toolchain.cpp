#include "toolchain.hpp"

#include <algorithm>
#include <stdexcept>

#include "tree.hpp"
#include "util.hpp"

namespace ptxcts::run {

namespace {

bool ptx_parse(const std::string& s, int& major, int& minor) {
  auto dot = s.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 >= s.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (i != dot && !isdigit(static_cast<unsigned char>(s[i]))) return false;
  major = std::stoi(s.substr(0, dot));
  minor = std::stoi(s.substr(dot + 1));
  return true;
}

std::string field(const Json& j, const char* name, bool nullable) {
  const Json* v = j.get(name);
  if (!v || (v->is_null() && !nullable)) throw std::runtime_error(std::string("field '") + name + "' is missing");
  if (v->is_null()) return "";
  if (!v->is_string() || v->str().empty())
    throw std::runtime_error(std::string("field '") + name + "' must be a non-empty string" + (nullable ? " or null" : ""));
  return v->str();
}

}  // namespace

bool ptx_less(const std::string& a, const std::string& b) {
  int am, an, bm, bn;
  if (!ptx_parse(a, am, an) || !ptx_parse(b, bm, bn)) return false;
  return am != bm ? am < bm : an < bn;
}

std::string Toolchain::describe() const {
  return (frontend.empty() ? "" : "front-end " + frontend + " + ") + "toolchain " + name + " (ptxas " + ptxas_version + ")";
}

std::vector<std::string> Toolchain::source_args() const {
  if (!prebuilt.empty()) return {"--modules", prebuilt};
  if (!frontend.empty()) return {"--frontend", frontend};
  return {};
}

std::string Toolchain::replay_arg() const {
  return spec.find('/') != std::string::npos ? spec : name;
}

std::string Toolchain::cache_key() const {
  std::string v = ptx;
  v.erase(std::remove(v.begin(), v.end(), '.'), v.end());
  return ptxas_sha256.substr(0, 16) + "-ptx" + v;
}

Toolchain parse_toolchain(const std::string& text, const std::string& spec) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("not a JSON object: ") + e.what());
  }
  if (!j.is_object()) throw std::runtime_error("not a JSON object");
  Toolchain t;
  t.spec = spec;
  t.name = field(j, "name", false);
  t.ptxas = field(j, "ptxas", false);
  t.ptxas_version = field(j, "ptxas_version", false);
  t.ptxas_sha256 = field(j, "ptxas_sha256", false);
  if (t.ptxas_sha256.size() != 64 || t.ptxas_sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw std::runtime_error("field 'ptxas_sha256' must be 64 lowercase hex digits");
  t.nvjitlink = field(j, "nvjitlink", true);
  t.nvjitlink_version = field(j, "nvjitlink_version", true);
  t.newest_ptx = field(j, "newest_ptx", false);
  t.chapter_ptx = field(j, "chapter_ptx", false);
  const Json* pv = j.get("ptx_versions");
  if (!pv || !pv->is_array() || pv->arr().empty()) throw std::runtime_error("field 'ptx_versions' must be a non-empty array");
  int m, n;
  for (auto& v : pv->arr()) {
    if (!v.is_string() || !ptx_parse(v.str(), m, n))
      throw std::runtime_error("field 'ptx_versions' holds " + v.dump() + ", not a PTX ISA version like \"9.0\"");
    t.ptx_versions.push_back(v.str());
  }
  for (auto* f : {&t.newest_ptx, &t.chapter_ptx})
    if (!ptx_parse(*f, m, n)) throw std::runtime_error("'" + *f + "' is not a PTX ISA version like \"9.0\"");
  if (std::find(t.ptx_versions.begin(), t.ptx_versions.end(), t.newest_ptx) == t.ptx_versions.end())
    throw std::runtime_error("newest_ptx " + t.newest_ptx + " is not among ptx_versions");
  const Json* tg = j.get("targets");
  if (!tg || !tg->is_object()) throw std::runtime_error("field 'targets' must be an object");
  for (auto& [name, v] : tg->obj()) {
    std::string mp = v.is_object() ? v.get_str("min_ptx") : "";
    if (!ptx_parse(mp, m, n)) throw std::runtime_error("targets." + name + ".min_ptx must be a PTX ISA version");
    t.targets[name] = mp;
    if (std::string mx = v.get_str("max_ptx"); !mx.empty()) {
      if (!ptx_parse(mx, m, n)) throw std::runtime_error("targets." + name + ".max_ptx must be a PTX ISA version");
      t.max_ptx[name] = mx;
    }
    if (std::string a = v.get_str("arch"); !a.empty()) t.arch[name] = a;
  }
  if (const Json* rf = j.get("refusals"); rf && rf->is_object())
    for (auto& [v, said] : rf->obj())
      if (said.is_string()) t.refusals[v] = said.str();
  bool knows_chapter = std::find(t.ptx_versions.begin(), t.ptx_versions.end(), t.chapter_ptx) != t.ptx_versions.end();
  t.ptx = knows_chapter ? t.chapter_ptx : t.newest_ptx;
  return t;
}

std::string resolve_toolchain(const std::string& spec, Toolchain& out) {
  std::vector<std::string> argv;
  std::string resolver = env("PTXCTS_TOOLCHAIN_RESOLVER");
  if (!resolver.empty()) {
    for (auto& w : split(resolver, ' '))
      if (!w.empty()) argv.push_back(w);
  } else {
    argv = {ptxcts_root() + "/ptxcts", "toolchains", "resolve", "--json"};
  }
  if (!spec.empty()) argv.push_back(spec);
  std::string text, err;
  int rc = run_capture(argv, &text, &err);
  std::string cmd;
  for (auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  while (!err.empty() && err.back() == '\n') err.pop_back();
  if (rc != 0)
    return "toolchain '" + (spec.empty() ? std::string("(default)") : spec) + "': `" + cmd + "` exited " +
           std::to_string(rc) + (err.empty() ? std::string() : ": " + err);
  try {
    out = parse_toolchain(text, spec);
  } catch (const std::exception& e) {
    return "toolchain '" + (spec.empty() ? std::string("(default)") : spec) + "': `" + cmd + "` printed an object the run tier cannot use: " + e.what();
  }
  return "";
}

std::string render_ptx(const Form& form, const Toolchain& tc) {
  const std::string& need = form.needs_ptx();
  if (need.empty() || !ptx_less(tc.ptx, need)) return tc.ptx;
  if (tc.prebuilt.empty() && !ptx_less(tc.newest_ptx, need)) return tc.newest_ptx;
  return tc.ptx;
}

std::string toolchain_support(const Form& form, const std::string& target, const Toolchain& tc) {
  if (form.kernel.empty()) return "";  // a driver-API case assembles nothing
  const std::string& need = form.needs_ptx();
  const std::string at = render_ptx(form, tc);
  if (!need.empty() && ptx_less(at, need)) {
    std::string why = !tc.prebuilt.empty() && !ptx_less(tc.newest_ptx, need)
                          ? " reads modules written at PTX ISA " + tc.ptx + " (--modules)"
                          : " knows PTX ISA up to " + tc.newest_ptx;
    auto said = tc.refusals.find(need);
    return tc.describe() + why + "; the form needs " + need + (said == tc.refusals.end() ? "" : "; ptxas: " + said->second);
  }
  return target.empty() ? "" : toolchain_target_support(target, tc, at);
}

std::string toolchain_target_support(const std::string& target, const Toolchain& tc, const std::string& ptx_in) {
  const std::string& ptx = ptx_in.empty() ? tc.ptx : ptx_in;
  auto it = tc.targets.find(target);
  if (it == tc.targets.end()) return tc.describe() + " has no target " + target;
  if (ptx_less(ptx, it->second))
    return tc.describe() + ": target " + target + " needs PTX ISA " + it->second + ", the toolchain renders at " + ptx;
  if (auto mx = tc.max_ptx.find(target); mx != tc.max_ptx.end() && ptx_less(mx->second, ptx))
    return tc.describe() + ": target " + target + " exists up to PTX ISA " + mx->second + ", the toolchain renders at " + ptx;
  return "";
}

}  // namespace ptxcts::run
