#include "ptxcts/options.hpp"

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
  if (inline_) return inline_value_;
  if (next_ >= args_.size()) throw UsageError(name_ + " needs a value");
  last_ = next_++;
  return args_[last_];
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
