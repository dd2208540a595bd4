// The run tier's tensor case tables as data: shapes per rank, the tile and im2col maps each form is run with, the
// coordinate sets (inside, across each edge, outside), and the names that make a recipe's ID describe it.
#include "tensor_maps.hpp"

#include <algorithm>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace ptxcts::run::tmaps {

std::string join(const int32_t* v, unsigned n) {
  std::string s;
  for (unsigned i = 0; i < n; ++i) s += (i ? "_" : "") + std::to_string(v[i]);
  return s;
}
std::string joinu(const uint32_t* v, unsigned n, const char* sep) {
  std::string s;
  for (unsigned i = 0; i < n; ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

// Tensor shapes per rank (Shape: tensor_maps.hpp): dims chosen so boxes cross edges and element counts are not powers of two.
Shape tile_shape(unsigned rank, unsigned esize) {
  // inner box: 32 bytes of elements (a multiple of 16 B, the driver's rule)
  uint32_t b0 = std::max(1u, 32u / esize);
  switch (rank) {
    case 1: return {{300, 1, 1, 1, 1}, {std::max(1u, 256u / esize), 1, 1, 1, 1}};
    case 2: return {{72, 40, 1, 1, 1}, {b0, 8, 1, 1, 1}};
    case 3: return {{40, 12, 9, 1, 1}, {b0, 4, 3, 1, 1}};
    case 4: return {{24, 6, 5, 4, 1}, {b0, 3, 2, 2, 1}};
    default: return {{20, 5, 4, 3, 3}, {b0, 2, 2, 2, 2}};
  }
}

ref::TensorMapParams tiled(TDT t, unsigned rank, const Shape& sh) {
  ref::TensorMapParams p;
  p.kind = ref::EncodeKind::tiled;
  p.dtype = t;
  p.rank = rank;
  p.dims = sh.dims;
  p.box = sh.box;
  p.strides = ref::dense_strides(t, rank, p.dims);
  p.global_address = 1024;  // the worker's buffers are 1024-aligned + a 256-byte guard
  return p;
}

unsigned esize(TDT t) { return std::max(1u, ref::element_bits(t) / 8); }

// Coordinates for a box: inside, across the low edge (negative), across every high edge, wholly outside, all
// negative. The innermost coordinate is kept a multiple of 16 bytes (coords[0] * element size): on the H100 a
// tile-mode tensor copy whose innermost start is not 16-byte aligned traps (illegal instruction), which the
// chapter does not state; `misaligned` (first map of each form) keeps that finding covered without letting it
// stand in front of every out-of-bounds case.
std::vector<std::pair<std::string, std::array<int32_t, 5>>> coord_sets(const ref::TensorMapParams& p, bool nonneg,
                                                                       bool with_misaligned, bool im2col) {
  std::vector<std::pair<std::string, std::array<int32_t, 5>>> v;
  std::array<int32_t, 5> in{}, lo{}, hi{}, out{};
  const int32_t u = int32_t(std::max(1u, 16u / std::max(1u, ref::element_bits(p.dtype) / 8)));  // 16 B in elements
  auto down = [u](int32_t x) { return x >= 0 ? x / u * u : -((-x + u - 1) / u * u); };
  auto upr = [u](int32_t x) { return x >= 0 ? (x + u - 1) / u * u : -((-x) / u * u); };
  for (unsigned i = 0; i < p.rank; ++i) {
    int32_t d = int32_t(p.dims[i]);
    int32_t span = int32_t(p.box[i]) * int32_t(p.element_strides[i]);
    in[i] = std::max(0, std::min(d - span, d / 3));
    lo[i] = in[i];
    hi[i] = d - std::max(1, span / 2);
    out[i] = in[i];
  }
  in[0] = down(in[0]);
  lo[0] = -upr(std::max<int32_t>(1, int32_t(p.box[0]) / 2));
  hi[0] = down(hi[0]);
  if (hi[0] + int32_t(p.box[0]) * int32_t(p.element_strides[0]) <= int32_t(p.dims[0])) hi[0] += u;  // still crosses
  out[0] = upr(int32_t(p.dims[0]) + 3);
  v.push_back({"inside", in});
  if (!nonneg) v.push_back({"low_edge", lo});
  v.push_back({"high_edges", hi});
  v.push_back({"outside", out});
  if (!nonneg && p.rank >= 2) {
    std::array<int32_t, 5> neg{};
    for (unsigned i = 0; i < p.rank; ++i) neg[i] = -1;
    neg[0] = -u;
    v.push_back({"all_negative", neg});
  }
  if (im2col) {
    // im2col: the W/H/D start must lie in the bounding box [lowerCorner, dim + upperCorner) -- a start outside it
    // traps on the H100 (policy im2col_start_outside_box). The edge sets start at the box's corners instead.
    for (auto& [name, c] : v)
      for (unsigned s = 0; s + 2 < p.rank; ++s) {
        const int32_t lo = p.lower_corner[s], hi = int32_t(p.dims[1 + s]) + p.upper_corner[s] - 1;
        c[1 + s] = std::max(lo, std::min(hi, c[1 + s]));
        if (name == "all_negative") c[1 + s] = lo;
        if (name == "high_edges") c[1 + s] = hi;
      }
    if (with_misaligned && !nonneg) {
      std::array<int32_t, 5> ob = in;
      ob[1] = int32_t(p.dims[1]) + p.upper_corner[0];  // W one past the box
      v.push_back({"start_outside_box", ob});
    }
  }
  if (with_misaligned && u > 1) {
    std::array<int32_t, 5> mis = in;
    mis[0] = in[0] + 1;
    v.push_back({"misaligned", mis});
  }
  return v;
}

std::string map_name(const ref::TensorMapParams& p) {
  std::ostringstream n;
  n << ref::to_string(p.dtype);
  if (p.kind == ref::EncodeKind::tiled) n << ".box_" << joinu(p.box.data(), p.rank);
  if (p.swizzle != ref::Swizzle::NONE) n << ".swizzle_" << ref::to_string(p.swizzle);
  if (p.interleave != ref::Interleave::NONE) n << ".interleave_" << ref::to_string(p.interleave);
  if (p.oob_fill != ref::OobFill::NONE) n << ".oob_nan";
  bool es = false;
  for (unsigned i = 0; i < p.rank; ++i) es |= p.element_strides[i] != 1;
  if (es) n << ".estrides_" << joinu(p.element_strides.data(), p.rank);
  if (p.l2_promotion != ref::L2Promotion::NONE) n << ".l2_" << ref::to_string(p.l2_promotion);
  return n.str();
}

// Tile maps for a form of the given rank: a plain one per width, the swizzle modes, interleave, OOB NaN fill,
// element strides, the largest box, padded (non-dense) strides.
std::vector<ref::TensorMapParams> tile_maps(unsigned rank, bool reduce_or_store, int level) {
  std::vector<ref::TensorMapParams> v;
  v.push_back(tiled(TDT::FLOAT32, rank, tile_shape(rank, 4)));
  v.push_back(tiled(TDT::UINT8, rank, tile_shape(rank, 1)));
  if (level >= 1) {
    v.push_back(tiled(TDT::UINT64, rank, tile_shape(rank, 8)));
    // swizzle 32B / 64B / 128B: inner box exactly the span
    for (auto [sw, bytes] : {std::pair{ref::Swizzle::B32, 32u}, {ref::Swizzle::B64, 64u}, {ref::Swizzle::B128, 128u}}) {
      if (rank < 2) continue;
      Shape sh = tile_shape(rank, 2);
      sh.box[0] = bytes / 2;
      sh.dims[0] = std::max<uint64_t>(sh.dims[0], bytes / 2 + 13);
      auto p = tiled(TDT::UINT16, rank, sh);
      p.swizzle = sw;
      v.push_back(p);
    }
    if (!reduce_or_store) {
      auto p = tiled(TDT::FLOAT32, rank, tile_shape(rank, 4));
      p.oob_fill = ref::OobFill::NAN_REQUEST_ZERO_FMA;
      v.push_back(p);
      if (rank >= 2) {
        auto q = tiled(TDT::UINT16, rank, tile_shape(rank, 2));
        q.element_strides[1] = 2;
        if (rank >= 3) q.element_strides[2] = 3;
        v.push_back(q);
      }
      if (rank >= 3) {
        auto q = tiled(TDT::UINT8, rank, tile_shape(rank, 1));
        q.interleave = ref::Interleave::B16;
        q.box[0] = 16;
        q.dims[0] = 16;
        q.strides = ref::dense_strides(q.dtype, rank, q.dims);
        v.push_back(q);
        // Interleave 32B (which requires the 32B swizzle): the H100 traps on it too, as on interleave 16B with
        // swizzle none or 32B (run 2) -- the trap is not tied to the swizzle mode. Trap phase, plain forms only.
        ref::TensorMapParams q3 = q;
        q3.swizzle = ref::Swizzle::B32;
        q3.interleave = ref::Interleave::B32;
        q3.box[0] = 32;
        q3.dims[0] = 32;
        q3.strides = ref::dense_strides(q3.dtype, rank, q3.dims);
        v.push_back(q3);
      }
    }
    // the largest box per dimension (256), rank 1 and 2
    if (rank <= 2) {
      Shape sh = tile_shape(rank, 1);
      sh.box[0] = 256;
      sh.dims[0] = 300;
      if (rank == 2) { sh.box[1] = 256; sh.dims[1] = 270; }
      auto p = tiled(TDT::UINT8, rank, sh);
      p.l2_promotion = ref::L2Promotion::L2_256B;
      v.push_back(p);
    }
    // non-dense strides: each row padded by 48 bytes
    if (rank >= 2) {
      auto p = tiled(TDT::INT32, rank, tile_shape(rank, 4));
      for (unsigned i = 0; i + 1 < rank; ++i) p.strides[i] += 48 * (i + 1);
      v.push_back(p);
    }
  }
  (void)level;
  return v;
}

// im2col maps: dims (C, W, [H, [D]], N), corners, channelsPerPixel, pixelsPerColumn.
std::vector<std::pair<ref::TensorMapParams, std::array<uint16_t, 3>>> im2col_maps(unsigned rank, bool offsets) {
  std::vector<std::pair<ref::TensorMapParams, std::array<uint16_t, 3>>> v;
  auto base = [&](TDT t, uint32_t c) {
    ref::TensorMapParams p;
    p.kind = ref::EncodeKind::im2col;
    p.dtype = t;
    p.rank = rank;
    if (rank == 3) p.dims = {c, 20, 3, 1, 1};
    if (rank == 4) p.dims = {c, 10, 6, 2, 1};
    if (rank == 5) p.dims = {c, 6, 4, 3, 2};
    p.strides = ref::dense_strides(t, rank, p.dims);
    p.channels_per_pixel = c;
    p.pixels_per_column = rank == 3 ? 16 : 32;
    for (unsigned i = 0; i + 2 < rank; ++i) { p.lower_corner[i] = -1; p.upper_corner[i] = -1; }
    p.global_address = 1024;
    return p;
  };
  v.push_back({base(TDT::FLOAT32, 8), {0, 0, 0}});
  {
    auto p = base(TDT::UINT16, 16);
    for (unsigned i = 0; i + 2 < rank; ++i) { p.lower_corner[i] = 0; p.upper_corner[i] = 0; }
    p.pixels_per_column = 24;
    v.push_back({p, {0, 0, 0}});
  }
  if (offsets) {
    auto p = base(TDT::FLOAT32, 8);
    v.push_back({p, {1, 1, 1}});
    auto q = base(TDT::UINT8, 32);
    q.element_strides[1] = 2;
    v.push_back({q, {2, 0, 1}});
  }
  return v;
}

// The reduce element type's map data type.
std::optional<TDT> dtype_for(const std::string& t) {
  if (t == "u32" || t == "b32") return TDT::UINT32;
  if (t == "s32") return TDT::INT32;
  if (t == "u64" || t == "b64") return TDT::UINT64;
  if (t == "s64") return TDT::INT64;
  if (t == "f16") return TDT::FLOAT16;
  if (t == "bf16") return TDT::BFLOAT16;
  if (t == "f32") return TDT::FLOAT32;
  if (t == "f64") return TDT::FLOAT64;
  return std::nullopt;
}

// The map with each globalStrides[i] raised to the next multiple the driver requires (global_stride_multiple16;
// 32 bytes under global_stride_multiple32_interleave / _packed), every stride still covering the dimension before
// it (global_stride_covers_previous: globalStrides[0] >= globalDim[0] * elementSize, globalStrides[i] >=
// globalStrides[i-1] * globalDim[i]). Dense strides already on the multiple are kept as they are.
ref::TensorMapParams padded_rows(ref::TensorMapParams p) {
  const bool packed16 = p.dtype == TDT::T16U4_ALIGN16B || p.dtype == TDT::T16U6_ALIGN16B;
  const uint64_t unit = p.interleave == ref::Interleave::B32 || packed16 ? 32 : 16;
  for (unsigned i = 0; i + 1 < p.rank && i < 4; ++i) {
    const uint64_t prev = i == 0 ? (p.dims[0] * ref::element_bits(p.dtype) + 7) / 8 : p.strides[i - 1] * p.dims[i];
    p.strides[i] = (std::max(p.strides[i], prev) + unit - 1) / unit * unit;
  }
  return p;
}

// The candidates for a map, in the order the planner tries them: the map as its recipe states it, then that map
// with its rows padded (padded_rows), named by a recipe-name segment of its strides. The padded map is a candidate
// only where padding changes a stride; a dense map legal as it is keeps its name (the empty segment).
std::vector<NamedMap> padded_candidates(const ref::TensorMapParams& m) {
  std::vector<NamedMap> v{{m, ""}};
  ref::TensorMapParams padded = padded_rows(m);
  if (padded.strides != m.strides) {
    std::string n = ".gstrides";
    for (unsigned i = 0; i + 1 < m.rank; ++i) n += "_" + std::to_string(padded.strides[i]);
    v.push_back({padded, n});
  }
  return v;
}

// The first candidate the driver must accept on sm_90 (ref::validate_encode); nullopt when none is legal.
std::optional<NamedMap> first_legal(const std::vector<NamedMap>& candidates) {
  for (auto& c : candidates)
    if (ref::validate_encode(c.map, 90).must_accept()) return c;
  return std::nullopt;
}

// The candidates for a reduce element type's map (padded_candidates of the dense map of the rank's tile shape, or
// of the first im2col map with channelsPerPixel 32 bytes of the type). The dense map alone misses types whose row
// is no multiple of 16 bytes: the 5-D shape's 20-element rows are 40 bytes of .f16 / .bf16, which
// global_stride_multiple16 refuses.
std::vector<NamedMap> reduce_map_candidates(TDT dt, unsigned rank, bool im2col) {
  ref::TensorMapParams dense;
  if (im2col) {
    dense = im2col_maps(rank, false)[0].first;
    // the chapter: the bounding box's lower corner must be non-negative for stores and reductions
    for (unsigned i = 0; i + 2 < rank; ++i) { dense.lower_corner[i] = 0; dense.upper_corner[i] = 0; }
    dense.dtype = dt;
    dense.channels_per_pixel = uint32_t(dense.dims[0] = std::max(1u, 32u / esize(dt)));
    dense.strides = ref::dense_strides(dt, rank, dense.dims);
  } else {
    dense = tiled(dt, rank, tile_shape(rank, esize(dt)));
  }
  return padded_candidates(dense);
}

std::optional<NamedMap> reduce_map(TDT dt, unsigned rank, bool im2col) {
  return first_legal(reduce_map_candidates(dt, rank, im2col));
}

TensorMapSpec spec_of(const ref::TensorMapParams& m) {
  TensorMapSpec s;
  s.kind = m.kind == ref::EncodeKind::tiled ? TensorMapSpec::Tiled
           : m.kind == ref::EncodeKind::im2col ? TensorMapSpec::Im2col : TensorMapSpec::Im2colWide;
  s.dtype = int(m.dtype);
  s.rank = m.rank;
  s.dims = m.dims;
  s.strides = m.strides;
  s.box = m.box;
  s.estrides = m.element_strides;
  s.interleave = int(m.interleave);
  s.swizzle = int(m.swizzle);
  s.l2promo = int(m.l2_promotion);
  s.oobfill = int(m.oob_fill);
  s.lower = m.lower_corner;
  s.upper = m.upper_corner;
  s.channels = m.channels_per_pixel;
  s.pixels = m.pixels_per_column;
  s.wide_lower = m.lower_corner[0];
  s.wide_upper = m.upper_corner[0];
  s.wide_mode = int(m.wide_mode);
  return s;
}

// The inverse of spec_of: the model's parameters of a driver-API map, at global address gaddr.
ref::TensorMapParams params_of(const TensorMapSpec& t, uint64_t gaddr) {
  ref::TensorMapParams p;
  p.kind = t.kind == TensorMapSpec::Tiled ? ref::EncodeKind::tiled
           : t.kind == TensorMapSpec::Im2col ? ref::EncodeKind::im2col : ref::EncodeKind::im2col_wide;
  p.dtype = ref::TensorDataType(t.dtype);
  p.rank = t.rank;
  p.global_address = gaddr;
  p.dims = t.dims;
  p.strides = t.strides;
  p.box = t.box;
  p.element_strides = t.estrides;
  p.interleave = ref::Interleave(t.interleave);
  p.swizzle = ref::Swizzle(t.swizzle);
  p.l2_promotion = ref::L2Promotion(t.l2promo);
  p.oob_fill = ref::OobFill(t.oobfill);
  p.lower_corner = t.lower;
  p.upper_corner = t.upper;
  if (t.kind == TensorMapSpec::Im2colWide) {
    p.lower_corner[0] = t.wide_lower;
    p.upper_corner[0] = t.wide_upper;
  }
  p.channels_per_pixel = t.channels;
  p.pixels_per_column = t.pixels;
  p.wide_mode = ref::Im2colWideMode(t.wide_mode);
  return p;
}

}  // namespace ptxcts::run::tmaps
