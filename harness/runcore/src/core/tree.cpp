#include "tree.hpp"

#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "util.hpp"

namespace ptxcts::run {

namespace {

std::string real(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : p;
}
std::string parent(const std::string& p) {
  auto k = p.rfind('/');
  return k == std::string::npos || k == 0 ? "/" : p.substr(0, k);
}

// Where this binary's tree is, found at run time (nothing absolute is compiled in): the build folder is the one
// the executable lives in (<build>/harness/run/<exe>), and its stamp (written by the top-level CMakeLists.txt at
// configure time) names the build folder and the source tree it was configured as.
struct Tree {
  std::string exe_build, stamp, recorded_build, recorded_source, error;
};

const Tree& tree() {
  static const Tree t = [] {
    Tree x;
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    std::string exe = n > 0 ? std::string(buf, size_t(n)) : std::string();
    x.exe_build = parent(parent(parent(exe)));
    x.stamp = x.exe_build + "/ptxcts-build.txt";
    std::string text;
    try {
      text = read_file(x.stamp);
    } catch (const std::exception&) {
      x.error = "cannot read " + x.stamp + ": " + exe + " is not inside a configured ptx-cts build folder "
                "(expected <build>/harness/run/); configure one with ./ptxcts build";
      return x;
    }
    for (auto& line : split(text, '\n')) {
      if (line.rfind("build=", 0) == 0) x.recorded_build = line.substr(6);
      if (line.rfind("source=", 0) == 0) x.recorded_source = line.substr(7);
    }
    if (x.recorded_build.empty() || x.recorded_source.empty()) x.error = x.stamp + ": malformed (needs build= and source= lines)";
    return x;
  }();
  return t;
}

}  // namespace

std::string check_tree() {
  const Tree& t = tree();
  if (!t.error.empty()) return t.error;
  if (real(t.exe_build) != real(t.recorded_build))
    return "the build folder " + t.exe_build + " was configured as " + t.recorded_build + " (from the source tree " +
           t.recorded_source + ") and has since been copied or moved: it would read and write that other tree. "
           "Configure it afresh: cmake -S <this checkout> -B " + t.exe_build + " (or ./ptxcts build after removing it)";
  std::string eb = env("PTXCTS_BUILD");
  if (!eb.empty() && real(eb) != real(t.exe_build))
    return "PTXCTS_BUILD=" + eb + " is not the build folder this binary belongs to (" + t.exe_build +
           "): unset it or run the binary of that build folder";
  std::string er = env("PTXCTS_ROOT");
  if (!er.empty() && real(er) != real(t.recorded_source))
    return "PTXCTS_ROOT=" + er + " is not the source tree the build folder " + t.exe_build + " was configured from (" +
           t.recorded_source + "): use that tree's ./ptxcts, or configure a build folder for this one";
  return "";
}

std::string ptxcts_root() {
  std::string e = env("PTXCTS_ROOT");
  return e.empty() ? tree().recorded_source : e;
}
std::string build_root() {
  std::string e = env("PTXCTS_BUILD");
  return e.empty() ? tree().exe_build : e;
}

}  // namespace ptxcts::run
