// Device behaviour the chapter does not state and no named policy of harness/refmodel explains, measured on
// hardware: one row per behaviour, so that everything device-specific the planner works around is in one place.
// (Behaviour a policy names -- tensor_coord_alignment=16B_trap, im2col_start_outside_box=trap, ... -- lives in
// harness/refmodel's policy table and docs/POLICIES.md; the judge names it as a spec_divergence.)
#pragma once
#include <cstdint>
#include <string>

#include "case.hpp"
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

// Recorded device findings: device behaviour the chapter does not allow (a trap, a hang, wrong bytes), measured,
// with a standalone repro in results/findings/<id> and its cases in results/expectations/run.toml. Unlike a named
// policy (harness/refmodel, docs/POLICIES.md) it is no reading of the chapter: a result of it keeps its class
// (crash, timeout, fail) and only carries details.recorded_finding = <id> (recorded_finding, set where the batch
// executor records each result), which the run tier's summary and the exploration name; the exploration counts
// it apart from the open findings. Each family is defined exactly as its record states it, no wider.
struct RecordedFinding {
  const char* id;       // the folder under results/findings
  const char* seen_on;
  const char* family;   // the accesses and maps it covers
  const char* classes;  // the result classes it covers
};

inline constexpr const char* kIm2colInterleaveTraps = "h100-explored-im2col-interleave-traps";

inline constexpr RecordedFinding kRecordedFindings[] = {
    {kIm2colInterleaveTraps, "sm_90 (H100 80GB HBM3 and H200, driver 580.159.04)",
     "im2col accesses (load, prefetch: .im2col; store, reduce: .im2col_no_offs) of an im2col map with interleave "
     "16B or 32B whose pixel (channelsPerPixel x element size) is wider than the interleave chunk (16 or 32 "
     "bytes), which cuTensorMapEncodeIm2col accepts; no packed type (the encode refuses every packed map)",
     "crash with cudaErrorIllegalInstruction, timeout; fail for reductions only (elements from other sources)"},
};

// Bytes of one interleave chunk: 16 (16B), 32 (32B), 0 (NONE).
inline unsigned interleave_chunk_bytes(ref::Interleave i) {
  return i == ref::Interleave::B16 ? 16 : i == ref::Interleave::B32 ? 32 : 0;
}

// An interleaved im2col map whose pixel, channelsPerPixel x element size, is wider than the interleave chunk.
// Packed types are outside the record (none was measured; packed_type_encode=refused: no packed map encodes).
inline bool im2col_pixel_wider_than_chunk(const ref::TensorMapParams& m) {
  if (m.kind != ref::EncodeKind::im2col || m.interleave == ref::Interleave::NONE || ref::is_packed(m.dtype))
    return false;
  return uint64_t(m.channels_per_pixel) * (ref::element_bits(m.dtype) / 8) > interleave_chunk_bytes(m.interleave);
}

// h100-explored-im2col-interleave-traps: whether a result (klass; kernel_error: details.kernel_error, the CUDA
// error a trap reported) of an im2col access in `mode` with map m, a reduction or not, is that finding's: the
// map as im2col_pixel_wider_than_chunk, and an illegal-instruction trap or a timeout, or a reduction's fail.
inline bool im2col_interleave_trap_result(const ref::TensorMapParams& m, ref::TensorMode mode, bool reduce,
                                          const std::string& klass, const std::string& kernel_error) {
  if (mode != ref::TensorMode::im2col && mode != ref::TensorMode::im2col_no_offs) return false;
  if (!im2col_pixel_wider_than_chunk(m)) return false;
  return (klass == cls::crash && kernel_error == "cudaErrorIllegalInstruction") || klass == cls::timeout ||
         (reduce && klass == cls::fail);
}

// The id of the recorded device finding (kRecordedFindings) that explains result r of case c, or "". Only
// explicit cases carry their map (params.map, params.access); the planner's im2col maps are never interleaved
// (tensor_maps.cpp, im2col_maps).
std::string recorded_finding(const RunCase& c, const CaseResult& r);

}  // namespace ptxcts::run
