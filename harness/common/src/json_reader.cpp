// Json::parse: the strict RFC 8259 reader, every error with its line and column. The writer is json.cpp; the short
// escapes both use are json_escapes.hpp.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ptxcts/json.hpp"

#include "json_escapes.hpp"

namespace ptxcts {

// RFC 8259 section 2-7, with the position of the first offending byte in every error.
class JsonParser {
 public:
  JsonParser(const std::string& t, const Json::ParseOptions& o) : s_(t), opt_(o) {}

  Json parse_document() {
    skip_ws();
    Json v = parse_value(0);
    skip_ws();
    if (i_ != s_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  static constexpr int kMaxDepth = 64;  // deeper documents are refused rather than risking the stack
  const std::string& s_;
  const Json::ParseOptions& opt_;
  std::size_t i_ = 0;
  int line_ = 1, col_ = 1;

  [[noreturn]] void fail(const std::string& reason) const { throw JsonError(line_, col_, reason); }
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
  static int hex_digit(char h) {
    if (h >= '0' && h <= '9') return h - '0';
    if (h >= 'a' && h <= 'f') return h - 'a' + 10;
    if (h >= 'A' && h <= 'F') return h - 'A' + 10;
    return -1;
  }

  // An object's members or an array's elements: the opening bracket, then items separated by ',' up to `close`.
  template <typename Item>
  void sequence(char close, Item item) {
    next();
    skip_ws();
    if (peek() == close) {
      next();
      return;
    }
    for (;;) {
      skip_ws();
      item();
      skip_ws();
      if (peek() == ',') {
        next();
        continue;
      }
      expect(close);
      return;
    }
  }

  Json parse_value(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth));
    Json v;
    v.line_ = line_;
    v.column_ = col_;
    const char c = peek();
    if (c == '{') {
      v.kind_ = Json::Kind::Object;
      v.obj_ = std::make_shared<Json::Object>();
      sequence('}', [&] {
        if (peek() != '"') fail("expected a string key");
        std::string key = parse_string();
        if (v.get(key)) fail("duplicate key '" + key + "'");
        skip_ws();
        expect(':');
        skip_ws();
        Json member = parse_value(depth + 1);
        v.obj_->emplace_back(std::move(key), std::move(member));
      });
      return v;
    }
    if (c == '[') {
      v.kind_ = Json::Kind::Array;
      v.arr_ = std::make_shared<Json::Array>();
      sequence(']', [&] { v.arr_->push_back(parse_value(depth + 1)); });
      return v;
    }
    if (c == '"') {
      v.kind_ = Json::Kind::String;
      v.str_ = parse_string();
      return v;
    }
    if (c == 't') {
      literal("true");
      v.kind_ = Json::Kind::Bool;
      v.b_ = true;
      return v;
    }
    if (c == 'f') {
      literal("false");
      v.kind_ = Json::Kind::Bool;
      return v;
    }
    if (c == 'n') {
      literal("null");
      return v;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind_ = Json::Kind::Number;
      v.str_ = parse_number();
      set_number(v);
      // as the Python reader (jsonloc): a number no 64-bit float can hold (1e400, thousands of digits) is refused,
      // never read as infinity
      if (!v.is_int_ && !std::isfinite(v.num_))
        fail("the number " + (v.str_.size() > 24 ? v.str_.substr(0, 12) + "... (" + std::to_string(v.str_.size()) +
                              " characters)" : v.str_) + " is out of range: no 64-bit float holds it");
      return v;
    }
    if (at_end()) fail("unexpected end of input, expected a value");
    fail(std::string("unexpected character '") + c + "', expected a value");
  }

  // The text is kept; the value is a signed 64-bit integer when it fits, else an unsigned one, else a double.
  static void set_number(Json& v) {
    const std::string& t = v.str_;
    if (t.find_first_of(".eE") == std::string::npos) {
      errno = 0;
      const long long x = std::strtoll(t.c_str(), nullptr, 10);
      if (errno != ERANGE) {
        v.int_ = x;
        v.num_ = double(x);
        v.is_int_ = true;
        return;
      }
      if (t[0] != '-') {
        errno = 0;
        const unsigned long long u = std::strtoull(t.c_str(), nullptr, 10);
        if (errno != ERANGE) {
          v.int_ = (long long)u;
          v.num_ = double(u);
          v.is_int_ = true;
          v.is_unsigned_ = true;
          return;
        }
      }
    }
    v.num_ = std::strtod(t.c_str(), nullptr);
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

  unsigned hex4() {
    unsigned cp = 0;
    for (int k = 0; k < 4; ++k) {
      const int d = hex_digit(next());
      if (d < 0) fail("bad \\u escape");
      cp = (cp << 4) | unsigned(d);
    }
    return cp;
  }
  // A low surrogate written as the next escape, consumed only when it is one.
  bool low_surrogate_follows(unsigned& lo) {
    if (i_ + 6 > s_.size() || s_[i_] != '\\' || s_[i_ + 1] != 'u') return false;
    unsigned cp = 0;
    for (std::size_t k = 2; k < 6; ++k) {
      const int d = hex_digit(s_[i_ + k]);
      if (d < 0) return false;
      cp = (cp << 4) | unsigned(d);
    }
    if (cp < 0xDC00 || cp > 0xDFFF) return false;
    for (int k = 0; k < 6; ++k) next();
    lo = cp;
    return true;
  }
  static void put_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
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
      if (const ShortEscape* short_escape = short_escape_of_letter(e)) {
        out += short_escape->byte;
        continue;
      }
      switch (e) {
        case 'u': {
          const std::size_t at = i_ - 2;  // the backslash: where the error points
          const int line = line_, col = col_ - 2;
          unsigned cp = hex4();
          if (cp >= 0x80 && !opt_.reject_non_ascii_escapes.empty()) fail(opt_.reject_non_ascii_escapes);
          unsigned lo = 0;
          if (cp >= 0xD800 && cp < 0xDC00 && low_surrogate_follows(lo)) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            // Half of a UTF-16 pair alone: valid JSON syntax, but no character (it has no UTF-8 form, and a report
            // or a JUnit file could not hold it); refused as framework/documents/jsonloc.py refuses it.
            throw JsonError(line, col, s_.substr(at, 6) + ": half of a UTF-16 surrogate pair without its other "
                            "half: not a character (a string must be Unicode text)");
          }
          put_utf8(out, cp);
          break;
        }
        default: fail(std::string("bad escape '\\") + e + "'");
      }
    }
  }
};

Json Json::parse(const std::string& text) { return parse(text, ParseOptions{}); }
Json Json::parse(const std::string& text, const ParseOptions& options) {
  return JsonParser(text, options).parse_document();
}

}  // namespace ptxcts
