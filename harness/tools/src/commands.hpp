// The ptxcts-ref commands. Each returns the process exit status.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace ptxcts::tools {

// ptxcts-ref reduce [--policy NAME=VALUE]... [--site SITE] [--map-ftz]
int run_reduce(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);
// ptxcts-ref tensor [--policy NAME=VALUE]...
int run_tensor(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);
// ptxcts-ref policies: the catalog, one policy per paragraph.
int run_policies(std::ostream& out);

}  // namespace ptxcts::tools
