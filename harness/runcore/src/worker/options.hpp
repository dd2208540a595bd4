// Validation of every option and environment variable the run tier reads: a bad value is a usage error (exit 2)
// whose message names the option or variable and the rule it breaks. Nothing is guessed or clamped.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ptxcts/options.hpp"

namespace ptxcts::run {

using ptxcts::UsageError;   // the usage error of every C++ command (ptxcts/options.hpp)

// `--seed 12abc`, `--seed -1`: a decimal integer 0 .. 2^64-1, digits only.
uint64_t parse_u64(const std::string& opt, const std::string& v);
// An integer lo..hi, digits only (a leading '-' only when lo < 0).
int parse_int(const std::string& opt, const std::string& v, int lo, int hi);
// Seconds: a finite decimal number > 0 and <= hi.
double parse_seconds(const std::string& opt, const std::string& v, double hi);
// `i/n` with 0 <= i < n.
void parse_shard_text(const std::string& opt, const std::string& v, int& index, int& count);
// A target name as ptxas spells it: sm_NN or sm_NNN, optionally a or f.
bool target_syntax(const std::string& t);
// A run id: letters, digits and . _ : + - (results.json's rule), at most 200 characters.
void check_run_id(const std::string& opt, const std::string& v);

// GTEST_SHARD_INDEX / GTEST_TOTAL_SHARDS: both or neither, integers, 0 <= index < total. Sets index/count.
void shard_from_env(int& index, int& count);
// CTEST_RESOURCE_GROUP_COUNT / CTEST_RESOURCE_GROUP_0_GPUS (id:N,slots:M): validated, then the GPU id becomes
// CUDA_VISIBLE_DEVICES for this process and its workers. Absent: the devices are used as they are. Returns the
// GPU id taken ("" when none).
std::string apply_ctest_resources();
// PTXCTS_RUN_INJECT = crash:SUBSTR | hang:SUBSTR | fail:SUBSTR (a harness self-test), or unset.
void check_inject_env();
// The toolchain asked for: --toolchain (wins), else PTXCTS_TOOLCHAIN, else the deprecated PTXCTS_PTXAS (a path,
// with a warning on stderr). "" = the default toolchain.
std::string toolchain_spec(const std::string& option_value, bool option_given);

}  // namespace ptxcts::run
