// The JSON value: typed access, object members, and writing (dump). Reading (Json::parse) is json_reader.cpp.
#include "ptxcts/json.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "json_escapes.hpp"

namespace ptxcts {

JsonError::JsonError(int line, int column, const std::string& reason)
    : std::runtime_error("line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + reason),
      line_(line),
      column_(column) {}

const char* Json::kind_name() const {
  switch (kind_) {
    case Kind::Null: return "null";
    case Kind::Bool: return "boolean";
    case Kind::Number: return "number";
    case Kind::String: return "string";
    case Kind::Array: return "array";
    case Kind::Object: return "object";
  }
  return "?";
}

const std::string& Json::str() const {
  if (kind_ != Kind::String) throw JsonError("json: value is not a string");
  return str_;
}
double Json::num() const {
  if (kind_ != Kind::Number) throw JsonError("json: value is not a number");
  return num_;
}
long long Json::integer() const {
  if (kind_ != Kind::Number) throw JsonError("json: value is not a number");
  return is_int_ ? int_ : (long long)num_;
}
std::string Json::number_text() const {
  if (kind_ != Kind::Number) throw JsonError("json: value is not a number");
  return str_.empty() ? dump() : str_;
}
bool Json::boolean() const {
  if (kind_ != Kind::Bool) throw JsonError("json: value is not a boolean");
  return b_;
}
const Json::Array& Json::arr() const {
  if (kind_ != Kind::Array) throw JsonError("json: value is not an array");
  return *arr_;
}
Json::Array& Json::arr() {
  if (kind_ != Kind::Array) throw JsonError("json: value is not an array");
  return *arr_;
}
const Json::Object& Json::obj() const {
  if (kind_ != Kind::Object) throw JsonError("json: value is not an object");
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
  if (kind_ != Kind::Object) throw JsonError("json: [\"" + key + "\"] on a non-object");
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
    if (const ShortEscape* e = short_escape_written_for(char(c))) {
      out += '\\';
      out += e->letter;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out;
}

namespace {

// Writes the members of an array or an object between `open` and `close`, comma-separated, each on a line of its
// own at depth + 1 when indenting (indent >= 0); write_member writes one member.
template <class Members, class WriteMember>
void dump_members(std::string& out, char open, char close, const Members& members, int indent, int depth,
                  WriteMember write_member) {
  auto newline = [&](int d) {
    if (indent < 0) return;
    out += '\n';
    out.append(size_t(indent * d), ' ');
  };
  out += open;
  for (size_t i = 0; i < members.size(); ++i) {
    if (i) out += ',';
    newline(depth + 1);
    write_member(members[i]);
  }
  if (!members.empty()) newline(depth);
  out += close;
}

}  // namespace

void Json::dump_to(std::string& out, int indent, int depth) const {
  switch (kind_) {
    case Kind::Null: out += "null"; break;
    case Kind::Bool: out += b_ ? "true" : "false"; break;
    case Kind::Number: {
      if (is_int_) {
        out += is_unsigned_ ? std::to_string((unsigned long long)int_) : std::to_string(int_);
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
    case Kind::Array:
      dump_members(out, '[', ']', *arr_, indent, depth, [&](const Json& v) { v.dump_to(out, indent, depth + 1); });
      break;
    case Kind::Object:
      dump_members(out, '{', '}', *obj_, indent, depth, [&](const std::pair<std::string, Json>& kv) {
        out += '"';
        out += json_escape(kv.first);
        out += indent < 0 ? "\":" : "\": ";
        kv.second.dump_to(out, indent, depth + 1);
      });
      break;
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  dump_to(out, indent, 0);
  return out;
}


}  // namespace ptxcts
