// The plan: which run cases each form gets (variants chosen by the run tier, ARCHITECTURE section 1) and, per
// case, the host images and the model's expectation (build_setup). Deterministic for a given manifest and
// options, so the parent and its workers agree on every case ID.
#pragma once
#include <string>
#include <vector>

#include "case.hpp"
#include "plan_options.hpp"

namespace ptxcts::run {

// Run cases of every valid form, in manifest order. Forms whose family the run tier does not drive yet are
// planned as a single case with not_supported set (never dropped).
std::vector<RunCase> plan_cases(const std::vector<Form>& forms, const PlanOptions& o);

// The driver-API pseudo-forms (family tensormap.encode, one per encode function, no kernel).
const std::vector<Form>& encode_forms();

// Host images and expectation of one case. `seed` is the case's own seed (case_seed(run seed, id)).
// Throws std::runtime_error for a harness error (reported as such, naming the case).
void build_setup(const RunCase& c, uint64_t seed, const PlanOptions& o, Setup& s);

}  // namespace ptxcts::run
