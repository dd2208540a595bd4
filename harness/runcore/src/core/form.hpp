// A form of the generator's manifest as the run tier holds it: the generated contract's types (run_contract.hpp)
// and the JSON it was read from, nothing of the run tier's own.
#pragma once
#include <string>
#include <vector>

#include "json.hpp"
#include "run_contract.hpp"

namespace ptxcts::run {

// One line of generated/manifest/forms.jsonl (docs/ARCHITECTURE.md section 2).
struct Form {
  std::string form, family, instr, kernel, kernel_file, abi, min_ptx, targets;
  // A form invalid only by rules a later PTX ISA version lifts (`.add.noftz.f32` from PTX 9.4): the version from
  // which it is valid; "" for every other form.
  std::string valid_from;
  Json quals, run;  // checked against the contract when loaded (contract.hpp)
  const contract::Abi* abi_row = nullptr;  // the contract's row of `abi` (flow, cluster, tmap)
  std::vector<std::string> invalid_by;
  // A combination only the whole product adds (forms.jsonl "cases": "boundaries"): the run tier plans one case of
  // it (plan_cases), exploration draws it only on a device of `valid_on` (the targets it is valid on; explore's
  // drawable).
  bool product = false;
  std::vector<std::string> valid_on;
  // Whether a product form can run on a device of base target `sm` (its sm or sm + "a" in valid_on); every
  // curated form is left to the modules to decide.
  bool may_run_on(const std::string& sm) const {
    if (!product || sm.empty()) return true;
    for (auto& t : valid_on)
      if (t == sm || t == sm + "a") return true;
    return false;
  }
  bool valid() const { return invalid_by.empty(); }
  // Whether the run tier plans it: valid, or valid from a later version (rendered there, toolchain.hpp).
  bool runnable() const { return valid() || !valid_from.empty(); }
  // The PTX ISA version a module holding it must be rendered at, at least.
  const std::string& needs_ptx() const { return valid_from.empty() ? min_ptx : valid_from; }
};

}  // namespace ptxcts::run
