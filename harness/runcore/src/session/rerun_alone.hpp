// What a result seen beside other workers is worth: the results no neighbour can have caused, the traps of the
// case's own kernel, and running again alone (one worker, nothing beside it) the ones that are not trusted.
#pragma once
#include <functional>
#include <vector>

#include "batch.hpp"

namespace ptxcts::run {

// The error a kernel of a trap-phase case must report for its trap beside other trapping workers to count as its
// own: the one every trap the model's alternatives predict raised on the H100 (25 per load path in
// results/2026-11-25-sm_90-h100-run). Any other error runs again alone: a collateral kill, or a device that traps
// otherwise.
inline constexpr const char* kPredictedTrapError = "cudaErrorIllegalInstruction";

// A result no neighbour's trap can have caused: a kernel that ended without an error (a kill reports one: the
// worker judges no bytes then, exec.cpp) whose bytes equal the model's (pass) or a named alternative's
// (spec_divergence with no details.kernel_error).
bool beyond_neighbours(const CaseResult& r);
// A calm result seen beside a trap phase that runs again alone: a crash, a timeout (host, parent or device
// watchdog: a neighbour's recovery may stall a kernel) or any result with a kernel error (a trap an alternative
// predicts, which a kill could imitate). Not a fail: its kernel ended without an error, as a pass's did, and the
// worker judges no bytes of a kernel that reports one (a kill does).
bool calm_suspect_beside_traps(const CaseResult& r);

// A trap of the case's own kernel: the kernel's own error kPredictedTrapError (details.kernel_error), and the
// issuing CTA stopped after the frame's start, before its wait ended (details.frame_stop is
// frame_stop::before_wait, exec.hpp): not killed before it began, nor after it got past its instruction. A
// neighbour's trap that kills a kernel makes it report the kill, not an illegal instruction of its own.
bool trapped_by_own_kernel(const CaseResult& r);
// The predicted trap (spec_divergence naming details.predicted_trap) of the case's own kernel.
bool trapped_as_predicted(const CaseResult& r);
// A trap-phase result beside other trapping workers that stands as it is: the predicted trap, a trap of its own
// kernel that no alternative predicts (a crash: a device finding, which a neighbour could no more imitate than the
// predicted one), or a result no neighbour can cause (beyond_neighbours).
bool stands_beside_traps(const CaseResult& r);

// Runs again alone (one worker, nothing beside it) each case of `cs` whose result in `rs` (same order) `suspect`
// flags; that verdict replaces it, the first kept in details.first_attempt_with_other_workers. A case the re-run
// did not reach (interrupt, deadline) keeps its first verdict, marked details.beside_other_workers. Returns how
// many ran again.
size_t rerun_alone(const std::vector<const RunCase*>& cs, std::vector<CaseResult>& rs,
                   const std::function<bool(const CaseResult&)>& suspect, const BatchOptions& o, const char* what,
                   bool quiet);

}  // namespace ptxcts::run
