// What an exploration reached: for every parameter the chapter and the driver API name, its value bins and how
// many executed cases fell in each (explore.json "coverage"), drawn as a picture (coverage.svg), and the closing
// summary table of the tier.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "case.hpp"

namespace ptxcts::run {

class Coverage {
 public:
  void set_forms(const std::vector<const Form*>& forms);
  // A bin no case can reach, with the reason (a form no case of the run tier runs, an encode rule the driver
  // API cannot be asked to break): listed in to_json's "unreachable", left out of "reachable".
  void set_unreachable(const std::string& param, const std::string& bin, const std::string& reason);
  void add(const RunCase& c);  // a case drawn or executed (not skipped)
  Json to_json() const;
  // The bins of a parameter (none: a parameter not binned) and the cases that fell in one.
  const std::vector<std::string>& bins(const std::string& param) const;
  size_t hits(const std::string& param, const std::string& bin) const;
  bool unreachable(const std::string& param, const std::string& bin) const;
  // Reached and reachable bins of a parameter (reachable: every bin but the unreachable ones).
  std::pair<size_t, size_t> reached(const std::string& param) const;
  void restore(const Json& coverage);  // adds the hits of an earlier segment's explore.json "coverage"
  std::string svg(const std::string& title) const;

 private:
  void hit(const std::string& param, const std::string& bin);
  struct Param {
    std::vector<std::string> bins;
    std::map<std::string, size_t> hits;
    std::map<std::string, std::string> unreachable;  // bin -> why no case reaches it
  };
  Param& param(const std::string& name);
  std::vector<std::string> order_;
  std::map<std::string, Param> params_;
};

// The value range of a power-of-two bin ("1", "3-4", "17-32"): {lo, hi}; {0, 0} for a name that is not one.
std::pair<uint64_t, uint64_t> bin_range(const std::string& bin);

// The coverage table (explore.json's "coverage"): reached / reachable per parameter, then what is unreachable
// and why.
std::string coverage_text(const Json& coverage);

// The closing table of an exploration, from its explore.json document.
std::string summary_text(const Json& doc);

}  // namespace ptxcts::run
