// The error boundary of every C++ command (ptxcts-run, ptxcts-explore, ptxcts-litmus): an exception that no
// handler of the command expected is a bug of ptx-cts, not of the user's input. It ends as one line naming the
// command and the exception, and where to report it, with exit 70 -- never a std::terminate (docs/CLI.md,
// "Exit codes" and "Internal errors").
#pragma once
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>

#include <unistd.h>

namespace ptxcts {

constexpr int kExitUsage = 2;
constexpr int kExitInternal = 70;

inline int internal_error(const char* prog, const char* what) {
  std::fprintf(stderr,
               "%s: internal error: %s\n"
               "%s: this is a bug of ptx-cts, not of your input; please report it to the ptx-cts maintainers with "
               "the command line and this message (docs/CLI.md, 'Internal errors')\n",
               prog, what, prog);
  return kExitInternal;
}

// What the command printed on standard output, flushed: a full disk (`> /dev/full`) or a closed descriptor (`>&-`)
// loses the listing, so it is a usage error (exit 2) naming standard output, never an exit 0 that printed nothing.
// A reader that went away (`| head -1`) is no error: the command ends as it would have.
inline int flushed(const char* prog, int rc) {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return rc;
  if (errno == 0 && ::write(STDOUT_FILENO, "\n", 1) < 0) {}   // an earlier write failed: ask the descriptor why
  if (errno == EPIPE) return rc;
  std::fprintf(stderr, "%s: standard output: %s (what this command printed there is lost)\n", prog,
               errno ? std::strerror(errno) : "a write failed");
  return rc == 0 || rc == 1 ? kExitUsage : rc;
}

// A command's main inside the boundary: what main_fn(argc, argv) returns, or internal_error's line and exit 70 for
// an exception it let through. A file-size limit (`ulimit -f`) makes a write past it fail with EFBIG, which the
// writers report naming the file, instead of SIGXFSZ ending the command with nothing said. Standard output is
// flushed and checked before the exit (flushed).
template <class Main>
int guarded_main(const char* prog, Main main_fn, int argc, char** argv) {
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    return flushed(prog, main_fn(argc, argv));
  } catch (const std::exception& e) {
    return internal_error(prog, e.what());
  } catch (...) {
    return internal_error(prog, "an exception of unknown type");
  }
}

}  // namespace ptxcts
