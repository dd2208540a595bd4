// A C++ command's options read one at a time (ptxcts-run, its --rejudge, ptxcts-explore, ptxcts-litmus), spelled
// as the Python verbs' argparse takes them: `--seed 1` and `--seed=1` alike. Every misuse of the spelling is a
// usage error (UsageError: exit 2) that names the option:
//   `--seed` last, with no value                     --seed needs a value
//   `--quiet=1`, a value given to an option of none   --quiet takes no value (given '--quiet=1')
//   `--seed 1 --seed=2`, a single value given twice   --seed given twice with different values: '1' and '2'
//   `--case a --case a`, a repeatable one's value twice   --case a: given twice (each value once)
//   `--out --device`, a value that is another option  --out needs a value, and the next argument ... is an option
//                                                    (a value that starts with '-', not a number: `--out=-x`)
//   a value that is not UTF-8 text                   --device-name 'gpu...': not UTF-8 text (byte 0xFF at offset 3)
// What the value must be is the command's own check.
#pragma once
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ptxcts {

// A bad option, argument or environment variable: the command ends with its message and exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class OptionReader {
 public:
  explicit OptionReader(std::vector<std::string> args) : args_(std::move(args)) {}

  // To the next option; false after the last. The option before it, given a value with '=', must have taken it
  // (value() or each()), else it takes none: UsageError.
  bool next();
  // The option's name: "--seed" of "--seed=1" and of "--seed"; any other argument as it is.
  const std::string& name() const { return name_; }
  // The option's argument as it was given ("--seed=1"): what a message about an unknown option names.
  const std::string& given() const { return args_[first_]; }
  // Its value: what follows '=', else the next argument. A single-valued option: given again with another value,
  // refused naming both (the same value again is no conflict).
  std::string value();
  // A repeatable option's value (--family A --family B): each one kept by the caller; the same value twice is
  // refused.
  std::string each();
  // The arguments the current option spans: its own, and its value when that is the next one.
  size_t first() const { return first_; }
  size_t last() const { return last_; }

 private:
  std::string take();

  std::vector<std::string> args_;
  size_t next_ = 0, first_ = 0, last_ = 0;
  std::string name_;
  bool inline_ = false, taken_ = false;   // the value came with '='; value() or each() took it
  std::string inline_value_;
  std::map<std::string, std::string> given_;   // single-valued option -> its first value
  std::set<std::pair<std::string, std::string>> each_given_;   // repeatable option and each value it was given
};

// The value of the option `name` in args, either spelling, the last one given ("" when it is the last argument,
// with no value); false when it is not there. For an option a command must know before it reads the others
// (--resume, --rejudge).
bool find_option(const std::vector<std::string>& args, const std::string& name, std::string* value);

}  // namespace ptxcts
