// Element types and reduction operators of the asynchronous copy chapter, with their PTX spellings.
// Plain C++17; no CUDA header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ptxcts::ref {

// Thrown for an input the model refuses: an operand outside what the chapter defines (undefined behaviour),
// or a parameter set the model cannot judge. The message names the input and the rule.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `.type` of cp.reduce.async.bulk / cp.reduce.async.bulk.tensor.
enum class ElemType : std::uint8_t { b32, b64, u32, s32, u64, s64, f16, bf16, f32, f64 };

// `.redOp`.
enum class RedOp : std::uint8_t { and_op, or_op, xor_op, add, inc, dec, min, max };

unsigned elem_bytes(ElemType t);
bool is_float(ElemType t);
bool is_signed_int(ElemType t);
const char* to_string(ElemType t);  // "f16", "b32", ...
const char* to_string(RedOp op);    // "and", "add", ...
std::optional<ElemType> parse_elem_type(std::string_view s);
std::optional<RedOp> parse_red_op(std::string_view s);

// One reduce operation as spelled in PTX after `.redOp`'s dot: `add.u32`, `add.noftz.f16`, `min.s64`.
struct ReduceOp {
  RedOp red = RedOp::add;
  ElemType type = ElemType::u32;
  bool noftz = false;
};
bool operator==(const ReduceOp& a, const ReduceOp& b);
std::string to_string(const ReduceOp& op);
// Parses `<redOp>[.noftz].<type>`; on failure returns nullopt and says why in *why.
std::optional<ReduceOp> parse_reduce_op(std::string_view s, std::string* why = nullptr);

// Which of the chapter's redOp x type tables applies.
enum class ReduceSite : std::uint8_t {
  bulk_shared_cluster,  // cp.reduce.async.bulk .shared::cluster destination
  bulk_global,          // cp.reduce.async.bulk .global destination
  tensor,               // cp.reduce.async.bulk.tensor (type from the tensor map)
};
const char* to_string(ReduceSite s);
std::optional<ReduceSite> parse_reduce_site(std::string_view s);

// True when the op is a cell of the site's table (and .noftz is used exactly where the chapter requires it).
// On false, *why quotes the rule.
bool reduce_op_allowed(ReduceSite site, const ReduceOp& op, std::string* why = nullptr);

// Non-owning byte ranges (C++17 has no std::span).
struct ByteSpan {
  std::uint8_t* data = nullptr;
  std::size_t size = 0;
};
struct ConstByteSpan {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  ConstByteSpan() = default;
  ConstByteSpan(const std::uint8_t* d, std::size_t n) : data(d), size(n) {}
  ConstByteSpan(ByteSpan s) : data(s.data), size(s.size) {}  // NOLINT: implicit on purpose
};

// Little-endian access to an element of n bytes (1..8).
std::uint64_t load_le(const std::uint8_t* p, unsigned n);
void store_le(std::uint8_t* p, unsigned n, std::uint64_t v);

}  // namespace ptxcts::ref
