// What shapes the plan (plan.hpp): the options the parent and its workers share, so they plan the same cases.
#pragma once
#include <string>
#include <vector>

namespace ptxcts::run {

struct PlanOptions {
  int level = 1;        // 0: smoke (one variant per form), 1: the suite, 2: extended sizes and coordinates
  int max_smem = 227 * 1024;  // device limit for one CTA's window (cudaDevAttrMaxSharedMemoryPerBlockOptin)
  int smem_guard = 256;  // tensor cases: shared-memory guard bytes past the box's largest extent (--smem-guard)
  std::vector<std::string> families;  // plan only these families (empty: all); workers get their batch's
  bool explored = true;  // plan exploration's permanent cases too (results/explore/explored.jsonl)
};

}  // namespace ptxcts::run
