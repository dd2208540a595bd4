// The driver-API cases of cuTensorMapEncodeTiled / Im2col (pseudo-forms tensormap/<function>, family
// tensormap.encode): legal maps must be accepted, illegal ones refused with CUDA_ERROR_INVALID_VALUE, as
// ref::validate_encode says. No kernel: the worker calls the encode function only.
#include <algorithm>

#include "abi.hpp"
#include "tensor_map_json.hpp"
#include "tensor_maps.hpp"

namespace ptxcts::run {

namespace {

using namespace tmaps;
constexpr size_t kGuard = 256;

struct EncodeCase { std::string name; ref::TensorMapParams map; };

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
  for (auto& e : encode_cases())
    if (e.name == want) return encode_setup(e.map, s);
  throw std::runtime_error("no encode case '" + want + "'");
}


}  // namespace

void register_encode(AbiRegistry& r) { set_plan(r, "v1.encode_only", encode_variants, encode_build); }

}  // namespace ptxcts::run
