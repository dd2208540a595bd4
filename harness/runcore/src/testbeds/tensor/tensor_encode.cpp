// The driver-API cases of cuTensorMapEncodeTiled / Im2col / Im2colWide (pseudo-forms tensormap/<function>, family
// tensormap.encode): legal maps must be accepted, illegal ones refused with CUDA_ERROR_INVALID_VALUE, as
// ref::validate_encode says. No kernel: the worker calls the encode function only.
#include <algorithm>
#include <string>

#include "abi.hpp"
#include "tensor_map_json.hpp"
#include "tensor_maps.hpp"

namespace ptxcts::run {

namespace {

using namespace tmaps;
constexpr size_t kGuard = 256;

struct EncodeCase { std::string name; ref::TensorMapParams map; };

// Every value of a driver-API enum of the model (ref::to_string names each, "?" past the last): CUtensorMapDataType,
// CUtensorMapInterleave, CUtensorMapSwizzle (and the chapter's 96B, which CUDA 13.0's enum lacks: a value the driver
// must refuse, rule swizzle_enum), CUtensorMapL2promotion, CUtensorMapFloatOOBfill.
template <typename E>
std::vector<E> every_value() {
  std::vector<E> v;
  for (unsigned i = 0; i < 256 && std::string(ref::to_string(E(i))) != "?"; ++i) v.push_back(E(i));
  return v;
}

// The base map of each encode function for a data type, legal by every documented rule (cuda.h, CUDA 13.0): tiled
// rank 2, a 64-element row (a multiple of 16 bytes for every element size) and a 32-byte inner box; im2col and
// im2col-wide rank 3 (C x W x N), 32 bytes of channels per pixel. A packed type takes what cuda.h demands of it:
// globalDim[0], boxDim[0] and channelsPerPixel 128 (16U4_ALIGN16B, 16U6_ALIGN16B; 16U4_ALIGN8B: globalDim[0] even),
// strides a multiple of 32 (a 128-value row is 64 or 96 bytes). Im2colWide: swizzle 128B (it takes only 64B, 128B
// and 128B_ATOM_32B), a W box from -2 to +1.
ref::TensorMapParams enum_base(ref::EncodeKind k, TDT t) {
  const bool packed = ref::is_packed(t);
  const uint32_t inner = packed ? 128 : std::max(1u, 32u / esize(t));
  ref::TensorMapParams p;
  p.kind = k;
  p.dtype = t;
  p.global_address = 1024;
  if (k == ref::EncodeKind::tiled) {
    p.rank = 2;
    p.dims = {packed ? 128u : 64u, 8, 1, 1, 1};
    p.box = {inner, 4, 1, 1, 1};
  } else {
    p.rank = 3;
    p.dims = {inner, 20, 3, 1, 1};
    p.channels_per_pixel = inner;
    p.pixels_per_column = 16;
    p.lower_corner = {k == ref::EncodeKind::im2col_wide ? -2 : -1, 0, 0};
    p.upper_corner = {k == ref::EncodeKind::im2col_wide ? 1 : -1, 0, 0};
    if (k == ref::EncodeKind::im2col_wide) p.swizzle = ref::Swizzle::B128;
  }
  p.strides = ref::dense_strides(t, p.rank, p.dims);
  return p;
}

// The inner box of a map (boxDim[0], or channelsPerPixel and globalDim[0] of an im2col map) set to `bytes` of FLOAT32.
ref::TensorMapParams with_inner_bytes(ref::TensorMapParams p, uint32_t bytes) {
  const uint32_t n = std::max(1u, bytes / 4);
  if (p.kind == ref::EncodeKind::tiled) {
    p.box[0] = n;
    p.dims[0] = std::max<uint64_t>(p.dims[0], n);
  } else {
    p.channels_per_pixel = n;
    p.dims[0] = n;
  }
  p.strides = ref::dense_strides(p.dtype, p.rank, p.dims);
  return p;
}

// Each value of each enum on each encode function, named after the value ("enum.<enum>_<value>..."), "legal." in
// front where ref::validate_encode at sm_90 (compute capability 9.0: the documented rules, every policy at its
// documented default) accepts the map: the expected verdict is the documentation's, whatever a device does. A value
// the documentation refuses in the base map's context (NAN_REQUEST_ZERO_FMA on an integer or packed type, interleave
// 32B without swizzle 32B, a swizzle span narrower than the inner box, the 96B swizzle, every Im2colWide map below
// compute capability 10.0) is drawn as that refusal; a swizzle is also drawn with an inner box of its span (legal)
// and twice its span (refused: swizzle_inner_box / im2col_wide_inner_box).
void add_enum_values(std::vector<EncodeCase>& v) {
  auto add = [&](const std::string& n, const ref::TensorMapParams& p) {
    v.push_back({(ref::validate_encode(p, 90).must_accept() ? "legal.enum." : "enum.") + n, p});
  };
  for (auto k : {ref::EncodeKind::tiled, ref::EncodeKind::im2col, ref::EncodeKind::im2col_wide}) {
    for (TDT t : every_value<TDT>()) {
      auto p = enum_base(k, t);
      const std::string n = std::string("dtype_") + ref::to_string(t);
      add(n, p);
      for (auto f : every_value<ref::OobFill>()) {
        if (f == p.oob_fill) continue;
        auto q = p;
        q.oob_fill = f;
        add(n + ".oob_" + ref::to_string(f), q);
      }
    }
    const auto f32 = enum_base(k, TDT::FLOAT32);
    for (auto s : every_value<ref::Swizzle>()) {
      auto p = f32;
      p.swizzle = s;
      const std::string n = std::string("swizzle_") + ref::to_string(s);
      const unsigned span = ref::swizzle_span(s);
      if (span == 0 || s == ref::Swizzle::B96) { add(n, p); continue; }
      add(n + ".inner_" + std::to_string(span) + "B", with_inner_bytes(p, span));
      add(n + ".inner_" + std::to_string(2 * span) + "B", with_inner_bytes(p, 2 * span));
    }
    for (auto i : every_value<ref::Interleave>()) {
      if (i == ref::Interleave::NONE) continue;  // every other case
      // tiled: rank 3 (rank_interleave); the swizzle the base has, and 32B (interleave32_swizzle32)
      auto p = f32;
      if (k == ref::EncodeKind::tiled) {
        p.rank = 3;
        p.dims = {64, 8, 4, 1, 1};
        p.box = {8, 4, 2, 1, 1};
        p.strides = ref::dense_strides(p.dtype, p.rank, p.dims);
      }
      p.interleave = i;
      const std::string n = std::string("interleave_") + ref::to_string(i);
      add(n + ".swizzle_" + ref::to_string(p.swizzle), p);
      if (p.swizzle != ref::Swizzle::B32) {
        p.swizzle = ref::Swizzle::B32;
        add(n + ".swizzle_32B", p);
      }
    }
    for (auto l : every_value<ref::L2Promotion>()) {
      if (l == f32.l2_promotion) continue;
      auto p = f32;
      p.l2_promotion = l;
      add(std::string("l2promotion_") + ref::to_string(l), p);
    }
    if (k == ref::EncodeKind::im2col_wide) {  // CUtensorMapIm2ColWideMode: W is the base's; W128 ignores pixelsPerColumn
      auto p = f32;
      p.wide_mode = ref::Im2colWideMode::W128;
      add("wide_mode_W128", p);
    }
  }
}

std::vector<EncodeCase> encode_cases() {
  std::vector<EncodeCase> v;
  auto add = [&](const std::string& n, ref::TensorMapParams p) { v.push_back({n, p}); };
  auto t2 = tiled(TDT::FLOAT32, 2, tile_shape(2, 4));
  add("legal.f32_2d", t2);
  // The dense UINT8 rows of ranks 2-5 (72, 40, 24, 20 bytes) break global_stride_multiple16: refusals, named
  // without "legal."; their padded rows (padded_candidates, as the run tier's tile copies use them) are legal.
  for (unsigned r = 1; r <= 5; ++r) {
    auto p = tiled(TDT::UINT8, r, tile_shape(r, 1));
    const std::string n = "u8_rank" + std::to_string(r);
    if (ref::validate_encode(p, 90).must_accept()) { add("legal." + n, p); continue; }
    add(n, p);
    if (auto m = first_legal(padded_candidates(p))) add("legal." + n + m->name, m->map);
  }
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
  add_enum_values(v);
  return v;
}

// The cases of one encode function (the pseudo-form's instr names it: ref::to_string of the map's EncodeKind).
std::vector<EncodeCase> cases_of(const std::string& function) {
  std::vector<EncodeCase> v;
  for (auto& e : encode_cases())
    if (function == ref::to_string(e.map.kind)) v.push_back(std::move(e));
  return v;
}

std::vector<Variant> encode_variants(const Form& f, const PlanOptions&) {
  std::vector<Variant> v;
  for (auto& e : cases_of(f.instr)) {  // the driver function the pseudo-form stands for
    Json p = Json::object();
    p["encode"] = e.name;
    v.emplace_back(e.name, p);
  }
  return v;
}

// The tensor lives in the worker's global source buffer: a 1024-aligned base + map.global_address (1024, or
// 1024 + 8 for the misaligned-address case: the model sees the same alignment through global_address).
void encode_setup(const ref::TensorMapParams& map, Setup& s) {
  uint64_t bytes = 0;
  try { bytes = ref::tensor_global_bytes(map); } catch (...) { bytes = 4096; }
  bytes = std::min<uint64_t>(bytes, 1u << 20);
  s.gsrc_off = size_t(map.global_address);
  s.gsrc.assign(size_t(s.gsrc_off + bytes + kGuard), 0);
  s.window = 1024;
  s.smem_init.assign(1024, 0);
  s.tmap = spec_of(map);
  s.tmap.on_dst = false;
  auto verdict = ref::validate_encode(map, 90);
  s.tmap.expect_ok = !verdict.must_reject();
  if (!verdict.must_reject() && !verdict.must_accept())
    throw std::runtime_error("the validator leaves this parameter set open (no must either way)");
  for (auto& vi : verdict.violations) s.tmap.validator_reason += (s.tmap.validator_reason.empty() ? "" : "; ") + vi.rule + ": " + vi.detail;
  s.encode_only = true;
}

void encode_build(const RunCase& c, Rng&, const PlanOptions&, Setup& s) {
  if (c.explicit_params) {  // exploration: the parameter set is data
    const Json* m = c.params.get("map");
    if (!m) throw std::runtime_error("an explicit encode case needs the field 'map'");
    encode_setup(map_from_json(*m), s);
    return;
  }
  std::string want = c.params.get_str("encode");
  for (auto& e : cases_of(c.form->instr))
    if (e.name == want) return encode_setup(e.map, s);
  throw std::runtime_error("no encode case '" + want + "' of " + c.form->instr);
}


}  // namespace

void register_encode(AbiRegistry& r) { set_plan(r, "v1.encode_only", encode_variants, encode_build); }

}  // namespace ptxcts::run
