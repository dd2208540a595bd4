// The error boundary of every C++ command (ptxcts-run, ptxcts-explore, ptxcts-litmus): an exception that no
// handler of the command expected is a bug of ptx-cts, not of the user's input. It ends as one line naming the
// command and the exception, and where to report it, with exit 70 -- never a std::terminate (docs/CLI.md,
// "Exit codes" and "Internal errors").
#pragma once
#include <cstdio>
#include <exception>   // the callers catch std::exception

namespace ptxcts {

constexpr int kExitInternal = 70;

inline int internal_error(const char* prog, const char* what) {
  std::fprintf(stderr,
               "%s: internal error: %s\n"
               "%s: this is a bug of ptx-cts, not of your input; please report it to the ptx-cts maintainers with "
               "the command line and this message (docs/CLI.md, 'Internal errors')\n",
               prog, what, prog);
  return kExitInternal;
}

}  // namespace ptxcts
