// A tensor form's run fields, decoded once (the contract's names, never the form ID): rank, load mode, direction,
// completion, multicast/peer, reduce types. Shared by the planner (abi_tensor.cpp) and exploration's drawer
// (explore_tensor.cpp).
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "abi.hpp"
#include "device_quirks.hpp"
#include "ptxcts/ref/tensor.hpp"

namespace ptxcts::run {

// The contract's load-mode table (run_contract.hpp): an unknown spelling was refused when the form was loaded;
// a mode the contract lists but harness/refmodel does not model yet has no ref::TensorMode (nullopt).
inline std::optional<ref::TensorMode> mode_of(const std::string& m) {
  for (auto& lm : contract::kLoadModes)
    if (m == lm.spelling) return ref::parse_tensor_mode(lm.ref_mode);
  throw std::runtime_error("load mode '" + m + "' is not in the contract");
}

struct TensorForm {
  unsigned rank = 1;
  ref::TensorMode mode = ref::TensorMode::tile;
  bool modeled = true;  // the model knows the load mode (else every case is not_supported)
  bool load = false, store = false, reduce = false, prefetch = false;
  bool multicast = false, remote = false, mbarrier = false;
  bool nonneg = false;             // tensorCoords must be non-negative (no low-edge or negative boxes)
  std::vector<std::string> types;  // reduce: the element types the redOp allows
  std::vector<std::string> not_in_table;  // reduce: run.type_cells entries outside the chapter's table
  std::string redop;
};

inline TensorForm tform(const Form& f) {
  TensorForm t;
  t.rank = unsigned(run_int(f, field::dims, 1));
  auto mode = mode_of(run_str(f, field::load_mode, "tile"));
  t.modeled = mode.has_value();
  t.mode = mode.value_or(ref::TensorMode::tile);
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

// The shared-memory bytes past dstMem / srcMem a tensor case's window holds (before its guard band): the box as
// the default and every named layout alternative lay it out (ref::tensor_smem_extent_any: a device padding narrow
// rows to the swizzle span writes past the dense box), and what a device quirk writes beyond it
// (device_quirks.hpp). tx: the access's tx bytes. Shared by the planner and exploration's drawer.
inline uint64_t tensor_window_extent(const ref::TensorMapParams& m, const ref::TensorAccess& a, bool prefetch,
                                     uint32_t tx) {
  return std::max<uint64_t>({tx, ref::tensor_smem_extent_any(m, a), device_write_extent(m, prefetch, tx)});
}

}  // namespace ptxcts::run
