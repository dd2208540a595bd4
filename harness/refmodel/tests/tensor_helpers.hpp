// Shared helpers of the tensor tests: parameter builders and a load into a poisoned window.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ptxcts/ref/tensor.hpp"

namespace ptxcts::ref::testing {

constexpr std::uint8_t kPoison = 0xa5;

inline TensorMapParams tile_map(TensorDataType t, std::vector<std::uint64_t> dims, std::vector<std::uint32_t> box,
                                std::vector<std::uint32_t> es = {}) {
  TensorMapParams p;
  p.kind = EncodeKind::tiled;
  p.dtype = t;
  p.rank = static_cast<unsigned>(dims.size());
  for (unsigned i = 0; i < p.rank; ++i) {
    p.dims[i] = dims[i];
    p.box[i] = box[i];
    p.element_strides[i] = es.empty() ? 1 : es[i];
  }
  p.strides = dense_strides(t, p.rank, p.dims);
  return p;
}

// A map of the given kind, type, rank, dims and byte strides (globalStrides); every other field at its default.
inline TensorMapParams map_of(EncodeKind kind, TensorDataType t, unsigned rank, const std::array<std::uint64_t, 5>& dims,
                              const std::array<std::uint64_t, 4>& strides) {
  TensorMapParams p;
  p.kind = kind;
  p.dtype = t;
  p.rank = rank;
  p.dims = dims;
  p.strides = strides;
  return p;
}

// The same with the dense strides of its dims.
inline TensorMapParams dense_map(EncodeKind kind, TensorDataType t, unsigned rank,
                                 const std::array<std::uint64_t, 5>& dims) {
  return map_of(kind, t, rank, dims, dense_strides(t, rank, dims));
}

// An im2col / im2col::w map from explicit values: channelsPerPixel cpp, pixelsPerColumn ppc, corners 0.
inline TensorMapParams im2col_map(EncodeKind kind, TensorDataType t, unsigned rank,
                                  const std::array<std::uint64_t, 5>& dims, const std::array<std::uint64_t, 4>& strides,
                                  std::uint32_t cpp, std::uint32_t ppc) {
  TensorMapParams p = map_of(kind, t, rank, dims, strides);
  p.channels_per_pixel = cpp;
  p.pixels_per_column = ppc;
  return p;
}

inline TensorAccess at(std::vector<std::int32_t> coords, TensorMode mode = TensorMode::tile) {
  TensorAccess a;
  a.mode = mode;
  for (std::size_t i = 0; i < coords.size(); ++i) a.coords[i] = coords[i];
  return a;
}

// A window of `size` poison bytes after a load of the index tensor (element i holds base + i).
struct Loaded {
  std::vector<std::uint8_t> window;
  std::uint32_t tx = 0;
};
inline Loaded load(const TensorMapParams& m, const TensorAccess& a, std::uint64_t base = 0, std::size_t size = 8192,
                   const PolicySet& p = PolicySet{}) {
  const std::vector<std::uint8_t> g = make_index_tensor(m, base);
  Loaded l;
  l.window.assign(size, kPoison);
  l.tx = tensor_load(m, a, ConstByteSpan{g.data(), g.size()}, ByteSpan{l.window.data(), l.window.size()}, p);
  return l;
}

inline std::uint64_t at_le(const std::vector<std::uint8_t>& v, std::size_t off, unsigned n) {
  return load_le(v.data() + off, n);
}

}  // namespace ptxcts::ref::testing
