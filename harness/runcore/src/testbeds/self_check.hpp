// The self-checking completion kernels (v1.self_check.*): their variant, and how large their chunks are on this
// device.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "abi.hpp"

namespace ptxcts::run {

// run.chunk_bytes is what the form asks for (several KB, so that a wait returning early is seen); every chunk
// lives in one CTA's window with 256-byte guard bands before and after, beside 1 KB of the frame's static shared
// memory: where `chunks` of them do not fit in max_smem, less (a multiple of 16, at least 16).
inline uint32_t self_check_chunk_bytes(uint64_t chunk_bytes, unsigned chunks, int max_smem) {
  const int64_t room = (int64_t(max_smem) - 1024 - 512) / int64_t(std::max(1u, chunks)) / 16 * 16;
  return uint32_t(std::max<int64_t>(16, std::min<int64_t>(int64_t(chunk_bytes), room)));
}

// The one variant of a self-check form: chunks_<run.chunks>.
inline std::vector<Variant> self_check_variants(const Form& f, const PlanOptions&) {
  Json p = Json::object();
  p["chunks"] = run_int(f, field::chunks, 1);
  return {{"chunks_" + std::to_string(run_int(f, field::chunks, 1)), p}};
}

}  // namespace ptxcts::run
