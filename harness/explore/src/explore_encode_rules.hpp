// The encode rules of the model's validator (ref::validate_encode, ref::encode_rules) as exploration targets:
// for each rule the map kinds a draw can break it in, or why no drawn case can break it; and the change to a
// drawn map that breaks it. The tensor drawer (explore_tensor.cpp) breaks the rule the draws broke least.
#pragma once
#include <string>
#include <vector>

#include "ptxcts/ref/tensormap.hpp"
#include "util.hpp"

namespace ptxcts::run {

struct EncodeRuleTarget {
  std::string rule;
  bool tiled = false, im2col = false;  // the kinds of map a draw breaks it in
  std::string unreachable;             // why no drawn case breaks it ("" when one does)
};

// One row per rule of ref::encode_rules(), in its order.
const std::vector<EncodeRuleTarget>& encode_rule_targets();

// Changes the drawn map `m` so that it breaks `rule` (under the documented rules or, for a rule of a named
// alternative only, under that alternative); other rules may break with it. False when the rule has no change
// for m's kind (m is then unchanged).
bool break_encode_rule(const std::string& rule, ref::TensorMapParams& m, Rng& r);

}  // namespace ptxcts::run
