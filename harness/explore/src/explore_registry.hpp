// The exploration's side of each run ABI (abi.hpp has the planner's): how a case is drawn at random and how a
// finding is made simpler. Each family's exploration file registers its drivers; explore.cpp looks them up.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "case.hpp"
#include "explore_guide.hpp"
#include "plan.hpp"
#include "util.hpp"

namespace ptxcts::run {

struct ExploreDriver {
  // The parameters of one case drawn at random, weighted toward boundaries, as the explicit params the ABI's
  // `build` takes (null: nothing to draw for this form; {"encode_only": true, "map": ...}: an illegal tensor
  // map, judged by the driver's encode call). `guide` (null: unguided) steers some choices toward the bins
  // the draws so far reached least (explore_guide.hpp).
  std::function<Json(const Form&, Rng&, const PlanOptions&, DrawGuide*)> draw;
  // Simpler parameter sets than `params`, for shrinking a finding (each one step simpler; `build` refuses the
  // ones that are not legal).
  std::function<std::vector<Json>(const Form&, const Json&)> simplify;
};
using ExploreRegistry = std::map<std::string, ExploreDriver>;  // run ABI name -> its exploration
const ExploreRegistry& explore_registry();
// Sets an ABI's exploration: its draw and simplify.
template <typename D, typename S>
void set_explore(ExploreRegistry& r, const std::string& abi, D draw, S simplify) {
  r[abi].draw = draw;
  r[abi].simplify = simplify;
}

void register_explore_tensor(ExploreRegistry& r);  // the tensor families (explore_tensor.cpp)
void register_explore_bulk(ExploreRegistry& r);    // bulk copies, reductions, cp.async (explore_bulk.cpp)

}  // namespace ptxcts::run
