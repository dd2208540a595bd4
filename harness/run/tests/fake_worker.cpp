// A stand-in for `ptxcts-run --worker` in the CPU tests of the batch executor and of the whole parent
// (PTXCTS_RUN_FAKE_DEVICE + PTXCTS_RUN_WORKER): follows the worker protocol ("S <id>" before, "R <json>" after
// each case), ignores the worker options, and misbehaves on request, by case ID:
//   ...#crash   aborts while the case runs (as a trapped kernel's worker that dies would)
//   ...#hang    never answers (the parent's watchdog must kill it)
//   ...#poison  reports a crash and exits 3 (a worker whose CUDA context is poisoned)
//   ...#trap    the trap the model's alternative predicts, raised by its own kernel (spec_divergence naming
//               details.predicted_trap, kernel_error cudaErrorIllegalInstruction, frame_stop at the instruction),
//               and exits 3
//   ...#trap_crash  a trap of its own kernel that no alternative predicts (crash, kernel_error
//               cudaErrorIllegalInstruction, frame_stop at the instruction), and exits 3
//   ...#victim_error, #victim_unbegun, #victim_crash: a case that does not trap, killed by another worker's trap
//               when one runs beside it (FAKE_WORKER_RUNNING shows one within a second of its start): the same
//               predicted-trap verdict but another error / the same verdict but stopped before its frame began /
//               a crash, exit 3; alone: pass, fail, pass
//   ...#calm_victim_crash: a calm case that a neighbour's trap would hurt (FAKE_WORKER_RUNNING shows another
//               case within a second of its start): beside one a crash, exit 3; alone: pass
//   ...#calm_fail: a fail (bytes differ, the kernel ended cleanly), beside others or alone
//   ...#explored_pass, #explored_div, #explored_timeout, #explored_fail: a case expected to trap that does not:
//               pass; a divergence by bytes (details.matched_policy, no kernel error); the device-side timeout
//               (the kernel gave up waiting); a fail; the same beside others or alone
//   anything else: pass
// Environment: FAKE_WORKER_DELAY_MS (each case takes that long), FAKE_WORKER_PIDS (a folder: each worker
// writes an empty file named by its pid, so a test can check that none outlives the parent), FAKE_WORKER_LOG
// (a file: "S <ns> <id>" when a case starts, "E <ns> <id>" when it ends, CLOCK_MONOTONIC; "P <ns> <kernel>" for
// a module a spare was asked to load ahead; "X <ns> <pid>" when the worker has closed its pipes and begins its
// exit), FAKE_WORKER_RUNNING (a folder: a file per case while it runs, named by the worker's pid),
// FAKE_WORKER_EXIT_MS (its exit then takes that long, as a CUDA context's teardown does: the pipes are closed
// first, as the real worker closes them).
#include <dirent.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

namespace {

long long now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

void log_event(const char* what, const std::string& id) {
  const char* path = std::getenv("FAKE_WORKER_LOG");
  if (!path || !*path) return;
  std::string line = std::string(what) + " " + std::to_string(now_ns()) + " " + id + "\n";
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;
  ssize_t n = write(fd, line.data(), line.size());  // one write: lines of several workers never interleave
  (void)n;
  close(fd);
}

std::string running_dir() {
  const char* d = std::getenv("FAKE_WORKER_RUNNING");
  return d ? d : "";
}

// Another worker's case runs now (a file other than this worker's own in FAKE_WORKER_RUNNING).
bool other_running() {
  const std::string d = running_dir(), mine = std::to_string(getpid());
  bool found = false;
  if (DIR* h = opendir(d.c_str())) {
    while (dirent* e = readdir(h)) {
      std::string n = e->d_name;
      if (n != "." && n != ".." && n != mine) found = true;
    }
    closedir(h);
  }
  return found;
}

// The worker's end: its pipes close at once, then FAKE_WORKER_EXIT_MS pass (a context's teardown) before it exits.
int slow_exit(int code) {
  std::fflush(stdout);
  close(1);
  close(0);
  log_event("X", std::to_string(getpid()));
  const char* e = std::getenv("FAKE_WORKER_EXIT_MS");
  if (e && std::atoi(e) > 0) usleep(useconds_t(std::atoi(e)) * 1000);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  (void)argc;
  (void)argv;
  const char* pids = std::getenv("FAKE_WORKER_PIDS");
  if (pids && *pids) std::ofstream(std::string(pids) + "/" + std::to_string(getpid()));
  const char* d = std::getenv("FAKE_WORKER_DELAY_MS");
  int delay_ms = d ? std::atoi(d) : 0;
  const std::string marker = running_dir().empty() ? "" : running_dir() + "/" + std::to_string(getpid());
  std::string id;
  while (std::getline(std::cin, id)) {
    if (id.empty()) continue;
    if (id.rfind("P ", 0) == 0) {  // a spare's module to load ahead: logged, answered with nothing
      log_event("P", id.substr(2));
      continue;
    }
    if (id[0] == '{') {  // an explicit case (an explored one: its JSON line): its "id"
      const std::string key = "\"id\":\"";
      const size_t at = id.find(key), from = at == std::string::npos ? 0 : at + key.size();
      id = at == std::string::npos ? "?" : id.substr(from, id.find('"', from) - from);
    }
    std::printf("S %s\n", id.c_str());
    std::fflush(stdout);
    log_event("S", id);
    if (!marker.empty()) std::ofstream{marker};
    if (id.find("#crash") != std::string::npos) std::abort();
    if (id.find("#hang") != std::string::npos) for (;;) pause();
    std::string k = id.find("#poison") != std::string::npos ? "crash" : "pass";
    std::string message = "fake " + std::to_string(getpid()), details = "{}";
    bool ends = k == "crash";
    const std::string trap_details = "\"predicted_trap\":\"fake alignment\",\"matched_policy\":\"fake=trap\"";
    if (id.find("#trap_crash") != std::string::npos) {
      k = "crash";
      message = "kernel trapped: cudaErrorIllegalInstruction";
      details = "{\"kernel_error\":\"cudaErrorIllegalInstruction\",\"frame_stop\":\"after its start, before its wait ended\"}";
      ends = true;
    } else if (id.find("#trap") != std::string::npos) {
      k = "spec_divergence";
      message = "device matches the alternative fake=trap: kernel trapped: cudaErrorIllegalInstruction";
      details = "{" + trap_details + ",\"kernel_error\":\"cudaErrorIllegalInstruction\","
                "\"frame_stop\":\"after its start, before its wait ended\"}";
      ends = true;
    } else if (id.find("#victim_") != std::string::npos) {
      bool beside = false;
      for (int i = 0; i < 100 && !(beside = other_running()); ++i) usleep(10000);
      if (beside && id.find("#victim_error") != std::string::npos) {
        k = "spec_divergence";
        details = "{" + trap_details + ",\"kernel_error\":\"cudaErrorLaunchFailure\","
                  "\"frame_stop\":\"after its start, before its wait ended\"}";
      } else if (beside && id.find("#victim_unbegun") != std::string::npos) {
        k = "spec_divergence";
        details = "{" + trap_details + ",\"kernel_error\":\"cudaErrorIllegalInstruction\","
                  "\"frame_stop\":\"before its start\"}";
      } else if (beside) {
        k = "crash";
        message = "kernel trapped: cudaErrorLaunchFailure";
      } else if (id.find("#victim_unbegun") != std::string::npos) {
        k = "fail";
        message = "fake: 4 byte(s) differ from the model";
      }
      ends = beside;
    } else if (id.find("#calm_victim_crash") != std::string::npos) {
      bool beside = false;
      for (int i = 0; i < 100 && !(beside = other_running()); ++i) usleep(10000);
      if (beside) {
        k = "crash";
        message = "kernel trapped: cudaErrorLaunchFailure";
      }
      ends = beside;
    } else if (id.find("#explored_div") != std::string::npos) {
      k = "spec_divergence";
      message = "device matches the alternative fake=bytes";
      details = "{\"matched_policy\":\"fake=bytes\"}";
    } else if (id.find("#explored_timeout") != std::string::npos) {
      k = "timeout";
      message = "CTA rank 0: mbarrier.try_wait gave up after 16384 iterations";
      ends = true;
    } else if (id.find("#explored_fail") != std::string::npos || id.find("#calm_fail") != std::string::npos) {
      k = "fail";
      message = "fake: 4 byte(s) differ from the model";
    }
    if (delay_ms > 0) usleep(useconds_t(delay_ms) * 1000);
    if (!marker.empty()) unlink(marker.c_str());
    log_event("E", id);
    std::printf("R {\"id\":\"%s\",\"class\":\"%s\",\"message\":\"%s\",\"duration_ms\":0.1,\"details\":%s}\n", id.c_str(),
                k.c_str(), message.c_str(), details.c_str());
    if (ends) std::printf("X context lost\n");  // as the real worker says it ends
    std::fflush(stdout);
    if (ends) return slow_exit(3);
  }
  return slow_exit(0);
}
