#include "ptxcts/ref/tensor.hpp"

#include <string>

#include "ptxcts/ref/float_format.hpp"

namespace ptxcts::ref {

namespace {

void need(bool ok, const std::string& msg) {
  if (!ok) throw ModelError(msg);
}

// Along dimension 0 the model moves whole units: one element, or for the packed types a group of values that
// is never split (16U4_ALIGN8B: 2 values = 1 byte; 16U4_ALIGN16B: 16 values = 8 bytes, then an 8-byte gap in
// shared memory; 16U6_ALIGN16B: 16 values = 12 bytes, then a 4-byte gap) -- the driver text: "copies '16 x U4'
// packed values to memory aligned as 16 bytes. There are 8 byte gaps between every 8 byte chunk".
struct UnitShape {
  unsigned values;  // values per unit along dimension 0
  unsigned bytes;   // data bytes (global and shared)
  unsigned gap;     // shared-memory gap after the data
};
UnitShape unit_shape(TensorDataType t) {
  switch (t) {
    case TensorDataType::T16U4_ALIGN8B: return {2, 1, 0};
    case TensorDataType::T16U4_ALIGN16B: return {16, 8, 8};
    case TensorDataType::T16U6_ALIGN16B: return {16, 12, 4};
    default: return {1, element_bits(t) / 8, 0};
  }
}

constexpr std::uint64_t kMaxBoxBytes = 16ull << 20;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }
std::uint64_t round_up(std::uint64_t a, std::uint64_t m) { return ceil_div(a, m) * m; }

// Shared-memory bytes between consecutive inner rows of the box.
std::uint64_t row_pitch(const TensorMapParams& map, std::uint64_t units, const UnitShape& u, const PolicySet& p) {
  std::uint64_t pitch = units * (u.bytes + u.gap);
  if (map.interleave != Interleave::NONE) {
    const bool span = p.get<InterleaveRowPitch>(PolicyId::interleave_row_pitch) == InterleaveRowPitch::interleave_span;
    pitch = round_up(pitch, span && map.interleave == Interleave::B32 ? 32 : 16);
  } else if (map.swizzle != Swizzle::NONE && p.get<NarrowBox>(PolicyId::swizzle_narrow_box) == NarrowBox::pad_to_span) {
    const std::uint64_t s = swizzle_span(map.swizzle);
    if (pitch < s) pitch = s;
  }
  return pitch;
}

std::uint64_t global_offset(const TensorMapParams& map, const std::array<std::int64_t, 5>& g) {
  std::uint64_t off = static_cast<std::uint64_t>(g[0]) * element_bits(map.dtype) / 8;
  for (unsigned i = 1; i < map.rank; ++i) off += map.strides[i - 1] * static_cast<std::uint64_t>(g[i]);
  return off;
}

bool inside(const TensorMapParams& map, const std::array<std::int64_t, 5>& g) {
  for (unsigned i = 0; i < map.rank; ++i)
    if (g[i] < 0 || static_cast<std::uint64_t>(g[i]) >= map.dims[i]) return false;
  return true;
}

void push_piece(std::vector<BoxPiece>& out, const TensorMapParams& map, const UnitShape& u, std::uint64_t smem_off,
                const std::array<std::int64_t, 5>& g) {
  BoxPiece piece;
  need(smem_off + u.bytes + u.gap <= 0xffffffffull, "tensor box exceeds 4 GiB of shared memory");
  piece.smem_off = static_cast<std::uint32_t>(smem_off);
  piece.data_bytes = u.bytes;
  piece.gap_bytes = u.gap;
  piece.coords = g;
  piece.in_bounds = inside(map, g);
  if (piece.in_bounds) piece.global_off = global_offset(map, g);
  out.push_back(piece);
}

void check_map_and_access(const TensorMapParams& map, const TensorAccess& a) {
  const EncodeKind kind = encode_kind_for(a.mode);
  need(map.kind == kind, std::string("mode ") + to_string(a.mode) + " takes a map from " + to_string(kind) +
                             ", this one is for " + to_string(map.kind));
  const EncodeVerdict v = validate_encode(map);
  if (v.must_reject()) throw TensorMapRejected(map.kind, v.violations.front());
  need(map.swizzle != Swizzle::B96,
       "swizzle 96B: open point -- CUDA 13.0 has no CUtensorMapSwizzle value for it and the model has no layout");
  need(a.smem_offset % 16 == 0, "smem_offset " + std::to_string(a.smem_offset) + " is not 16-byte aligned");
  need(map.swizzle == Swizzle::NONE || a.smem_offset % 128 == 0,
       "smem_offset " + std::to_string(a.smem_offset) +
           " with a swizzle: the model requires 128-byte alignment (the hardware's requirement per mode is open)");
  const UnitShape u = unit_shape(map.dtype);
  if (map.dtype == TensorDataType::T16U4_ALIGN16B || map.dtype == TensorDataType::T16U6_ALIGN16B)
    need(a.coords[0] % 128 == 0, "tensorCoords[0] = " + std::to_string(a.coords[0]) +
                                     ": 'For .b4x16_p64, .b6x16_p32 and .b6p2x16, the first coordinate in the "
                                     "tensorCoords argument vector must be a multiple of 128.'");
  else if (u.values > 1)
    need(a.coords[0] % static_cast<std::int32_t>(u.values) == 0,
         "tensorCoords[0] = " + std::to_string(a.coords[0]) +
             ": 16U4_ALIGN8B with an odd first coordinate splits a byte; the model requires an even one (open)");
}

std::vector<BoxPiece> tile_box(const TensorMapParams& map, const TensorAccess& a, const PolicySet& p) {
  const UnitShape u = unit_shape(map.dtype);
  std::array<std::uint64_t, 5> es{1, 1, 1, 1, 1}, e{1, 1, 1, 1, 1};
  for (unsigned i = 0; i < map.rank; ++i) es[i] = map.element_strides[i];
  // 'when interleave is CU_TENSOR_MAP_INTERLEAVE_NONE, the first element of this array is ignored'
  if (map.interleave == Interleave::NONE) es[0] = 1;
  for (unsigned i = 0; i < map.rank; ++i) e[i] = ceil_div(map.box[i], es[i]);  // ceil(boxDim[i] / elementStrides[i])
  need(u.values == 1 || (es[0] == 1 && e[0] % u.values == 0), "packed type: boxDim[0] is not a whole number of units");
  const std::uint64_t units = e[0] / u.values;
  const std::uint64_t pitch = row_pitch(map, units, u, p);
  std::uint64_t footprint = pitch;
  for (unsigned i = 1; i < map.rank; ++i) footprint *= e[i];
  // No device has more than a few hundred KiB of shared memory; refuse boxes far beyond it before allocating.
  need(footprint <= kMaxBoxBytes, "the box needs " + std::to_string(footprint) +
                                      " bytes of shared memory; the model refuses boxes above 16 MiB");
  std::vector<BoxPiece> out;
  if (a.mode == TensorMode::gather4 || a.mode == TensorMode::scatter4) {
    need(map.rank == 2, "tile::gather4 / tile::scatter4 need a 2D tensor map, this one has rank " +
                            std::to_string(map.rank));
    need(map.box[1] == 1, "tile::gather4 / tile::scatter4: boxDim[1] must be 1 (NOTES), it is " +
                              std::to_string(map.box[1]));
    // 'The five elements together specify the start co-ordinates of the four rows.'
    for (unsigned k = 0; k < 4; ++k)
      for (std::uint64_t j = 0; j < units; ++j) {
        const std::array<std::int64_t, 5> g{a.coords[0] + static_cast<std::int64_t>(j * u.values), a.coords[1 + k], 0,
                                            0, 0};
        push_piece(out, map, u, k * pitch + j * (u.bytes + u.gap), g);
      }
    return out;
  }
  std::uint64_t rows = 1;
  for (unsigned i = 1; i < map.rank; ++i) rows *= e[i];
  for (std::uint64_t r = 0; r < rows; ++r) {
    std::array<std::int64_t, 5> g{};
    std::uint64_t rest = r;
    for (unsigned i = 1; i < map.rank; ++i) {
      const std::uint64_t k = rest % e[i];
      rest /= e[i];
      g[i] = a.coords[i] + static_cast<std::int64_t>(k * es[i]);  // g_i = coord_i + k_i * elementStrides[i]
    }
    for (std::uint64_t j = 0; j < units; ++j) {
      g[0] = a.coords[0] + static_cast<std::int64_t>(j * u.values * es[0]);
      push_piece(out, map, u, r * pitch + j * (u.bytes + u.gap), g);
    }
  }
  return out;
}

// im2col (PTX 5.5.4 as NOTES.md describes it): dimensions innermost first C, W, [H, [D]], N. Pixel positions walk
// the bounding box [lower, globalDim + upper) of W first, then H, then D, then N; each pixel reads
// channelsPerPixel channels from tensorCoords[0] at (position + offsets).
std::vector<BoxPiece> im2col_box(const TensorMapParams& map, const TensorAccess& a, const PolicySet& p) {
  const UnitShape u = unit_shape(map.dtype);
  const unsigned rank = map.rank;
  const unsigned spatial = rank - 2;
  const bool wide = a.mode == TensorMode::im2col_w || a.mode == TensorMode::im2col_w128;
  const std::uint64_t cpp = map.channels_per_pixel;
  need(cpp % u.values == 0, "packed type: channelsPerPixel is not a whole number of units");
  std::uint64_t pixels = map.pixels_per_column;
  std::array<std::int64_t, 3> off{0, 0, 0};
  if (a.mode == TensorMode::im2col) {
    // im2colInfo offsets are u16; their usable range depends on the rank (3D 16 bit, 4D 8 bit, 5D 5 bit).
    const unsigned lim = rank == 3 ? 65536u : (rank == 4 ? 256u : 32u);
    for (unsigned s = 0; s < spatial; ++s) {
      need(a.im2col_offsets[s] < lim, "im2colInfo offset " + std::to_string(s) + " = " +
                                          std::to_string(a.im2col_offsets[s]) + " exceeds the " +
                                          std::to_string(rank) + "D range [0, " + std::to_string(lim) + ")");
      off[s] = a.im2col_offsets[s];
    }
  }
  if (wide) {
    // 'wHalo ... Im2col::w mode : valid range is [0, 512). Im2col::w::128 mode : valid range is [0, 32).'
    // 'wOffset is a 16bit unsigned integer whose valid range of values is [0, 32).'
    const unsigned halo_lim = a.mode == TensorMode::im2col_w ? 512 : 32;
    need(a.w_halo < halo_lim, "wHalo " + std::to_string(a.w_halo) + " is outside [0, " + std::to_string(halo_lim) + ")");
    need(a.w_offset < 32, "wOffset " + std::to_string(a.w_offset) + " is outside [0, 32)");
    if (a.mode == TensorMode::im2col_w128) pixels = 128;  // pixelsPerColumn 'is ignored' for W128
    if (p.get<WHalo>(PolicyId::im2col_w_halo) == WHalo::append) pixels += a.w_halo;
    off[0] = a.w_offset;
  }
  const bool carry = p.get<WrapStride>(PolicyId::im2col_wrap_stride) == WrapStride::carry;
  const std::uint64_t units = cpp / u.values;
  const std::uint64_t pitch = row_pitch(map, units, u, p);
  std::array<std::int64_t, 3> pos{0, 0, 0};
  const unsigned walk_dims = wide ? 1 : spatial;  // im2col::w: 'the size of the box along D and H is always one'
  for (unsigned s = 0; s < spatial; ++s) pos[s] = a.coords[1 + s];
  std::int64_t n = a.coords[rank - 1];
  std::vector<BoxPiece> out;
  for (std::uint64_t px = 0; px < pixels; ++px) {
    std::array<std::int64_t, 5> g{};
    for (unsigned s = 0; s < spatial; ++s) g[1 + s] = pos[s] + (s == 0 || !wide ? off[s] : 0);
    g[rank - 1] = n;
    for (std::uint64_t j = 0; j < units; ++j) {
      g[0] = a.coords[0] + static_cast<std::int64_t>(j * u.values);
      push_piece(out, map, u, px * pitch + j * (u.bytes + u.gap), g);
    }
    // Advance: W by elementStrides[W]; past globalDim + upper corner it restarts at the lower corner and the
    // next dimension advances (the N step is elementStrides[N]; open, like the restart point with strides != 1).
    unsigned s = 0;
    for (; s < walk_dims; ++s) {
      pos[s] += map.element_strides[1 + s];
      const std::int64_t limit = static_cast<std::int64_t>(map.dims[1 + s]) + map.upper_corner[s];
      if (pos[s] < limit) break;
      pos[s] = map.lower_corner[s] + (carry ? pos[s] - limit : 0);
    }
    if (s == walk_dims) n += map.element_strides[rank - 1];
  }
  return out;
}

}  // namespace

TensorMapRejected::TensorMapRejected(EncodeKind k, RuleViolation v)
    : ModelError(std::string(to_string(k)) + " must reject the tensor map: rule " + v.rule + ": " + v.sentence +
                 " [" + v.detail + "]"),
      kind(k),
      violation(std::move(v)) {}

const char* to_string(TensorMode m) {
  switch (m) {
    case TensorMode::tile: return "tile";
    case TensorMode::gather4: return "gather4";
    case TensorMode::scatter4: return "scatter4";
    case TensorMode::im2col: return "im2col";
    case TensorMode::im2col_no_offs: return "im2col_no_offs";
    case TensorMode::im2col_w: return "im2col_w";
    case TensorMode::im2col_w128: return "im2col_w128";
  }
  return "?";
}

std::optional<TensorMode> parse_tensor_mode(std::string_view s) {
  for (TensorMode m : {TensorMode::tile, TensorMode::gather4, TensorMode::scatter4, TensorMode::im2col,
                       TensorMode::im2col_no_offs, TensorMode::im2col_w, TensorMode::im2col_w128})
    if (s == to_string(m)) return m;
  return std::nullopt;
}

EncodeKind encode_kind_for(TensorMode m) {
  switch (m) {
    case TensorMode::im2col:
    case TensorMode::im2col_no_offs: return EncodeKind::im2col;
    case TensorMode::im2col_w:
    case TensorMode::im2col_w128: return EncodeKind::im2col_wide;
    default: return EncodeKind::tiled;
  }
}

std::vector<BoxPiece> tensor_box(const TensorMapParams& map, const TensorAccess& a, const PolicySet& p) {
  check_map_and_access(map, a);
  switch (a.mode) {
    case TensorMode::tile:
    case TensorMode::gather4:
    case TensorMode::scatter4: return tile_box(map, a, p);
    default: return im2col_box(map, a, p);
  }
}

std::uint32_t tensor_tx_bytes(const TensorMapParams& map, const TensorAccess& a, const PolicySet& p) {
  const bool gaps = p.get<PackedTxBytes>(PolicyId::packed_tx_bytes) == PackedTxBytes::smem_bytes;
  std::uint64_t n = 0;
  for (const BoxPiece& piece : tensor_box(map, a, p)) n += piece.data_bytes + (gaps ? piece.gap_bytes : 0);
  need(n <= 0xffffffffull, "tx bytes exceed 32 bits");
  return static_cast<std::uint32_t>(n);
}

std::uint64_t swizzle_address(Swizzle s, std::uint64_t a, const PolicySet& p) {
  // NOTES.md (PTX 5.5.7; CUTLASS Swizzle<B,4,3>): 16-byte chunk bits 4..6 XOR the 128-byte line bits 7..9.
  const std::uint64_t line = a >> 7;
  switch (s) {
    case Swizzle::NONE: return a;
    case Swizzle::B32: return a ^ ((line & 1) << 4);
    case Swizzle::B64: return a ^ ((line & 3) << 4);
    case Swizzle::B128: return a ^ ((line & 7) << 4);
    case Swizzle::B128_ATOM_32B: return a ^ ((line & 3) << 5);
    case Swizzle::B128_ATOM_64B: return a ^ ((line & 1) << 6);
    case Swizzle::B128_ATOM_32B_FLIP_8B: {
      // cuda.h: 'Swizzle 32B chunks within 128B span, additionally swap lower 8B with upper 8B within each 16B for
      // every alternate row'. Which rows flip: policy swizzle_flip_8b_rows.
      const std::uint64_t want = p.get<FlipRows>(PolicyId::swizzle_flip_8b_rows) == FlipRows::odd ? 1 : 0;
      const std::uint64_t b = a ^ ((line & 3) << 5);
      return (line & 1) == want ? (b ^ 8) : b;
    }
    case Swizzle::B96: break;
  }
  throw ModelError("swizzle 96B: open point -- no layout the model can state");
}

std::uint64_t oob_fill_pattern(TensorDataType t, OobFill f, const PolicySet& p) {
  if (f == OobFill::NONE || !is_float_type(t)) return 0;
  const unsigned bits = element_bits(t);
  FloatFormat fmt = bits == 64 ? kF64 : (bits == 32 ? kF32 : (t == TensorDataType::BFLOAT16 ? kBF16 : kF16));
  const std::uint64_t exp_all = fmt.exp_field_max() << fmt.man_bits;
  switch (p.get<OobNanPattern>(PolicyId::oob_nan_pattern)) {
    case OobNanPattern::canonical: return fmt.canonical_nan();
    case OobNanPattern::all_ones: return (fmt.sign_mask() << 1) - 1;
    case OobNanPattern::quiet_positive: return exp_all | fmt.quiet_bit();
    case OobNanPattern::quiet_negative: return fmt.sign_mask() | exp_all | fmt.quiet_bit();
    case OobNanPattern::repeat_7ff7: {
      std::uint64_t v = 0;
      for (unsigned k = 0; k < bits; k += 16) v |= std::uint64_t{0x7ff7} << k;
      return v;
    }
  }
  return fmt.canonical_nan();
}

std::optional<ElemType> tensor_reduce_type(TensorDataType t, RedOp op) {
  const bool bitwise = op == RedOp::and_op || op == RedOp::or_op || op == RedOp::xor_op;
  switch (t) {
    case TensorDataType::UINT32: return bitwise ? ElemType::b32 : ElemType::u32;
    case TensorDataType::INT32: return bitwise ? ElemType::b32 : ElemType::s32;
    case TensorDataType::UINT64: return bitwise ? ElemType::b64 : ElemType::u64;
    case TensorDataType::INT64: return bitwise ? ElemType::b64 : ElemType::s64;
    case TensorDataType::FLOAT16: return ElemType::f16;
    case TensorDataType::BFLOAT16: return ElemType::bf16;
    case TensorDataType::FLOAT32:
    case TensorDataType::FLOAT32_FTZ: return ElemType::f32;
    case TensorDataType::FLOAT64: return ElemType::f64;
    default: return std::nullopt;
  }
}

std::vector<ByteWrite> tensor_load_writes(const TensorMapParams& map, const TensorAccess& a, ConstByteSpan global,
                                          const PolicySet& p) {
  need(a.mode != TensorMode::scatter4 && a.mode != TensorMode::im2col_no_offs,
       std::string("mode ") + to_string(a.mode) + " is a store/reduce mode, not a load mode");
  const std::vector<BoxPiece> box = tensor_box(map, a, p);
  const std::uint64_t fill = oob_fill_pattern(map.dtype, map.oob_fill, p);
  const unsigned esize = is_packed(map.dtype) ? 1 : element_bits(map.dtype) / 8;
  const bool gap_zero = p.get<PackedGapFill>(PolicyId::packed_gap_fill) == PackedGapFill::zero;
  std::vector<ByteWrite> out;
  for (const BoxPiece& piece : box) {
    if (piece.in_bounds)
      need(piece.global_off + piece.data_bytes <= global.size,
           "tensor memory holds " + std::to_string(global.size) + " bytes, the element at byte " +
               std::to_string(piece.global_off) + " lies beyond");
    for (std::uint32_t j = 0; j < piece.data_bytes; ++j) {
      const std::uint8_t v = piece.in_bounds ? global.data[piece.global_off + j]
                                             : static_cast<std::uint8_t>(fill >> (8 * (j % esize)));
      const std::uint64_t addr = swizzle_address(map.swizzle, a.smem_offset + piece.smem_off + j, p);
      out.push_back({static_cast<std::uint32_t>(addr), v});
    }
    if (gap_zero)
      for (std::uint32_t j = 0; j < piece.gap_bytes; ++j) {
        const std::uint64_t addr =
            swizzle_address(map.swizzle, a.smem_offset + piece.smem_off + piece.data_bytes + j, p);
        out.push_back({static_cast<std::uint32_t>(addr), 0});
      }
  }
  return out;
}

std::uint32_t tensor_load(const TensorMapParams& map, const TensorAccess& a, ConstByteSpan global, ByteSpan window,
                          const PolicySet& p) {
  for (const ByteWrite& w : tensor_load_writes(map, a, global, p)) {
    need(w.addr < window.size, "tensor load writes shared byte " + std::to_string(w.addr) + ", the window has " +
                                   std::to_string(window.size));
    window.data[w.addr] = w.value;
  }
  return tensor_tx_bytes(map, a, p);
}

std::vector<std::uint32_t> tensor_load_multicast(const TensorMapParams& map, const TensorAccess& a,
                                                 ConstByteSpan global, std::vector<Window>& windows,
                                                 std::uint16_t cta_mask, const PolicySet& p) {
  // 'The source data is multicast to the same offset as dstMem in the shared memory of each destination CTA.'
  const std::vector<ByteWrite> writes = tensor_load_writes(map, a, global, p);
  const std::uint32_t tx = tensor_tx_bytes(map, a, p);
  std::vector<std::uint32_t> out(windows.size(), 0);
  for (unsigned r = 0; r < 16; ++r) {
    if (!((cta_mask >> r) & 1)) continue;
    need(r < windows.size(), "ctaMask bit " + std::to_string(r) + " names a CTA outside the cluster of " +
                                 std::to_string(windows.size()));
    for (const ByteWrite& w : writes) {
      need(w.addr < windows[r].size(), "tensor load writes shared byte " + std::to_string(w.addr) +
                                           " beyond CTA " + std::to_string(r) + "'s window");
      windows[r][w.addr] = w.value;
    }
    out[r] = tx;
  }
  return out;
}

namespace {

// Chapter, 'restrictions on the .global.shared::cta direction'.
void check_store_access(const TensorMapParams& map, const TensorAccess& a) {
  need(a.mode == TensorMode::tile || a.mode == TensorMode::scatter4 || a.mode == TensorMode::im2col_no_offs,
       std::string("mode ") + to_string(a.mode) + " is not a .global.shared::cta mode (tile, tile::scatter4, "
                                                  "im2col_no_offs)");
  const unsigned n = a.mode == TensorMode::scatter4 ? 5 : map.rank;
  for (unsigned i = 0; i < n; ++i)
    need(a.coords[i] >= 0, "tensorCoords[" + std::to_string(i) + "] = " + std::to_string(a.coords[i]) +
                               ": 'Starting co-ordinates for Bounding Box (tensorCoords) must be non-negative.'");
  if (a.mode == TensorMode::im2col_no_offs)
    for (unsigned s = 0; s + 2 < map.rank; ++s) {
      need(map.lower_corner[s] >= 0, "'Bounding-Box Lower-Corner must be non-negative.'");
      need(map.upper_corner[s] <= 0, "'Bounding-Box Upper-Corner must be non-positive.'");
    }
  need(map.dtype != TensorDataType::T16U4_ALIGN16B,
       "'cp.async.bulk.tensor with the direction .global.shared::cta doesn't support the type .b4x16_p64.'");
}

template <typename F>
void for_each_stored_piece(const TensorMapParams& map, const TensorAccess& a, std::size_t global_size,
                           const PolicySet& p, F f) {
  check_store_access(map, a);
  const bool granule = p.get<StoreOob>(PolicyId::tensor_store_oob) == StoreOob::granule16_written &&
                       !is_packed(map.dtype);
  for (BoxPiece piece : tensor_box(map, a, p)) {
    if (!piece.in_bounds) {
      // OOB elements are not written (NOTES; relied on by CUTLASS epilogues), except under granule16_written:
      // elements past globalDim[0] inside the 16-byte granule that holds the row's last in-bounds byte.
      if (!granule) continue;
      bool rest_in = true;
      std::uint64_t row_off = 0;
      for (unsigned i = 1; i < map.rank; ++i) {
        rest_in = rest_in && piece.coords[i] >= 0 && piece.coords[i] < std::int64_t(map.dims[i]);
        if (rest_in) row_off += map.strides[i - 1] * std::uint64_t(piece.coords[i]);
      }
      const std::uint64_t esz = element_bits(map.dtype) / 8;
      const std::int64_t c0 = piece.coords[0];
      if (!rest_in || c0 < std::int64_t(map.dims[0])) continue;
      const std::uint64_t granule_end = (map.dims[0] * esz + 15) / 16 * 16;
      if (std::uint64_t(c0) * esz + piece.data_bytes > granule_end) continue;
      piece.global_off = row_off + std::uint64_t(c0) * esz;
    }
    need(piece.global_off + piece.data_bytes <= global_size,
         "tensor memory holds " + std::to_string(global_size) + " bytes, the element at byte " +
             std::to_string(piece.global_off) + " lies beyond");
    f(piece);
  }
}

}  // namespace

void tensor_store(const TensorMapParams& map, const TensorAccess& a, ByteSpan global, ConstByteSpan window,
                  const PolicySet& p) {
  for_each_stored_piece(map, a, global.size, p, [&](const BoxPiece& piece) {
    for (std::uint32_t j = 0; j < piece.data_bytes; ++j) {
      const std::uint64_t addr = swizzle_address(map.swizzle, a.smem_offset + piece.smem_off + j, p);
      need(addr < window.size, "tensor store reads shared byte " + std::to_string(addr) + " beyond the window");
      global.data[piece.global_off + j] = window.data[addr];
    }
  });
}

void tensor_reduce(const TensorMapParams& map, const TensorAccess& a, RedOp op, ByteSpan global, ConstByteSpan window,
                   const PolicySet& p) {
  need(!is_packed(map.dtype), "'cp.reduce.async.bulk doesn't support the types .b4x16, .b4x16_p64, .b6x16_p32 and "
                              ".b6p2x16.'");
  const auto type = tensor_reduce_type(map.dtype, op);
  need(type.has_value(), std::string("cp.reduce.async.bulk.tensor .") + to_string(op) + " on a " +
                             to_string(map.dtype) + " map: the type has no reduce element type");
  const ReduceOp rop{op, *type, false};
  std::string why;
  need(reduce_op_allowed(ReduceSite::tensor, rop, &why), "cp.reduce.async.bulk.tensor: " + why);
  need(a.mode != TensorMode::scatter4, "cp.reduce.async.bulk.tensor has no .tile::scatter4 mode");
  const ReduceContext ctx{ReduceSite::tensor, map.dtype == TensorDataType::FLOAT32_FTZ};
  const unsigned n = elem_bytes(*type);
  for_each_stored_piece(map, a, global.size, p, [&](const BoxPiece& piece) {
    std::uint8_t src[8];
    for (std::uint32_t j = 0; j < n; ++j) {
      const std::uint64_t addr = swizzle_address(map.swizzle, a.smem_offset + piece.smem_off + j, p);
      need(addr < window.size, "tensor reduce reads shared byte " + std::to_string(addr) + " beyond the window");
      src[j] = window.data[addr];
    }
    std::uint8_t* dst = global.data + piece.global_off;
    store_le(dst, n, reduce_element(rop, load_le(dst, n), load_le(src, n), p, ctx));
  });
}

std::string tensor_access_trap(const TensorMapParams& map, const TensorAccess& a, const PolicySet& p) {
  const bool tile_like = a.mode == TensorMode::tile || a.mode == TensorMode::im2col ||
                         a.mode == TensorMode::im2col_no_offs;
  if (tile_like && !is_packed(map.dtype) &&
      p.get<CoordAlignment>(PolicyId::tensor_coord_alignment) == CoordAlignment::trap_16B) {
    const std::int64_t bytes = std::int64_t(a.coords[0]) * (element_bits(map.dtype) / 8);
    if (bytes % 16 != 0)
      return "innermost start coordinate " + std::to_string(a.coords[0]) + " is " + std::to_string(bytes) +
             " bytes, not a multiple of 16 (tensor_coord_alignment=16B_trap)";
  }
  if (a.mode == TensorMode::im2col &&
      p.get<Im2colStartOutside>(PolicyId::im2col_start_outside_box) == Im2colStartOutside::trap) {
    static const char* names[] = {"W", "H", "D"};
    for (unsigned s = 0; s + 2 < map.rank; ++s) {
      const std::int64_t c = a.coords[1 + s];
      const std::int64_t lo = map.lower_corner[s], hi = std::int64_t(map.dims[1 + s]) + map.upper_corner[s];
      if (c < lo || c >= hi)
        return std::string("im2col start ") + names[s] + " = " + std::to_string(c) + " lies outside the bounding box [" +
               std::to_string(lo) + ", " + std::to_string(hi) + ") (im2col_start_outside_box=trap)";
    }
  }
  return {};
}

std::uint64_t tensor_global_bytes(const TensorMapParams& map) {
  const std::uint64_t row = ceil_div(map.dims[0] * element_bits(map.dtype), 8);
  // The last element's end: row bytes plus every dimension's stride times (dim - 1). For dense strides this is
  // the product of the dims; padding after the last row is not included.
  std::uint64_t extent = row;
  for (unsigned i = 1; i < map.rank; ++i) extent += map.strides[i - 1] * (map.dims[i] - 1);
  return extent;
}

std::vector<std::uint8_t> make_index_tensor(const TensorMapParams& map, std::uint64_t base) {
  std::vector<std::uint8_t> buf(tensor_global_bytes(map), 0);
  const unsigned bits = element_bits(map.dtype);
  const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << bits) - 1);
  std::uint64_t rows = 1;
  for (unsigned i = 1; i < map.rank; ++i) rows *= map.dims[i];
  std::uint64_t linear = 0;
  for (std::uint64_t r = 0; r < rows; ++r) {
    std::uint64_t row_off = 0, rest = r;
    for (unsigned i = 1; i < map.rank; ++i) {
      row_off += map.strides[i - 1] * (rest % map.dims[i]);
      rest /= map.dims[i];
    }
    for (std::uint64_t i0 = 0; i0 < map.dims[0]; ++i0, ++linear) {
      const std::uint64_t v = (base + linear) & mask;
      if (bits % 8 == 0) {
        need(row_off + (i0 + 1) * bits / 8 <= buf.size(), "strides place an element outside the tensor's bytes");
        store_le(buf.data() + row_off + i0 * bits / 8, bits / 8, v);
        continue;
      }
      for (unsigned b = 0; b < bits; ++b) {  // packed: value i0 occupies bits [i0*bits, (i0+1)*bits) of the row
        const std::uint64_t bit = i0 * bits + b;
        if ((v >> b) & 1) buf[row_off + bit / 8] |= static_cast<std::uint8_t>(1u << (bit % 8));
      }
    }
  }
  return buf;
}

}  // namespace ptxcts::ref
