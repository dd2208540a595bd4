// Tensor maps and accesses as JSON (tensor_map_json.cpp): how explicit cases carry them.
#pragma once
#include "json.hpp"
#include "ptxcts/ref/tensor.hpp"

namespace ptxcts::run::tmaps {

// A map and an access as data (explicit cases: exploration's drawn and shrunk cases). Names are the driver's
// enum names without their prefix (ref::to_string); from_json throws std::runtime_error naming a bad field.
Json map_json(const ref::TensorMapParams& m);
ref::TensorMapParams map_from_json(const Json& j);
Json access_json(const ref::TensorAccess& a, unsigned rank);
ref::TensorAccess access_from_json(const Json& j);

}  // namespace ptxcts::run::tmaps
