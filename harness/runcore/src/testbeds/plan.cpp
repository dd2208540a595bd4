#include "plan.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "abi.hpp"
#include "explored.hpp"

namespace ptxcts::run {

const AbiRegistry& abi_registry() {
  static const AbiRegistry r = [] {
    AbiRegistry x;
    register_cp_async(x);
    register_bulk(x);
    register_tensor(x);
    register_encode(x);
    return x;
  }();
  return r;
}

// The driver-API cases are not PTX forms: they judge cuTensorMapEncodeTiled / Im2col themselves, which every
// tensor form depends on. They get forms of their own (family tensormap.encode, no kernel).
const std::vector<Form>& encode_forms() {
  static const std::vector<Form> f = [] {
    std::vector<Form> v;
    for (const char* fn : {"cuTensorMapEncodeTiled", "cuTensorMapEncodeIm2col", "cuTensorMapEncodeIm2colWide"}) {
      Form x;
      x.form = std::string("tensormap/") + fn;
      x.family = "tensormap.encode";
      x.instr = fn;
      x.abi = "v1.encode_only";
      x.targets = "sm_90+ (driver API)";
      x.min_ptx = "";
      v.push_back(x);
    }
    return v;
  }();
  return f;
}

std::vector<RunCase> plan_cases(const std::vector<Form>& forms, const PlanOptions& o) {
  std::vector<RunCase> out;
  const AbiRegistry& reg = abi_registry();
  std::vector<const Form*> all;
  for (const Form& f : forms) all.push_back(&f);
  for (const Form& f : encode_forms()) all.push_back(&f);
  for (const Form* fp : all) {
    const Form& f = *fp;
    if (!o.families.empty() && std::find(o.families.begin(), o.families.end(), f.family) == o.families.end()) continue;
    if (!f.runnable()) continue;  // invalid forms are the compile tier's negative cases; never launched
    auto it = reg.find(f.abi);
    if (it == reg.end()) {
      RunCase c;
      c.id = f.form + "#abi_" + f.abi;
      c.form = &f;
      c.variant = "abi_" + f.abi;
      c.not_supported = "the run tier has no driver for run ABI '" + f.abi + "' yet";
      out.push_back(c);
      continue;
    }
    auto vs = it->second.variants(f, o);
    // Smoke: one variant per form. A whole-product combination (Form::product) gets one case below --level 2: the
    // curated forms vary sizes, types and coordinates; the product adds the qualifier combinations, each run once.
    if ((o.level == 0 || (f.product && o.level < 2)) && vs.size() > 1) vs.resize(1);
    for (auto& [name, params] : vs) {
      RunCase c;
      c.id = f.form + "#" + name;
      c.form = &f;
      c.variant = name;
      c.params = params;
      if (auto* ns = params.get("not_supported")) c.not_supported = ns->str();
      out.push_back(c);
    }
  }
  // Exploration's permanent cases (explored.hpp): explicit cases of the forms selected above.
  if (o.explored) {
    std::map<std::string, const Form*> by_name;
    for (const Form* f : all) by_name[f->form] = f;
    for (auto& row : read_explored(explored_cases_path())) {
      auto it = by_name.find(row.form);
      if (it == by_name.end()) throw std::runtime_error(explored_cases_path() + ": case " + row.id + ": no form '" + row.form + "' in the manifest");
      const Form& f = *it->second;
      if (!o.families.empty() && std::find(o.families.begin(), o.families.end(), f.family) == o.families.end()) continue;
      if (!f.runnable() || !abi_registry().count(f.abi)) continue;
      RunCase c;
      c.id = row.id;
      c.form = &f;
      c.variant = row.variant;
      c.params = row.params;
      c.explicit_params = true;
      out.push_back(c);
    }
  }
  return out;
}

void build_setup(const RunCase& c, uint64_t seed, const PlanOptions& o, Setup& s) {
  auto it = abi_registry().find(c.form->abi);
  if (it == abi_registry().end()) throw std::runtime_error("no driver for run ABI '" + c.form->abi + "'");
  Rng rng(seed);
  s.w[W_WAIT_LIMIT] = kWaitLimit;
  it->second.build(c, rng, o, s);
  s.info["variant"] = c.params;
}

}  // namespace ptxcts::run
