// The error boundary of every C++ command (ptxcts-run, ptxcts-explore, ptxcts-litmus): an exception that no
// handler of the command expected is a bug of ptx-cts, not of the user's input. It ends as one line naming the
// command and the exception, and where to report it, with exit 70 -- never a std::terminate (docs/CLI.md,
// "Exit codes" and "Internal errors").
#pragma once
#include <cstdio>
#include <exception>

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

// A command's main inside the boundary: what main_fn(argc, argv) returns, or internal_error's line and exit 70 for
// an exception it let through.
template <class Main>
int guarded_main(const char* prog, Main main_fn, int argc, char** argv) {
  try {
    return main_fn(argc, argv);
  } catch (const std::exception& e) {
    return internal_error(prog, e.what());
  } catch (...) {
    return internal_error(prog, "an exception of unknown type");
  }
}

}  // namespace ptxcts
