// Why a GPU verb (run, explore, litmus) cannot use a GPU here, in words a CI log can act on, and the exit code it
// ends with: kExitSkipped (77, CTest's SKIP_RETURN_CODE; docs/CLI.md "Exit codes", "No GPU here"). Host-only: the
// caller hands over what cudaGetDeviceCount answered, so this header needs no CUDA.
#pragma once
#include <cstdlib>
#include <string>

namespace ptxcts {

constexpr int kExitSkipped = 77;

// count and status: cudaGetDeviceCount's; status 0 is cudaSuccess, 35 cudaErrorInsufficientDriver, 100
// cudaErrorNoDevice (cuda_runtime_api's numbering). "" when a device is there.
inline std::string no_device_reason(int status, int count, const char* status_name, const char* status_text) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  bool hidden = visible && std::string(visible).find_first_not_of(" \t") == std::string::npos;
  if (status == 0 && count > 0) return "";
  if (hidden) return "CUDA_VISIBLE_DEVICES is set but empty: it hides every device (unset it, or name a device)";
  std::string what = std::string(status_name ? status_name : "?") + ": " + (status_text ? status_text : "?");
  if (status == 0 || status == 100)
    return visible ? "no CUDA device (CUDA_VISIBLE_DEVICES='" + std::string(visible) + "' names none of this host's)"
                   : "no CUDA device on this host";
  if (status == 35) return "no CUDA driver (" + what + "): the NVIDIA driver is not installed or not loaded";
  return "the CUDA driver failed (" + what + ")";
}

}  // namespace ptxcts
