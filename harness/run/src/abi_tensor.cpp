// Tensor families: cp.async.bulk.tensor loads (tile, im2col; shared::cta, peer shared::cluster, multicast),
// stores (tile, im2col_no_offs), cp.reduce.async.bulk.tensor, cp.async.bulk.prefetch.tensor, and the driver-API
// cases of cuTensorMapEncodeTiled / Im2col (legal maps must be accepted, illegal ones refused with
// CUDA_ERROR_INVALID_VALUE). Tensor maps are encoded by the worker through the driver entry points; every
// expected byte comes from ref::tensor_load / tensor_store / tensor_reduce / tensor_tx_bytes.
#include <sstream>

#include "abi.hpp"
#include "ptxcts/ref/tensor.hpp"
#include "values.hpp"

namespace ptxcts::run {

namespace {

using ref::TensorDataType;
using TDT = ref::TensorDataType;
constexpr size_t kGuard = 256;
constexpr uint32_t kBoxOff = 1024;  // box start in the window: 1024-aligned, so every swizzle mode applies

ref::TensorMode mode_of(const std::string& m) {
  if (m == "im2col") return ref::TensorMode::im2col;
  if (m == "im2col_no_offs") return ref::TensorMode::im2col_no_offs;
  if (m == "tile::gather4") return ref::TensorMode::gather4;
  if (m == "tile::scatter4") return ref::TensorMode::scatter4;
  if (m == "im2col::w") return ref::TensorMode::im2col_w;
  if (m == "im2col::w::128") return ref::TensorMode::im2col_w128;
  return ref::TensorMode::tile;
}

// A variant: the tensor map and the access, fully determined by the recipe (so the ID describes it).
struct Recipe {
  std::string name;
  ref::TensorMapParams map;
  ref::TensorAccess acc;
  uint32_t smem_off = kBoxOff;
  uint32_t cluster = 1, mask = 0, peer = 0;
  std::string redtype;  // reduce: the element type spelled as in PTX (from the map's dtype)
};

std::string join(const int32_t* v, unsigned n) {
  std::string s;
  for (unsigned i = 0; i < n; ++i) s += (i ? "_" : "") + std::to_string(v[i]);
  return s;
}
std::string joinu(const uint32_t* v, unsigned n, const char* sep = "x") {
  std::string s;
  for (unsigned i = 0; i < n; ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

// Tensor shapes per rank: dims chosen so boxes cross edges and element counts are not powers of two.
struct Shape { std::array<uint64_t, 5> dims; std::array<uint32_t, 5> box; };
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

struct TensorForm {
  unsigned rank = 1;
  ref::TensorMode mode = ref::TensorMode::tile;
  bool load = false, store = false, reduce = false, prefetch = false;
  bool multicast = false, remote = false, mbarrier = false;
  bool nonneg = false;             // tensorCoords must be non-negative (no low-edge or negative boxes)
  std::vector<std::string> types;  // reduce: the element types the redOp allows
  std::vector<std::string> not_in_table;  // reduce: run.type_cells entries outside the chapter's table
  std::string redop;
};

TensorForm tform(const Form& f) {
  TensorForm t;
  t.rank = unsigned(run_int(f, field::dims, 1));
  t.mode = mode_of(run_str(f, field::load_mode, "tile"));
  std::string dir = run_str(f, field::direction);
  t.prefetch = std::string(f.abi_row->flow) == "prefetch";
  t.redop = run_str(f, field::redop);
  t.reduce = !t.redop.empty();
  t.store = !t.reduce && dir == "shared::cta->global";
  t.load = !t.prefetch && !t.store && !t.reduce;
  t.multicast = run_bool(f, field::multicast);
  t.remote = run_bool(f, field::remote);
  t.mbarrier = run_str(f, field::completion).find("mbarrier") != std::string::npos;
  if (auto* ty = f.run.get(field::types))
    for (auto& x : ty->arr()) t.types.push_back(x.str());
  if (auto* cells = f.run.get(field::type_cells))
    for (auto& [ty, cell] : cells->obj())
      if (cell.str() != "allowed") t.not_in_table.push_back(ty);
  // run.coords_nonnegative (the chapter, for a .global destination); reductions write .global from
  // .shared::cta as stores do and are planned the same way.
  t.nonneg = run_bool(f, field::coords_nonnegative) || t.reduce;
  return t;
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

std::vector<Recipe> recipes(const Form& f, const PlanOptions& o) {
  TensorForm t = tform(f);
  std::vector<Recipe> out;
  bool im2col = t.mode == ref::TensorMode::im2col || t.mode == ref::TensorMode::im2col_no_offs;
  if (t.mode != ref::TensorMode::tile && !im2col) return out;  // gather4/scatter4/im2col::w: sm_100 forms
  std::vector<std::pair<ref::TensorMapParams, std::array<uint16_t, 3>>> maps;
  if (im2col) {
    maps = im2col_maps(t.rank, t.mode == ref::TensorMode::im2col);
    if (t.store || t.reduce)  // the chapter: the bounding box's lower corner must be non-negative for stores
      for (auto& m : maps)
        for (unsigned i = 0; i + 2 < t.rank; ++i) { m.first.lower_corner[i] = 0; m.first.upper_corner[i] = 0; }
  } else {
    for (auto& p : tile_maps(t.rank, t.store || t.reduce, o.level)) maps.push_back({p, {0, 0, 0}});
  }
  if (t.reduce) {
    // One map per element type the redOp allows, replacing the load maps' types.
    std::vector<std::pair<ref::TensorMapParams, std::array<uint16_t, 3>>> rm;
    for (auto& ty : t.types) {
      auto dt = dtype_for(ty);
      if (!dt) continue;
      if (im2col) {
        auto m = im2col_maps(t.rank, false)[0];
        for (unsigned i = 0; i + 2 < t.rank; ++i) { m.first.lower_corner[i] = 0; m.first.upper_corner[i] = 0; }
        m.first.dtype = *dt;
        m.first.channels_per_pixel = m.first.dims[0] = std::max(1u, 32u / esize(*dt));
        m.first.strides = ref::dense_strides(*dt, t.rank, m.first.dims);
        rm.push_back(m);
      } else {
        auto p = tiled(*dt, t.rank, tile_shape(t.rank, esize(*dt)));
        rm.push_back({p, {0, 0, 0}});
      }
    }
    maps = rm;
  }
  size_t map_index = 0;
  for (auto& [map, offs] : maps) {
    auto verdict = ref::validate_encode(map, 90);
    if (!verdict.must_accept()) continue;  // illegal maps are driver-API cases, not launches
    ref::TensorAccess acc;
    acc.mode = t.mode;
    acc.im2col_offsets = offs;
    acc.smem_offset = kBoxOff;
    // im2col coordinates are (c, w, [h, [d]], n); the tile sets work for them too.
    ref::TensorMapParams cmap = map;
    if (im2col) for (unsigned i = 0; i < map.rank; ++i) cmap.box[i] = i == 0 ? map.channels_per_pixel : 2;
    // The misaligned start (a trap on the H100) once per plain form: every trap costs a worker restart.
    // Deliberate traps only on the plain form of each rank and direction (no .tile spelled out, no cache hint,
    // not multicast / remote / prefetch; reductions: .add): every trap costs a worker restart.
    // (.tile spelled out: quals.load_mode, the qualifier as written; run.load_mode says tile either way.)
    const bool tile_spelled = f.quals.get_str("load_mode") == "tile";
    const bool plain_form = !run_bool(f, field::cache_hint) && run_str(f, field::cta_group, "none") == "none" &&
                            !tile_spelled && !t.multicast && !t.remote && !t.prefetch &&
                            (!t.reduce || t.redop == "add");
    // Interleave loads trapped on the H100 for every coordinate (run 1: crash, unexplained by any documented rule;
    // prefetches of the same maps pass): plain forms only, inside, in the trap phase.
    if (map.interleave != ref::Interleave::NONE && !plain_form && !t.prefetch) { ++map_index; continue; }
    auto sets = coord_sets(cmap, t.nonneg, map_index == 0 && plain_form, im2col);
    if (map.interleave != ref::Interleave::NONE && !t.prefetch) sets.resize(1);
    if (o.level == 0) sets.resize(1);
    // Every coordinate set (low edge, outside, all negative) on the first two maps of the form; the other maps
    // (swizzle, strides, fill, padding) inside and across the high edges, unless --level 2.
    if (o.level < 2 && map_index >= 2) {
      std::vector<std::pair<std::string, std::array<int32_t, 5>>> keep;
      for (auto& cs : sets)
        if (cs.first == "inside" || cs.first == "high_edges") keep.push_back(cs);
      sets = keep;
    }
    ++map_index;
    for (auto& [cname, coords] : sets) {
      if ((t.store || t.reduce) && cname == "outside") continue;  // nothing would be written: kept for loads
      Recipe r;
      r.map = map;
      r.acc = acc;
      r.acc.coords = coords;
      std::ostringstream n;
      n << map_name(map);
      if (im2col) n << ".cpp_" << map.channels_per_pixel << ".ppc_" << map.pixels_per_column << ".lower_"
                    << join(map.lower_corner.data(), map.rank - 2) << ".upper_" << join(map.upper_corner.data(), map.rank - 2);
      if (t.mode == ref::TensorMode::im2col) n << ".offs_" << offs[0] << "_" << offs[1] << "_" << offs[2];
      n << ".coords_" << join(coords.data(), map.rank) << "." << cname;
      if (t.reduce) {
        for (auto& ty : t.types)
          if (dtype_for(ty) == map.dtype) { r.redtype = ty; break; }
      }
      r.name = n.str();
      if (t.multicast) {
        for (auto [cl, mk] : {std::pair{2u, 0x3u}, {4u, 0xau}}) {
          Recipe m = r;
          m.cluster = cl;
          m.mask = mk;
          m.name = "cluster_" + std::to_string(cl) + ".ctamask_" + hex(mk) + "." + r.name;
          out.push_back(m);
        }
        continue;
      }
      if (t.remote) {
        for (uint32_t peer : {1u, 0u}) {
          Recipe m = r;
          m.cluster = 2;
          m.peer = peer;
          m.name = "peer_" + std::to_string(peer) + "." + r.name;
          out.push_back(m);
          if (cname != "inside") break;  // the self-peer once, on the plain box
        }
        continue;
      }
      out.push_back(r);
    }
  }
  // Two placements of the box in shared memory for the first recipe: 1024-aligned, and 128-aligned only.
  if (!out.empty() && out[0].map.swizzle == ref::Swizzle::NONE && !t.prefetch) {
    Recipe r = out[0];
    r.smem_off = kBoxOff + 128;
    r.acc.smem_offset = r.smem_off;
    r.name += ".smem_128";
    out.push_back(r);
  }
  return out;
}

std::vector<Variant> tensor_variants(const Form& f, const PlanOptions& o) {
  std::vector<Variant> v;
  const TensorForm t = tform(f);
  const auto deviations = ref::single_deviations(ref::PolicySet{});
  const auto rs = recipes(f, o);
  for (auto& r : rs) {
    Json p = Json::object();
    p["recipe"] = r.name;
    // A case expected to trap (a named alternative predicts it, or an interleave load: a trap on the H100 the
    // model cannot explain) runs in the serial trap phase, alone, so that its trap cannot take down another case.
    bool traps = r.map.interleave != ref::Interleave::NONE && !t.prefetch;
    for (auto& dev : deviations)
      if (!traps && !ref::tensor_access_trap(r.map, r.acc, dev.second).empty()) traps = true;
    if (traps) p["traps"] = true;
    v.emplace_back(r.name, p);
  }
  // Every run.type_cells entry is run or reported: a cell outside the chapter's table is undefined behaviour
  // (the element type is the tensor map's, invisible to ptxas), so it is reported, never launched.
  if (!v.empty())
    for (auto& ty : t.types)
      if (std::none_of(rs.begin(), rs.end(), [&](const Recipe& r) { return r.redtype == ty; })) {
        Json p = Json::object();
        p["not_supported"] = "." + t.redop + " ." + ty + ": the run tier has no legal tensor map of that element "
                             "type for this form";
        v.emplace_back("type_" + ty, p);
      }
  if (!v.empty())
    for (auto& ty : t.not_in_table) {
      Json p = Json::object();
      p["not_supported"] = "." + t.redop + " ." + ty + " is not a cell of the chapter's redOp x type table for "
                           "cp.reduce.async.bulk.tensor (the element type comes from the tensor map, invisible to "
                           "ptxas): the behaviour is undefined, not a case to run";
      v.emplace_back("type_" + ty + ".not_in_table", p);
    }
  if (v.empty()) {
    Json p = Json::object();
    p["not_supported"] = "load mode " + run_str(f, field::load_mode) + ": the run tier drives tile and im2col modes (sm_90)";
    v.emplace_back("mode_" + run_str(f, field::load_mode), p);
  }
  return v;
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

void tensor_build(const RunCase& c, Rng& rng, const PlanOptions& o, Setup& s) {
  const Form& f = *c.form;
  TensorForm t = tform(f);
  std::string want = c.params.get_str("recipe");
  Recipe r;
  bool found = false;
  for (auto& x : recipes(f, o))
    if (x.name == want) { r = x; found = true; break; }
  if (!found) throw std::runtime_error("no tensor recipe '" + want + "' for this form");
  const ref::TensorMapParams& map = r.map;
  uint64_t gbytes = ref::tensor_global_bytes(map);
  uint32_t tx = ref::tensor_tx_bytes(map, r.acc);
  s.ranks = r.cluster;
  s.cluster = f.abi_row->cluster;
  s.window = uint32_t((r.smem_off + tx + kGuard + 15) / 16 * 16);
  s.smem_init = random_bytes(rng, size_t(s.window) * s.ranks);
  for (unsigned i = 0; i < 5; ++i) s.w[W_COORD0 + i] = uint32_t(r.acc.coords[i]);
  for (unsigned i = 0; i < 3; ++i) s.w[W_IM2COL0 + i] = r.acc.im2col_offsets[i];
  s.w[W_CTA_MASK] = r.mask;
  s.w[W_PEER] = r.peer;
  s.tmap = spec_of(map);
  std::optional<ref::ReduceOp> rop;
  if (t.reduce) {
    std::string why;
    rop = ref::parse_reduce_op(t.redop + "." + r.redtype, &why);
    if (!rop) throw std::runtime_error("reduce op " + t.redop + "." + r.redtype + ": " + why);
  }
  std::vector<uint8_t> tensor(gbytes);
  if (rop) {
    // the tensor's old values and the window's box: edge values of the type mixed with random ones
    std::vector<uint8_t> other(gbytes);
    fill_reduce_inputs(rop->type, tensor.data(), other.data(), gbytes / ref::elem_bytes(rop->type), rng);
    std::vector<uint8_t> a(tx), b(tx);
    fill_reduce_inputs(rop->type, a.data(), b.data(), tx / ref::elem_bytes(rop->type), rng);
    std::copy(b.begin(), b.end(), s.smem_init.begin() + r.smem_off);
  } else {
    rng.fill(tensor.data(), tensor.size());
  }
  if (t.load || t.prefetch) {
    s.gsrc_off = kGuard;
    s.gsrc = random_bytes(rng, kGuard + gbytes + kGuard);
    std::copy(tensor.begin(), tensor.end(), s.gsrc.begin() + kGuard);
    s.tmap.on_dst = false;
  } else {
    s.gdst_off = kGuard;
    s.gdst = random_bytes(rng, kGuard + gbytes + kGuard);
    std::copy(tensor.begin(), tensor.end(), s.gdst.begin() + kGuard);
    s.tmap.on_dst = true;
    s.w[W_SRC_OFF] = r.smem_off;
  }
  s.w[W_DST_OFF] = r.smem_off;
  if (t.mbarrier && t.load) {
    s.w[W_TX_BYTES] = tx;
    s.waiters = t.multicast ? (r.mask & ((1u << r.cluster) - 1)) : t.remote ? (1u << r.peer) : 1u;
    s.w[W_WAITERS] = s.waiters;
  }
  Setup* sp = &s;
  uint32_t win = s.window, cl = r.cluster, mask = r.mask, peer = r.peer;
  ref::TensorAccess acc = r.acc;
  s.model = [sp, t, map, acc, rop, win, cl, mask, peer](const ref::PolicySet& ps) -> Image {
    const Setup& s = *sp;
    Image img;
    img.gdst = s.gdst;
    img.smem = s.smem_init;
    if (t.prefetch) return img;
    if (t.load) {
      ref::ConstByteSpan g(s.gsrc.data() + s.gsrc_off, s.gsrc.size() - 2 * kGuard);
      for (uint32_t k = 0; k < cl; ++k) {
        bool dest = t.multicast ? ((mask >> k) & 1) : t.remote ? k == peer : k == 0;
        if (!dest) continue;
        ref::tensor_load(map, acc, g, ref::ByteSpan{img.smem.data() + size_t(k) * win, win}, ps);
      }
      return img;
    }
    // The span runs to the end of the trailing guard band: tensor_store_oob=granule16_written writes past the
    // tensor's last element (the default never does; the guard band is still compared byte for byte).
    ref::ByteSpan g{img.gdst.data() + s.gdst_off, img.gdst.size() - kGuard};
    ref::ConstByteSpan w(s.smem_init.data(), win);
    if (rop) ref::tensor_reduce(map, acc, rop->red, g, w, ps);
    else ref::tensor_store(map, acc, g, w, ps);
    return img;
  };
  s.expected = s.model(ref::PolicySet{});
  s.trap = [map, acc](const ref::PolicySet& ps) { return ref::tensor_access_trap(map, acc, ps); };
  s.elem_bytes = esize(map.dtype);
  // Naming a byte: the box piece that holds it (its tensor coordinates), or the guard band.
  auto pieces = std::make_shared<std::vector<ref::BoxPiece>>(ref::tensor_box(map, acc));
  uint32_t smem_off = r.smem_off;
  auto sw = map.swizzle;
  s.where = [pieces, smem_off, sw, t](bool smem, uint32_t, size_t off) -> std::string {
    if (smem) {
      for (auto& p : *pieces) {
        for (uint32_t b = 0; b < p.data_bytes; ++b) {
          uint64_t a = ref::swizzle_address(sw, smem_off + p.smem_off + b);
          if (a == off) {
            std::ostringstream m;
            m << (p.in_bounds ? "box element at tensor coords (" : "out-of-bounds fill for coords (");
            for (unsigned i = 0; i < 5; ++i) m << (i ? "," : "") << p.coords[i];
            m << ") byte " << b;
            return m.str();
          }
        }
      }
      return "window outside the box";
    }
    for (auto& p : *pieces)
      if (p.in_bounds && off >= kGuard + p.global_off && off < kGuard + p.global_off + p.data_bytes) {
        std::ostringstream m;
        m << "tensor element at coords (";
        for (unsigned i = 0; i < 5; ++i) m << (i ? "," : "") << p.coords[i];
        m << ")";
        return m.str();
      }
    return off < kGuard ? "global guard band before the tensor" : "tensor element outside the box, or guard band";
  };
  s.info["tx_bytes"] = tx;
  s.info["tensor_bytes"] = (unsigned long long)gbytes;
  s.info["box_smem_off"] = smem_off;
  if (rop) s.info["op"] = ref::to_string(*rop);
}

// ---- driver-API cases: cuTensorMapEncode* must accept what the validator calls legal and refuse the rest ----

struct EncodeCase { std::string name; ref::TensorMapParams map; };

std::vector<EncodeCase> encode_cases() {
  std::vector<EncodeCase> v;
  auto add = [&](const std::string& n, ref::TensorMapParams p) { v.push_back({n, p}); };
  auto t2 = tiled(TDT::FLOAT32, 2, tile_shape(2, 4));
  add("legal.f32_2d", t2);
  for (unsigned r = 1; r <= 5; ++r) add("legal.u8_rank" + std::to_string(r), tiled(TDT::UINT8, r, tile_shape(r, 1)));
  { auto p = t2; p.box[0] = 257; add("box_dim_257", p); }
  { auto p = t2; p.box[1] = 0; add("box_dim_0", p); }
  { auto p = t2; p.box[0] = 6; add("box_inner_24_bytes", p); }
  { auto p = t2; p.strides[0] = 100; add("stride_not_multiple_16", p); }
  { auto p = t2; p.strides[0] = 1ull << 40; add("stride_2_40", p); }
  { auto p = t2; p.global_address = 1024 + 8; add("address_align_8", p); }
  { auto p = t2; p.dims[0] = 0; add("dim_0", p); }
  { auto p = t2; p.element_strides[1] = 9; add("element_stride_9", p); }
  { auto p = t2; p.element_strides[1] = 0; add("element_stride_0", p); }
  { auto p = t2; p.swizzle = ref::Swizzle::B32; add("swizzle32_inner_32B", p); }
  { auto p = t2; p.box[0] = 16; p.swizzle = ref::Swizzle::B32; add("swizzle32_inner_64B", p); }
  { auto p = t2; p.box[0] = 32; p.swizzle = ref::Swizzle::B128; add("swizzle128_inner_128B", p); }
  { auto p = t2; p.box[0] = 64; p.swizzle = ref::Swizzle::B128; add("swizzle128_inner_256B", p); }
  { auto p = tiled(TDT::UINT16, 2, tile_shape(2, 2)); p.oob_fill = ref::OobFill::NAN_REQUEST_ZERO_FMA; add("oob_nan_integer", p); }
  { auto p = t2; p.oob_fill = ref::OobFill::NAN_REQUEST_ZERO_FMA; add("legal.oob_nan_f32", p); }
  { auto p = tiled(TDT::UINT8, 2, tile_shape(2, 1)); p.interleave = ref::Interleave::B16; add("interleave_rank2", p); }
  { auto p = tiled(TDT::UINT8, 3, tile_shape(3, 1)); p.interleave = ref::Interleave::B32; p.swizzle = ref::Swizzle::B64; add("interleave32_swizzle64", p); }
  { auto p = tiled(TDT::UINT8, 3, tile_shape(3, 1)); p.interleave = ref::Interleave::B32; p.swizzle = ref::Swizzle::B32; p.dims[0] = 32; p.box[0] = 32; p.strides = ref::dense_strides(p.dtype, 3, p.dims); add("interleave32_swizzle32", p); }
  // im2col
  auto i3 = im2col_maps(3, false)[0].first;
  add("legal.im2col_3d", i3);
  add("legal.im2col_4d", im2col_maps(4, false)[0].first);
  add("legal.im2col_5d", im2col_maps(5, false)[0].first);
  { auto p = i3; p.rank = 2; p.dims = {8, 20, 1, 1, 1}; p.strides = ref::dense_strides(p.dtype, 2, p.dims); add("im2col_rank2", p); }
  { auto p = i3; p.lower_corner[0] = -32769; add("im2col_corner_3d_below", p); }
  { auto p = i3; p.lower_corner[0] = -32768; add("legal.im2col_corner_3d_min", p); }
  { auto p = im2col_maps(4, false)[0].first; p.lower_corner[0] = -129; add("im2col_corner_4d_below", p); }
  { auto p = im2col_maps(5, false)[0].first; p.upper_corner[0] = 16; add("im2col_corner_5d_above", p); }
  { auto p = i3; p.channels_per_pixel = 257; add("im2col_channels_257", p); }
  { auto p = i3; p.pixels_per_column = 1025; add("im2col_pixels_1025", p); }
  return v;
}

std::vector<Variant> encode_variants(const Form& f, const PlanOptions&) {
  std::vector<Variant> v;
  bool im2col = f.instr == "cuTensorMapEncodeIm2col";  // the driver function the pseudo-form stands for
  for (auto& e : encode_cases()) {
    if ((e.map.kind == ref::EncodeKind::im2col) != im2col) continue;
    Json p = Json::object();
    p["encode"] = e.name;
    v.emplace_back(e.name, p);
  }
  return v;
}

void encode_build(const RunCase& c, Rng&, const PlanOptions&, Setup& s) {
  std::string want = c.params.get_str("encode");
  for (auto& e : encode_cases()) {
    if (e.name != want) continue;
    // The tensor lives in the worker's global source buffer: a 1024-aligned base + 1024, + 8 for the
    // misaligned-address case (the model sees the same alignment through global_address).
    uint64_t bytes = 0;
    try { bytes = ref::tensor_global_bytes(e.map); } catch (...) { bytes = 4096; }
    bytes = std::min<uint64_t>(bytes, 1u << 20);
    s.gsrc_off = size_t(e.map.global_address);
    s.gsrc.assign(size_t(s.gsrc_off + bytes + kGuard), 0);
    s.window = 1024;
    s.smem_init.assign(1024, 0);
    s.tmap = spec_of(e.map);
    s.tmap.on_dst = false;
    auto verdict = ref::validate_encode(e.map, 90);
    s.tmap.expect_ok = !verdict.must_reject();
    if (!verdict.must_reject() && !verdict.must_accept())
      throw std::runtime_error("the validator leaves this parameter set open (no must either way)");
    for (auto& vi : verdict.violations) s.tmap.validator_reason += (s.tmap.validator_reason.empty() ? "" : "; ") + vi.rule + ": " + vi.detail;
    s.encode_only = true;
    return;
  }
  throw std::runtime_error("no encode case '" + want + "'");
}

}  // namespace

void register_tensor(AbiRegistry& r) {
  r["v1.mbarrier.tmap"] = {tensor_variants, tensor_build};
  r["v1.mbarrier.cluster.tmap"] = {tensor_variants, tensor_build};
  r["v1.bulk_group.tmap"] = {tensor_variants, tensor_build};
  r["v1.prefetch.tmap"] = {tensor_variants, tensor_build};
  r["v1.encode_only"] = {encode_variants, encode_build};
}

}  // namespace ptxcts::run
