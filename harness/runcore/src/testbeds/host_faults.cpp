#include "host_faults.hpp"

#include <cstdlib>
#include <stdexcept>

#include "ptxcts/ref/tensor.hpp"
#include "ptxcts/ref/tensormap.hpp"
#include "tensor_maps.hpp"

namespace ptxcts::run {

const std::vector<HostFaultKind>& host_fault_kinds() {
  static const std::vector<HostFaultKind> k = {
      {HostFault::swizzle, "tmap_swizzle", "another swizzle mode (NONE -> 128B/64B/32B, any other -> NONE, ...)"},
      {HostFault::oobfill, "tmap_oobfill", "the OOB fill flipped (NONE <-> NAN_REQUEST_ZERO_FMA)"},
      {HostFault::estride, "tmap_estride", "an element stride changed (1 -> 2, n -> 1), outermost dimension first"},
      {HostFault::box, "tmap_box", "a box dimension one smaller (im2col: pixelsPerColumn one smaller)"},
      {HostFault::stride, "tmap_stride", "a global stride 16 bytes larger (dimension 1 first)"},
      {HostFault::dtype, "tmap_dtype", "another data type of the same width (UINT32 -> FLOAT32 or INT32, FLOAT16 -> "
                                       "BFLOAT16, FLOAT64 -> INT64, ...)"},
  };
  return k;
}

namespace {

const char* kEnv = "PTXCTS_PLANT_HOST_FAULT";

std::string known() {
  std::string s;
  for (auto& k : host_fault_kinds()) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

bool lookup(const std::string& v, HostFault& out) {
  if (v.empty()) { out = HostFault::none; return true; }
  for (auto& k : host_fault_kinds())
    if (v == k.name) { out = k.kind; return true; }
  return false;
}

bool legal(const TensorMapSpec& t, const HostFaultContext& c) {
  return ref::validate_encode(tmaps::params_of(t, c.global_address), c.cc).must_accept();
}

unsigned elem_bits(const TensorMapSpec& t) { return ref::element_bits(ref::TensorDataType(t.dtype)); }

// The box's bytes for a plain tile access (no gather4, no im2col): -1 where the map is not tiled.
int64_t tile_tx(const TensorMapSpec& t) {
  if (t.kind != TensorMapSpec::Tiled) return -1;
  uint64_t n = 1;
  for (uint32_t i = 0; i < t.rank; ++i) n *= (t.box[i] + t.estrides[i] - 1) / t.estrides[i];
  return int64_t(n * elem_bits(t) / 8);
}

// A plain tile access whose box lies inside the tensor in every dimension (no OOB element), known for sure only
// when the case's tx bytes are those of a plain tile box (a gather4 box is four rows of one).
bool tile_inside(const TensorMapSpec& t, const HostFaultContext& c) {
  if (t.kind != TensorMapSpec::Tiled || c.tx_bytes < 0 || c.tx_bytes != tile_tx(t)) return false;
  for (uint32_t i = 0; i < t.rank; ++i)
    if (c.coords[i] < 0 || uint64_t(c.coords[i]) + t.box[i] > t.dims[i]) return false;
  return true;
}

// A plain tile access that touches only index 0 of every dimension from `from` on.
bool tile_only_first_rows(const TensorMapSpec& t, const HostFaultContext& c, uint32_t from) {
  if (t.kind != TensorMapSpec::Tiled || c.tx_bytes < 0 || c.tx_bytes != tile_tx(t)) return false;
  for (uint32_t i = from; i < t.rank; ++i)
    if (c.coords[i] != 0 || t.box[i] != 1) return false;
  return true;
}

const char* swizzle_name(int s) { return ref::to_string(ref::Swizzle(s)); }
const char* oob_name(int f) { return ref::to_string(ref::OobFill(f)); }

// A perturbation applied: field, its value before and after.
HostPlant changed(std::string field, std::string from, std::string to) {
  HostPlant p;
  p.applied = true;
  p.field = std::move(field);
  p.from = std::move(from);
  p.to = std::move(to);
  return p;
}

HostPlant refuse(const std::string& field, const std::string& why) {
  HostPlant p;
  p.field = field;
  p.refused = why;
  return p;
}

HostPlant plant_swizzle(TensorMapSpec& t, const HostFaultContext& c) {
  using S = ref::Swizzle;
  const S cur = S(t.swizzle);
  std::vector<S> cand;
  switch (cur) {
    case S::NONE: cand = {S::B128, S::B64, S::B32}; break;
    case S::B32: cand = {S::NONE, S::B64, S::B128}; break;
    case S::B64: cand = {S::NONE, S::B32, S::B128}; break;
    case S::B128: cand = {S::NONE, S::B64, S::B32}; break;
    default: cand = {S::B128, S::NONE}; break;
  }
  for (S s : cand) {
    TensorMapSpec u = t;
    u.swizzle = int(s);
    if (!legal(u, c)) continue;
    HostPlant p = changed("swizzle", swizzle_name(t.swizzle), swizzle_name(int(s)));
    // Equivalent when every 16-byte piece of the box's shared-memory footprint lands at the same address under
    // both modes (the model's swizzle_address, on the window's 1024-aligned offsets).
    if (c.tx_bytes >= 0 && c.box_smem_off >= 0) {
      bool same = true;
      for (int64_t a = c.box_smem_off; a < c.box_smem_off + c.tx_bytes && same; a += 16)
        same = ref::swizzle_address(cur, uint64_t(a)) == ref::swizzle_address(s, uint64_t(a));
      if (same)
        p.equivalent = "the box's " + std::to_string(c.tx_bytes) + " shared-memory bytes at +" +
                       std::to_string(c.box_smem_off) + " are laid out the same under swizzle " + p.from + " and " + p.to;
    }
    t = u;
    return p;
  }
  return refuse("swizzle", std::string("no other swizzle mode is legal for this map (swizzle ") + swizzle_name(t.swizzle) + ")");
}

HostPlant plant_oobfill(TensorMapSpec& t, const HostFaultContext& c) {
  TensorMapSpec u = t;
  u.oobfill = t.oobfill == int(ref::OobFill::NONE) ? int(ref::OobFill::NAN_REQUEST_ZERO_FMA) : int(ref::OobFill::NONE);
  if (!legal(u, c))
    return refuse("oob_fill", std::string("OOB fill ") + oob_name(u.oobfill) + " is not legal for this map (data type " +
                                  ref::to_string(ref::TensorDataType(t.dtype)) + ")");
  HostPlant p = changed("oob_fill", oob_name(t.oobfill), oob_name(u.oobfill));
  if (t.on_dst) p.equivalent = "the OOB fill applies to loads only; this map describes a store or reduce destination";
  else if (tile_inside(t, c)) p.equivalent = "no element of the box lies outside the tensor: nothing is filled";
  t = u;
  return p;
}

// The order in which plant_estride tries the dimensions: those where a stride changes which elements are read
// first. Tiled: dimensions whose box has more than one element, outermost first, dimension 0 last without
// interleave (its element stride is ignored then: DRV). Im2col: the spatial dimensions the pixels walk, W first,
// then N, then the channels.
std::vector<uint32_t> estride_order(const TensorMapSpec& t) {
  std::vector<uint32_t> dims;
  const bool ignored0 = t.interleave == int(ref::Interleave::NONE);
  if (t.kind != TensorMapSpec::Tiled) {
    for (uint32_t i = 1; i < t.rank; ++i) dims.push_back(i);
    dims.push_back(0);
    return dims;
  }
  for (int pass = 0; pass < 3; ++pass)
    for (int i = int(t.rank) - 1; i >= 0; --i) {
      const int p = i == 0 && ignored0 ? 2 : t.box[i] > 1 ? 0 : 1;
      if (p == pass) dims.push_back(uint32_t(i));
    }
  return dims;
}

HostPlant plant_estride(TensorMapSpec& t, const HostFaultContext& c) {
  const std::vector<uint32_t> dims = estride_order(t);
  for (uint32_t d : dims) {
    TensorMapSpec u = t;
    u.estrides[d] = t.estrides[d] == 1 ? 2 : 1;
    if (!legal(u, c)) continue;
    HostPlant p = changed("element_strides[" + std::to_string(d) + "]", std::to_string(t.estrides[d]),
                          std::to_string(u.estrides[d]));
    if (t.kind == TensorMapSpec::Tiled && t.box[d] == 1)
      p.equivalent = "boxDim[" + std::to_string(d) + "] is 1: one element along it whatever the stride";
    else if (d == 0 && t.interleave == int(ref::Interleave::NONE))
      p.equivalent = "without interleave elementStrides[0] is ignored (DRV)";
    t = u;
    return p;
  }
  return refuse("element_strides", "no element stride change is legal for this map");
}

HostPlant plant_box(TensorMapSpec& t, const HostFaultContext& c) {
  if (t.kind == TensorMapSpec::Tiled) {
    // the outermost dimension whose box can shrink by one and stay legal
    for (int i = int(t.rank) - 1; i >= 0; --i) {
      if (t.box[i] <= 1) continue;
      TensorMapSpec u = t;
      u.box[i] = t.box[i] - 1;
      if (!legal(u, c)) continue;
      HostPlant p = changed("boxDim[" + std::to_string(i) + "]", std::to_string(t.box[i]), std::to_string(u.box[i]));
      t = u;
      return p;
    }
    return refuse("boxDim", "no box dimension can shrink by one and stay legal");
  }
  if (t.pixels > 1) {
    TensorMapSpec u = t;
    u.pixels = t.pixels - 1;
    if (legal(u, c)) {
      HostPlant p = changed("pixelsPerColumn", std::to_string(t.pixels), std::to_string(u.pixels));
      t = u;
      return p;
    }
  }
  return refuse("pixelsPerColumn", "pixelsPerColumn cannot shrink by one and stay legal");
}

HostPlant plant_stride(TensorMapSpec& t, const HostFaultContext& c) {
  if (t.rank < 2) return refuse("globalStrides", "a rank-1 tensor has no global stride");
  // innermost first; where the outer strides no longer cover the grown dimension (illegal), every outer stride
  // grows with it, as a row pitch 16 bytes too large would make them (the tensor's rows padded)
  for (uint32_t d = 0; d + 1 < t.rank; ++d) {
    for (int grow_outer = 0; grow_outer < 2; ++grow_outer) {
      TensorMapSpec u = t;
      u.strides[d] = t.strides[d] + 16;
      // strides[j] is the step of dimension j+1, dims[j] steps of strides[j-1] apart at least
      for (uint32_t j = d + 1; grow_outer && j + 1 < t.rank; ++j)
        u.strides[j] = t.strides[j] + (u.strides[j - 1] - t.strides[j - 1]) * t.dims[j];
      if (grow_outer && u.strides == t.strides) continue;
      if (!legal(u, c)) continue;
      HostPlant p = changed("globalStrides[" + std::to_string(d) + "]", std::to_string(t.strides[d]),
                            std::to_string(u.strides[d]));
      if (grow_outer) p.to += " (outer strides grown with it)";
      // globalStrides[d] is the step of dimension d+1: invisible when the box touches only index 0 there and above
      if (tile_only_first_rows(t, c, d + 1))
        p.equivalent = "the box touches only index 0 of dimension " + std::to_string(d + 1) +
                       " and above: no address uses the stride";
      t = u;
      return p;
    }
  }
  return refuse("globalStrides", "no global stride can grow by 16 bytes and stay legal");
}

// The data types plant_dtype tries for a map's type, in order: same width, the ones that change a reduction's
// arithmetic first (integer <-> float), then signedness; a sub-byte or 8-bit type has none.
std::vector<ref::TensorDataType> dtype_candidates(ref::TensorDataType t) {
  using T = ref::TensorDataType;
  switch (t) {
    case T::UINT16: return {T::FLOAT16, T::BFLOAT16};
    case T::FLOAT16: return {T::BFLOAT16, T::UINT16};
    case T::BFLOAT16: return {T::FLOAT16, T::UINT16};
    case T::UINT32: return {T::FLOAT32, T::INT32};
    case T::INT32: return {T::FLOAT32, T::UINT32};
    case T::FLOAT32: return {T::INT32, T::UINT32, T::FLOAT32_FTZ};
    case T::FLOAT32_FTZ: return {T::INT32, T::FLOAT32};
    case T::TFLOAT32: return {T::FLOAT32, T::INT32};
    case T::TFLOAT32_FTZ: return {T::TFLOAT32, T::FLOAT32};
    case T::UINT64: return {T::FLOAT64, T::INT64};
    case T::INT64: return {T::FLOAT64, T::UINT64};
    case T::FLOAT64: return {T::INT64, T::UINT64};
    default: return {};
  }
}

// Another data type of the same width: the bytes a load or store moves are the same, but a reduction computes in
// the map's type and an OOB NaN fill takes its pattern. For a reduction only a type the chapter's tensor table
// allows with the instruction's redOp is taken (anything else would be an illegal program, not a silent fault).
HostPlant plant_dtype(TensorMapSpec& t, const HostFaultContext& c) {
  const auto cur = ref::TensorDataType(t.dtype);
  for (ref::TensorDataType d : dtype_candidates(cur)) {
    TensorMapSpec u = t;
    u.dtype = int(d);
    if (!legal(u, c)) continue;
    if (c.redop) {
      const auto type = ref::tensor_reduce_type(d, *c.redop);
      if (!type || !ref::reduce_op_allowed(ref::ReduceSite::tensor, ref::ReduceOp{*c.redop, *type, false})) continue;
    }
    HostPlant p = changed("dtype", ref::to_string(cur), ref::to_string(d));
    t = u;
    return p;
  }
  return refuse("dtype", std::string("no other data type of the same width is legal for this map") +
                             (c.redop ? " and this reduction (." + std::string(ref::to_string(*c.redop)) + ")" : "") +
                             " (data type " + ref::to_string(cur) + ")");
}

}  // namespace

std::string host_fault_env_error() {
  const char* v = std::getenv(kEnv);
  HostFault k;
  if (!v || lookup(v, k)) return "";
  return std::string(kEnv) + "='" + v + "': unknown host fault kind (known: " + known() + ")";
}

HostFault host_fault_from_env() {
  static const HostFault k = [] {
    const char* v = std::getenv(kEnv);
    HostFault out = HostFault::none;
    if (v && !lookup(v, out)) throw std::runtime_error(host_fault_env_error());
    return out;
  }();
  return k;
}

HostPlant plant_host_fault(HostFault kind, TensorMapSpec& t, const HostFaultContext& ctx) {
  switch (kind) {
    case HostFault::swizzle: return plant_swizzle(t, ctx);
    case HostFault::oobfill: return plant_oobfill(t, ctx);
    case HostFault::estride: return plant_estride(t, ctx);
    case HostFault::box: return plant_box(t, ctx);
    case HostFault::stride: return plant_stride(t, ctx);
    case HostFault::dtype: return plant_dtype(t, ctx);
    case HostFault::none: break;
  }
  return {};
}

TensorMapSpec planted_tensor_map(const Setup& s, unsigned cc, Json& details) {
  const HostFault kind = host_fault_from_env();
  if (kind == HostFault::none || s.encode_only || s.tmap.kind == TensorMapSpec::None) return s.tmap;
  HostFaultContext c;
  c.global_address = s.tmap.on_dst ? s.w[W_DST] : s.w[W_SRC];
  c.cc = cc;
  c.tx_bytes = s.info.get_int("tx_bytes", -1);
  c.box_smem_off = s.info.get_int("box_smem_off", -1);
  for (unsigned i = 0; i < 5; ++i) c.coords[i] = int64_t(int32_t(uint32_t(s.w[W_COORD0 + i])));
  if (const std::string op = s.info.get_str("op"); !op.empty())
    if (const auto rop = ref::parse_reduce_op(op, nullptr)) c.redop = rop->red;
  TensorMapSpec t = s.tmap;
  HostPlant p = plant_host_fault(kind, t, c);
  // The model decides whether the perturbation is observable with this case's inputs; the plant's own reason is
  // kept beside its verdict.
  std::string model_change;
  if (p.applied && s.map_change) {
    model_change = s.map_change(t);
    if (model_change.empty())
      p.equivalent = "the model expects the same bytes, transaction count and outcome with the perturbed map" +
                     (p.equivalent.empty() ? std::string() : " (" + p.equivalent + ")");
    else
      p.equivalent.clear();
  }
  Json j = Json::object();
  for (auto& k : host_fault_kinds())
    if (k.kind == kind) j["kind"] = k.name;
  j["applied"] = p.applied;
  j["field"] = p.field;
  if (p.applied) {
    j["from"] = p.from;
    j["to"] = p.to;
    if (!p.equivalent.empty()) j["equivalent"] = p.equivalent;
    if (!model_change.empty()) j["model_change"] = model_change;
  } else {
    j["refused"] = p.refused;
  }
  details["host_fault"] = j;
  return t;
}

}  // namespace ptxcts::run
