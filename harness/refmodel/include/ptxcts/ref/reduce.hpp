// Element and array reductions of cp.reduce.async.bulk and cp.reduce.async.bulk.tensor.
#pragma once

#include <cstdint>

#include "ptxcts/ref/policy.hpp"
#include "ptxcts/ref/types.hpp"

namespace ptxcts::ref {

// Where the reduction happens: selects which policies apply to f32 / f16 / bf16 add.
struct ReduceContext {
  ReduceSite site = ReduceSite::bulk_global;
  bool map_ftz = false;  // tensor site only: the map's type is FLOAT32_FTZ (vs FLOAT32)
};

// new = old <redOp> src for one element. old and src are bit patterns of the element's width (upper bits
// ignored); the result has the same width. Does not check the op against the site's table: use
// reduce_op_allowed() for that. Bit-exact:
//   add (integers) wraps modulo 2^width; inc: old >= src ? 0 : old + 1; dec: (old == 0 || old > src) ? src : old - 1;
//   and/or/xor bitwise; min/max signed or unsigned by type;
//   add (floats) rounds to nearest even; subnormal and NaN handling per the policies.
std::uint64_t reduce_element(const ReduceOp& op, std::uint64_t old_value, std::uint64_t src,
                             const PolicySet& policies = PolicySet{}, const ReduceContext& ctx = ReduceContext{});

// dst[i] = dst[i] <redOp> src[i] for every element of the little-endian arrays (each element of op.type's
// width). Throws ModelError when the sizes differ or are not a multiple of the element size.
void reduce_array(const ReduceOp& op, ByteSpan dst, ConstByteSpan src, const PolicySet& policies = PolicySet{},
                  const ReduceContext& ctx = ReduceContext{});

}  // namespace ptxcts::ref
