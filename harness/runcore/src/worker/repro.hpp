// Repro bundles (results/README.md): one folder per failing case with the PTX module, the seed and inputs, the
// tensor-map parameters, expected and actual bytes, and the one-line command that replays the case alone.
#pragma once
#include <string>
#include <vector>

#include "case.hpp"

namespace ptxcts::run {

// The one line that replays a case alone: `./ptxcts run --case '<id>' --load-path P --seed N --toolchain T`
// (plus --target for a lower-target JIT case). `toolchain` is Toolchain::replay_arg(); "" leaves it out.
// `source` is Toolchain::source_args() (a front-end's kernels: --frontend F or --modules DIR).
std::string replay_command(const std::string& id, const std::string& load_path, uint64_t seed, const std::string& target,
                           const std::string& toolchain, const std::vector<std::string>& source = {});
void write_repro(const std::string& dir, const RunCase& c, const Setup& s, const Image* actual, const CaseResult& r,
                 uint64_t run_seed, uint64_t case_seed, const std::string& module_path, const std::string& toolchain,
                 const std::vector<std::string>& source = {});

}  // namespace ptxcts::run
