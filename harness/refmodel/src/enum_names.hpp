// Internal to harness/refmodel (src/): an enumeration's spellings as one table, in enumerator order, read both
// ways (to_string and parse_* of tensormap.cpp and types.cpp).
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace ptxcts::ref::detail {

// The spelling of `e`; "?" for a value outside the table.
template <typename E, std::size_t N>
const char* name_of(E e, const char* const (&names)[N]) {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : "?";
}

// The enumerator spelled `s`; nullopt when no entry is.
template <typename E, std::size_t N>
std::optional<E> parse_name(std::string_view s, const char* const (&names)[N]) {
  for (std::size_t i = 0; i < N; ++i)
    if (s == names[i]) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace ptxcts::ref::detail
