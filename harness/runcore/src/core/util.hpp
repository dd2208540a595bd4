// Small helpers shared by the run tier: seeded PRNG, hashing, file and process utilities.
#pragma once
#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

namespace ptxcts::run {

// splitmix64: the run tier's PRNG. Every case derives its own stream from (run seed, case ID), so one case
// replays alone with the same bytes it had inside the full run.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  void fill(uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; i += 8) {
      uint64_t v = next();
      for (size_t k = 0; k < 8 && i + k < n; ++k) p[i + k] = uint8_t(v >> (8 * k));
    }
  }
};

uint64_t fnv1a(const std::string& s, uint64_t h = 0xcbf29ce484222325ull);
uint64_t case_seed(uint64_t run_seed, const std::string& case_id);

std::string read_file(const std::string& path);             // throws naming the path
bool write_file(const std::string& path, const std::string& data);
bool file_exists(const std::string& path);
bool make_dirs(const std::string& path);
std::string hex(uint64_t v, int width = 0);
std::string hex_bytes(const uint8_t* p, size_t n);
std::string now_iso();
// A run's finish time for its document: now_iso(), unless the wall clock was set back below `started` (an NTP
// step, a restored VM) while the run went on: then started plus the run's `seconds` (steady clock). A clock jump
// never leaves a document that finishes before it starts, which every reader refuses (the schema).
std::string finished_iso(const std::string& started, double seconds);
std::string now_stamp();  // 2026-11-22T18-30-00.123Z (milliseconds: two runs a second apart never share a stamp)
double now_s();           // monotonic seconds
std::string env(const char* name, const std::string& def = "");
std::vector<std::string> split(const std::string& s, char sep);
// The first name of `asked` not in `known` ("" when all are), with `known` as "a, b, c" in *listed.
std::string first_unknown(const std::vector<std::string>& asked, const std::vector<std::string>& known,
                          std::string* listed);
std::string sanitize(const std::string& s);  // a file-name-safe rendering of a case ID

// Set from a signal handler (SIGTERM/SIGINT) to the signal's number: whatever runs long (module preparation, the
// batch executor, exploration) stops at once and reports what is left as interrupted.
extern volatile sig_atomic_t g_stop_requested;
// Installs the handler of SIGINT and SIGTERM that sets g_stop_requested, as the first thing a tier does (a signal
// during start-up ends the run as interrupted, never by the default action). Only the first signal counts; a
// process that leads its group (as ./ptxcts starts a tier) passes it on to the group once, so that a signal sent
// to the tier alone, or the parent-death signal ./ptxcts sets, stops every process of the run (docs/CLI.md,
// "Signals"; harness/framework/boundary.py does the same for the Python tiers). No SA_RESTART: a blocking call
// returns EINTR and the loop around it sees the stop.
void stop_on_signals();
// "interrupted by SIGINT" / "SIGTERM" for g_stop_requested.
std::string stop_reason();
// rc, unless a stop was requested before the tier judged anything (the toolchain, the manifest, the output
// folder): then "<tier>: interrupted by ... before any case was judged: nothing written" and 128 + the signal. A
// child the tier waited on meanwhile may have failed of the same signal, which is no usage error.
int stopped_or(const char* tier, int rc);
// The exit code of a tier whose every local is gone (called in main, around guarded_main): rc, or 128 + the signal
// when one came at any time before, even after the document was written and the final check made (the teardown of
// the session and its workers takes milliseconds): the exit says what reached the tier, the document stays complete
// (docs/CLI.md, "Signals"). What is left is the C library's own exit after this call.
int exit_after_stop(int rc);

// In a forked child: executes argv (found on PATH), or prints 'cannot execute <what><argv[0]>: <why>' and exits
// 127.
[[noreturn]] void exec_or_exit(const std::vector<std::string>& argv, const char* what);
// Runs argv, returns exit status; output (stdout+stderr) captured into *out when given. shielded: the child
// ignores SIGINT and SIGTERM (the writer of a run's document: a signal to the group must not tear it; ./ptxcts
// kills the group at the third signal).
int run_process(const std::vector<std::string>& argv, std::string* out, bool shielded = false);
// Runs argv with stdout and stderr captured apart; 127 when it cannot be executed.
int run_capture(const std::vector<std::string>& argv, std::string* out, std::string* err);

// The first of the files that make a folder a run's (ptxcts/given.hpp, kRunFiles) that DIR holds, or "".
std::string held_run(const std::string& dir);

// The name of the lock file in an output folder; the Python tiers' is runio.LOCK_NAME, and a test
// (harness/results/tests/test_runio.py, LockName) checks that the two agree.
inline constexpr const char* kLockName = ".ptxcts.lock";

// An exclusive lock on an output folder: an flock on DIR/<kLockName>, the file every tier locks, the Python tiers
// too (harness/framework/documents/runio.py, OutputLock), so that a second run into the folder is refused whichever
// tier each is.
class FolderLock {
 public:
  // Creates DIR if needed and locks it; returns "" or why not (naming the folder and the holder's pid). new_run:
  // once locked, DIR must hold no run (held_run): another tier may have written one since DIR was looked at.
  std::string acquire(const std::string& dir, bool new_run = false);
  void release();
  ~FolderLock() { release(); }
 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace ptxcts::run
