#include "ptxcts/ref/types.hpp"

#include <array>

#include "enum_names.hpp"

namespace ptxcts::ref {

namespace {
struct TypeRow {
  ElemType t;
  const char* name;
  unsigned bytes;
};
constexpr std::array<TypeRow, 10> kTypes = {{{ElemType::b32, "b32", 4},
                                             {ElemType::b64, "b64", 8},
                                             {ElemType::u32, "u32", 4},
                                             {ElemType::s32, "s32", 4},
                                             {ElemType::u64, "u64", 8},
                                             {ElemType::s64, "s64", 8},
                                             {ElemType::f16, "f16", 2},
                                             {ElemType::bf16, "bf16", 2},
                                             {ElemType::f32, "f32", 4},
                                             {ElemType::f64, "f64", 8}}};
struct OpRow {
  RedOp op;
  const char* name;
};
constexpr std::array<OpRow, 8> kOps = {{{RedOp::and_op, "and"},
                                        {RedOp::or_op, "or"},
                                        {RedOp::xor_op, "xor"},
                                        {RedOp::add, "add"},
                                        {RedOp::inc, "inc"},
                                        {RedOp::dec, "dec"},
                                        {RedOp::min, "min"},
                                        {RedOp::max, "max"}}};

using E = ElemType;
bool in(ElemType t, std::initializer_list<ElemType> set) {
  for (ElemType x : set)
    if (x == t) return true;
  return false;
}
}  // namespace

unsigned elem_bytes(ElemType t) { return kTypes[static_cast<std::size_t>(t)].bytes; }
bool is_float(ElemType t) { return in(t, {E::f16, E::bf16, E::f32, E::f64}); }
bool is_signed_int(ElemType t) { return in(t, {E::s32, E::s64}); }
const char* to_string(ElemType t) { return kTypes[static_cast<std::size_t>(t)].name; }
const char* to_string(RedOp op) { return kOps[static_cast<std::size_t>(op)].name; }

std::optional<ElemType> parse_elem_type(std::string_view s) {
  for (const TypeRow& r : kTypes)
    if (s == r.name) return r.t;
  return std::nullopt;
}

std::optional<RedOp> parse_red_op(std::string_view s) {
  for (const OpRow& r : kOps)
    if (s == r.name) return r.op;
  return std::nullopt;
}

bool operator==(const ReduceOp& a, const ReduceOp& b) {
  return a.red == b.red && a.type == b.type && a.noftz == b.noftz;
}

std::string to_string(const ReduceOp& op) {
  std::string s = to_string(op.red);
  if (op.noftz) s += ".noftz";
  s += ".";
  s += to_string(op.type);
  return s;
}

std::optional<ReduceOp> parse_reduce_op(std::string_view s, std::string* why) {
  auto fail = [&](const std::string& msg) -> std::optional<ReduceOp> {
    if (why) *why = msg;
    return std::nullopt;
  };
  const auto dot = s.find('.');
  if (dot == std::string_view::npos) return fail("op '" + std::string(s) + "' is not <redOp>.<type>");
  const auto red = parse_red_op(s.substr(0, dot));
  if (!red)
    return fail("unknown redOp '" + std::string(s.substr(0, dot)) + "' (and, or, xor, add, inc, dec, min, max)");
  std::string_view rest = s.substr(dot + 1);
  bool noftz = false;
  if (rest.substr(0, 6) == "noftz.") {
    noftz = true;
    rest = rest.substr(6);
  }
  const auto type = parse_elem_type(rest);
  if (!type)
    return fail("unknown type '" + std::string(rest) + "' (b32, b64, u32, s32, u64, s64, f16, bf16, f32, f64)");
  return ReduceOp{*red, *type, noftz};
}

// ReduceSite's spellings, in enumerator order.
const char* const kSiteNames[] = {"bulk_shared_cluster", "bulk_global", "tensor"};

const char* to_string(ReduceSite s) { return detail::name_of(s, kSiteNames); }

std::optional<ReduceSite> parse_reduce_site(std::string_view s) {
  return detail::parse_name<ReduceSite>(s, kSiteNames);
}

bool reduce_op_allowed(ReduceSite site, const ReduceOp& op, std::string* why) {
  auto fail = [&](const std::string& msg) {
    if (why) *why = msg;
    return false;
  };
  const ElemType t = op.type;
  bool cell = false;
  // The chapter's tables (cp.reduce.async.bulk: one per .dst; cp.reduce.async.bulk.tensor: one).
  switch (site) {
    case ReduceSite::bulk_shared_cluster:
      switch (op.red) {
        case RedOp::add: cell = in(t, {E::u32, E::s32, E::u64}); break;
        case RedOp::min:
        case RedOp::max: cell = in(t, {E::u32, E::s32}); break;
        case RedOp::inc:
        case RedOp::dec: cell = t == E::u32; break;
        default: cell = t == E::b32; break;
      }
      break;
    case ReduceSite::bulk_global:
    case ReduceSite::tensor:
      // The .global table and the tensor table differ in one cell: the tensor table has no .add .f64.
      switch (op.red) {
        case RedOp::add:
          cell = in(t, {E::u32, E::s32, E::u64, E::f32, E::f16, E::bf16}) ||
                 (site == ReduceSite::bulk_global && t == E::f64);
          break;
        case RedOp::min:
        case RedOp::max: cell = in(t, {E::u32, E::s32, E::u64, E::s64, E::f16, E::bf16}); break;
        case RedOp::inc:
        case RedOp::dec: cell = t == E::u32; break;
        default: cell = in(t, {E::b32, E::b64}); break;
      }
      break;
  }
  if (!cell)
    return fail(std::string("redop_type_table: .") + to_string(op.red) + " ." + to_string(t) +
                " is not a cell of the valid combinations of .redOp and element type for " + to_string(site));
  const bool half_add = op.red == RedOp::add && in(t, {E::f16, E::bf16});
  if (site == ReduceSite::tensor && op.noftz)
    return fail("noftz_tensor: cp.reduce.async.bulk.tensor has no .noftz qualifier");
  if (site == ReduceSite::bulk_global && half_add && !op.noftz)
    return fail(
        "noftz_required: 'The cp.reduce.async.bulk.add.f16 and cp.reduce.async.bulk.add.bf16 operations require "
        ".noftz qualifier.'");
  // PTX ISA 9.4 adds .f32 to the .add.noftz line of the .global syntax (.type = { .f16, .bf16, .f32 }); the
  // version is the generator's rule (reduce_bulk.noftz_only_add_f16_bf16, lifted from 9.4).
  const bool noftz_f32 = site == ReduceSite::bulk_global && op.red == RedOp::add && t == E::f32;
  if (op.noftz && !half_add && !noftz_f32)
    return fail("noftz_only_half_add: .noftz is defined only for .add.f16 and .add.bf16, and .add.f32 to .global "
                "(PTX ISA 9.4)");
  return true;
}

std::uint64_t load_le(const std::uint8_t* p, unsigned n) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

void store_le(std::uint8_t* p, unsigned n, std::uint64_t v) {
  for (unsigned i = 0; i < n; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

}  // namespace ptxcts::ref
