// One driver per run ABI (forms.jsonl `abi`): the variants a form gets and how a case's images and expectation
// are built. Each family's file registers its drivers; plan.cpp dispatches.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "case.hpp"
#include "plan.hpp"
#include "util.hpp"

namespace ptxcts::run {

namespace field = contract::field;  // run field names: field::load_mode, ...

using Variant = std::pair<std::string, Json>;  // (variant name after '#', parameters)

struct AbiDriver {
  std::function<std::vector<Variant>(const Form&, const PlanOptions&)> variants;
  std::function<void(const RunCase&, Rng&, const PlanOptions&, Setup&)> build;
  // Exploration (explore.hpp): the parameters of one case drawn at random, weighted toward boundaries, as the
  // explicit params `build` takes (null: nothing to draw for this form; {"encode_only": true, "map": ...}: an
  // illegal tensor map, judged by the driver's encode call); and simpler parameter sets than `params`, for
  // shrinking a finding (each one step simpler; `build` refuses the ones that are not legal).
  std::function<Json(const Form&, Rng&, const PlanOptions&)> draw;
  std::function<std::vector<Json>(const Form&, const Json&)> simplify;
};
using AbiRegistry = std::map<std::string, AbiDriver>;
const AbiRegistry& abi_registry();
// Sets an ABI's planner (variants, build) and leaves its exploration (draw, simplify) as it is, so the families'
// registrations do not depend on their order.
template <typename V, typename B>
void set_plan(AbiRegistry& r, const std::string& abi, V variants, B build) {
  r[abi].variants = variants;
  r[abi].build = build;
}
// Sets an ABI's exploration (draw, simplify) and leaves its planner as it is.
template <typename D, typename S>
void set_explore(AbiRegistry& r, const std::string& abi, D draw, S simplify) {
  r[abi].draw = draw;
  r[abi].simplify = simplify;
}

void register_cp_async(AbiRegistry& r);
void register_bulk(AbiRegistry& r);
void register_tensor(AbiRegistry& r);
void register_encode(AbiRegistry& r);  // driver-API cases of cuTensorMapEncode* (tensor_encode.cpp)
void register_explore_tensor(AbiRegistry& r);  // draw/simplify of the tensor families (explore_tensor.cpp)
void register_explore_bulk(AbiRegistry& r);    // draw/simplify of bulk copies, reductions, cp.async (explore_bulk.cpp)

// A form's run fields, by the contract's names (field::<name>; contract.hpp). The form passed the contract's
// check when it was loaded, so a present field has the contract's type; `def` stands for an optional field the
// form leaves out. There is no other source: never the form ID, never `quals`.
inline std::string run_str(const Form& f, const char* key, const std::string& def = "") {
  const Json* v = f.run.get(key);
  return !v ? def : v->is_string() ? v->str() : v->dump();
}
inline long long run_int(const Form& f, const char* key, long long def = 0) {
  const Json* v = f.run.get(key);
  return v ? v->integer() : def;
}
inline bool run_bool(const Form& f, const char* key) {
  const Json* v = f.run.get(key);
  return v && v->boolean();
}
inline std::vector<uint8_t> random_bytes(Rng& rng, size_t n) {
  std::vector<uint8_t> v(n);
  rng.fill(v.data(), n);
  return v;
}
// Guard fill: seeded bytes, so a stray write is caught whatever it writes (a constant guard misses a write of
// that constant).
inline void guard_fill(Rng& rng, uint8_t* p, size_t n) { rng.fill(p, n); }
// Makes dst differ from src at every byte, so a copy that did not happen can never look like one that did.
inline void make_distinct(uint8_t* dst, const uint8_t* src, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (dst[i] == src[i]) dst[i] = uint8_t(~src[i]);
}
// mbarrier try_wait polls before the kernel gives up and reports a timeout itself (status word 1 = 2). Measured on
// the H100: a completing phase needs at most ~25 polls (a 227 KB copy included); 16384 gives up in well under a
// second, long before the host watchdog, so a lost complete_tx costs its case and not the worker's context.
constexpr uint64_t kWaitLimit = 1u << 14;

}  // namespace ptxcts::run
