// The run tier's tensor case tables (tensor_maps.cpp): which tensor maps, boxes and coordinates a tensor form is
// run with. Data only: the planner (abi_tensor.cpp) combines them per form.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "case.hpp"
#include "ptxcts/ref/tensor.hpp"

namespace ptxcts::run::tmaps {

using TDT = ref::TensorDataType;
using CoordSets = std::vector<std::pair<std::string, std::array<int32_t, 5>>>;
using Im2colMaps = std::vector<std::pair<ref::TensorMapParams, std::array<uint16_t, 3>>>;

std::string join(const int32_t* v, unsigned n);
std::string joinu(const uint32_t* v, unsigned n, const char* sep = "x");
struct Shape { std::array<uint64_t, 5> dims; std::array<uint32_t, 5> box; };
Shape tile_shape(unsigned rank, unsigned esize);
ref::TensorMapParams tiled(TDT t, unsigned rank, const Shape& sh);
unsigned esize(TDT t);
CoordSets coord_sets(const ref::TensorMapParams& p, bool nonneg, bool with_misaligned, bool im2col);
std::string map_name(const ref::TensorMapParams& p);
std::vector<ref::TensorMapParams> tile_maps(unsigned rank, bool reduce_or_store, int level);
Im2colMaps im2col_maps(unsigned rank, bool offsets);
std::optional<TDT> dtype_for(const std::string& t);  // a reduce element type's map data type
ref::TensorMapParams padded_rows(ref::TensorMapParams p);
// A map and the recipe-name segment that tells it apart (padded_candidates, tensor_maps.cpp: "" for a map as its
// recipe states it, ".gstrides_..." for its padded rows).
struct NamedMap {
  ref::TensorMapParams map;
  std::string name;
};
std::vector<NamedMap> padded_candidates(const ref::TensorMapParams& m);
std::optional<NamedMap> first_legal(const std::vector<NamedMap>& candidates);
std::vector<NamedMap> reduce_map_candidates(TDT dt, unsigned rank, bool im2col);
std::optional<NamedMap> reduce_map(TDT dt, unsigned rank, bool im2col);
TensorMapSpec spec_of(const ref::TensorMapParams& m);
ref::TensorMapParams params_of(const TensorMapSpec& t, uint64_t gaddr);  // spec_of's inverse

}  // namespace ptxcts::run::tmaps
