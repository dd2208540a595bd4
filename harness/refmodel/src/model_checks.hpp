// Internal to harness/refmodel (src/): the checks the copy and tensor sources share.
#pragma once
#include <cstdint>
#include <string>

#include "ptxcts/ref/types.hpp"

namespace ptxcts::ref::detail {

// A precondition of the model: its message names what the access got wrong (ModelError).
inline void need(bool ok, const std::string& msg) {
  if (!ok) throw ModelError(msg);
}

inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

}  // namespace ptxcts::ref::detail
