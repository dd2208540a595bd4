// Tensor maps and accesses as JSON, both ways: the driver's enum names without their prefix (ref::to_string),
// every bad field named.
#include "tensor_map_json.hpp"

#include <optional>
#include <stdexcept>
#include <string_view>

namespace ptxcts::run::tmaps {

namespace {
template <typename T, size_t N>
Json list(const std::array<T, N>& v, unsigned n) {
  Json a = Json::array();
  for (unsigned i = 0; i < n && i < N; ++i) a.push(Json((long long)v[i]));
  return a;
}
template <typename T, size_t N>
void unlist(const Json& j, const char* key, std::array<T, N>& v) {
  const Json* a = j.get(key);
  if (!a) return;
  if (!a->is_array() || a->size() > N) throw std::runtime_error(std::string("field '") + key + "' must be an array of at most " + std::to_string(N) + " integers");
  size_t i = 0;
  for (auto& x : a->arr()) v[i++] = T(x.integer());
}
// The enumerator spelled at j[key] (def when absent); an unknown spelling: "field 'KEY': <unknown> 'VALUE'".
template <typename E>
E named(const Json& j, const char* key, std::optional<E> (*parse)(std::string_view), E def,
        const char* unknown = "unknown value") {
  const Json* v = j.get(key);
  if (!v) return def;
  auto e = parse(v->str());
  if (!e) throw std::runtime_error(std::string("field '") + key + "': " + unknown + " '" + v->str() + "'");
  return *e;
}
// map_json's spellings of the encodes a map of a test names.
std::optional<ref::EncodeKind> parse_kind(std::string_view s) {
  if (s == "tiled") return ref::EncodeKind::tiled;
  if (s == "im2col") return ref::EncodeKind::im2col;
  return std::nullopt;
}
// j itself, when it is a JSON object; `what` names it otherwise.
const Json& object(const Json& j, const char* what) {
  if (!j.is_object()) throw std::runtime_error(std::string(what) + " must be a JSON object");
  return j;
}
}  // namespace

Json map_json(const ref::TensorMapParams& m) {
  Json j = Json::object();
  j["kind"] = m.kind == ref::EncodeKind::im2col ? "im2col" : "tiled";
  j["dtype"] = ref::to_string(m.dtype);
  j["rank"] = m.rank;
  j["global_address"] = (unsigned long long)m.global_address;
  j["dims"] = list(m.dims, m.rank);
  j["strides"] = list(m.strides, m.rank ? m.rank - 1 : 0);
  if (m.kind == ref::EncodeKind::tiled) j["box"] = list(m.box, m.rank);
  j["element_strides"] = list(m.element_strides, m.rank);
  j["interleave"] = ref::to_string(m.interleave);
  j["swizzle"] = ref::to_string(m.swizzle);
  j["l2_promotion"] = ref::to_string(m.l2_promotion);
  j["oob_fill"] = ref::to_string(m.oob_fill);
  if (m.kind == ref::EncodeKind::im2col) {
    unsigned sp = m.rank >= 2 ? m.rank - 2 : 0;
    j["lower_corner"] = list(m.lower_corner, sp);
    j["upper_corner"] = list(m.upper_corner, sp);
    j["channels_per_pixel"] = m.channels_per_pixel;
    j["pixels_per_column"] = m.pixels_per_column;
  }
  return j;
}

ref::TensorMapParams map_from_json(const Json& j) {
  ref::TensorMapParams m;
  m.kind = named(object(j, "a tensor map"), "kind", parse_kind, ref::EncodeKind::tiled,
                 "expected tiled or im2col, not");
  m.dtype = named(j, "dtype", ref::parse_tensor_data_type, ref::TensorDataType::UINT8);
  m.rank = unsigned(j.get_int("rank", 1));
  // 0: a driver-API case of tensorRank 0, which the encode function must refuse (rank_range); above 5 the
  // dimension arrays could not hold what the driver would read.
  if (m.rank > 5) throw std::runtime_error("field 'rank': expected 0..5");
  m.global_address = uint64_t(j.get_int("global_address", 1024));
  m.dims = {1, 1, 1, 1, 1};
  m.box = {1, 1, 1, 1, 1};
  unlist(j, "dims", m.dims);
  unlist(j, "strides", m.strides);
  unlist(j, "box", m.box);
  unlist(j, "element_strides", m.element_strides);
  m.interleave = named(j, "interleave", ref::parse_interleave, ref::Interleave::NONE);
  m.swizzle = named(j, "swizzle", ref::parse_swizzle, ref::Swizzle::NONE);
  m.l2_promotion = named(j, "l2_promotion", ref::parse_l2_promotion, ref::L2Promotion::NONE);
  m.oob_fill = named(j, "oob_fill", ref::parse_oob_fill, ref::OobFill::NONE);
  unlist(j, "lower_corner", m.lower_corner);
  unlist(j, "upper_corner", m.upper_corner);
  m.channels_per_pixel = uint32_t(j.get_int("channels_per_pixel"));
  m.pixels_per_column = uint32_t(j.get_int("pixels_per_column"));
  return m;
}

Json access_json(const ref::TensorAccess& a, unsigned rank) {
  Json j = Json::object();
  j["mode"] = ref::to_string(a.mode);
  j["coords"] = list(a.coords, rank);
  if (a.mode == ref::TensorMode::im2col) j["im2col_offsets"] = list(a.im2col_offsets, rank >= 2 ? rank - 2 : 0);
  j["smem_offset"] = a.smem_offset;
  return j;
}

ref::TensorAccess access_from_json(const Json& j) {
  ref::TensorAccess a;
  a.mode = named(object(j, "a tensor access"), "mode", ref::parse_tensor_mode, ref::TensorMode::tile,
                 "unknown load mode");
  unlist(j, "coords", a.coords);
  unlist(j, "im2col_offsets", a.im2col_offsets);
  a.smem_offset = uint32_t(j.get_int("smem_offset", 1024));
  return a;
}

}  // namespace ptxcts::run::tmaps
