#include "ptxcts/ref/tensormap.hpp"

#include <map>

#include "enum_names.hpp"

namespace ptxcts::ref {

namespace {

const char* const kTypeNames[] = {"UINT8",        "UINT16",       "UINT32",        "INT32",         "UINT64",
                                  "INT64",        "FLOAT16",      "FLOAT32",       "FLOAT64",       "BFLOAT16",
                                  "FLOAT32_FTZ",  "TFLOAT32",     "TFLOAT32_FTZ",  "16U4_ALIGN8B",  "16U4_ALIGN16B",
                                  "16U6_ALIGN16B"};
const unsigned kTypeBits[] = {8, 16, 32, 32, 64, 64, 16, 32, 64, 16, 32, 32, 32, 4, 4, 6};
const char* const kInterleaveNames[] = {"NONE", "16B", "32B"};
const char* const kSwizzleNames[] = {"NONE", "32B", "64B", "128B", "128B_ATOM_32B", "128B_ATOM_32B_FLIP_8B",
                                     "128B_ATOM_64B", "96B"};
const char* const kL2Names[] = {"NONE", "L2_64B", "L2_128B", "L2_256B"};
const char* const kOobNames[] = {"NONE", "NAN_REQUEST_ZERO_FMA"};
const char* const kEncodeNames[] = {"cuTensorMapEncodeTiled", "cuTensorMapEncodeIm2col", "cuTensorMapEncodeIm2colWide"};
using detail::name_of;
using detail::parse_name;

// The rules, each once: name -> the sentence it enforces (driver documentation, CUDA 13.0, unless marked).
const std::vector<std::pair<std::string, std::string>>& rules_table() {
  static const std::vector<std::pair<std::string, std::string>> t = {
      {"rank_range", "tensorRank must be non-zero and less than or equal to the maximum supported dimensionality of 5."},
      {"rank_interleave", "If interleave is not CU_TENSOR_MAP_INTERLEAVE_NONE, then tensorRank must additionally be "
                          "greater than or equal to 3."},
      {"rank_im2col", "tensorRank, which specifies the number of tensor dimensions, must be 3, 4, or 5. (Im2col, Im2colWide)"},
      {"global_address_align16", "globalAddress, which specifies the starting address of the memory region described, "
                                 "must be 16 byte aligned."},
      {"global_address_align32_interleave", "When interleave is CU_TENSOR_MAP_INTERLEAVE_32B, globalAddress must be 32 "
                                            "byte aligned."},
      {"global_address_align32_packed", "When tensorDataType is CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B or "
                                        "CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B, globalAddress must be 32 byte aligned."},
      {"global_dim_range", "globalDim array ... must be non-zero and less than or equal to 2^32."},
      {"global_dim0_packed16b", "When tensorDataType is CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B or "
                                "CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B, globalDim[0] must be a multiple of 128."},
      {"global_dim0_u4_align8b", "When tensorDataType is CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B, globalDim[0] must be a "
                                 "multiple of 2."},
      {"global_stride_multiple16", "globalStrides array ... must be a multiple of 16 and less than 2^40."},
      {"global_stride_below_2_40", "globalStrides array ... must be a multiple of 16 and less than 2^40."},
      {"global_stride_multiple32_interleave", "When interleave is CU_TENSOR_MAP_INTERLEAVE_32B, the strides must be a "
                                              "multiple of 32."},
      {"global_stride_multiple32_packed", "When tensorDataType is CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B or "
                                          "CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B, the strides must be a multiple of 32."},
      {"global_stride_covers_previous", "Each following dimension specified includes previous dimension stride "
                                        "(globalStrides[0] >= globalDim[0] * elementSize; globalStrides[i] >= "
                                        "globalStrides[i-1] * globalDim[i]) -- stated as a layout, enforcement open."},
      {"box_dim_range", "boxDim array ... must be non-zero and less than or equal to 256."},
      {"box_inner_multiple16", "When interleave is CU_TENSOR_MAP_INTERLEAVE_NONE, { boxDim[0] * "
                               "elementSizeInBytes( tensorDataType ) } must be a multiple of 16 bytes."},
      {"box_dim0_packed16b", "When tensorDataType is CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B or "
                             "CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B, boxDim[0] must be 128."},
      {"element_strides_range", "elementStrides array ... must be non-zero and less than or equal to 8."},
      {"swizzle_inner_box", "When interleave is CU_TENSOR_MAP_INTERLEAVE_NONE and swizzle is not "
                            "CU_TENSOR_MAP_SWIZZLE_NONE, the bounding box inner dimension ... must be less than or equal "
                            "to the swizzle size."},
      {"u6_no_interleave", "tensorDataType of CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B requires interleave to be "
                           "CU_TENSOR_MAP_INTERLEAVE_NONE."},
      {"interleave32_swizzle32", "When interleave is CU_TENSOR_MAP_INTERLEAVE_32B, swizzle must be "
                                 "CU_TENSOR_MAP_SWIZZLE_32B."},
      {"im2col_channel_bytes_multiple16", "Measured, not documented (policy im2col_channel_bytes=multiple_16B): "
                                          "channelsPerPixel multiplied by the element size must be a multiple of 16 "
                                          "bytes."},
      {"packed_type_refused", "Measured, not documented (policy packed_type_encode=refused): a map of a packed data "
                              "type (16U4_ALIGN8B, 16U4_ALIGN16B, 16U6_ALIGN16B) is refused."},
      {"swizzle_atom_refused", "Measured, not documented (policy swizzle_atom_encode=refused_below_cc100): below "
                               "compute capability 10.0 a map with a 128B_ATOM swizzle is refused."},
      {"interleave_inner_box_multiple16", "Measured, not documented (policy interleave_inner_box=multiple_16B): with "
                                          "interleave 16B or 32B, boxDim[0] multiplied by the element size must be "
                                          "a multiple of 16 bytes."},
      {"swizzle_u6_modes", "When the tensorDataType is CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B, only the following "
                           "swizzle modes are supported: NONE, 128B, 128B_ATOM_32B, 128B_ATOM_64B (store only)."},
      {"swizzle_u4_16b_modes", "When the tensorDataType is CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B, only the following "
                               "swizzle modes are supported: NONE, 128B, 128B_ATOM_32B (load only)."},
      {"swizzle_enum", "swizzle ... has to be of type CUtensorMapSwizzle (CUDA 13.0 has no 96B value; the chapter's "
                       "96B mode is open)."},
      {"oob_nan_float_only", "CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA can only be used when tensorDataType "
                             "represents a floating-point data type, and when tensorDataType is not 16U4_ALIGN8B, "
                             "16U4_ALIGN16B, and 16U6_ALIGN16B."},
      {"im2col_corner_range", "pixelBoxLowerCorner / pixelBoxUpperCorner: rank 3: one signed offset within [-32768, "
                              "32767]; rank 4: two within [-128, 127]; rank 5: three within [-16, 15]."},
      {"im2col_wide_corner_range", "pixelBoxLowerCornerWidth / pixelBoxUpperCornerWidth must be within range "
                                   "[-32768, 32767]."},
      {"im2col_box_nonzero_area", "The bounding box specified by pixelBoxLowerCorner and pixelBoxUpperCorner must "
                                  "have non-zero area."},
      {"channels_per_pixel_range", "channelsPerPixel ... must be less than or equal to 256."},
      {"channels_per_pixel_zero", "channelsPerPixel of 0 -- the documentation states only the upper bound (open)."},
      {"channels_per_pixel_packed16b", "when tensorDataType is CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B or "
                                       "CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B, channelsPerPixel must be 128."},
      {"pixels_per_column_range", "pixelsPerColumn ... must be less than or equal to 1024."},
      {"pixels_per_column_zero", "pixelsPerColumn of 0 -- the documentation states only the upper bound (open)."},
      {"im2col_wide_swizzle_modes", "swizzle ... must be one of the following CUtensorMapSwizzle modes (other swizzle "
                                    "modes are not supported): 64B, 128B, 128B_ATOM_32B. (Im2colWide)"},
      {"im2col_wide_inner_box", "When interleave is CU_TENSOR_MAP_INTERLEAVE_NONE, the bounding box inner dimension "
                                "(channelsPerPixel * element size) must be less than or equal to the swizzle size. "
                                "(Im2colWide)"},
      {"im2col_wide_cc100", "This API is only supported on devices of compute capability 10.0 or higher. (Im2colWide)"},
      {"tensor_map_cc90", "Tensor map objects are only supported on devices of compute capability 9.0 or higher."},
  };
  return t;
}

// Records a broken rule with its sentence (looked up only then: the validator runs for every drawn map of an
// exploration, and most rules hold).
class Checker {
 public:
  explicit Checker(EncodeVerdict& v) : v_(v) {}
  void rule(bool ok, const std::string& name, const std::string& detail) {
    if (!ok) v_.violations.push_back({name, sentence(name), detail});
  }
  void open(bool ok, const std::string& name, const std::string& detail) {
    if (!ok) v_.open.push_back({name, sentence(name), detail});
  }

 private:
  static std::string sentence(const std::string& name) {
    for (const auto& r : rules_table())
      if (r.first == name) return r.second;
    return "(unlisted rule)";
  }
  EncodeVerdict& v_;
};

std::string idx(const char* what, unsigned i) { return std::string(what) + "[" + std::to_string(i) + "]"; }

}  // namespace

const char* to_string(TensorDataType t) { return name_of(t, kTypeNames); }
const char* to_string(Interleave i) { return name_of(i, kInterleaveNames); }
const char* to_string(Swizzle s) { return name_of(s, kSwizzleNames); }
const char* to_string(L2Promotion p) { return name_of(p, kL2Names); }
const char* to_string(OobFill f) { return name_of(f, kOobNames); }
const char* to_string(EncodeKind k) { return name_of(k, kEncodeNames); }
std::optional<TensorDataType> parse_tensor_data_type(std::string_view s) {
  return parse_name<TensorDataType>(s, kTypeNames);
}
std::optional<Interleave> parse_interleave(std::string_view s) { return parse_name<Interleave>(s, kInterleaveNames); }
std::optional<Swizzle> parse_swizzle(std::string_view s) { return parse_name<Swizzle>(s, kSwizzleNames); }
std::optional<L2Promotion> parse_l2_promotion(std::string_view s) { return parse_name<L2Promotion>(s, kL2Names); }
std::optional<OobFill> parse_oob_fill(std::string_view s) { return parse_name<OobFill>(s, kOobNames); }

bool is_packed(TensorDataType t) {
  return t == TensorDataType::T16U4_ALIGN8B || t == TensorDataType::T16U4_ALIGN16B || t == TensorDataType::T16U6_ALIGN16B;
}
bool is_float_type(TensorDataType t) {
  switch (t) {
    case TensorDataType::FLOAT16:
    case TensorDataType::FLOAT32:
    case TensorDataType::FLOAT64:
    case TensorDataType::BFLOAT16:
    case TensorDataType::FLOAT32_FTZ:
    case TensorDataType::TFLOAT32:
    case TensorDataType::TFLOAT32_FTZ: return true;
    default: return false;
  }
}
unsigned element_bits(TensorDataType t) { return kTypeBits[static_cast<std::size_t>(t)]; }

unsigned swizzle_span(Swizzle s) {
  switch (s) {
    case Swizzle::NONE: return 0;
    case Swizzle::B32: return 32;
    case Swizzle::B64: return 64;
    case Swizzle::B96: return 96;
    default: return 128;
  }
}

std::array<std::uint64_t, 4> dense_strides(TensorDataType t, unsigned rank, const std::array<std::uint64_t, 5>& dims) {
  std::array<std::uint64_t, 4> s{};
  std::uint64_t row_bits = dims[0] * element_bits(t);
  std::uint64_t acc = (row_bits + 7) / 8;
  for (unsigned i = 1; i < rank && i < 5; ++i) {
    s[i - 1] = acc;
    acc *= dims[i];
  }
  return s;
}

const std::vector<std::pair<std::string, std::string>>& encode_rules() { return rules_table(); }

EncodeVerdict validate_encode(const TensorMapParams& p, unsigned cc, const PolicySet& policies) {
  EncodeVerdict v;
  Checker c(v);
  const bool packed16 = p.dtype == TensorDataType::T16U4_ALIGN16B || p.dtype == TensorDataType::T16U6_ALIGN16B;
  const bool im2col_any = p.kind != EncodeKind::tiled;
  const unsigned bits = element_bits(p.dtype);

  if (cc != 0) c.rule(cc >= 90, "tensor_map_cc90", "compute capability " + std::to_string(cc));
  if (cc != 0 && p.kind == EncodeKind::im2col_wide &&
      policies.get<Im2colWideEncodeCc>(PolicyId::im2col_wide_encode_cc) == Im2colWideEncodeCc::checked)
    c.rule(cc >= 100, "im2col_wide_cc100", "compute capability " + std::to_string(cc));
  if (cc != 0 && cc < 100 &&
      (p.swizzle == Swizzle::B128_ATOM_32B || p.swizzle == Swizzle::B128_ATOM_32B_FLIP_8B ||
       p.swizzle == Swizzle::B128_ATOM_64B) &&
      policies.get<SwizzleAtomEncode>(PolicyId::swizzle_atom_encode) == SwizzleAtomEncode::refused_below_cc100)
    c.rule(false, "swizzle_atom_refused", "swizzle " + std::string(to_string(p.swizzle)) + " at compute capability " +
                                              std::to_string(cc));
  if (is_packed(p.dtype) &&
      policies.get<PackedTypeEncode>(PolicyId::packed_type_encode) == PackedTypeEncode::refused)
    c.rule(false, "packed_type_refused", std::string("tensorDataType ") + to_string(p.dtype));

  // Rank.
  if (im2col_any) {
    c.rule(p.rank >= 3 && p.rank <= 5, "rank_im2col", "tensorRank " + std::to_string(p.rank));
  } else {
    c.rule(p.rank >= 1 && p.rank <= 5, "rank_range", "tensorRank " + std::to_string(p.rank));
    if (p.interleave != Interleave::NONE)
      c.rule(p.rank >= 3, "rank_interleave",
             "tensorRank " + std::to_string(p.rank) + " with interleave " + to_string(p.interleave));
  }
  const unsigned rank = p.rank < 1 ? 1 : (p.rank > 5 ? 5 : p.rank);

  // Global address.
  c.rule(p.global_address % 16 == 0, "global_address_align16", "globalAddress " + std::to_string(p.global_address));
  if (p.interleave == Interleave::B32)
    c.rule(p.global_address % 32 == 0, "global_address_align32_interleave",
           "globalAddress " + std::to_string(p.global_address));
  if (packed16)
    c.rule(p.global_address % 32 == 0, "global_address_align32_packed",
           "globalAddress " + std::to_string(p.global_address));

  // Global dims.
  for (unsigned i = 0; i < rank; ++i)
    c.rule(p.dims[i] >= 1 && p.dims[i] <= (std::uint64_t{1} << 32), "global_dim_range",
           idx("globalDim", i) + " = " + std::to_string(p.dims[i]));
  if (packed16) c.rule(p.dims[0] % 128 == 0, "global_dim0_packed16b", "globalDim[0] = " + std::to_string(p.dims[0]));
  if (p.dtype == TensorDataType::T16U4_ALIGN8B)
    c.rule(p.dims[0] % 2 == 0, "global_dim0_u4_align8b", "globalDim[0] = " + std::to_string(p.dims[0]));

  // Global strides.
  for (unsigned i = 0; i + 1 < rank; ++i) {
    const std::uint64_t s = p.strides[i];
    const std::string d = idx("globalStrides", i) + " = " + std::to_string(s);
    c.rule(s % 16 == 0, "global_stride_multiple16", d);
    c.rule(s < (std::uint64_t{1} << 40), "global_stride_below_2_40", d);
    if (p.interleave == Interleave::B32) c.rule(s % 32 == 0, "global_stride_multiple32_interleave", d);
    if (packed16) c.rule(s % 32 == 0, "global_stride_multiple32_packed", d);
    const std::uint64_t prev = i == 0 ? (p.dims[0] * bits + 7) / 8 : p.strides[i - 1] * p.dims[i];
    c.open(s >= prev, "global_stride_covers_previous", d + " < " + std::to_string(prev));
  }

  // Box (tiled) or pixel box (im2col).
  if (p.kind == EncodeKind::tiled) {
    for (unsigned i = 0; i < rank; ++i)
      c.rule(p.box[i] >= 1 && p.box[i] <= 256, "box_dim_range", idx("boxDim", i) + " = " + std::to_string(p.box[i]));
    if (p.interleave == Interleave::NONE)
      c.rule((static_cast<std::uint64_t>(p.box[0]) * bits) % (16 * 8) == 0, "box_inner_multiple16",
             "boxDim[0] * elementSize = " + std::to_string(p.box[0]) + " * " + std::to_string(bits) + " bits");
    else if (policies.get<InterleaveInnerBox>(PolicyId::interleave_inner_box) == InterleaveInnerBox::multiple_16B)
      c.rule((static_cast<std::uint64_t>(p.box[0]) * bits) % (16 * 8) == 0, "interleave_inner_box_multiple16",
             "boxDim[0] * elementSize = " + std::to_string(p.box[0]) + " * " + std::to_string(bits) + " bits, interleave " +
                 to_string(p.interleave));
    if (packed16) c.rule(p.box[0] == 128, "box_dim0_packed16b", "boxDim[0] = " + std::to_string(p.box[0]));
  } else {
    const int lim = p.kind == EncodeKind::im2col_wide ? 32768 : (rank == 3 ? 32768 : (rank == 4 ? 128 : 16));
    const unsigned spatial = p.kind == EncodeKind::im2col_wide ? 1 : rank - 2;
    const char* rule = p.kind == EncodeKind::im2col_wide ? "im2col_wide_corner_range" : "im2col_corner_range";
    for (unsigned i = 0; i < spatial && i < 3; ++i) {
      c.rule(p.lower_corner[i] >= -lim && p.lower_corner[i] <= lim - 1, rule,
             idx("pixelBoxLowerCorner", i) + " = " + std::to_string(p.lower_corner[i]));
      c.rule(p.upper_corner[i] >= -lim && p.upper_corner[i] <= lim - 1, rule,
             idx("pixelBoxUpperCorner", i) + " = " + std::to_string(p.upper_corner[i]));
      // The box along a spatial dimension X spans [lower, globalDim[X] + upper). im2col_interleave_box_area=
      // previous_dim: an interleaved map's corners i are checked against globalDim[i], the dimension below.
      const unsigned against =
          p.kind == EncodeKind::im2col && p.interleave != Interleave::NONE &&
                  policies.get<Im2colInterleaveBoxArea>(PolicyId::im2col_interleave_box_area) ==
                      Im2colInterleaveBoxArea::previous_dim
              ? i
              : 1 + i;
      const std::int64_t extent = static_cast<std::int64_t>(p.dims[against]) + p.upper_corner[i] - p.lower_corner[i];
      const std::string dim = against == i ? "globalDim[" + std::to_string(i) + "]" : "globalDim";
      c.rule(extent > 0, "im2col_box_nonzero_area",
             "spatial dimension " + std::to_string(1 + i) +
                 (against == i ? ", checked against " + dim + " (interleave)" : std::string()) + ": " + dim +
                 " + upper - lower = " + std::to_string(extent));
    }
    c.rule(p.channels_per_pixel <= 256, "channels_per_pixel_range",
           "channelsPerPixel = " + std::to_string(p.channels_per_pixel));
    if (p.kind == EncodeKind::im2col &&
        policies.get<ChannelBytes>(PolicyId::im2col_channel_bytes) == ChannelBytes::multiple_16B)
      c.rule(static_cast<std::uint64_t>(p.channels_per_pixel) * bits % (16 * 8) == 0,
             "im2col_channel_bytes_multiple16",
             "channelsPerPixel * elementSize = " + std::to_string(p.channels_per_pixel * bits / 8) + " bytes");
    c.open(p.channels_per_pixel != 0, "channels_per_pixel_zero", "channelsPerPixel = 0");
    if (packed16)
      c.rule(p.channels_per_pixel == 128, "channels_per_pixel_packed16b",
             "channelsPerPixel = " + std::to_string(p.channels_per_pixel));
    const bool ppc_used = !(p.kind == EncodeKind::im2col_wide && p.wide_mode == Im2colWideMode::W128);
    if (ppc_used) {
      c.rule(p.pixels_per_column <= 1024, "pixels_per_column_range",
             "pixelsPerColumn = " + std::to_string(p.pixels_per_column));
      c.open(p.pixels_per_column != 0, "pixels_per_column_zero", "pixelsPerColumn = 0");
    }
  }

  // Element strides.
  for (unsigned i = 0; i < rank; ++i)
    c.rule(p.element_strides[i] >= 1 && p.element_strides[i] <= 8, "element_strides_range",
           idx("elementStrides", i) + " = " + std::to_string(p.element_strides[i]));

  // Interleave and swizzle.
  c.rule(p.swizzle != Swizzle::B96, "swizzle_enum", "swizzle 96B");
  const std::uint64_t inner_bits =
      static_cast<std::uint64_t>(p.kind == EncodeKind::tiled ? p.box[0] : p.channels_per_pixel) * bits;
  if (p.kind == EncodeKind::im2col_wide) {
    c.rule(p.swizzle == Swizzle::B64 || p.swizzle == Swizzle::B128 || p.swizzle == Swizzle::B128_ATOM_32B,
           "im2col_wide_swizzle_modes", std::string("swizzle ") + to_string(p.swizzle));
    if (p.interleave == Interleave::NONE && swizzle_span(p.swizzle) != 0)
      c.rule(inner_bits <= 8ull * swizzle_span(p.swizzle), "im2col_wide_inner_box",
             "channelsPerPixel * elementSize = " + std::to_string(inner_bits / 8) + " bytes, swizzle " +
                 to_string(p.swizzle));
  } else if (p.interleave == Interleave::NONE && p.swizzle != Swizzle::NONE && p.swizzle != Swizzle::B96) {
    c.rule(inner_bits <= 8ull * swizzle_span(p.swizzle), "swizzle_inner_box",
           "inner box " + std::to_string((inner_bits + 7) / 8) + " bytes, swizzle " + to_string(p.swizzle));
  }
  if (p.dtype == TensorDataType::T16U6_ALIGN16B)
    c.rule(p.interleave == Interleave::NONE, "u6_no_interleave", std::string("interleave ") + to_string(p.interleave));
  if (p.interleave == Interleave::B32 &&
      policies.get<Interleave32Swizzle>(PolicyId::interleave32_swizzle) == Interleave32Swizzle::swizzle_32B_only)
    c.rule(p.swizzle == Swizzle::B32, "interleave32_swizzle32", std::string("swizzle ") + to_string(p.swizzle));
  if (p.dtype == TensorDataType::T16U6_ALIGN16B && p.kind != EncodeKind::im2col_wide)
    c.rule(p.swizzle == Swizzle::NONE || p.swizzle == Swizzle::B128 || p.swizzle == Swizzle::B128_ATOM_32B ||
               p.swizzle == Swizzle::B128_ATOM_64B,
           "swizzle_u6_modes", std::string("swizzle ") + to_string(p.swizzle));
  if (p.dtype == TensorDataType::T16U6_ALIGN16B && p.kind == EncodeKind::im2col_wide)
    c.rule(p.swizzle == Swizzle::B128 || p.swizzle == Swizzle::B128_ATOM_32B, "swizzle_u6_modes",
           std::string("swizzle ") + to_string(p.swizzle));
  if (p.dtype == TensorDataType::T16U4_ALIGN16B)
    c.rule(p.swizzle == Swizzle::B128 || p.swizzle == Swizzle::B128_ATOM_32B ||
               (p.swizzle == Swizzle::NONE && p.kind != EncodeKind::im2col_wide),
           "swizzle_u4_16b_modes", std::string("swizzle ") + to_string(p.swizzle));

  // OOB fill.
  if (p.oob_fill == OobFill::NAN_REQUEST_ZERO_FMA)
    c.rule(is_float_type(p.dtype) && !is_packed(p.dtype), "oob_nan_float_only",
           std::string("tensorDataType ") + to_string(p.dtype));
  return v;
}

}  // namespace ptxcts::ref
