// Planted faults of the host's driver-API calls, for the suite's self-test (`./ptxcts selftest`): one
// field of the tensor map the worker encodes is perturbed -- the swizzle mode, the OOB fill, an element stride, a
// box dimension, a global stride, the data type -- the way a wrong driver or a wrong host program would encode it,
// while the model keeps its expectation of the unperturbed map. PTXCTS_PLANT_HOST_FAULT names the kind (read
// once); the parent refuses an unknown kind (exit 2) before any work. Each perturbed value is one the model's
// validator calls legal (a map the driver must refuse is not a silent fault: it is dropped, like a plant ptxas
// refuses).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "case.hpp"
#include "ptxcts/ref/types.hpp"

namespace ptxcts::run {

enum class HostFault { none, swizzle, oobfill, estride, box, stride, dtype };

struct HostFaultKind {
  HostFault kind;
  const char* name;  // the self-test's fault kind (generator/ptxcts_gen/faults.py HOST_KINDS)
  const char* what;
};
const std::vector<HostFaultKind>& host_fault_kinds();

// "" or the error naming an unknown PTXCTS_PLANT_HOST_FAULT value and the known kinds.
std::string host_fault_env_error();
// The kind PTXCTS_PLANT_HOST_FAULT names (read once per process); none when unset or empty. Throws
// std::runtime_error for an unknown kind (the parent has refused it before).
HostFault host_fault_from_env();

// What the perturbation needs to know of the case besides the map.
struct HostFaultContext {
  uint64_t global_address = 0;  // the tensor's device address (only its alignment matters to the validator)
  unsigned cc = 0;              // compute capability, e.g. 90 (0: unknown)
  int64_t tx_bytes = -1;        // the box's shared-memory bytes (-1: unknown)
  int64_t box_smem_off = -1;    // where the box starts in the 1024-aligned window (-1: unknown)
  std::array<int64_t, 5> coords{};  // args.coord0..4
  std::optional<ref::RedOp> redop;  // a tensor reduction's redOp (its element type comes from the map's data type)
};

struct HostPlant {
  bool applied = false;
  std::string field;       // the field changed, e.g. "swizzle"
  std::string from, to;    // its values before and after
  std::string refused;     // not applied: why (no legal perturbation of this map)
  std::string equivalent;  // applied, and the model shows no observable difference for this case: why
};

// Perturbs t in place per kind; the first candidate value the model's validator accepts is taken.
HostPlant plant_host_fault(HostFault kind, TensorMapSpec& t, const HostFaultContext& ctx);

// The map the executor encodes: s.tmap, perturbed when PTXCTS_PLANT_HOST_FAULT names a kind (never for the
// driver-API cases, whose subject is the encode call itself); what was done goes to details["host_fault"].
TensorMapSpec planted_tensor_map(const Setup& s, unsigned cc, Json& details);

}  // namespace ptxcts::run
