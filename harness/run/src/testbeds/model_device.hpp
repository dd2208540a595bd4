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

// "model", or "model:" + one of the planted faults below.
bool model_device_known(const std::string& device);
std::string model_device_help();
// The status words a correct kernel leaves: every rank reached the end, each waiter saw its phase complete, the
// self-check bits the form expects.
std::vector<uint32_t> correct_status(const Setup& s);
// Judges the case against the model's own images (status words as a correct kernel leaves them), with the
// planted fault applied first.
CaseResult run_on_model(const RunCase& c, const Setup& s, const std::string& device);


struct Session;
// ptxcts-run --dry-build [--dry-judge]: builds every selected case's images and expectation on the CPU, and with
// judge=true judges a corrupted copy of each (the failure path: alternatives, messages). Returns the exit status.
int dry_build(Session& ses, bool judge);

}  // namespace ptxcts::run
