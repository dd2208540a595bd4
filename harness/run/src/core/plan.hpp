// The plan: which run cases each form gets (variants chosen by the run tier, ARCHITECTURE section 1) and, per
// case, the host images and the model's expectation (build_setup). Deterministic for a given manifest and
// options, so the parent and its workers agree on every case ID.
#pragma once
#include <string>
#include <vector>

#include "case.hpp"

namespace ptxcts::run {

struct PlanOptions {
  int level = 1;        // 0: smoke (one variant per form), 1: the suite, 2: extended sizes and coordinates
  int max_smem = 227 * 1024;  // device limit for one CTA's window (cudaDevAttrMaxSharedMemoryPerBlockOptin)
  int smem_guard = 256;  // tensor cases: shared-memory guard bytes past the box's largest extent (--smem-guard)
  std::vector<std::string> families;  // plan only these families (empty: all); workers get their batch's
  bool explored = true;  // plan exploration's permanent cases too (harness/run/cases/explored.jsonl)
};

// Run cases of every valid form, in manifest order. Forms whose family the run tier does not drive yet are
// planned as a single case with not_supported set (never dropped).
std::vector<RunCase> plan_cases(const std::vector<Form>& forms, const PlanOptions& o);

// The driver-API pseudo-forms (family tensormap.encode, one per encode function, no kernel).
const std::vector<Form>& encode_forms();

// Host images and expectation of one case. `seed` is the case's own seed (case_seed(run seed, id)).
// Throws std::runtime_error for a harness error (reported as such, naming the case).
void build_setup(const RunCase& c, uint64_t seed, const PlanOptions& o, Setup& s);

}  // namespace ptxcts::run
