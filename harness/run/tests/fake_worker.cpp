// A stand-in for `ptxcts-run --worker` in the CPU tests of the batch executor and of the whole parent
// (PTXCTS_RUN_FAKE_DEVICE + PTXCTS_RUN_WORKER): follows the worker protocol ("S <id>" before, "R <json>" after
// each case), ignores the worker options, and misbehaves on request, by case ID:
//   ...#crash   aborts while the case runs (as a trapped kernel's worker that dies would)
//   ...#hang    never answers (the parent's watchdog must kill it)
//   ...#poison  reports a crash and exits 3 (a worker whose CUDA context is poisoned)
//   anything else: pass
// Environment: FAKE_WORKER_DELAY_MS (each case takes that long), FAKE_WORKER_PIDS (a folder: each worker
// writes an empty file named by its pid, so a test can check that none outlives the parent).
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  (void)argc;
  (void)argv;
  const char* pids = std::getenv("FAKE_WORKER_PIDS");
  if (pids && *pids) std::ofstream(std::string(pids) + "/" + std::to_string(getpid()));
  const char* d = std::getenv("FAKE_WORKER_DELAY_MS");
  int delay_ms = d ? std::atoi(d) : 0;
  std::string id;
  while (std::getline(std::cin, id)) {
    if (id.empty()) continue;
    std::printf("S %s\n", id.c_str());
    std::fflush(stdout);
    if (id.find("#crash") != std::string::npos) std::abort();
    if (id.find("#hang") != std::string::npos) for (;;) pause();
    if (delay_ms > 0) usleep(useconds_t(delay_ms) * 1000);
    const char* k = id.find("#poison") != std::string::npos ? "crash" : "pass";
    std::printf("R {\"id\":\"%s\",\"class\":\"%s\",\"message\":\"fake %d\",\"duration_ms\":0.1}\n", id.c_str(), k, int(getpid()));
    std::fflush(stdout);
    if (id.find("#poison") != std::string::npos) return 3;
  }
  return 0;
}
