// Strict field access for ptxcts-ref's JSON queries (over the harness's ptxcts::Json): every error names the
// field and where its value stands in the input, e.g.
// "field 'dims[2]': expected an integer, got string (line 3, column 12)".
#pragma once

#include <cstdint>
#include <string>

#include "ptxcts/json.hpp"

namespace ptxcts::tools {

using ptxcts::Json;
using ptxcts::JsonError;

// Parses exactly one value. Throws JsonError "line L, column C: ..."; ptxcts-ref inputs are ASCII, so a \u
// escape above U+007F is refused too.
Json parse_json(const std::string& text);

std::int64_t json_int(const Json& v, const std::string& field, std::int64_t lo, std::int64_t hi);
std::uint64_t json_u64(const Json& v, const std::string& field);
const std::string& json_string(const Json& v, const std::string& field);
const Json::Array& json_array(const Json& v, const std::string& field);

}  // namespace ptxcts::tools
