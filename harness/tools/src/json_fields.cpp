#include "json_fields.hpp"

#include <cerrno>
#include <cstdlib>

namespace ptxcts::tools {

namespace {

std::string where(const Json& v) {
  return " (line " + std::to_string(v.line()) + ", column " + std::to_string(v.column()) + ")";
}

}  // namespace

Json parse_json(const std::string& text) {
  Json::ParseOptions options;
  options.reject_non_ascii_escapes = "non-ASCII \\u escape is not used by ptxcts-ref inputs";
  return Json::parse(text, options);
}

std::int64_t json_int(const Json& v, const std::string& field, std::int64_t lo, std::int64_t hi) {
  if (!v.is_number() || v.number_text().find_first_of(".eE") != std::string::npos)
    throw JsonError("field '" + field + "': expected an integer, got " + v.kind_name() + where(v));
  const std::string t = v.number_text();
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(t.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0' || x < lo || x > hi)
    throw JsonError("field '" + field + "': " + t + " is outside [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "]" + where(v));
  return x;
}

std::uint64_t json_u64(const Json& v, const std::string& field) {
  // An integer, or a string holding a hexadecimal "0x..." or decimal value (for values beyond 2^53).
  std::string t;
  if (v.is_number()) {
    t = v.number_text();
    if (t.find_first_of(".eE-") != std::string::npos)
      throw JsonError("field '" + field + "': expected a non-negative integer, got " + t + where(v));
  } else if (v.is_string()) {
    t = v.str();
  } else {
    throw JsonError("field '" + field + "': expected an integer or a \"0x...\" string, got " + v.kind_name() +
                    where(v));
  }
  int base = 10;
  std::string digits = t;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    digits = t.substr(2);
  }
  if (digits.empty() || digits.find_first_not_of(base == 16 ? "0123456789abcdefABCDEF" : "0123456789") !=
                            std::string::npos)
    throw JsonError("field '" + field + "': '" + t + "' is not a decimal or 0x-hexadecimal integer" + where(v));
  errno = 0;
  const unsigned long long x = std::strtoull(digits.c_str(), nullptr, base);
  if (errno == ERANGE) throw JsonError("field '" + field + "': '" + t + "' does not fit in 64 bits" + where(v));
  return x;
}

const std::string& json_string(const Json& v, const std::string& field) {
  if (!v.is_string()) throw JsonError("field '" + field + "': expected a string, got " + v.kind_name() + where(v));
  return v.str();
}

const Json::Array& json_array(const Json& v, const std::string& field) {
  if (!v.is_array()) throw JsonError("field '" + field + "': expected an array, got " + v.kind_name() + where(v));
  return v.arr();
}

}  // namespace ptxcts::tools
