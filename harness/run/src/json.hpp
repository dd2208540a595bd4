// A small JSON value with parse and dump: the run tier reads forms.jsonl, the module index and the worker's
// per-case result lines, and writes results.json. No third-party JSON library is available on the CI image.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptxcts::run {

class Json {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;  // keeps insertion order for stable output

  Json() = default;
  Json(std::nullptr_t) {}
  Json(bool b) : kind_(Kind::Bool), b_(b) {}
  Json(int v) : kind_(Kind::Number), num_(v), int_(v), is_int_(true) {}
  Json(long v) : kind_(Kind::Number), num_(double(v)), int_(v), is_int_(true) {}
  Json(long long v) : kind_(Kind::Number), num_(double(v)), int_(v), is_int_(true) {}
  Json(unsigned v) : kind_(Kind::Number), num_(v), int_(v), is_int_(true) {}
  Json(unsigned long v) : kind_(Kind::Number), num_(double(v)), int_((long long)v), is_int_(true) {}
  Json(unsigned long long v) : kind_(Kind::Number), num_(double(v)), int_((long long)v), is_int_(true) {}
  Json(double v) : kind_(Kind::Number), num_(v) {}
  Json(const char* s) : kind_(Kind::String), str_(s) {}
  Json(std::string s) : kind_(Kind::String), str_(std::move(s)) {}
  Json(Array a) : kind_(Kind::Array), arr_(std::make_shared<Array>(std::move(a))) {}
  Json(Object o) : kind_(Kind::Object), obj_(std::make_shared<Object>(std::move(o))) {}
  static Json array() { return Json(Array{}); }
  static Json object() { return Json(Object{}); }

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::Null; }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_number() const { return kind_ == Kind::Number; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_object() const { return kind_ == Kind::Object; }
  bool is_bool() const { return kind_ == Kind::Bool; }

  const std::string& str() const;
  double num() const;
  long long integer() const;
  bool boolean() const;
  const Array& arr() const;
  Array& arr();
  const Object& obj() const;

  // Object access: `get` returns nullptr when absent; operator[] on a non-const object inserts.
  const Json* get(const std::string& key) const;
  Json& operator[](const std::string& key);
  void push(Json v);
  size_t size() const;

  // Convenience: value of key as string/int with default when absent or of another kind.
  std::string get_str(const std::string& key, const std::string& def = "") const;
  long long get_int(const std::string& key, long long def = 0) const;

  std::string dump(int indent = -1) const;
  static Json parse(const std::string& text);  // throws std::runtime_error naming the offset

 private:
  void dump_to(std::string& out, int indent, int depth) const;
  Kind kind_ = Kind::Null;
  bool b_ = false;
  double num_ = 0;
  long long int_ = 0;
  bool is_int_ = false;
  std::string str_;
  std::shared_ptr<Array> arr_;
  std::shared_ptr<Object> obj_;
  friend class JsonParser;
};

std::string json_escape(const std::string& s);

}  // namespace ptxcts::run
