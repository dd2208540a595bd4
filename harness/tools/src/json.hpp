// A small, strict JSON reader for ptxcts-ref: RFC 8259 values, no extensions (no comments, no trailing
// commas, no NaN), errors carrying line and column. Numbers keep their text so that 64-bit integers are exact.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptxcts::tools {

class JsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct JsonValue {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool b = false;
  std::string text;  // number text or string value
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;  // in document order, keys unique
  int line = 0, column = 0;

  const char* kind_name() const;
  const JsonValue* find(const std::string& key) const;
};

// Parses exactly one value (surrounded by optional whitespace). Throws JsonError "line L, column C: ...".
JsonValue parse_json(const std::string& text);

// Field access with errors that name the field: "field 'dims[2]': expected an integer, got string".
std::int64_t json_int(const JsonValue& v, const std::string& field, std::int64_t lo, std::int64_t hi);
std::uint64_t json_u64(const JsonValue& v, const std::string& field);
const std::string& json_string(const JsonValue& v, const std::string& field);
const std::vector<JsonValue>& json_array(const JsonValue& v, const std::string& field);

}  // namespace ptxcts::tools
