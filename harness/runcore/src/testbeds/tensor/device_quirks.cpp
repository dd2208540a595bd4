// The recorded device findings of device_quirks.hpp, applied to a case and its result.
#include "device_quirks.hpp"

#include "abi.hpp"
#include "tensor_map_json.hpp"

namespace ptxcts::run {

std::string recorded_finding(const RunCase& c, const CaseResult& r) {
  const Json* mj = c.params.get("map");
  const Json* aj = c.params.get("access");
  if (!c.form || !mj || !aj || c.params.get("encode_only")) return "";
  ref::TensorMapParams m;
  ref::TensorAccess a;
  try {
    m = tmaps::map_from_json(*mj);
    a = tmaps::access_from_json(*aj);
  } catch (const std::exception&) {
    return "";  // a case that cannot be built is judged as such, never a recorded finding
  }
  const bool reduce = !run_str(*c.form, field::redop).empty();  // a reduction, as tform (tensor_form.hpp) says
  return im2col_interleave_trap_result(m, a.mode, reduce, r.cls, r.details.get_str("kernel_error"))
             ? kIm2colInterleaveTraps
             : "";
}

}  // namespace ptxcts::run
