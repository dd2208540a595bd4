// A case's records as JSON: its result (the run document's `cases`, ARCHITECTURE section 3) and its tensor map.
#include "case.hpp"

namespace ptxcts::run {

namespace {

// The string fields of a result record (ARCHITECTURE section 3), in the order they are written; duration_ms,
// message and details follow them.
constexpr StringField<CaseResult> kResultKeys[] = {
    {"id", &CaseResult::id}, {"family", &CaseResult::family}, {"form", &CaseResult::form},
    {"target", &CaseResult::target}, {"ptx", &CaseResult::ptx}, {"load_path", &CaseResult::load_path},
    {"class", &CaseResult::cls}};

}  // namespace

Json CaseResult::to_json() const {
  Json j = Json::object();
  for (const auto& k : kResultKeys) j[k.key] = this->*k.field;
  j["duration_ms"] = duration_ms;
  j["message"] = message;
  j["details"] = details;
  return j;
}

CaseResult CaseResult::from_json(const Json& j) {
  CaseResult r;
  for (const auto& k : kResultKeys) r.*k.field = j.get_str(k.key);
  r.message = j.get_str("message");
  if (auto* d = j.get("duration_ms"); d && d->is_number()) r.duration_ms = d->num();
  if (auto* d = j.get("details")) r.details = *d;
  return r;
}

Json TensorMapSpec::to_json() const {
  static const char* kinds[] = {"none", "tiled", "im2col", "im2col_wide"};
  Json j = Json::object();
  j["encode"] = kinds[kind];
  j["dtype"] = dtype;
  j["rank"] = rank;
  Json d = Json::array(), st = Json::array(), b = Json::array(), es = Json::array();
  for (uint32_t i = 0; i < rank && i < 5; ++i) {
    d.push(Json((unsigned long long)dims[i]));
    b.push(Json(box[i]));
    es.push(Json(estrides[i]));
    if (i + 1 < rank) st.push(Json((unsigned long long)strides[i]));
  }
  j["dims"] = d;
  j["strides"] = st;
  if (kind == Tiled) j["box"] = b;
  j["element_strides"] = es;
  j["interleave"] = interleave;
  j["swizzle"] = swizzle;
  j["l2_promotion"] = l2promo;
  j["oob_fill"] = oobfill;
  if (kind == Im2col) {
    Json lo = Json::array(), hi = Json::array();
    for (uint32_t i = 0; i + 2 < rank; ++i) { lo.push(Json(lower[i])); hi.push(Json(upper[i])); }
    j["lower_corner"] = lo;
    j["upper_corner"] = hi;
  }
  if (kind == Im2col || kind == Im2colWide) {
    j["channels_per_pixel"] = channels;
    j["pixels_per_column"] = pixels;
  }
  j["expect_ok"] = expect_ok;
  if (!validator_reason.empty()) j["validator"] = validator_reason;
  return j;
}

}  // namespace ptxcts::run
