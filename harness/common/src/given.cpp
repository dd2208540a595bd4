// ptxcts/given.hpp: the checks of a path the user gives (harness/framework/given.py says the same in Python).
#include "ptxcts/given.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace ptxcts::given {
namespace {

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

std::string what_is(mode_t m) {
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISREG(m)) return "a file";
  return "not a file";
}

std::string parent(const std::string& p) {
  auto i = p.find_last_of('/');
  if (i == std::string::npos) return ".";
  return i == 0 ? "/" : p.substr(0, i);
}

// The longest leading part of p that exists (following links); is_dir says whether it is a folder.
std::string nearest_existing(const std::string& p, bool& is_dir) {
  std::string cur = p;
  struct stat st {};
  while (::lstat(cur.c_str(), &st) != 0 && cur != "/" && cur != ".") cur = parent(cur);
  is_dir = ::stat(cur.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  return cur;
}

// "" while the working folder exists; else why a relative path means nothing (ptxcts_gen.pathcheck.gone_cwd says
// the same in Python): the folder was removed under the command (stat(".") still answers, getcwd does not)
std::string gone_cwd() {
  char buf[4096];
  if (::getcwd(buf, sizeof buf) || errno != ENOENT) return "";
  // Linux names it still, with " (deleted)"; a shell's PWD may be gone (dash drops a stale one)
  ssize_t n = ::readlink("/proc/self/cwd", buf, sizeof buf - 1);
  std::string where = n > 0 ? std::string(buf, size_t(n)) : std::getenv("PWD") ? std::getenv("PWD") : "";
  if (where.size() > 10 && where.compare(where.size() - 10, 10, " (deleted)") == 0) where.resize(where.size() - 10);
  return std::string("the working folder") + (where.empty() ? std::string() : " " + where) +
         " no longer exists (removed under this command): a relative path names nothing; run it from a folder "
         "that exists, or give an absolute path";
}

}  // namespace

std::string problem(const std::string& value, Kind kind) {
  if (blank(value)) return "an empty name";
  if (value.find('\0') != std::string::npos) return "the name holds a NUL character";
  if (value[0] != '/')
    if (std::string gone = gone_cwd(); !gone.empty()) return gone;
  struct stat lst {}, st {};
  if (::lstat(value.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode) && ::stat(value.c_str(), &st) != 0) {
    char buf[4096];
    ssize_t n = ::readlink(value.c_str(), buf, sizeof buf - 1);
    return "a link that leads nowhere (-> '" + std::string(buf, n > 0 ? size_t(n) : 0) + "': missing, or a loop)";
  }
  if (::stat(value.c_str(), &st) != 0) {
    int err = errno;
    bool is_dir = false;
    std::string existing = nearest_existing(value, is_dir);
    if (err == ENOTDIR) return existing + " is a file, not a folder, so nothing can be under it";
    if (err != ENOENT) return std::strerror(err);
    if (kind == Kind::File) return "no such file";
    if (kind == Kind::Input) return "no such file or folder";
    if (kind == Kind::Folder) return "no such folder";
    if (kind == Kind::Resume)  // as ptxcts_gen.pathcheck.NO_RUN_THERE
      return "no such folder: no run was started there, or one stopped before it judged anything (it writes nothing "
             "until then); start the run afresh: the same command with --out in place of --resume";
    return is_dir ? "" : existing + " is not a folder, so nothing can be written under it";
  }
  const bool dir = S_ISDIR(st.st_mode);
  if (kind == Kind::Input && dir)
    return ::access(value.c_str(), R_OK | X_OK) == 0 ? "" : "a folder that cannot be read (permission denied)";
  if (kind == Kind::Folder || kind == Kind::NewFolder || kind == Kind::Resume) {
    if (!dir) return "is " + what_is(st.st_mode) + ", not a folder";
    if (kind != Kind::NewFolder && ::access(value.c_str(), R_OK | X_OK) != 0)
      return "a folder that cannot be read (permission denied)";
    return "";
  }
  if (!S_ISREG(st.st_mode)) return "is " + what_is(st.st_mode) + ", not a file";
  if ((kind == Kind::File || kind == Kind::Input) && ::access(value.c_str(), R_OK) != 0) return "a file that cannot be read (permission denied)";
  return "";
}

std::string path_problem(const std::string& how, const std::string& value, Kind kind) {
  std::string p = problem(value, kind);
  return p.empty() ? "" : how + value + ": " + p;
}

std::string env_problem(const char* var, Kind kind) {
  const char* raw = std::getenv(var);
  if (!raw) return "";
  std::string v = raw;
  if (blank(v))
    return std::string(var) + "='" + v + "' is set but empty; unset it for the default, or name a " +
           (kind == Kind::Folder || kind == Kind::NewFolder ? "folder" : "file");
  return path_problem(std::string(var) + "=", v, kind);
}

std::string output_over_input(const std::string& how, const std::string& out, const std::string& in) {
  struct stat o {}, i {};
  if (::stat(in.c_str(), &i) != 0) return "";
  const bool exists = ::stat(out.c_str(), &o) == 0;
  if (exists && o.st_dev == i.st_dev && o.st_ino == i.st_ino)
    return how + out + ": is the input " + in + "; writing there would replace what this command reads: choose "
           "another path";
  if (!S_ISDIR(i.st_mode)) return "";
  // a run document in the input folder or below it, by its own name (a folder above it is the input, through links)
  const auto slash = out.find_last_of('/');
  const std::string name = slash == std::string::npos ? out : out.substr(slash + 1);
  bool run_file = false;
  for (const char* f : kRunFiles) run_file = run_file || name == f;
  if (!run_file) return "";
  for (std::string up = parent(out);; up = parent(up)) {
    struct stat u {};
    if (::stat(up.c_str(), &u) == 0 && u.st_dev == i.st_dev && u.st_ino == i.st_ino)
      return how + out + ": is the input " + in + " (a run document in it); writing there would replace what this "
             "command reads: choose another path";
    if (up == "/" || up == ".") return "";
  }
}

}  // namespace ptxcts::given
