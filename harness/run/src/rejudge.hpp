// The re-judge of a run document (`ptxcts-run --rejudge FILE`): the device outcomes a committed results.json keeps
// per case, judged again by today's model, so that a baseline made before a model change is seen to be stale on a
// machine without a GPU (harness/results/staleness.py compares the result with the committed baseline).
//
// What is re-judged is what the document keeps exactly, through the functions the worker judges it with, on the
// case as today's plan builds it (build_setup from the manifest, the run's seed and the case's ID, as the model
// device does):
//   encode  a case whose class the encode call decided (a driver-API case of tensormap.encode, or a refused encode):
//           details.encode_result and details.tensor_map through judge_encode;
//   trap    a kernel that stopped with an error (details.kernel_error): judge_trap.
// Everything else is counted as not re-judgeable with its reason, never passed: a class decided by the device's
// bytes and status words (the document keeps the first mismatches only), a crash or timeout with no kernel error
// (a refused launch, a dead worker, a watchdog), a class no judgement decides (not_supported, compile_error,
// skipped), a case today's plan no longer has or builds otherwise (its variant, seed or tensor map differ).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "case.hpp"

namespace ptxcts::run {

// A document the re-judge cannot read: the message says what is wrong (the caller names the file).
struct MalformedDocument : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One case of the document and today's verdict on it.
struct Rejudged {
  std::string id, target, ptx, load_path;  // the case's key within the run
  std::string recorded, recorded_policy;   // class and details.matched_policy as the document records them
  std::string rule;                        // "encode" or "trap": what re-judged it; "" when not re-judgeable
  std::string today, today_policy, message;  // today's class, matched_policy and message
  std::string reason;                      // not re-judgeable: one of the kNot* reasons
  std::string why;                         // the particulars of the reason (a field that differs, an error)
  bool rejudged() const { return !rule.empty(); }
  bool changed() const { return rejudged() && today != recorded; }
};

// The reasons a case is not re-judged (the summary counts cases per reason).
inline constexpr const char* kNotBytes = "decided by the device's bytes and status words (not kept)";
inline constexpr const char* kNotNoKernelError = "crash or timeout with no kernel error recorded (launch, worker, watchdog)";
inline constexpr const char* kNotNoJudgement = "not_supported, compile_error or skipped (decided by no judgement)";
inline constexpr const char* kNotPlanned = "not in today's plan";
inline constexpr const char* kNotSameCase = "today's plan builds another case (variant, seed or tensor map differ)";
inline constexpr const char* kNotBuilt = "today's plan cannot build the case";

// A results.json or results.json.gz (gzip read through zlib; a plain file is read as it is), or a run folder
// holding one. Throws MalformedDocument (not gzip, not JSON, not a run-tier ptxcts-results document).
Json read_run_document(const std::string& path);

// Every case of a document read_run_document returned (its cases' keys and classes checked there), in its order,
// re-judged where it can be. Throws MalformedDocument for a details field of the wrong type, a duplicated case.
std::vector<Rejudged> rejudge(const Json& doc, const std::vector<Form>& forms);

// ptxcts-run --rejudge FILE [--json OUT] [--quiet]: the changed cases and the summary table on stdout; exit 0
// nothing changed, 1 a class today's model changes, 2 usage, 3 a malformed document (docs/CLI.md).
int rejudge_main(const std::vector<std::string>& args);

}  // namespace ptxcts::run
