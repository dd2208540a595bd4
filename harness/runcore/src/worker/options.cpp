#include "options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "host_faults.hpp"
#include "util.hpp"

namespace ptxcts::run {

namespace {
bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}
std::string q(const std::string& v) { return "'" + v + "'"; }
}  // namespace

uint64_t parse_u64(const std::string& opt, const std::string& v) {
  if (!all_digits(v) || v.size() > 20)
    throw UsageError(opt + " " + q(v) + ": expected a decimal integer from 0 to 18446744073709551615");
  errno = 0;
  unsigned long long x = std::strtoull(v.c_str(), nullptr, 10);
  if (errno == ERANGE) throw UsageError(opt + " " + q(v) + ": larger than 18446744073709551615");
  return x;
}

int parse_int(const std::string& opt, const std::string& v, int lo, int hi) {
  std::string digits = (lo < 0 && !v.empty() && v[0] == '-') ? v.substr(1) : v;
  std::string rule = "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (!all_digits(digits) || digits.size() > 9) throw UsageError(opt + " " + q(v) + ": " + rule);
  long x = std::strtol(v.c_str(), nullptr, 10);
  if (x < lo || x > hi) throw UsageError(opt + " " + q(v) + ": " + rule);
  return int(x);
}

double parse_seconds(const std::string& opt, const std::string& v, double hi) {
  char* end = nullptr;
  errno = 0;
  double x = v.empty() ? NAN : std::strtod(v.c_str(), &end);
  if (v.empty() || !end || *end || errno == ERANGE || !std::isfinite(x) || x <= 0 || x > hi || !isdigit((unsigned char)v[0]))
    throw UsageError(opt + " " + q(v) + ": expected seconds, a number greater than 0 and at most " +
                     std::to_string(int(hi)));
  return x;
}

void parse_shard_text(const std::string& opt, const std::string& v, int& index, int& count) {
  auto p = split(v, '/');
  std::string rule = ": expected i/n with 0 <= i < n (e.g. 0/4)";
  if (p.size() != 2 || !all_digits(p[0]) || !all_digits(p[1]) || p[0].size() > 6 || p[1].size() > 6)
    throw UsageError(opt + " " + q(v) + rule);
  int i = std::atoi(p[0].c_str()), n = std::atoi(p[1].c_str());
  if (n < 1 || i >= n) throw UsageError(opt + " " + q(v) + rule);
  index = i;
  count = n;
}

bool target_syntax(const std::string& t) {
  if (t.rfind("sm_", 0) != 0) return false;
  std::string r = t.substr(3);
  if (!r.empty() && (r.back() == 'a' || r.back() == 'f')) r.pop_back();
  return all_digits(r) && (r.size() == 2 || r.size() == 3);
}

void check_run_id(const std::string& opt, const std::string& v) {
  bool ok = !v.empty() && v.size() <= 200;
  for (char c : v) ok = ok && (isalnum((unsigned char)c) || c == '.' || c == '_' || c == ':' || c == '+' || c == '-');
  if (!ok) throw UsageError(opt + " " + q(v) + ": a run id is 1 to 200 letters, digits and . _ : + -");
}

void shard_from_env(int& index, int& count) {
  std::string gi = env("GTEST_SHARD_INDEX"), gt = env("GTEST_TOTAL_SHARDS");
  if (gi.empty() && gt.empty()) return;
  if (gi.empty() || gt.empty())
    throw UsageError(std::string("GTEST_SHARD_INDEX and GTEST_TOTAL_SHARDS: set both or neither (") +
                     (gi.empty() ? "GTEST_SHARD_INDEX" : "GTEST_TOTAL_SHARDS") + " is missing)");
  std::string rule = ": expected an integer, 0 <= GTEST_SHARD_INDEX < GTEST_TOTAL_SHARDS";
  if (!all_digits(gi) || gi.size() > 6) throw UsageError("GTEST_SHARD_INDEX=" + q(gi) + rule);
  if (!all_digits(gt) || gt.size() > 6 || std::atoi(gt.c_str()) < 1) throw UsageError("GTEST_TOTAL_SHARDS=" + q(gt) + rule);
  int i = std::atoi(gi.c_str()), n = std::atoi(gt.c_str());
  if (i >= n) throw UsageError("GTEST_SHARD_INDEX=" + gi + " with GTEST_TOTAL_SHARDS=" + gt + rule);
  index = i;
  count = n;
}

std::string apply_ctest_resources() {
  // CTest resource allocation (FACTS.md): the test asked for RESOURCE_GROUPS "gpus:1", so CTest sets
  // CTEST_RESOURCE_GROUP_COUNT=1, CTEST_RESOURCE_GROUP_0=gpus and CTEST_RESOURCE_GROUP_0_GPUS=id:N,slots:M. A test
  // that asks for none, run with a resource spec file (a GPU runner), gets CTEST_RESOURCE_GROUP_COUNT=0: no GPU of
  // its own, the same as no allocation at all (explore.planted_fault lists the run tier's plan that way).
  std::string count = env("CTEST_RESOURCE_GROUP_COUNT"), gpus = env("CTEST_RESOURCE_GROUP_0_GPUS");
  if ((count.empty() || count == "0") && gpus.empty()) return "";
  if (!count.empty() && (!all_digits(count) || count != "1"))
    throw UsageError("CTEST_RESOURCE_GROUP_COUNT=" + q(count) + ": the run tests ask for one resource group (\"gpus:1\"), so it must be 1");
  if (gpus.empty())
    throw UsageError("CTEST_RESOURCE_GROUP_COUNT=1 but CTEST_RESOURCE_GROUP_0_GPUS is not set: the resource spec file "
                     "needs a \"gpus\" resource (scripts/gpus.sh writes one)");
  std::string rule = ": expected id:N,slots:M with N a CUDA device index (one GPU per test; scripts/gpus.sh)";
  auto parts = split(gpus, ';');
  if (parts.size() != 1) throw UsageError("CTEST_RESOURCE_GROUP_0_GPUS=" + q(gpus) + ": one GPU per test" + rule);
  std::string id, slots;
  for (auto& kv : split(parts[0], ',')) {
    if (kv.rfind("id:", 0) == 0) id = kv.substr(3);
    else if (kv.rfind("slots:", 0) == 0) slots = kv.substr(6);
    else throw UsageError("CTEST_RESOURCE_GROUP_0_GPUS=" + q(gpus) + rule);
  }
  if (!all_digits(id) || id.size() > 4 || !all_digits(slots) || slots.size() > 6 || std::atoi(slots.c_str()) < 1)
    throw UsageError("CTEST_RESOURCE_GROUP_0_GPUS=" + q(gpus) + rule);
  setenv("CUDA_VISIBLE_DEVICES", id.c_str(), 1);
  return id;
}

void check_inject_env() {
  if (std::string e = host_fault_env_error(); !e.empty()) throw UsageError(e);  // the self-test's host faults
  std::string v = env("PTXCTS_RUN_INJECT");
  if (v.empty()) return;
  auto colon = v.find(':');
  std::string kind = colon == std::string::npos ? "" : v.substr(0, colon);
  if ((kind != "crash" && kind != "hang" && kind != "fail") || colon + 1 >= v.size())
    throw UsageError("PTXCTS_RUN_INJECT=" + q(v) + ": expected crash:SUBSTR, hang:SUBSTR or fail:SUBSTR (SUBSTR a "
                     "non-empty part of the case IDs to plant the fault in)");
}

std::string toolchain_spec(const std::string& option_value, bool option_given) {
  // empty or only blanks (an unset shell variable, a stray space) never means "the default toolchain"
  auto blank = [](const std::string& v) { return v.find_first_not_of(" \t\r\n\f\v") == std::string::npos; };
  if (option_given) {
    if (blank(option_value))
      throw UsageError("--toolchain '" + option_value + "': expected a toolchain name (e.g. 13.0) or a ptxas path");
    return option_value;
  }
  std::string t = env("PTXCTS_TOOLCHAIN");
  if (const char* raw = std::getenv("PTXCTS_TOOLCHAIN"); raw && blank(raw))
    throw UsageError("PTXCTS_TOOLCHAIN is set but empty: set it to a toolchain name (e.g. 13.0) or a ptxas path, or unset it");
  if (!t.empty()) return t;
  std::string old = env("PTXCTS_PTXAS");
  if (!old.empty()) {
    std::fprintf(stderr, "run: warning: PTXCTS_PTXAS is deprecated; it is read as --toolchain %s "
                         "(use --toolchain NAME|PATH or PTXCTS_TOOLCHAIN)\n", old.c_str());
    return old;
  }
  return "";
}

}  // namespace ptxcts::run
