// Judging a case: what a device (or the model device) left against what the model expects and its named
// alternatives. Used by the worker after a launch, by the testbeds (a host fault's difference) and by the model
// device; nothing here touches the GPU.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "case.hpp"
#include "ptxcts/ref/tensormap.hpp"

namespace ptxcts::run {

// How two images of one case differ: "" when they are equal, else the number of differing bytes and the first
// differing element, named as a failure names it (the self-test's host faults: the case's map against another).
std::string image_difference(const Setup& s, const Image& a, const Image& b);

// Compares what the device left with what the model expects (and its alternatives); fills class and message.
void judge(const RunCase& c, const Setup& s, const std::vector<uint8_t>& gsrc_after, const Image& actual,
           const std::vector<uint32_t>& status, CaseResult& r);

// A kernel trapped (`what` says how): when the model predicts the trap under no policy at its default but under a
// named alternative (e.g. tensor_coord_alignment=16B_trap), fills r as a spec_divergence naming it and returns
// true; otherwise the trap is a crash (returns false, r untouched).
bool judge_trap(const Setup& s, const std::string& what, CaseResult& r);

// The driver's verdict on a case's tensor map: `encode_result` is the name of what cuTensorMapEncode* returned
// (Driver::error_name: "CUDA_SUCCESS", "CUDA_ERROR_INVALID_VALUE", ...), `m` the model's parameters of the map as
// encoded (tmaps::params_of at the address encoded), `cc` the device's compute capability (90). When the encode
// decides the case's class -- a driver-API case (encode_only), or a refused encode -- fills r (class, message,
// details.matched_policy) and returns true: pass when the driver did what t.expect_ok (the planner's validator
// verdict) says, spec_divergence when a named alternative of the encode rules (ref::single_deviations under
// ref::validate_encode) agrees with the driver where the documentation does not, else fail. Returns false when the
// encode was accepted and the case goes on to its launch. The worker (Executor::run) and the re-judge of a run
// document (rejudge.hpp) both call it, so a recorded encode outcome is judged as the worker judges it.
bool judge_encode(const TensorMapSpec& t, const ref::TensorMapParams& m, unsigned cc, bool encode_only,
                  const std::string& encode_result, CaseResult& r);

}  // namespace ptxcts::run
