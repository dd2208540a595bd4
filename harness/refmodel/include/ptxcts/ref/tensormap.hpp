// Tensor-map parameters (what cuTensorMapEncodeTiled / Im2col / Im2colWide take) and the validator that says
// whether the driver must accept a parameter set, rule by rule of the driver documentation (CUDA 13.0,
// "Tensor Map Object Management"; the comments above cuTensorMapEncodeTiled in cuda.h) and NOTES.md.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxcts/ref/policy.hpp"

namespace ptxcts::ref {

// CUtensorMapDataType, in enum order (values 0..15). Packed names cannot start with a digit in C++:
// T16U4_ALIGN8B is CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B, and so on.
enum class TensorDataType : std::uint8_t {
  UINT8, UINT16, UINT32, INT32, UINT64, INT64, FLOAT16, FLOAT32, FLOAT64, BFLOAT16, FLOAT32_FTZ, TFLOAT32,
  TFLOAT32_FTZ, T16U4_ALIGN8B, T16U4_ALIGN16B, T16U6_ALIGN16B
};
enum class Interleave : std::uint8_t { NONE, B16, B32 };
// CUtensorMapSwizzle in enum order; B96 is the chapter's 96B mode, which CUDA 13.0 has no enum value for.
enum class Swizzle : std::uint8_t { NONE, B32, B64, B128, B128_ATOM_32B, B128_ATOM_32B_FLIP_8B, B128_ATOM_64B, B96 };
enum class L2Promotion : std::uint8_t { NONE, L2_64B, L2_128B, L2_256B };
enum class OobFill : std::uint8_t { NONE, NAN_REQUEST_ZERO_FMA };
enum class EncodeKind : std::uint8_t { tiled, im2col, im2col_wide };
enum class Im2colWideMode : std::uint8_t { W, W128 };

// Names without the CU_TENSOR_MAP_..._ prefix: "UINT16", "16U4_ALIGN8B", "32B", "128B_ATOM_32B", "NAN_REQUEST_ZERO_FMA".
const char* to_string(TensorDataType t);
const char* to_string(Interleave i);
const char* to_string(Swizzle s);
const char* to_string(L2Promotion p);
const char* to_string(OobFill f);
const char* to_string(EncodeKind k);
std::optional<TensorDataType> parse_tensor_data_type(std::string_view s);
std::optional<Interleave> parse_interleave(std::string_view s);
std::optional<Swizzle> parse_swizzle(std::string_view s);
std::optional<L2Promotion> parse_l2_promotion(std::string_view s);
std::optional<OobFill> parse_oob_fill(std::string_view s);

bool is_packed(TensorDataType t);        // the three 16U4/16U6 types
bool is_float_type(TensorDataType t);    // FLOAT16/32/64, BFLOAT16, FLOAT32_FTZ, TFLOAT32(_FTZ)
// Element size in bits (4 or 6 for the packed types).
unsigned element_bits(TensorDataType t);

// Swizzle span in bytes (32, 64, 128; 96 for B96; 0 for NONE).
unsigned swizzle_span(Swizzle s);

struct TensorMapParams {
  EncodeKind kind = EncodeKind::tiled;
  TensorDataType dtype = TensorDataType::UINT8;
  unsigned rank = 1;
  std::uint64_t global_address = 0;         // only its alignment matters to the model
  std::array<std::uint64_t, 5> dims{};       // globalDim, innermost first
  std::array<std::uint64_t, 4> strides{};    // globalStrides in bytes, rank-1 values (dims 1..rank-1)
  std::array<std::uint32_t, 5> box{};        // boxDim (tiled)
  std::array<std::uint32_t, 5> element_strides{1, 1, 1, 1, 1};
  Interleave interleave = Interleave::NONE;
  Swizzle swizzle = Swizzle::NONE;
  L2Promotion l2_promotion = L2Promotion::NONE;
  OobFill oob_fill = OobFill::NONE;
  // im2col / im2col_wide. Corners innermost spatial dimension first: {W, H, D} (im2col_wide: W only).
  std::array<int, 3> lower_corner{};
  std::array<int, 3> upper_corner{};
  std::uint32_t channels_per_pixel = 0;
  std::uint32_t pixels_per_column = 0;
  Im2colWideMode wide_mode = Im2colWideMode::W;
};

// The dense byte strides for the given dims: stride[i-1] = bytes of one step along dimension i.
std::array<std::uint64_t, 4> dense_strides(TensorDataType t, unsigned rank, const std::array<std::uint64_t, 5>& dims);

struct RuleViolation {
  std::string rule;      // stable name, e.g. "box_dim_range"
  std::string sentence;  // the documentation's sentence (or NOTES' rule) it breaks
  std::string detail;    // the offending values
};

struct EncodeVerdict {
  std::vector<RuleViolation> violations;  // rules the parameter set breaks: the driver must reject it
  std::vector<RuleViolation> open;        // points no source pins down (e.g. 96B swizzle): no must either way
  bool must_reject() const { return !violations.empty(); }
  bool must_accept() const { return violations.empty() && open.empty(); }
};

// compute_capability: e.g. 90, 100; 0 = unknown (rules that depend on the device are then not applied).
// policies: the encode rules a driver may apply other than as documented (im2col_channel_bytes,
// interleave32_swizzle); the default is the documentation.
EncodeVerdict validate_encode(const TensorMapParams& p, unsigned compute_capability = 0,
                              const PolicySet& policies = PolicySet{});

// Every rule the validator knows: {name, sentence}. For the report and the docs.
const std::vector<std::pair<std::string, std::string>>& encode_rules();

}  // namespace ptxcts::ref
