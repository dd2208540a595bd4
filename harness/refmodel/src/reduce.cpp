#include "ptxcts/ref/reduce.hpp"

#include <string>

#include "ptxcts/ref/float_format.hpp"

namespace ptxcts::ref {

namespace {

std::uint64_t width_mask(unsigned bytes) { return bytes >= 8 ? ~std::uint64_t{0} : ((std::uint64_t{1} << (8 * bytes)) - 1); }

std::int64_t sign_extend(std::uint64_t v, unsigned bytes) {
  if (bytes >= 8) return static_cast<std::int64_t>(v);
  const unsigned bits = 8 * bytes;
  const std::uint64_t m = std::uint64_t{1} << (bits - 1);
  return static_cast<std::int64_t>((v ^ m) - m);
}

FloatFormat format_of(ElemType t) {
  switch (t) {
    case ElemType::f16: return kF16;
    case ElemType::bf16: return kBF16;
    case ElemType::f32: return kF32;
    default: return kF64;
  }
}

AddNan add_nan_policy(ElemType t, const PolicySet& p) {
  switch (t) {
    case ElemType::f16: return p.get<AddNan>(PolicyId::f16_add_nan);
    case ElemType::bf16: return p.get<AddNan>(PolicyId::bf16_add_nan);
    case ElemType::f32: return p.get<AddNan>(PolicyId::f32_add_nan);
    default: return p.get<AddNan>(PolicyId::f64_add_nan);
  }
}

// Which subnormal treatment an add gets, by site and type (see the policies' texts).
SubnormalMode subnormal_mode(ElemType t, bool noftz, const PolicySet& p, const ReduceContext& ctx) {
  if (t == ElemType::f64) return SubnormalMode::keep;  // the chapter states only rounding for f64
  if (t == ElemType::f32) {
    // PTX ISA 9.4: ".noftz qualifier which preserves input and result subnormals, and does not flush them to zero"
    if (noftz) return SubnormalMode::keep;
    if (ctx.site != ReduceSite::tensor) return p.get<SubnormalMode>(PolicyId::f32_add_subnormals);
    switch (p.get<TensorF32Subnormals>(PolicyId::tensor_f32_add_subnormals)) {
      case TensorF32Subnormals::by_dtype: return ctx.map_ftz ? SubnormalMode::flush : SubnormalMode::keep;
      case TensorF32Subnormals::flush: return SubnormalMode::flush;
      case TensorF32Subnormals::keep: return SubnormalMode::keep;
    }
  }
  // f16 / bf16: .noftz on the bulk form "preserves input and result subnormals".
  if (ctx.site != ReduceSite::tensor) return SubnormalMode::keep;
  return p.get<HalfSubnormals>(PolicyId::tensor_half_add_subnormals) == HalfSubnormals::flush ? SubnormalMode::flush
                                                                                               : SubnormalMode::keep;
}

std::uint64_t float_add(ElemType t, bool noftz, std::uint64_t a, std::uint64_t b, const PolicySet& p,
                        const ReduceContext& ctx) {
  const FloatFormat f = format_of(t);
  const SubnormalMode sm = subnormal_mode(t, noftz, p, ctx);
  const bool flush_in = sm == SubnormalMode::flush || sm == SubnormalMode::flush_inputs;
  const bool flush_out = sm == SubnormalMode::flush || sm == SubnormalMode::flush_results;
  if (flush_in) {
    a = fp_flush(f, a);
    b = fp_flush(f, b);
  }
  std::uint64_t r = fp_add_rne(f, a, b, add_nan_policy(t, p));
  if (flush_out) r = fp_flush(f, r);
  return r;
}

std::uint64_t float_minmax(ElemType t, bool is_max, std::uint64_t a, std::uint64_t b, const PolicySet& p) {
  const FloatFormat f = format_of(t);
  const bool bf = t == ElemType::bf16;
  const MinMaxNan nan_mode = p.get<MinMaxNan>(bf ? PolicyId::bf16_minmax_nan : PolicyId::f16_minmax_nan);
  const SignedZero zero_mode =
      p.get<SignedZero>(bf ? PolicyId::bf16_minmax_signed_zero : PolicyId::f16_minmax_signed_zero);
  const bool an = fp_is_nan(f, a), bn = fp_is_nan(f, b);
  if (an || bn) {
    switch (nan_mode) {
      case MinMaxNan::other_operand:
        if (an && bn) return f.canonical_nan();
        return an ? b : a;
      case MinMaxNan::canonical_nan: return f.canonical_nan();
      case MinMaxNan::old_quieted: return fp_quiet(f, an ? a : b);
      case MinMaxNan::src_quieted: return fp_quiet(f, bn ? b : a);
    }
  }
  const int c = fp_compare(f, a, b);
  if (c == 0) {
    if (a == b) return a;
    // +0 and -0.
    switch (zero_mode) {
      case SignedZero::ordered: {
        const bool a_neg = (a & f.sign_mask()) != 0;
        return (is_max != a_neg) ? a : b;  // max picks the +0, min the -0
      }
      case SignedZero::old: return a;
      case SignedZero::src: return b;
    }
  }
  return ((c > 0) == is_max) ? a : b;
}

}  // namespace

std::uint64_t reduce_element(const ReduceOp& op, std::uint64_t old_value, std::uint64_t src, const PolicySet& p,
                             const ReduceContext& ctx) {
  const unsigned n = elem_bytes(op.type);
  const std::uint64_t m = width_mask(n);
  const std::uint64_t a = old_value & m, b = src & m;
  switch (op.red) {
    case RedOp::and_op: return a & b;
    case RedOp::or_op: return a | b;
    case RedOp::xor_op: return a ^ b;
    case RedOp::inc: return (a >= b ? 0 : a + 1) & m;                  // PTX atom.inc
    case RedOp::dec: return ((a == 0 || a > b) ? b : a - 1) & m;       // PTX atom.dec
    case RedOp::add:
      if (is_float(op.type)) return float_add(op.type, op.noftz, a, b, p, ctx) & m;
      return (a + b) & m;
    case RedOp::min:
    case RedOp::max: {
      const bool is_max = op.red == RedOp::max;
      if (op.type == ElemType::f16 || op.type == ElemType::bf16) return float_minmax(op.type, is_max, a, b, p);
      if (is_float(op.type))
        throw ModelError(std::string("min/max .") + to_string(op.type) + " is in no reduce table");
      bool a_less;
      if (is_signed_int(op.type))
        a_less = sign_extend(a, n) < sign_extend(b, n);
      else
        a_less = a < b;
      return (a_less != is_max) ? a : b;
    }
  }
  return a;
}

void reduce_array(const ReduceOp& op, ByteSpan dst, ConstByteSpan src, const PolicySet& policies,
                  const ReduceContext& ctx) {
  const unsigned n = elem_bytes(op.type);
  if (dst.size != src.size)
    throw ModelError("reduce: destination (" + std::to_string(dst.size) + " bytes) and source (" +
                     std::to_string(src.size) + " bytes) differ; 'The size of the source and the destination array "
                     "must be the same'");
  if (dst.size % n != 0)
    throw ModelError("reduce: size " + std::to_string(dst.size) + " is not a multiple of the ." + to_string(op.type) +
                     " element size");
  for (std::size_t i = 0; i < dst.size; i += n) {
    const std::uint64_t r = reduce_element(op, load_le(dst.data + i, n), load_le(src.data + i, n), policies, ctx);
    store_le(dst.data + i, n, r);
  }
}

}  // namespace ptxcts::ref
