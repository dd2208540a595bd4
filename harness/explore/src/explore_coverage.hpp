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
  void add(const RunCase& c, const CaseResult& r);  // an executed case (not skipped)
  Json to_json() const;
  void restore(const Json& coverage);  // adds the hits of an earlier segment's explore.json "coverage"
  std::string svg(const std::string& title) const;

 private:
  void hit(const std::string& param, const std::string& bin);
  struct Param { std::vector<std::string> bins; std::map<std::string, size_t> hits; };
  Param& param(const std::string& name);
  std::vector<std::string> order_;
  std::map<std::string, Param> params_;
};

// The closing table of an exploration, from its explore.json document.
std::string summary_text(const Json& doc);

}  // namespace ptxcts::run
