// Device behaviour the chapter does not state and no named policy of harness/refmodel explains, measured on
// hardware: one row per behaviour, so that everything device-specific the planner works around is in one place.
// (Behaviour a policy names -- tensor_coord_alignment=16B_trap, im2col_start_outside_box=trap, ... -- lives in
// harness/refmodel's policy table and docs/POLICIES.md; the judge names it as a spec_divergence.)
#pragma once
#include <cstdint>

#include "ptxcts/ref/tensor.hpp"

namespace ptxcts::run {

struct DeviceQuirk {
  const char* name;
  const char* seen_on;
  const char* what;
  const char* handling;
};

inline constexpr DeviceQuirk kDeviceQuirks[] = {
    {"interleave_tile_load_overrun", "sm_90 (H100 80GB HBM3, driver 580.159.04)",
     "tile loads with interleave 16B (and 32B with swizzle 32B), ranks 3-5, write 4 to 16 times the box's bytes "
     "into shared memory, contiguous from dstMem (UINT8 box 16x4x3: 768 bytes for the model's 192; 32x2x2x2x2: "
     "8,192 for 512), and the mbarrier phase never completes (the bytes credited disagree with the box's); with "
     "a window sized for the box the writes leave the CTA's shared memory and the kernel traps with an illegal "
     "address, which is what the first runs saw; the driver encodes the map; prefetches of the same maps pass",
     "the window holds kInterleaveOverrun times the box's bytes past dstMem, so the case does not trap and its "
     "message says where the device wrote (class timeout or fail: a finding on record in "
     "results/expectations/run.toml); planned on plain forms only, inside the box only"},
};

// interleave_tile_load_overrun: a load of this map writes past the box the model states (the window must hold it).
inline bool interleave_load_overruns(const ref::TensorMapParams& m, bool prefetch) {
  return m.interleave != ref::Interleave::NONE && !prefetch;
}
// How many times the box's bytes such a load's window holds: twice the largest overrun measured (16).
inline constexpr unsigned kInterleaveOverrun = 32;

// The shared-memory bytes past dstMem a case's window holds for the device's writes besides the model's box.
inline uint64_t device_write_extent(const ref::TensorMapParams& m, bool prefetch, uint64_t tx) {
  return interleave_load_overruns(m, prefetch) ? tx * kInterleaveOverrun : 0;
}

}  // namespace ptxcts::run
