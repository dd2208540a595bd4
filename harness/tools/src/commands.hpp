// The ptxcts-ref commands. Each returns the process exit status.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace ptxcts::tools {

// Exit statuses of ptxcts-ref: 0 answered; 1 the model cannot answer (e.g. a tensor too large to fill);
// 2 usage (an unknown command or option, a bad --policy / --site value) -- and, for `tensor`, a tensor map the
// driver must reject (the answer, not an error; the message says which); 3 malformed input on stdin (a reduce line
// or the tensor JSON), the message naming the line and the field.
constexpr int kExitUsage = 2;
constexpr int kExitMalformed = 3;

// ptxcts-ref reduce [--policy NAME=VALUE]... [--site SITE] [--map-ftz]
int run_reduce(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);
// ptxcts-ref tensor [--policy NAME=VALUE]...
int run_tensor(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err);
// ptxcts-ref policies: the catalog, one policy per paragraph (no arguments).
int run_policies(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ptxcts::tools
