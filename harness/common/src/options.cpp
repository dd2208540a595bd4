#include "ptxcts/options.hpp"

#include <cctype>
#include <cstdio>

namespace ptxcts {

namespace {

// "--seed=1" -> ("--seed", "1"); only a long option (--NAME) is split, at its first '='.
bool split(const std::string& a, std::string* name, std::string* value) {
  size_t eq = a.find('=');
  if (a.size() < 3 || a.compare(0, 2, "--") != 0 || eq == std::string::npos || eq == 2) return false;
  *name = a.substr(0, eq);
  *value = a.substr(eq + 1);
  return true;
}

// The offset of the first byte of v that is not part of well-formed UTF-8, or npos.
size_t not_utf8(const std::string& v) {
  for (size_t i = 0; i < v.size();) {
    const unsigned char c = (unsigned char)v[i];
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 && c >= 0xC2 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E && c <= 0xF4 ? 4 : 0;
    if (n == 0 || i + n > v.size()) return i;
    for (size_t k = 1; k < n; ++k)
      if (((unsigned char)v[i + k] >> 6) != 0x2) return i;
    const unsigned char d = (unsigned char)v[i + 1 < v.size() ? i + 1 : i];
    if ((c == 0xE0 && d < 0xA0) || (c == 0xED && d > 0x9F) || (c == 0xF0 && d < 0x90) || (c == 0xF4 && d > 0x8F))
      return i;   // overlong, a UTF-16 surrogate, or past U+10FFFF
    i += n;
  }
  return std::string::npos;
}

// "-3", "-0.5": a negative number is a value; any other argument that starts with '-' is an option.
bool negative_number(const std::string& a) {
  return a.size() > 1 && a[0] == '-' && (std::isdigit((unsigned char)a[1]) || a[1] == '.');
}

}  // namespace

bool OptionReader::next() {
  if (inline_ && !taken_)
    throw UsageError(name_ + " takes no value (given '" + args_[first_] + "')");
  if (next_ >= args_.size()) return false;
  first_ = last_ = next_++;
  taken_ = false;
  inline_ = split(args_[first_], &name_, &inline_value_);
  if (!inline_) name_ = args_[first_];
  return true;
}

std::string OptionReader::take() {
  taken_ = true;
  if (!inline_) {
    if (next_ >= args_.size()) throw UsageError(name_ + " needs a value");
    const std::string& a = args_[next_];
    // as argparse: `--out --device model` must not make a folder named --device (a value that starts with '-' is
    // given as --out=-x)
    if (a.size() > 1 && a[0] == '-' && !negative_number(a))
      throw UsageError(name_ + " needs a value, and the next argument '" + a + "' is an option (a value that starts "
                       "with '-' is given as " + name_ + "=" + a + ")");
    last_ = next_++;
  }
  const std::string& v = inline_ ? inline_value_ : args_[last_];
  // every value ends up in a document or a message, which are UTF-8 text (the Python verbs' parser says the same)
  if (size_t at = not_utf8(v); at != std::string::npos) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", (unsigned char)v[at]);
    throw UsageError(name_ + " '" + v.substr(0, at) + "...': not UTF-8 text (byte " + hex + " at offset " +
                     std::to_string(at) + ")");
  }
  return v;
}

std::string OptionReader::value() {
  std::string v = take();
  auto [it, fresh] = given_.emplace(name_, v);
  if (!fresh && it->second != v)
    throw UsageError(name_ + " given twice with different values: '" + it->second + "' and '" + v + "'");
  return v;
}

std::string OptionReader::each() {
  std::string v = take();
  if (!each_given_.insert({name_, v}).second)   // as the Python verbs' parser: each value of a list once
    throw UsageError(name_ + " " + v + ": given twice (each value once)");
  return v;
}

bool find_option(const std::vector<std::string>& args, const std::string& name, std::string* value) {
  bool found = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string n, v;
    if (split(args[i], &n, &v) && n == name) {
      *value = v;
      found = true;
    } else if (args[i] == name) {   // the last argument: found, with no value (the reader then says so)
      *value = i + 1 < args.size() ? args[++i] : std::string();
      found = true;
    }
  }
  return found;
}

}  // namespace ptxcts
