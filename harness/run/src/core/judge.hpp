// Judging a case: what a device (or the model device) left against what the model expects and its named
// alternatives. Used by the worker after a launch, by the testbeds (a host fault's difference) and by the model
// device; nothing here touches the GPU.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "case.hpp"

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

}  // namespace ptxcts::run
