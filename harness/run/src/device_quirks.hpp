// Device behaviour the chapter does not state and no named policy of harness/refmodel explains, measured on
// hardware: one row per behaviour, so that everything device-specific the planner works around is in one place.
// (Behaviour a policy names -- tensor_coord_alignment=16B_trap, im2col_start_outside_box=trap, ... -- lives in
// harness/refmodel's policy table and docs/POLICIES.md; the judge names it as a spec_divergence.)
#pragma once
#include "ptxcts/ref/tensor.hpp"

namespace ptxcts::run {

struct DeviceQuirk {
  const char* name;
  const char* seen_on;
  const char* what;
  const char* handling;
};

inline constexpr DeviceQuirk kDeviceQuirks[] = {
    {"interleave_tile_load_trap", "sm_90 (H100 80GB HBM3, driver 580.159.04)",
     "tile loads with interleave 16B (and 32B with swizzle 32B) trap with an illegal address on ranks 3-5 for "
     "every coordinate, although the driver encodes the map; prefetches of the same maps pass",
     "planned on plain forms only, inside the box only, each alone in the serial trap phase (class crash)"},
};

// interleave_tile_load_trap: a case of this map traps on the device for a reason no policy names.
inline bool interleave_load_traps(const ref::TensorMapParams& m, bool prefetch) {
  return m.interleave != ref::Interleave::NONE && !prefetch;
}

}  // namespace ptxcts::run
