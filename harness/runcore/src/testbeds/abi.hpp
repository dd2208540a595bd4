// One driver per run ABI (forms.jsonl `abi`): the variants a form gets and how a case's images and expectation
// are built. Each family's file registers its drivers; plan.cpp dispatches.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "case.hpp"
#include "plan_options.hpp"
#include "util.hpp"

namespace ptxcts::run {

namespace field = contract::field;  // run field names: field::load_mode, ...

using Variant = std::pair<std::string, Json>;  // (variant name after '#', parameters)

// Exploration draws its own cases with these drivers' `build` (harness/explore/src/explore_registry.hpp).
struct AbiDriver {
  std::function<std::vector<Variant>(const Form&, const PlanOptions&)> variants;
  std::function<void(const RunCase&, Rng&, const PlanOptions&, Setup&)> build;
};
using AbiRegistry = std::map<std::string, AbiDriver>;
const AbiRegistry& abi_registry();
// Sets an ABI's planner (variants, build).
template <typename V, typename B>
void set_plan(AbiRegistry& r, const std::string& abi, V variants, B build) {
  r[abi].variants = variants;
  r[abi].build = build;
}

void register_cp_async(AbiRegistry& r);
void register_bulk(AbiRegistry& r);
void register_tensor(AbiRegistry& r);
void register_encode(AbiRegistry& r);  // driver-API cases of cuTensorMapEncode* (tensor_encode.cpp)

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
