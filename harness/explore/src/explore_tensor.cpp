// Exploration of the tensor families (cp.async.bulk.tensor loads and stores, cp.reduce.async.bulk.tensor,
// cp.async.bulk.prefetch.tensor; tile, im2col and im2col_no_offs): tensor maps drawn over what the driver API
// names (every data type, packed ones included; ranks per form; dims, padded strides, boxes 1-256 with the inner
// box below, at and above each swizzle span; element strides 1-8; interleave with every swizzle; OOB fill; L2
// promotion; global base alignment; im2col corners, channels and pixels), coordinates inside, across each edge,
// outside and negative, the box's shared-memory offset at every granularity from 16 bytes, clusters and masks.
// A map ref::validate_encode calls illegal becomes a driver-API case of the encode function; one it leaves open
// is drawn again. A guided draw (explore_guide.hpp) may break the encode rule the draws broke least
// (explore_encode_rules.hpp) or aim at the im2col channels / pixels bin they reached least. A draw whose access
// traps under a named policy alternative (the H100's 16-byte coordinate rule) or is an interleaved load
// (device_quirks.hpp: it overruns its box) is kept only rarely: every trap costs a worker restart, every overrun
// a wait to the limit.
#include "device_quirks.hpp"
#include "explore_draw.hpp"
#include "explore_encode_rules.hpp"
#include "explore_registry.hpp"
#include "tensor_form.hpp"
#include "tensor_mode_gate.hpp"
#include "tensor_map_json.hpp"
#include "tensor_maps.hpp"

namespace ptxcts::run {

namespace {

using namespace draw;
using namespace tmaps;

constexpr uint64_t kMaxTensorBytes = 2u << 20;  // keeps a case's upload small (the arena holds 256 MiB)
constexpr uint32_t kBase = 1024;                 // the window's 1024-aligned box base (abi_tensor.cpp)

const TDT kAllTypes[] = {TDT::UINT8,    TDT::UINT16,      TDT::UINT32,   TDT::INT32,        TDT::UINT64,
                         TDT::INT64,    TDT::FLOAT16,     TDT::FLOAT32,  TDT::FLOAT64,      TDT::BFLOAT16,
                         TDT::FLOAT32_FTZ, TDT::TFLOAT32, TDT::TFLOAT32_FTZ, TDT::T16U4_ALIGN8B,
                         TDT::T16U4_ALIGN16B, TDT::T16U6_ALIGN16B};

// Elements per 16 bytes (the innermost coordinate's alignment unit); 1 for 16-byte and larger elements.
int32_t unit16(TDT t) { return int32_t(std::max(1u, 128u / std::max(1u, ref::element_bits(t)))); }

// One coordinate along a dimension of `dim` elements with a box spanning `span`: inside, across the low or the
// high edge, wholly outside, or far negative (the last ones only where coordinates may be negative).
int32_t draw_coord(Rng& r, int64_t dim, int64_t span, bool nonneg) {
  const unsigned k = unsigned(r.below(100));
  const int64_t inside_hi = std::max<int64_t>(0, dim - span);
  if (k < 50) return int32_t(r.below(uint64_t(inside_hi) + 1));
  if (k < 65 && !nonneg) return -int32_t(1 + r.below(uint64_t(std::max<int64_t>(1, span - 1))));
  if (k < 85) return int32_t(std::max<int64_t>(0, dim - span + 1 + int64_t(r.below(uint64_t(std::max<int64_t>(1, span - 1))))));
  if (k < 95 || nonneg) return int32_t(dim + int64_t(r.below(uint64_t(span) + 1)));
  return -int32_t(span + int64_t(r.below(uint64_t(span) + 1)));
}

// What a guided draw aims at (explore_guide.hpp): an encode rule to break, an im2col bin of channels per pixel
// and of pixels per column ({0, 0}: none).
struct Targets {
  std::string rule;
  std::pair<uint64_t, uint64_t> channels{0, 0}, pixels{0, 0};
};

uint64_t in_range(Rng& r, std::pair<uint64_t, uint64_t> range) {
  return range.first + r.below(range.second - range.first + 1);
}

void tile_geometry(Rng& r, ref::TensorMapParams& m) {
  const unsigned bits = ref::element_bits(m.dtype);
  const unsigned span = ref::swizzle_span(m.swizzle);
  for (unsigned i = 0; i < m.rank; ++i) {
    uint64_t b;
    if (i == 0) {
      // The inner box in bytes: 16, at the swizzle span and one 16-byte step either side, or any multiple of 16.
      uint64_t bytes = span ? pick(r, {uint64_t(16), uint64_t(span) - 16, uint64_t(span), uint64_t(span) + 16, edgy(r, 1, 16) * 16})
                            : edgy(r, 1, 16, {1, 2, 16}) * 16;
      if (m.interleave == ref::Interleave::B16) bytes = 16;
      if (m.interleave == ref::Interleave::B32) bytes = 32;
      if (chance(r, 3)) bytes = edgy(r, 1, 300);  // not a multiple of 16: the driver must refuse it
      b = std::max<uint64_t>(1, bytes * 8 / bits);
      if (chance(r, 2)) b = pick(r, {uint64_t(0), uint64_t(257)});  // outside 1..256
    } else {
      b = edgy(r, 1, chance(r, 80) ? 8 : 256, {1, 2, 3, 7, 8, 9, 255, 256});
    }
    m.box[i] = uint32_t(std::min<uint64_t>(b, 512));
    m.element_strides[i] = chance(r, 75) ? 1 : uint32_t(edgy(r, 2, 8, {2, 8}));
    if (chance(r, 1)) m.element_strides[i] = pick(r, {0u, 9u});
    const uint64_t s = std::max<uint64_t>(1, m.box[i]);
    m.dims[i] = std::max<uint64_t>(1, pick(r, {s - 1, s, s + 1, edgy(r, 1, 3 * s + 3), uint64_t(1), 3 * s}));
  }
  if (m.interleave != ref::Interleave::NONE) m.dims[0] = m.box[0];
}

void im2col_geometry(Rng& r, ref::TensorMapParams& m, const Targets& tg) {
  const unsigned sp = m.rank - 2;  // spatial dimensions W, H, D
  const int lim = sp == 1 ? 32768 : sp == 2 ? 128 : 16;  // corner ranges per rank (the driver's)
  for (unsigned i = 1; i <= sp; ++i) m.dims[i] = edgy(r, 1, 24, {1, 2, 3, 24});
  m.dims[m.rank - 1] = edgy(r, 1, 3, {1, 2});
  m.channels_per_pixel = uint32_t(edgy(r, 1, 64, {1, 16, 32, 64}));
  if (chance(r, 3)) m.channels_per_pixel = pick(r, {256u, 257u});
  if (tg.channels.first) m.channels_per_pixel = uint32_t(in_range(r, tg.channels));
  m.dims[0] = std::max<uint64_t>(m.channels_per_pixel, edgy(r, 1, 64));
  m.pixels_per_column = uint32_t(edgy(r, 1, 32, {1, 2, 32}));
  if (chance(r, 2)) m.pixels_per_column = pick(r, {1024u, 1025u});
  if (tg.pixels.first) m.pixels_per_column = uint32_t(in_range(r, tg.pixels));
  for (unsigned s = 0; s < sp; ++s) {
    m.lower_corner[s] = -int(edgy(r, 0, std::min(lim, 4), {0, 1}));
    m.upper_corner[s] = int(edgy(r, 0, 3, {0})) * (chance(r, 50) ? -1 : 1);
    if (chance(r, 2)) m.lower_corner[s] = pick(r, {-lim, -lim - 1});
    if (chance(r, 2)) m.upper_corner[s] = pick(r, {lim - 1, lim});
  }
}

// The whole draw of one map and access for form `t`; false when the draw is not worth keeping.
bool draw_tensor_once(const TensorForm& t, Rng& r, const PlanOptions& o, const Targets& tg, DrawGuide* guide,
                      ref::TensorMapParams& m, ref::TensorAccess& a, Json& extra) {
  const bool im2col = im2col_mode(t.mode);
  m = ref::TensorMapParams{};
  m.kind = im2col ? ref::EncodeKind::im2col : ref::EncodeKind::tiled;
  m.rank = t.rank;
  extra = Json::object();
  if (t.reduce) {
    std::vector<std::pair<std::string, TDT>> ok;
    for (auto& ty : t.types)
      if (auto d = dtype_for(ty)) ok.push_back({ty, *d});
    if (ok.empty()) return false;
    auto& [ty, d] = ok[r.below(ok.size())];
    m.dtype = d;
    extra["redtype"] = ty;
  } else {
    m.dtype = chance(r, 85) ? kAllTypes[r.below(13)] : kAllTypes[r.below(16)];
    // 'cp.async.bulk.tensor with the direction .global.shared::cta doesn't support the type .b4x16_p64': a store
    // takes the other 4-bit packing instead (no draw of its own, so the rest of the seed's draws stay as they were)
    if (t.store && m.dtype == TDT::T16U4_ALIGN16B) m.dtype = TDT::T16U4_ALIGN8B;
  }
  if (!im2col && m.rank >= 3 && chance(r, 6)) m.interleave = chance(r, 50) ? ref::Interleave::B16 : ref::Interleave::B32;
  if (chance(r, 1)) m.interleave = ref::Interleave::B16;  // below rank 3 as well: the driver must refuse
  m.swizzle = pick(r, {ref::Swizzle::NONE, ref::Swizzle::NONE, ref::Swizzle::B32, ref::Swizzle::B64, ref::Swizzle::B128});
  m.oob_fill = chance(r, 25) ? ref::OobFill::NAN_REQUEST_ZERO_FMA : ref::OobFill::NONE;
  m.l2_promotion = ref::L2Promotion(r.below(4));
  if (im2col) {
    im2col_geometry(r, m, tg);
    // Stores and reductions: the chapter's bounding box must have a non-negative lower and non-positive upper
    // corner (ref::tensor_store refuses others).
    if (t.store || t.reduce)
      for (unsigned s = 0; s + 2 < m.rank; ++s) {
        m.lower_corner[s] = std::max(0, m.lower_corner[s]);
        m.upper_corner[s] = std::min(0, m.upper_corner[s]);
      }
  }
  else tile_geometry(r, m);
  // Strides: dense, padded by 16-byte steps, rarely not a multiple of 16 (illegal).
  const uint64_t step = m.interleave == ref::Interleave::B32 ? 32 : 16;
  m.strides = ref::dense_strides(m.dtype, m.rank, m.dims);
  for (unsigned i = 0; i + 1 < m.rank; ++i) {
    uint64_t min = i == 0 ? m.strides[0] : m.strides[i - 1] * m.dims[i];
    m.strides[i] = (std::max<uint64_t>(min, 1) + step - 1) / step * step;
    if (chance(r, 30)) m.strides[i] += step * edgy(r, 1, 64, {1, 2});
    if (chance(r, 1)) m.strides[i] += 8;
  }
  // The tensor's start past the guard band: 16-byte steps (32 for interleave 32B), rarely 8 (illegal).
  uint32_t gbase = chance(r, 60) ? 0 : uint32_t(edgy(r, 1, 15)) * uint32_t(step);
  if (chance(r, 1)) gbase += 8;
  m.global_address = kBase + gbase;
  // A guided draw breaks the encode rule the draws broke least (explore_encode_rules.hpp).
  if (!tg.rule.empty() && break_encode_rule(tg.rule, m, r)) gbase = uint32_t(m.global_address - kBase);
  extra["gbase"] = gbase;
  auto verdict = ref::validate_encode(m, 90);
  if (verdict.must_reject()) { extra["encode_only"] = true; return true; }
  if (!verdict.must_accept()) return false;
  uint64_t gbytes = 0;
  try { gbytes = ref::tensor_global_bytes(m); } catch (...) { return false; }
  if (gbytes > kMaxTensorBytes) return false;

  // The access.
  a = ref::TensorAccess{};
  a.mode = t.mode;
  for (unsigned i = 0; i < m.rank; ++i) {
    int64_t span = im2col ? 1 : int64_t(m.box[i]) * (i == 0 && m.interleave == ref::Interleave::NONE ? 1 : m.element_strides[i]);
    if (im2col && i == 0) span = m.channels_per_pixel;
    a.coords[i] = draw_coord(r, int64_t(m.dims[i]), span, t.nonneg);
  }
  if (im2col) {
    // W/H/D starts inside the bounding box [lowerCorner, dim + upperCorner), as the chapter's walk needs.
    for (unsigned s = 0; s + 2 < m.rank; ++s) {
      int64_t lo = m.lower_corner[s], hi = int64_t(m.dims[1 + s]) + m.upper_corner[s];
      if (t.nonneg) lo = std::max<int64_t>(lo, 0);
      if (hi <= lo) return false;
      a.coords[1 + s] = int32_t(lo + int64_t(r.below(uint64_t(hi - lo))));
      if (t.mode == ref::TensorMode::im2col) a.im2col_offsets[s] = uint16_t(r.below(uint64_t(std::min<int64_t>(hi - lo, 8))));
    }
  }
  const int32_t u = unit16(m.dtype);
  if (!ref::is_packed(m.dtype) && chance(r, 97)) a.coords[0] = a.coords[0] >= 0 ? a.coords[0] / u * u : -((-a.coords[0] + u - 1) / u * u);
  if (ref::is_packed(m.dtype)) a.coords[0] = a.coords[0] / 128 * 128;
  const uint32_t gran = m.swizzle != ref::Swizzle::NONE ? pick(r, {128u, 256u, 512u, 1024u})
                                                         : pick(r, {16u, 32u, 64u, 128u, 256u, 512u, 1024u});
  a.smem_offset = t.prefetch ? kBase : kBase + gran * uint32_t(r.below(8));  // a prefetch has no shared memory
  uint32_t tx = 0;
  uint64_t extent = 0;
  try {
    tx = ref::tensor_tx_bytes(m, a);
    if (size_t(a.smem_offset) + tx + 512 > size_t(o.max_smem)) return false;  // too large before any layout
    extent = tensor_window_extent(m, a, t.prefetch, tx);
  } catch (const std::exception&) {
    return false;  // the model cannot state this access (an open point): not a case
  }
  if (size_t(a.smem_offset) + extent + 512 > size_t(o.max_smem) || (tx > 64 * 1024 && chance(r, 90)))
    return false;

  // Clusters: multicast to 2-16 CTAs with any mask; a peer CTA.
  uint32_t cluster = 1, mask = 0, peer = 0;
  if (t.multicast) {
    cluster = uint32_t(steer(guide, r, 20, "cluster.size", 2, 16, edgy(r, 2, 16, {2, 16})));
    mask = uint32_t(r.below((1u << cluster) - 1) + 1);
  } else if (t.remote) {
    cluster = uint32_t(steer(guide, r, 20, "cluster.size", 2, 8, edgy(r, 2, 8, {2})));
    peer = uint32_t(r.below(cluster));
  }
  extra["cluster"] = cluster;
  extra["cta_mask"] = mask;
  extra["peer"] = peer;
  // Traps cost a worker and an interleaved load's overrun a wait to the limit (device_quirks.hpp): keep 1 in 30.
  bool traps = false;
  for (auto& dev : ref::single_deviations(ref::PolicySet{}))
    if (!traps && !ref::tensor_access_trap(m, a, dev.second).empty()) traps = true;
  if ((traps || interleave_load_overruns(m, t.prefetch)) && !chance(r, 3)) return false;
  if (traps) extra["traps"] = true;
  return true;
}

// The encode rules a guided draw of a tiled (im2col) map can break.
const std::vector<std::string>& rules_for(bool im2col_map) {
  static const auto of = [](bool want_im2col) {
    std::vector<std::string> v;
    for (auto& t : encode_rule_targets())
      if (t.unreachable.empty() && (want_im2col ? t.im2col : t.tiled)) v.push_back(t.rule);
    return v;
  };
  static const std::vector<std::string> tiled = of(false), im2col = of(true);
  return im2col_map ? im2col : tiled;
}

// The share of guided tensor draws that break an encode rule, and of im2col draws aimed at a channels / pixels
// bin, in percent.
constexpr unsigned kRuleShare = 5, kIm2colBinShare = 25;

Json tensor_draw(const Form& f, Rng& r, const PlanOptions& o, DrawGuide* guide) {
  const TensorForm t = tform(f);
  if (!mode_planned(t)) return Json();
  Targets tg;
  if (guide) {
    const bool im2col = im2col_mode(t.mode);
    if (chance(r, kRuleShare)) tg.rule = guide->least("encode.rule_broken", rules_for(im2col), r);
    if (im2col && chance(r, kIm2colBinShare)) tg.channels = bin_range(guide->least("im2col.channels_per_pixel", r));
    if (im2col && chance(r, kIm2colBinShare)) tg.pixels = bin_range(guide->least("im2col.pixels_per_column", r));
  }
  ref::TensorMapParams m;
  ref::TensorAccess a;
  Json extra;
  for (int tries = 0; tries < 64; ++tries) {
    if (!draw_tensor_once(t, r, o, tg, guide, m, a, extra)) continue;
    Json p = extra;  // a fresh object per try: nothing else holds it
    p["map"] = map_json(m);
    if (!p.get("encode_only")) p["access"] = access_json(a, m.rank);
    return p;
  }
  return Json();
}

// One-step simplifications of a tensor case: a dimension fewer (a sibling form), smaller boxes and dims,
// coordinates toward zero, element strides 1, dense strides, no swizzle / interleave / fill / promotion,
// aligned bases, one byte wide elements, smaller clusters.
std::vector<Json> tensor_simplify(const Form&, const Json& p) {
  std::vector<Json> out;
  const Json* mj = p.get("map");
  const Json* aj = p.get("access");
  if (!mj || !aj) return out;
  const ref::TensorMapParams m0 = map_from_json(*mj);
  const ref::TensorAccess a0 = access_from_json(*aj);
  const bool im2col = m0.kind == ref::EncodeKind::im2col;
  auto emit = [&](ref::TensorMapParams m, ref::TensorAccess a, Json q = Json()) {
    if (q.is_null()) q = clone(p);
    q["map"] = map_json(m);
    q["access"] = access_json(a, m.rank);
    out.push_back(q);
  };
  auto dense = [](ref::TensorMapParams m) {
    m.strides = ref::dense_strides(m.dtype, m.rank, m.dims);
    const uint64_t step = m.interleave == ref::Interleave::B32 ? 32 : 16;
    for (unsigned i = 0; i + 1 < m.rank; ++i) {
      uint64_t min = i == 0 ? m.strides[0] : m.strides[i - 1] * m.dims[i];
      m.strides[i] = (std::max<uint64_t>(min, 1) + step - 1) / step * step;
    }
    return m;
  };
  // A dimension fewer: the explorer moves the case to the sibling form of rank - 1 ("rank_down").
  if (!im2col && m0.rank >= 2) {
    ref::TensorMapParams m = m0;
    ref::TensorAccess a = a0;
    m.rank -= 1;
    m.dims[m.rank] = 1; m.box[m.rank] = 1; m.element_strides[m.rank] = 1; a.coords[m.rank] = 0;
    Json q = clone(p);
    q["rank_down"] = m.rank;
    emit(dense(m), a, q);
  }
  for (unsigned i = 0; i < m0.rank; ++i) {
    const uint64_t unit = i == 0 && !im2col ? std::max<uint64_t>(1, 128 / ref::element_bits(m0.dtype)) : 1;
    if (!im2col)
      for (uint64_t b : smaller(m0.box[i], unit, unit)) { auto m = m0; m.box[i] = uint32_t(b); emit(m, a0); }
    for (uint64_t d : smaller(m0.dims[i], 1)) { auto m = dense(m0); m.dims[i] = d; emit(dense(m), a0); }
    if (m0.element_strides[i] != 1) { auto m = m0; m.element_strides[i] = 1; emit(m, a0); }
    const int32_t c = a0.coords[i];
    const uint64_t cu = i == 0 ? uint64_t(unit16(m0.dtype)) : 1;
    for (uint64_t x : smaller(uint64_t(c < 0 ? -int64_t(c) : c), 0, cu)) {
      auto a = a0;
      a.coords[i] = c < 0 ? -int32_t(x) : int32_t(x);
      emit(m0, a);
    }
  }
  if (m0.strides != dense(m0).strides) emit(dense(m0), a0);
  if (m0.swizzle != ref::Swizzle::NONE) { auto m = m0; m.swizzle = ref::Swizzle::NONE; emit(m, a0); }
  if (m0.interleave != ref::Interleave::NONE) { auto m = m0; m.interleave = ref::Interleave::NONE; emit(dense(m), a0); }
  if (m0.oob_fill != ref::OobFill::NONE) { auto m = m0; m.oob_fill = ref::OobFill::NONE; emit(m, a0); }
  if (m0.l2_promotion != ref::L2Promotion::NONE) { auto m = m0; m.l2_promotion = ref::L2Promotion::NONE; emit(m, a0); }
  if (a0.smem_offset != kBase) { auto a = a0; a.smem_offset = kBase; emit(m0, a); }
  if (p.get_int("gbase")) { Json q = clone(p); q["gbase"] = 0; auto m = m0; m.global_address = kBase; emit(m, a0, q); }
  if (!p.get("redtype") && m0.dtype != TDT::UINT8 && !ref::is_packed(m0.dtype) && !im2col) {
    // Bytes instead of wider elements: the same inner box in bytes.
    auto m = m0;
    auto a = a0;
    const uint32_t w = ref::element_bits(m0.dtype) / 8;
    m.dtype = TDT::UINT8;
    m.box[0] *= w; m.dims[0] *= w; a.coords[0] *= int32_t(w);
    emit(dense(m), a);
  }
  if (im2col) {
    for (uint64_t c : smaller(m0.channels_per_pixel, 1)) { auto m = m0; m.channels_per_pixel = uint32_t(c); emit(m, a0); }
    for (uint64_t c : smaller(m0.pixels_per_column, 1)) { auto m = m0; m.pixels_per_column = uint32_t(c); emit(m, a0); }
    for (unsigned s = 0; s + 2 < m0.rank; ++s) {
      if (m0.lower_corner[s] || m0.upper_corner[s]) { auto m = m0; m.lower_corner[s] = m.upper_corner[s] = 0; emit(m, a0); }
      if (a0.im2col_offsets[s]) { auto a = a0; a.im2col_offsets[s] = 0; emit(m0, a); }
    }
  }
  const uint32_t cluster = uint32_t(p.get_int("cluster", 1)), mask = uint32_t(p.get_int("cta_mask"));
  for (uint64_t c : smaller(cluster, 2)) {
    Json q = clone(p);
    q["cluster"] = (unsigned long long)c;
    if (mask) { uint32_t mm = mask & ((1u << c) - 1); q["cta_mask"] = mm ? mm : 1u; }
    if (uint64_t(p.get_int("peer")) >= c) q["peer"] = (unsigned long long)(c - 1);
    out.push_back(q);
  }
  for (unsigned b = 0; b < cluster; ++b)
    if ((mask >> b) & 1 && (mask & ~(1u << b))) { Json q = clone(p); q["cta_mask"] = mask & ~(1u << b); out.push_back(q); }
  return out;
}

// An illegal map (an encode-only case): the same simplifications of the map, kept only while still illegal.
std::vector<Json> encode_simplify(const Form& f, const Json& p) {
  Json q = clone(p);
  ref::TensorAccess a;
  q["access"] = access_json(a, 1);
  std::vector<Json> out;
  for (auto& c : tensor_simplify(f, q)) {
    if (c.get("rank_down")) continue;  // the pseudo-form has no rank
    Json e = Json::object();
    for (auto& [k, v] : c.obj())
      if (k != "access") e[k] = v;
    if (ref::validate_encode(map_from_json(*e.get("map")), 90).must_reject()) out.push_back(e);
  }
  return out;
}

}  // namespace

void register_explore_tensor(ExploreRegistry& r) {
  for (const char* abi : {"v1.mbarrier.tmap", "v1.mbarrier.cluster.tmap", "v1.bulk_group.tmap", "v1.prefetch.tmap"})
    set_explore(r, abi, tensor_draw, tensor_simplify);
  r["v1.encode_only"].simplify = encode_simplify;
}

}  // namespace ptxcts::run
