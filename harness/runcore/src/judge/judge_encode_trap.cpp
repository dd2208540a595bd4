// Judging what a device reported rather than the bytes it left: a kernel's trap (judge_trap) and the driver's
// verdict on a tensor map's encode (judge_encode), each against the model's default reading and its named
// alternatives.
#include "judge.hpp"

namespace ptxcts::run {

bool judge_trap(const Setup& s, const std::string& what, CaseResult& r) {
  if (!s.trap || !s.trap(ref::PolicySet{}).empty()) return false;
  for (auto& [name, ps] : ref::single_deviations(ref::PolicySet{})) {
    std::string why = s.trap(ps);
    if (why.empty()) continue;
    r.cls = cls::spec_divergence;
    r.message = "device matches the alternative " + name + ", not the model's default reading: " + what + "; " + why;
    r.details["matched_policy"] = name;
    r.details["predicted_trap"] = why;
    return true;
  }
  return false;
}

bool judge_encode(const TensorMapSpec& t, const ref::TensorMapParams& m, unsigned cc, bool encode_only,
                  const std::string& encode_result, CaseResult& r) {
  const bool ok = encode_result == "CUDA_SUCCESS";
  auto finish = [&](const char* k, std::string msg) {
    r.cls = k;
    r.message = std::move(msg);
    return true;
  };
  // The driver's verdict against the validator under each named alternative of its encode rules: an
  // alternative that agrees with the driver where the documentation does not names a spec_divergence.
  auto divergence = [&](bool accepted) -> bool {
    for (auto& [name, ps] : ref::single_deviations(ref::PolicySet{})) {
      const ref::EncodeVerdict v = ref::validate_encode(m, cc, ps);
      if (accepted ? !v.must_accept() : !v.must_reject()) continue;
      r.details["matched_policy"] = name;
      std::string why;
      for (auto& vi : v.violations) why += (why.empty() ? "" : "; ") + vi.rule + ": " + vi.detail;
      return finish(cls::spec_divergence, "device matches the alternative " + name + ", not the documented rules: encode " +
                                              (accepted ? "accepted" : "refused (" + encode_result + ")") +
                                              (why.empty() ? "" : " (" + why + ")"));
    }
    return false;
  };
  if (encode_only) {
    if (t.expect_ok && ok) return finish(cls::pass, "encode accepted a legal parameter set");
    if (!t.expect_ok && encode_result == "CUDA_ERROR_INVALID_VALUE")
      return finish(cls::pass, "encode returned CUDA_ERROR_INVALID_VALUE as the validator requires (" + t.validator_reason + ")");
    if (divergence(ok)) return true;
    if (t.expect_ok) return finish(cls::fail, "encode refused a parameter set the model's validator calls legal: " + encode_result);
    return finish(cls::fail, "encode returned " + encode_result + " for a parameter set the model's validator calls illegal (" +
                                 t.validator_reason + "); expected CUDA_ERROR_INVALID_VALUE");
  }
  if (ok) return false;
  if (!t.expect_ok) return finish(cls::fail, "harness: the case's tensor map is illegal by the model (" + t.validator_reason + ")");
  if (divergence(false)) return true;
  return finish(cls::fail, "encode refused the case's tensor map (legal by the model's validator): " + encode_result);
}

}  // namespace ptxcts::run
