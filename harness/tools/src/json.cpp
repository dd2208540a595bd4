#include "json.hpp"

#include <cerrno>
#include <cstdlib>

namespace ptxcts::tools {

const char* JsonValue::kind_name() const {
  switch (kind) {
    case Kind::null: return "null";
    case Kind::boolean: return "boolean";
    case Kind::number: return "number";
    case Kind::string: return "string";
    case Kind::array: return "array";
    case Kind::object: return "object";
  }
  return "?";
}

const JsonValue* JsonValue::find(const std::string& key) const {
  for (const auto& m : members)
    if (m.first == key) return &m.second;
  return nullptr;
}

namespace {

class Parser {
 public:
  explicit Parser(const std::string& t) : s_(t) {}

  JsonValue parse_document() {
    skip_ws();
    JsonValue v = parse_value(0);
    skip_ws();
    if (i_ != s_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  const std::string& s_;
  std::size_t i_ = 0;
  int line_ = 1, col_ = 1;

  [[noreturn]] void fail(const std::string& msg) const {
    throw JsonError("line " + std::to_string(line_) + ", column " + std::to_string(col_) + ": " + msg);
  }
  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }
  char next() {
    if (at_end()) fail("unexpected end of input");
    const char c = s_[i_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    return c;
  }
  void skip_ws() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) next();
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'" + (at_end() ? " before end of input" : ""));
    next();
  }
  void literal(const char* word) {
    for (const char* p = word; *p; ++p) {
      if (peek() != *p) fail(std::string("invalid literal (expected '") + word + "')");
      next();
    }
  }

  JsonValue parse_value(int depth) {
    if (depth > 64) fail("nesting deeper than 64");
    JsonValue v;
    v.line = line_;
    v.column = col_;
    const char c = peek();
    if (c == '{') {
      v.kind = JsonValue::Kind::object;
      next();
      skip_ws();
      if (peek() == '}') {
        next();
        return v;
      }
      for (;;) {
        skip_ws();
        if (peek() != '"') fail("expected a string key");
        std::string key = parse_string();
        if (v.find(key)) fail("duplicate key '" + key + "'");
        skip_ws();
        expect(':');
        skip_ws();
        JsonValue member = parse_value(depth + 1);
        v.members.emplace_back(std::move(key), std::move(member));
        skip_ws();
        if (peek() == ',') {
          next();
          continue;
        }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.kind = JsonValue::Kind::array;
      next();
      skip_ws();
      if (peek() == ']') {
        next();
        return v;
      }
      for (;;) {
        skip_ws();
        v.items.push_back(parse_value(depth + 1));
        skip_ws();
        if (peek() == ',') {
          next();
          continue;
        }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.kind = JsonValue::Kind::string;
      v.text = parse_string();
      return v;
    }
    if (c == 't') {
      literal("true");
      v.kind = JsonValue::Kind::boolean;
      v.b = true;
      return v;
    }
    if (c == 'f') {
      literal("false");
      v.kind = JsonValue::Kind::boolean;
      return v;
    }
    if (c == 'n') {
      literal("null");
      return v;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = JsonValue::Kind::number;
      v.text = parse_number();
      return v;
    }
    if (at_end()) fail("unexpected end of input, expected a value");
    fail(std::string("unexpected character '") + c + "', expected a value");
  }

  std::string parse_number() {
    std::string t;
    auto digits = [&]() {
      if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit in number");
      while (peek() >= '0' && peek() <= '9') t += next();
    };
    if (peek() == '-') t += next();
    if (peek() == '0') {
      t += next();
      if (peek() >= '0' && peek() <= '9') fail("leading zero in number");
    } else {
      digits();
    }
    if (peek() == '.') {
      t += next();
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      t += next();
      if (peek() == '+' || peek() == '-') t += next();
      digits();
    }
    return t;
  }

  std::string parse_string() {
    expect('"');
    std::string out;
    for (;;) {
      const char c = next();
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = next();
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = 0;
          for (int k = 0; k < 4; ++k) {
            const char h = next();
            cp <<= 4;
            if (h >= '0' && h <= '9') cp |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f') cp |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') cp |= static_cast<unsigned>(h - 'A' + 10);
            else fail("bad \\u escape");
          }
          if (cp >= 0x80) fail("non-ASCII \\u escape is not used by ptxcts-ref inputs");
          out += static_cast<char>(cp);
          break;
        }
        default: fail(std::string("bad escape '\\") + e + "'");
      }
    }
  }
};

std::string where(const JsonValue& v) {
  return " (line " + std::to_string(v.line) + ", column " + std::to_string(v.column) + ")";
}

}  // namespace

JsonValue parse_json(const std::string& text) { return Parser(text).parse_document(); }

std::int64_t json_int(const JsonValue& v, const std::string& field, std::int64_t lo, std::int64_t hi) {
  if (v.kind != JsonValue::Kind::number || v.text.find_first_of(".eE") != std::string::npos)
    throw JsonError("field '" + field + "': expected an integer, got " + v.kind_name() + where(v));
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(v.text.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0' || x < lo || x > hi)
    throw JsonError("field '" + field + "': " + v.text + " is outside [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "]" + where(v));
  return x;
}

std::uint64_t json_u64(const JsonValue& v, const std::string& field) {
  // An integer, or a string holding a hexadecimal "0x..." or decimal value (for values beyond 2^53).
  std::string t;
  if (v.kind == JsonValue::Kind::number) {
    if (v.text.find_first_of(".eE-") != std::string::npos)
      throw JsonError("field '" + field + "': expected a non-negative integer, got " + v.text + where(v));
    t = v.text;
  } else if (v.kind == JsonValue::Kind::string) {
    t = v.text;
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

const std::string& json_string(const JsonValue& v, const std::string& field) {
  if (v.kind != JsonValue::Kind::string)
    throw JsonError("field '" + field + "': expected a string, got " + v.kind_name() + where(v));
  return v.text;
}

const std::vector<JsonValue>& json_array(const JsonValue& v, const std::string& field) {
  if (v.kind != JsonValue::Kind::array)
    throw JsonError("field '" + field + "': expected an array, got " + v.kind_name() + where(v));
  return v.items;
}

}  // namespace ptxcts::tools
