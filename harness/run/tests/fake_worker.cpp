// A stand-in for `ptxcts-run --worker` in the batch executor's CPU test: follows the worker protocol
// ("S <id>" before, "R <json>" after each case) and misbehaves on request, by case ID:
//   ...#crash   aborts while the case runs (as a trapped kernel's worker that dies would)
//   ...#hang    never answers (the parent's watchdog must kill it)
//   ...#poison  reports a crash and exits 3 (a worker whose CUDA context is poisoned)
//   anything else: pass
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <unistd.h>

int main(int argc, char** argv) {
  (void)argc;
  (void)argv;
  std::string id;
  while (std::getline(std::cin, id)) {
    if (id.empty()) continue;
    std::printf("S %s\n", id.c_str());
    std::fflush(stdout);
    if (id.find("#crash") != std::string::npos) std::abort();
    if (id.find("#hang") != std::string::npos) for (;;) pause();
    const char* k = id.find("#poison") != std::string::npos ? "crash" : "pass";
    std::printf("R {\"id\":\"%s\",\"class\":\"%s\",\"message\":\"fake %d\",\"duration_ms\":0.1}\n", id.c_str(), k, int(getpid()));
    std::fflush(stdout);
    if (id.find("#poison") != std::string::npos) return 3;
  }
  return 0;
}
