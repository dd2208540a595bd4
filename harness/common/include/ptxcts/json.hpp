// The harness's one JSON value: a strict RFC 8259 reader (no comments, no trailing commas, no NaN, unique keys,
// no half of a UTF-16 surrogate pair alone, nesting at most 64 deep) whose errors name the line and column, and a writer that keeps object members in
// insertion order so that output is stable. The run tier reads forms.jsonl and the worker's result lines with it
// and writes results.json; ptxcts-ref reads its tensor queries. No third-party JSON library is on the CI image.
#pragma once
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ptxcts {

// A malformed document ("line L, column C: <reason>"), or a value a reader did not accept (message only).
class JsonError : public std::runtime_error {
 public:
  explicit JsonError(const std::string& message) : std::runtime_error(message) {}
  JsonError(int line, int column, const std::string& reason);
  int line() const { return line_; }      // 1-based; 0 when the error has no position
  int column() const { return column_; }  // 1-based, counted in bytes; 0 when the error has no position

 private:
  int line_ = 0, column_ = 0;
};

class Json {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;  // keeps insertion order for stable output

  // What a reader accepts beyond RFC 8259's grammar and the checks every reader gets.
  struct ParseOptions {
    // Non-empty: a \u escape above U+007F is an error with this reason (a reader whose inputs are ASCII).
    // Empty: such escapes, surrogate pairs included, are decoded to UTF-8.
    std::string reject_non_ascii_escapes;
  };

  Json() = default;
  Json(std::nullptr_t) {}
  Json(bool b) : kind_(Kind::Bool), b_(b) {}
  Json(int v) : kind_(Kind::Number), num_(v), int_(v), is_int_(true) {}
  Json(long v) : kind_(Kind::Number), num_(double(v)), int_(v), is_int_(true) {}
  Json(long long v) : kind_(Kind::Number), num_(double(v)), int_(v), is_int_(true) {}
  Json(unsigned v) : kind_(Kind::Number), num_(v), int_(v), is_int_(true) {}
  // 64-bit unsigned values are written exactly (not as their two's-complement signed reading).
  Json(unsigned long v)
      : kind_(Kind::Number), num_(double(v)), int_((long long)v), is_int_(true), is_unsigned_(true) {}
  Json(unsigned long long v)
      : kind_(Kind::Number), num_(double(v)), int_((long long)v), is_int_(true), is_unsigned_(true) {}
  Json(double v) : kind_(Kind::Number), num_(v) {}
  Json(const char* s) : kind_(Kind::String), str_(s) {}
  Json(std::string s) : kind_(Kind::String), str_(std::move(s)) {}
  Json(Array a) : kind_(Kind::Array), arr_(std::make_shared<Array>(std::move(a))) {}
  Json(Object o) : kind_(Kind::Object), obj_(std::make_shared<Object>(std::move(o))) {}
  static Json array() { return Json(Array{}); }
  static Json object() { return Json(Object{}); }

  Kind kind() const { return kind_; }
  const char* kind_name() const;  // "null", "boolean", "number", "string", "array", "object"
  bool is_null() const { return kind_ == Kind::Null; }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_number() const { return kind_ == Kind::Number; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_object() const { return kind_ == Kind::Object; }
  bool is_bool() const { return kind_ == Kind::Bool; }

  // Typed access; each throws JsonError when the value is of another kind.
  const std::string& str() const;
  double num() const;
  long long integer() const;  // a 64-bit unsigned value comes back as its two's-complement bits
  bool boolean() const;
  const Array& arr() const;
  Array& arr();
  const Object& obj() const;
  // A number as the document wrote it (exact for integers of any size), or as dump() writes a built number.
  std::string number_text() const;

  // Where a parsed value starts (1-based line and byte column); 0 for a value built in code.
  int line() const { return line_; }
  int column() const { return column_; }

  // Object access: `get` returns nullptr when absent; operator[] on a non-const object inserts.
  const Json* get(const std::string& key) const;
  Json& operator[](const std::string& key);
  void push(Json v);
  size_t size() const;

  // Convenience: value of key as string/int with default when absent or of another kind.
  std::string get_str(const std::string& key, const std::string& def = "") const;
  long long get_int(const std::string& key, long long def = 0) const;

  std::string dump(int indent = -1) const;
  // Exactly one value, with optional white space around it. Throws JsonError "line L, column C: <reason>".
  static Json parse(const std::string& text);
  static Json parse(const std::string& text, const ParseOptions& options);

 private:
  void dump_to(std::string& out, int indent, int depth) const;
  Kind kind_ = Kind::Null;
  bool b_ = false;
  double num_ = 0;
  long long int_ = 0;
  bool is_int_ = false;
  bool is_unsigned_ = false;  // int_ holds the bits of an unsigned 64-bit value
  std::string str_;           // a string's value; a parsed number's text
  std::shared_ptr<Array> arr_;
  std::shared_ptr<Object> obj_;
  int line_ = 0, column_ = 0;
  friend class JsonParser;
};

std::string json_escape(const std::string& s);

}  // namespace ptxcts
