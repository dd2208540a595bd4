// Which bytes a tensor access touches: the box of a tile, gather4/scatter4 or im2col access, piece by piece
// (where each unit lands in shared memory, where it comes from in global memory, whether it is in bounds), and the
// bytes credited to the mbarrier. What the pieces carry (loads, stores, reductions): tensor.cpp.
#include <algorithm>
#include <string>

#include "model_checks.hpp"
#include "ptxcts/ref/tensor.hpp"

namespace ptxcts::ref {

using detail::ceil_div;
using detail::need;

namespace {

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

// interleave_tile_box=chunk_rows, the layout measured on the H100 (results/findings/h100-interleaved-tile-load-overrun)
// and the H200 (results/findings/h100-interleaved-tile-copy-outside-domain): dimension 0 counts interleave chunks
// (16 or 32 bytes), not elements -- its coordinate, its extent globalDim[0] and boxDim[0] -- and dimension rank-2
// contributes its start coordinate but no box (one row). Rows run along dimensions 1 .. rank-1 except rank-2
// (dimension 1 fastest), ceil(boxDim[i] / elementStrides[i]) of them along dimension i at coordinate
// tensorCoords[i] + k * elementStrides[i]; a row holds ceil(boxDim[0] / elementStrides[0]) chunks, chunk j at chunk
// index tensorCoords[0] + j * elementStrides[0], global byte row start + index x chunk, dense in shared memory (then
// swizzled). A chunk is in bounds when its index lies in [0, globalDim[0]) and the row's coordinates (rank-2's
// included) lie inside the tensor; an out-of-bounds chunk is filled (loads) or not written (stores, reductions),
// and every chunk is credited. Pieces are whole elements, so reductions combine element by element; rows that
// overlap in global memory are stored / reduced once per row, in row order.
std::vector<BoxPiece> interleave_chunk_rows(const TensorMapParams& map, const TensorAccess& a) {
  const std::uint64_t chunk = map.interleave == Interleave::B32 ? 32 : 16;
  const unsigned unit = is_packed(map.dtype) ? 1 : element_bits(map.dtype) / 8;
  std::array<std::uint64_t, 5> es{1, 1, 1, 1, 1}, e{1, 1, 1, 1, 1};
  for (unsigned i = 0; i < map.rank; ++i) {
    es[i] = map.element_strides[i];
    e[i] = ceil_div(map.box[i], es[i]);
  }
  std::vector<unsigned> dims;
  for (unsigned i = 1; i < map.rank; ++i)
    if (i != map.rank - 2) dims.push_back(i);
  std::uint64_t rows = 1;
  for (unsigned i : dims) rows *= e[i];
  const std::uint64_t row_bytes = e[0] * chunk;
  need(rows * row_bytes <= kMaxBoxBytes, "the box needs more than 16 MiB of shared memory");
  std::vector<BoxPiece> out;
  for (std::uint64_t r = 0; r < rows; ++r) {
    std::array<std::int64_t, 5> g{};
    for (unsigned i = 0; i < map.rank; ++i) g[i] = a.coords[i];
    std::uint64_t rest = r;
    for (unsigned i : dims) {
      g[i] += static_cast<std::int64_t>((rest % e[i]) * es[i]);
      rest /= e[i];
    }
    bool row_in = true;
    std::uint64_t row_start = 0;
    for (unsigned i = 1; i < map.rank; ++i) {
      row_in = row_in && g[i] >= 0 && static_cast<std::uint64_t>(g[i]) < map.dims[i];
      if (row_in) row_start += map.strides[i - 1] * static_cast<std::uint64_t>(g[i]);
    }
    for (std::uint64_t j = 0; j < e[0]; ++j) {
      const std::int64_t k = a.coords[0] + static_cast<std::int64_t>(j * es[0]);  // chunk index along dimension 0
      const bool in = row_in && k >= 0 && static_cast<std::uint64_t>(k) < map.dims[0];
      for (std::uint64_t b = 0; b < chunk; b += unit) {
        BoxPiece piece;
        piece.smem_off = static_cast<std::uint32_t>(r * row_bytes + j * chunk + b);
        piece.data_bytes = unit;
        piece.in_bounds = in;
        if (in) piece.global_off = row_start + static_cast<std::uint64_t>(k) * chunk + b;
        piece.coords = g;
        piece.coords[0] = k;
        out.push_back(piece);
      }
    }
  }
  return out;
}

std::vector<BoxPiece> tile_box(const TensorMapParams& map, const TensorAccess& a, const PolicySet& p) {
  if (map.interleave != Interleave::NONE && a.mode == TensorMode::tile &&
      p.get<InterleaveTileBox>(PolicyId::interleave_tile_box) == InterleaveTileBox::chunk_rows)
    return interleave_chunk_rows(map, a);
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

std::uint32_t tensor_smem_extent(const TensorMapParams& map, const TensorAccess& a, const PolicySet& p) {
  std::uint64_t end = 0;
  for (const BoxPiece& piece : tensor_box(map, a, p))
    end = std::max<std::uint64_t>(end, std::uint64_t(piece.smem_off) + piece.data_bytes + piece.gap_bytes);
  // A row padded to its pitch ends with padding no piece names: round up to the largest pitch granule (the
  // swizzle span, or 32 bytes for interleave 32B, else 16), so the last row counts whole.
  const std::uint64_t granule = map.swizzle != Swizzle::NONE ? std::max<std::uint64_t>(swizzle_span(map.swizzle), 16)
                                : map.interleave == Interleave::B32 ? 32 : 16;
  end = round_up(end, granule);
  if (map.swizzle != Swizzle::NONE) end = round_up(a.smem_offset + end, 128) - a.smem_offset;
  need(end <= 0xffffffffull, "tensor box exceeds 4 GiB of shared memory");
  return static_cast<std::uint32_t>(end);
}

std::uint32_t tensor_smem_extent_any(const TensorMapParams& map, const TensorAccess& a) {
  std::uint32_t e = tensor_smem_extent(map, a);
  const PolicySet base;
  // The policies row_pitch and the im2col walk read (the only ones tensor_box reads besides packed_tx_bytes,
  // which counts bytes and moves none).
  const bool im2col = a.mode != TensorMode::tile && a.mode != TensorMode::gather4 &&
                      a.mode != TensorMode::scatter4;
  for (const PolicyId id : {PolicyId::swizzle_narrow_box, PolicyId::interleave_row_pitch,
                            PolicyId::im2col_wrap_stride, PolicyId::im2col_w_halo, PolicyId::interleave_tile_box}) {
    // only where the policy can move a byte (row_pitch and the im2col walk read it only there)
    if (id == PolicyId::swizzle_narrow_box && (map.swizzle == Swizzle::NONE || map.interleave != Interleave::NONE))
      continue;
    if ((id == PolicyId::interleave_row_pitch || id == PolicyId::interleave_tile_box) &&
        map.interleave == Interleave::NONE)
      continue;
    if ((id == PolicyId::im2col_wrap_stride || id == PolicyId::im2col_w_halo) && !im2col) continue;
    for (std::size_t i = 0; i < policy_info(id).alternatives.size(); ++i) {
      if (i == base.index(id)) continue;
      PolicySet alt = base;
      alt.set_index(id, i);
      try {
        e = std::max(e, tensor_smem_extent(map, a, alt));
      } catch (const ModelError&) {
        // this alternative has no layout for the access: nothing to make room for
      }
    }
  }
  return e;
}

}  // namespace ptxcts::ref
