#include "json.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ptxcts::run {

const std::string& Json::str() const {
  if (kind_ != Kind::String) throw std::runtime_error("json: value is not a string");
  return str_;
}
double Json::num() const {
  if (kind_ != Kind::Number) throw std::runtime_error("json: value is not a number");
  return num_;
}
long long Json::integer() const {
  if (kind_ != Kind::Number) throw std::runtime_error("json: value is not a number");
  return is_int_ ? int_ : (long long)num_;
}
bool Json::boolean() const {
  if (kind_ != Kind::Bool) throw std::runtime_error("json: value is not a boolean");
  return b_;
}
const Json::Array& Json::arr() const {
  if (kind_ != Kind::Array) throw std::runtime_error("json: value is not an array");
  return *arr_;
}
Json::Array& Json::arr() {
  if (kind_ != Kind::Array) throw std::runtime_error("json: value is not an array");
  return *arr_;
}
const Json::Object& Json::obj() const {
  if (kind_ != Kind::Object) throw std::runtime_error("json: value is not an object");
  return *obj_;
}
const Json* Json::get(const std::string& key) const {
  if (kind_ != Kind::Object) return nullptr;
  for (auto& kv : *obj_)
    if (kv.first == key) return &kv.second;
  return nullptr;
}
Json& Json::operator[](const std::string& key) {
  if (kind_ == Kind::Null) { kind_ = Kind::Object; obj_ = std::make_shared<Object>(); }
  if (kind_ != Kind::Object) throw std::runtime_error("json: [\"" + key + "\"] on a non-object");
  for (auto& kv : *obj_)
    if (kv.first == key) return kv.second;
  obj_->emplace_back(key, Json());
  return obj_->back().second;
}
void Json::push(Json v) {
  if (kind_ == Kind::Null) { kind_ = Kind::Array; arr_ = std::make_shared<Array>(); }
  arr().push_back(std::move(v));
}
size_t Json::size() const {
  if (kind_ == Kind::Array) return arr_->size();
  if (kind_ == Kind::Object) return obj_->size();
  return 0;
}
std::string Json::get_str(const std::string& key, const std::string& def) const {
  const Json* v = get(key);
  if (!v) return def;
  if (v->is_string()) return v->str_;
  if (v->is_number()) return v->dump();
  if (v->is_bool()) return v->b_ ? "true" : "false";
  return def;
}
long long Json::get_int(const std::string& key, long long def) const {
  const Json* v = get(key);
  if (!v) return def;
  if (v->is_number()) return v->integer();
  if (v->is_string()) {
    char* end = nullptr;
    long long x = std::strtoll(v->str_.c_str(), &end, 0);
    if (end && *end == 0 && !v->str_.empty()) return x;
  }
  if (v->is_bool()) return v->b_ ? 1 : 0;
  return def;
}

std::string json_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  return out;
}

void Json::dump_to(std::string& out, int indent, int depth) const {
  auto nl = [&](int d) {
    if (indent < 0) return;
    out += '\n';
    out.append(size_t(indent * d), ' ');
  };
  switch (kind_) {
    case Kind::Null: out += "null"; break;
    case Kind::Bool: out += b_ ? "true" : "false"; break;
    case Kind::Number: {
      if (is_int_) {
        out += std::to_string(int_);
      } else if (!std::isfinite(num_)) {
        out += "null";
      } else {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6g", num_);
        out += buf;
      }
      break;
    }
    case Kind::String: out += '"'; out += json_escape(str_); out += '"'; break;
    case Kind::Array: {
      out += '[';
      bool first = true;
      for (auto& v : *arr_) {
        if (!first) out += ',';
        first = false;
        nl(depth + 1);
        v.dump_to(out, indent, depth + 1);
      }
      if (!arr_->empty()) nl(depth);
      out += ']';
      break;
    }
    case Kind::Object: {
      out += '{';
      bool first = true;
      for (auto& kv : *obj_) {
        if (!first) out += ',';
        first = false;
        nl(depth + 1);
        out += '"';
        out += json_escape(kv.first);
        out += indent < 0 ? "\":" : "\": ";
        kv.second.dump_to(out, indent, depth + 1);
      }
      if (!obj_->empty()) nl(depth);
      out += '}';
      break;
    }
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  dump_to(out, indent, 0);
  return out;
}

class JsonParser {
 public:
  explicit JsonParser(const std::string& t) : t_(t) {}
  Json parse_all() {
    Json v = value();
    ws();
    if (i_ != t_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("json: " + what + " at offset " + std::to_string(i_));
  }
  void ws() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t')) ++i_;
  }
  bool lit(const char* s) {
    size_t n = std::char_traits<char>::length(s);
    if (t_.compare(i_, n, s) == 0) { i_ += n; return true; }
    return false;
  }
  Json value() {
    ws();
    if (i_ >= t_.size()) fail("unexpected end");
    char c = t_[i_];
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') return Json(string());
    if (lit("true")) return Json(true);
    if (lit("false")) return Json(false);
    if (lit("null")) return Json();
    return number();
  }
  Json number() {
    size_t start = i_;
    bool is_float = false;
    if (t_[i_] == '-') ++i_;
    while (i_ < t_.size() && (isdigit((unsigned char)t_[i_]) || t_[i_] == '.' || t_[i_] == 'e' || t_[i_] == 'E' ||
                              t_[i_] == '+' || t_[i_] == '-')) {
      if (!isdigit((unsigned char)t_[i_])) is_float = true;
      ++i_;
    }
    std::string s = t_.substr(start, i_ - start);
    if (s.empty() || s == "-") fail("bad value");
    if (!is_float) {
      Json j(std::strtoll(s.c_str(), nullptr, 10));
      return j;
    }
    return Json(std::strtod(s.c_str(), nullptr));
  }
  std::string string() {
    ++i_;  // opening quote
    std::string out;
    while (true) {
      if (i_ >= t_.size()) fail("unterminated string");
      char c = t_[i_++];
      if (c == '"') break;
      if (c != '\\') { out += c; continue; }
      if (i_ >= t_.size()) fail("bad escape");
      char e = t_[i_++];
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
          if (i_ + 4 > t_.size()) fail("bad \\u escape");
          unsigned cp = std::stoul(t_.substr(i_, 4), nullptr, 16);
          i_ += 4;
          if (cp >= 0xD800 && cp < 0xDC00 && i_ + 6 <= t_.size() && t_[i_] == '\\' && t_[i_ + 1] == 'u') {
            unsigned lo = std::stoul(t_.substr(i_ + 2, 4), nullptr, 16);
            i_ += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          if (cp < 0x80) out += char(cp);
          else if (cp < 0x800) { out += char(0xC0 | (cp >> 6)); out += char(0x80 | (cp & 0x3F)); }
          else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12)); out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F));
          } else {
            out += char(0xF0 | (cp >> 18)); out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F));
          }
          break;
        }
        default: fail("bad escape");
      }
    }
    return out;
  }
  Json array() {
    ++i_;
    Json a = Json::array();
    ws();
    if (i_ < t_.size() && t_[i_] == ']') { ++i_; return a; }
    while (true) {
      a.push(value());
      ws();
      if (i_ >= t_.size()) fail("unterminated array");
      if (t_[i_] == ',') { ++i_; continue; }
      if (t_[i_] == ']') { ++i_; return a; }
      fail("expected ',' or ']'");
    }
  }
  Json object() {
    ++i_;
    Json o = Json::object();
    ws();
    if (i_ < t_.size() && t_[i_] == '}') { ++i_; return o; }
    while (true) {
      ws();
      if (i_ >= t_.size() || t_[i_] != '"') fail("expected a key");
      std::string k = string();
      ws();
      if (i_ >= t_.size() || t_[i_] != ':') fail("expected ':'");
      ++i_;
      o.obj_->emplace_back(std::move(k), value());
      ws();
      if (i_ >= t_.size()) fail("unterminated object");
      if (t_[i_] == ',') { ++i_; continue; }
      if (t_[i_] == '}') { ++i_; return o; }
      fail("expected ',' or '}'");
    }
  }
  const std::string& t_;
  size_t i_ = 0;
};

Json Json::parse(const std::string& text) { return JsonParser(text).parse_all(); }

}  // namespace ptxcts::run
