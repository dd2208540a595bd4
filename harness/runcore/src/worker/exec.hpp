// The worker's device side: one CUDA context, the modules of one load path, and the execution of one case
// (upload the images, encode the tensor map, launch, wait with a watchdog, download, judge).
#pragma once
#include <map>
#include <string>

#include "case.hpp"
#include "driver.hpp"
#include "judge.hpp"
#include "manifest.hpp"

namespace ptxcts::run {

struct DeviceInfo {
  std::string name, sm, cc;
  int major = 0, minor = 0, sms = 0;
  int max_smem_optin = 0;
  std::string driver, runtime;
};

// details.frame_stop of a case expected to trap (params.traps) whose kernel stopped with an error: where its
// issuing CTA stopped, read from the frame's status words (templates/frame.ptx.j2: its start writes words 0-3
// zero, the bounded wait writes word 1 = 1 or 2, its end writes word 0 = 1), which such a case keeps in mapped
// host memory so that they can be read after the trap has taken the context.
namespace frame_stop {
inline constexpr const char* not_begun = "before its start";  // word 0 still holds kStatusUnwritten
inline constexpr const char* before_wait = "after its start, before its wait ended";  // where the instruction under test is
inline constexpr const char* past_wait = "past its wait";
inline constexpr const char* at_end = "at its end";
}  // namespace frame_stop
// What the host writes into status words 0-3 of a case expected to trap before its launch.
inline constexpr uint32_t kStatusUnwritten = 0x5afe0bad;

// "" when a CUDA device is usable, else why not (no device, no driver, ...). Safe to call without a GPU.
std::string probe_device(DeviceInfo* info);

class Executor {
 public:
  // load_path: "cubin" or "jit". Sets CUDA_CACHE_DISABLE=1 before the context exists (the JIT is judged, not a
  // cache). Returns "" or an error.
  std::string init(const std::string& load_path, const ModuleSet& mods, double case_timeout_s);
  // Runs one case; `poisoned()` afterwards says the context can no longer be trusted (trap or hang).
  CaseResult run(const RunCase& c, Setup& s);
  bool poisoned() const { return poisoned_; }
  // What the last executed case left on the device (for repro bundles).
  const Image& last_actual() const { return last_actual_; }
  const std::string& module_path(const std::string& kernel) const;
  // Loads (assembles, for the JIT) the module holding `kernel` ahead of the case, so module time is not case time.
  void preload(const std::string& kernel);
  const DeviceInfo& device() const { return dev_; }
  const Driver& driver() const { return drv_; }

 private:
  struct Loaded { CUmodule mod = nullptr; std::string error, error_class; };
  Loaded& module_for(const std::string& path);
  std::string load_path_;
  ModuleSet mods_;
  Driver drv_;
  DeviceInfo dev_;
  std::map<std::string, Loaded> modules_;
  std::map<std::string, int> func_smem_;  // kernel -> max dynamic smem already set
  uint8_t* arena_ = nullptr;
  uint32_t* mapped_status_ = nullptr;     // status words of cases expected to trap (host memory the GPU writes)
  size_t mapped_status_words_ = 0;
  size_t arena_size_ = 0;
  std::vector<uint8_t> stage_;
  double timeout_s_ = 10;
  bool poisoned_ = false;
  Image last_actual_;
};

}  // namespace ptxcts::run
