// The model device: with --device model[:FAULT] a worker launches nothing and the "device" is harness/refmodel
// itself -- a copy of the model's answer, into which FAULT plants one wrong behaviour under stated conditions.
// The exploration tier's CPU test uses it: exploring against a planted fault must find it and shrink it to the
// minimal case the fault's condition allows (harness/explore/tests/explore_test.py).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "case.hpp"

namespace ptxcts::run {

// The target the model device stands for (the run tier's Hopper): the DeviceInfo::sm of a model-device run, and the
// device exploration's --dry-draw draws for.
inline constexpr const char* kModelDeviceSm = "sm_90";

// "model", or "model:" + one of the planted faults below.
bool model_device_known(const std::string& device);
std::string model_device_help();
// The status words a correct kernel leaves: every rank reached the end, each waiter saw its phase complete, the
// self-check bits the form expects.
std::vector<uint32_t> correct_status(const Setup& s);
// Judges the case against the model's own images (status words as a correct kernel leaves them), with the
// planted fault applied first.
CaseResult run_on_model(const RunCase& c, const Setup& s, const std::string& device);

}  // namespace ptxcts::run
