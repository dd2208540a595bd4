// Which tensor load modes the run tier plans cases for (abi_tensor.cpp) and exploration draws (explore_tensor.cpp):
// the one gate both read. Tile and the im2col pair (im2col loads, im2col_no_offs stores and reductions) run on
// sm_90; gather4 / scatter4 and im2col::w need sm_100 and get no cases yet; a mode harness/refmodel does not model
// gets none either (every case of its form is not_supported).
#pragma once
#include "ptxcts/ref/tensor.hpp"
#include "tensor_form.hpp"

namespace ptxcts::run {

// The im2col pair: the modes whose boxes are walked pixel by pixel (corners, channels, pixels per column).
inline bool im2col_mode(ref::TensorMode m) {
  return m == ref::TensorMode::im2col || m == ref::TensorMode::im2col_no_offs;
}

// The form's mode gets planned and explored cases.
inline bool mode_planned(const TensorForm& t) {
  return t.modeled && (t.mode == ref::TensorMode::tile || im2col_mode(t.mode));
}

}  // namespace ptxcts::run
