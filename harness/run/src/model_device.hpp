// The model device: with --device model[:FAULT] a worker launches nothing and the "device" is harness/refmodel
// itself -- a copy of the model's answer, into which FAULT plants one wrong behaviour under stated conditions.
// The exploration tier's CPU test uses it: exploring against a planted fault must find it and shrink it to the
// minimal case the fault's condition allows (harness/run/tests/explore_test.py).
#pragma once
#include <string>

#include "case.hpp"

namespace ptxcts::run {

// "model", or "model:" + one of the planted faults below.
bool model_device_known(const std::string& device);
std::string model_device_help();
// Judges the case against the model's own images (status words as a correct kernel leaves them), with the
// planted fault applied first.
CaseResult run_on_model(const RunCase& c, const Setup& s, const std::string& device);

}  // namespace ptxcts::run
