// Input values for reductions: each type's edge values (both zeros, subnormals, NaNs, infinities, extremes, wrap
// values) crossed pairwise (old x src) at the start of the arrays, seeded random values after them.
#pragma once
#include <cstdint>
#include <vector>

#include "ptxcts/ref/types.hpp"
#include "util.hpp"

namespace ptxcts::run {

std::vector<uint64_t> edge_values(ref::ElemType t);
// Fills `old` (destination) and `src` (source) arrays of n elements of type t.
void fill_reduce_inputs(ref::ElemType t, uint8_t* old, uint8_t* src, size_t n, Rng& rng);

}  // namespace ptxcts::run
