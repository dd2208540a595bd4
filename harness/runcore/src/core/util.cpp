#include "util.hpp"

#include "ptxcts/given.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ptxcts::run {

volatile sig_atomic_t g_stop_requested = 0;

namespace {
void on_stop_signal(int sig) {
  if (g_stop_requested) return;   // already stopping (and the group's own copy of the first one)
  g_stop_requested = sig;
  if (getpgrp() == getpid()) kill(0, sig);
}
}  // namespace

void stop_on_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

int stopped_or(const char* tier, int rc) {
  if (!g_stop_requested) return rc;
  std::fprintf(stderr, "%s: %s before any case was judged: nothing written; the same command starts it afresh\n",
               tier, stop_reason().c_str());
  return 128 + int(g_stop_requested);
}

int exit_after_stop(int rc) {
  if (int s = g_stop_requested; s && rc < 128) return 128 + s;
  return rc;
}

std::string stop_reason() {
  int s = g_stop_requested;
  return std::string("interrupted by ") + (s == SIGINT ? "SIGINT" : s == SIGTERM ? "SIGTERM" : "a signal");
}

uint64_t fnv1a(const std::string& s, uint64_t h) {
  for (unsigned char c : s) { h ^= c; h *= 0x100000001b3ull; }
  return h;
}
uint64_t case_seed(uint64_t run_seed, const std::string& case_id) {
  Rng r(fnv1a(case_id) ^ (run_seed * 0x9E3779B97F4A7C15ull));
  return r.next();
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
bool write_file(const std::string& path, const std::string& data) {
  // Atomic: a reader (or a run cut off half-way) sees the old file or the new one, never a torn one.
  std::string tmp = path + ".tmp" + std::to_string(getpid());
  // On failure errno says why (ENOSPC, EFBIG past a file-size limit, EROFS, ...), whatever the clean-up did to it.
  auto failed = [&](int fd) {
    int why = errno ? errno : EIO;
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    errno = why;
    return false;
  };
  errno = 0;
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return failed(-1);
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return failed(fd);
    off += size_t(n);
  }
  if (::fsync(fd) != 0) return failed(fd);
  if (::close(fd) != 0) return failed(-1);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return failed(-1);
  return true;
}
bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}
bool make_dirs(const std::string& path) {
  std::string cur;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!cur.empty() && ::mkdir(cur.c_str(), 0777) != 0 && errno != EEXIST) return false;
    }
    if (i < path.size()) cur += path[i];
  }
  return true;
}
std::string hex(uint64_t v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llx", width, (unsigned long long)v);
  return buf;
}
std::string hex_bytes(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) { s += d[p[i] >> 4]; s += d[p[i] & 15]; }
  return s;
}
std::string now_iso() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}
std::string finished_iso(const std::string& started, double seconds) {
  std::string now = now_iso();
  std::tm tm{};
  // started: now_iso's format (a resumed run's own); anything else is left to the wall clock
  if (now >= started || !strptime(started.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm)) return now;
  std::time_t t = timegm(&tm) + std::time_t(seconds > 0 ? seconds : 0);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}
std::string now_stamp() {
  using namespace std::chrono;
  auto ms = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  std::time_t t = std::time_t(ms / 1000);
  char buf[48];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H-%M-%S", std::gmtime(&t));
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", int(ms % 1000));
  return buf;
}
double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}
std::string env(const char* name, const std::string& def) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : def;
}
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) { out.push_back(cur); cur.clear(); } else { cur += c; }
  }
  out.push_back(cur);
  return out;
}
std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-') out += c;
    else if (c == '/') out += "__";
    else if (c == '#') out += "--";
    else out += '_';
  }
  return out;
}

[[noreturn]] void exec_or_exit(const std::vector<std::string>& argv, const char* what) {
  std::vector<char*> a;
  for (auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  execvp(a[0], a.data());
  std::fprintf(stderr, "cannot execute %s%s: %s\n", what, a[0], std::strerror(errno));
  _exit(127);
}

namespace {

// Forks a child that runs argv with its stdout on out_fd and its stderr on err_fd; the child closes the
// descriptors of `pipes` (both ends of each) first. The child's pid, or -1.
pid_t spawn(const std::vector<std::string>& argv, int out_fd, int err_fd, const std::vector<int>& pipes,
            bool shielded = false) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  if (shielded) {   // SIG_IGN survives exec
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
  }
  dup2(out_fd, 1);
  dup2(err_fd, 2);
  for (int fd : pipes) close(fd);
  exec_or_exit(argv, "");
}

// The child's exit status; 128 + the signal that ended it.
int exit_status(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

}  // namespace

int run_process(const std::vector<std::string>& argv, std::string* out, bool shielded) {
  // Close-on-exec: a worker the batch executor starts meanwhile (another thread, Schedule) must not hold this
  // pipe's write end, or the read below waits for that worker's end.
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  pid_t pid = spawn(argv, fds[1], fds[1], {fds[0], fds[1]}, shielded);
  if (pid < 0) return -1;
  close(fds[1]);
  char buf[4096];
  ssize_t n;
  // read to the end, through signals: a pipe closed early would end the child by SIGPIPE
  while ((n = read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0 && out) out->append(buf, size_t(n));
  close(fds[0]);
  return exit_status(pid);
}

int run_capture(const std::vector<std::string>& argv, std::string* out, std::string* err) {
  int po[2], pe[2];
  if (pipe2(po, O_CLOEXEC) != 0) return -1;
  if (pipe2(pe, O_CLOEXEC) != 0) { close(po[0]); close(po[1]); return -1; }
  pid_t pid = spawn(argv, po[1], pe[1], {po[0], po[1], pe[0], pe[1]});
  if (pid < 0) return -1;
  close(po[1]);
  close(pe[1]);
  // Both pipes drained together, so a chatty stderr cannot block the child.
  std::string* dst[2] = {out, err};
  int fds[2] = {po[0], pe[0]};
  bool open_[2] = {true, true};
  char buf[4096];
  while (open_[0] || open_[1]) {
    fd_set rs;
    FD_ZERO(&rs);
    int mx = -1;
    for (int k = 0; k < 2; ++k) if (open_[k]) { FD_SET(fds[k], &rs); mx = std::max(mx, fds[k]); }
    if (select(mx + 1, &rs, nullptr, nullptr, nullptr) < 0) { if (errno == EINTR) continue; break; }
    for (int k = 0; k < 2; ++k) {
      if (!open_[k] || !FD_ISSET(fds[k], &rs)) continue;
      ssize_t n = read(fds[k], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;   // a signal: read again (a pipe closed early ends the child)
      if (n <= 0) { open_[k] = false; continue; }
      if (dst[k]) dst[k]->append(buf, size_t(n));
    }
  }
  close(po[0]);
  close(pe[0]);
  return exit_status(pid);
}

std::string held_run(const std::string& dir) {
  for (const char* held : ptxcts::given::kRunFiles)
    if (file_exists(dir + "/" + held)) return held;
  return "";
}

std::string FolderLock::acquire(const std::string& dir, bool new_run) {
  if (!make_dirs(dir)) return "--out " + dir + ": cannot create the folder: " + std::strerror(errno);
  path_ = dir + "/" + kLockName;
  for (;;) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return "--out " + dir + ": cannot open " + path_ + ": " + std::strerror(errno);
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      std::string holder;
      char buf[64] = {0};
      if (pread(fd_, buf, sizeof buf - 1, 0) > 0) holder = buf;
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
      ::close(fd_);
      fd_ = -1;
      return "--out " + dir + ": another run (pid " + (holder.empty() ? std::string("unknown") : holder) +
             ") is writing into this folder (" + path_ + " is locked); wait for it or choose another --out";
    }
    // The holder before us may have removed the file between our open and our lock: lock the file at the path now.
    struct stat mine {}, there {};
    if (fstat(fd_, &mine) == 0 && ::stat(path_.c_str(), &there) == 0 && mine.st_ino == there.st_ino) break;
    ::close(fd_);
    fd_ = -1;
  }
  std::string me = std::to_string(getpid()) + "\n";
  // A folder that cannot take these few bytes (a full disk) cannot take the results either: say so now, before
  // the run, not when its results are written.
  if (ftruncate(fd_, 0) != 0 || pwrite(fd_, me.data(), me.size(), 0) != ssize_t(me.size())) {
    std::string why = std::strerror(errno);
    release();
    return "--out " + dir + ": cannot write " + path_ + ": " + why;
  }
  if (new_run) {
    if (std::string held = held_run(dir); !held.empty()) {
      release();
      return "--out " + dir + ": already holds a run (" + held + "), written by another run since this one started; "
             "choose another folder";
    }
  }
  return "";
}

void FolderLock::release() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

std::string first_unknown(const std::vector<std::string>& asked, const std::vector<std::string>& known,
                          std::string* listed) {
  for (auto& a : asked)
    if (std::find(known.begin(), known.end(), a) == known.end()) {
      listed->clear();
      for (auto& k : known) *listed += (listed->empty() ? "" : ", ") + k;
      return a;
    }
  return "";
}

}  // namespace ptxcts::run
