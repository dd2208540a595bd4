// What tensor copies carry over the box of tensor_box.cpp: swizzle, OOB fill, loads (multicast included), stores
// and reductions over caller-owned byte spans, the accesses a device traps on, and index tensors for tests.
#include <algorithm>
#include <string>

#include "model_checks.hpp"
#include "ptxcts/ref/float_format.hpp"
#include "ptxcts/ref/tensor.hpp"

namespace ptxcts::ref {

using detail::ceil_div;
using detail::need;

std::uint64_t swizzle_address(Swizzle s, std::uint64_t a, const PolicySet& p) {
  // NOTES.md (PTX 5.5.7; CUTLASS Swizzle<B,4,3>): 16-byte chunk bits 4..6 XOR the 128-byte line bits 7..9.
  const std::uint64_t line = a >> 7;
  switch (s) {
    case Swizzle::NONE: return a;
    case Swizzle::B32: return a ^ ((line & 1) << 4);
    case Swizzle::B64: return a ^ ((line & 3) << 4);
    case Swizzle::B128: return a ^ ((line & 7) << 4);
    case Swizzle::B128_ATOM_32B: return a ^ ((line & 3) << 5);
    case Swizzle::B128_ATOM_64B: return a ^ ((line & 1) << 6);
    case Swizzle::B128_ATOM_32B_FLIP_8B: {
      // cuda.h: 'Swizzle 32B chunks within 128B span, additionally swap lower 8B with upper 8B within each 16B for
      // every alternate row'. Which rows flip: policy swizzle_flip_8b_rows.
      const std::uint64_t want = p.get<FlipRows>(PolicyId::swizzle_flip_8b_rows) == FlipRows::odd ? 1 : 0;
      const std::uint64_t b = a ^ ((line & 3) << 5);
      return (line & 1) == want ? (b ^ 8) : b;
    }
    case Swizzle::B96: break;
  }
  throw ModelError("swizzle 96B: open point -- no layout the model can state");
}

std::uint64_t oob_fill_pattern(TensorDataType t, OobFill f, const PolicySet& p) {
  if (f == OobFill::NONE || !is_float_type(t)) return 0;
  const unsigned bits = element_bits(t);
  FloatFormat fmt = bits == 64 ? kF64 : (bits == 32 ? kF32 : (t == TensorDataType::BFLOAT16 ? kBF16 : kF16));
  const std::uint64_t exp_all = fmt.exp_field_max() << fmt.man_bits;
  switch (p.get<OobNanPattern>(PolicyId::oob_nan_pattern)) {
    case OobNanPattern::canonical: return fmt.canonical_nan();
    case OobNanPattern::all_ones: return (fmt.sign_mask() << 1) - 1;
    case OobNanPattern::quiet_positive: return exp_all | fmt.quiet_bit();
    case OobNanPattern::quiet_negative: return fmt.sign_mask() | exp_all | fmt.quiet_bit();
    case OobNanPattern::repeat_7ff7: {
      std::uint64_t v = 0;
      for (unsigned k = 0; k < bits; k += 16) v |= std::uint64_t{0x7ff7} << k;
      return v;
    }
  }
  return fmt.canonical_nan();
}

std::uint32_t tf32_round_nearest_even(std::uint32_t f32) {
  // Measured on the H100 (results/findings/h100-tf32-load-rounding): 13 low bits rounded away, ties to even, the
  // carry free to reach the exponent; subnormals rounded like normals; every NaN the tf32 NaN 0x7fffe000.
  if ((f32 & 0x7f800000u) == 0x7f800000u && (f32 & 0x007fffffu) != 0) return 0x7fffe000u;
  const std::uint32_t low = f32 & 0x1fffu, base = f32 & ~0x1fffu;
  const bool up = low > 0x1000u || (low == 0x1000u && (base & 0x2000u) != 0);
  return up ? base + 0x2000u : base;
}

std::optional<ElemType> tensor_reduce_type(TensorDataType t, RedOp op) {
  const bool bitwise = op == RedOp::and_op || op == RedOp::or_op || op == RedOp::xor_op;
  switch (t) {
    case TensorDataType::UINT32: return bitwise ? ElemType::b32 : ElemType::u32;
    case TensorDataType::INT32: return bitwise ? ElemType::b32 : ElemType::s32;
    case TensorDataType::UINT64: return bitwise ? ElemType::b64 : ElemType::u64;
    case TensorDataType::INT64: return bitwise ? ElemType::b64 : ElemType::s64;
    case TensorDataType::FLOAT16: return ElemType::f16;
    case TensorDataType::BFLOAT16: return ElemType::bf16;
    case TensorDataType::FLOAT32:
    case TensorDataType::FLOAT32_FTZ: return ElemType::f32;
    case TensorDataType::FLOAT64: return ElemType::f64;
    default: return std::nullopt;
  }
}

std::vector<ByteWrite> tensor_load_writes(const TensorMapParams& map, const TensorAccess& a, ConstByteSpan global,
                                          const PolicySet& p) {
  need(a.mode != TensorMode::scatter4 && a.mode != TensorMode::im2col_no_offs,
       std::string("mode ") + to_string(a.mode) + " is a store/reduce mode, not a load mode");
  const std::vector<BoxPiece> box = tensor_box(map, a, p);
  const std::uint64_t fill = oob_fill_pattern(map.dtype, map.oob_fill, p);
  const unsigned esize = is_packed(map.dtype) ? 1 : element_bits(map.dtype) / 8;
  const bool gap_zero = p.get<PackedGapFill>(PolicyId::packed_gap_fill) == PackedGapFill::zero;
  const bool tf32_round = (map.dtype == TensorDataType::TFLOAT32 || map.dtype == TensorDataType::TFLOAT32_FTZ) &&
                          p.get<Tf32Load>(PolicyId::tensor_tf32_load) == Tf32Load::round_nearest_even;
  std::vector<ByteWrite> out;
  for (const BoxPiece& piece : box) {
    if (piece.in_bounds)
      need(piece.global_off + piece.data_bytes <= global.size,
           "tensor memory holds " + std::to_string(global.size) + " bytes, the element at byte " +
               std::to_string(piece.global_off) + " lies beyond");
    std::uint32_t rounded = 0;  // tensor_tf32_load=round_nearest_even: the element as the device stores it
    if (tf32_round && piece.in_bounds) {
      for (unsigned j = 0; j < 4; ++j) rounded |= std::uint32_t{global.data[piece.global_off + j]} << (8 * j);
      rounded = tf32_round_nearest_even(rounded);
    }
    for (std::uint32_t j = 0; j < piece.data_bytes; ++j) {
      const std::uint8_t v = !piece.in_bounds ? static_cast<std::uint8_t>(fill >> (8 * (j % esize)))
                             : tf32_round      ? static_cast<std::uint8_t>(rounded >> (8 * j))
                                               : global.data[piece.global_off + j];
      const std::uint64_t addr = swizzle_address(map.swizzle, a.smem_offset + piece.smem_off + j, p);
      out.push_back({static_cast<std::uint32_t>(addr), v});
    }
    if (gap_zero)
      for (std::uint32_t j = 0; j < piece.gap_bytes; ++j) {
        const std::uint64_t addr =
            swizzle_address(map.swizzle, a.smem_offset + piece.smem_off + piece.data_bytes + j, p);
        out.push_back({static_cast<std::uint32_t>(addr), 0});
      }
  }
  return out;
}

std::uint32_t tensor_load(const TensorMapParams& map, const TensorAccess& a, ConstByteSpan global, ByteSpan window,
                          const PolicySet& p) {
  for (const ByteWrite& w : tensor_load_writes(map, a, global, p)) {
    need(w.addr < window.size, "tensor load writes shared byte " + std::to_string(w.addr) + ", the window has " +
                                   std::to_string(window.size));
    window.data[w.addr] = w.value;
  }
  return tensor_tx_bytes(map, a, p);
}

std::vector<std::uint32_t> tensor_load_multicast(const TensorMapParams& map, const TensorAccess& a,
                                                 ConstByteSpan global, std::vector<Window>& windows,
                                                 std::uint16_t cta_mask, const PolicySet& p) {
  // 'The source data is multicast to the same offset as dstMem in the shared memory of each destination CTA.'
  const std::vector<ByteWrite> writes = tensor_load_writes(map, a, global, p);
  const std::uint32_t tx = tensor_tx_bytes(map, a, p);
  std::vector<std::uint32_t> out(windows.size(), 0);
  for (unsigned r = 0; r < 16; ++r) {
    if (!((cta_mask >> r) & 1)) continue;
    need(r < windows.size(), "ctaMask bit " + std::to_string(r) + " names a CTA outside the cluster of " +
                                 std::to_string(windows.size()));
    for (const ByteWrite& w : writes) {
      need(w.addr < windows[r].size(), "tensor load writes shared byte " + std::to_string(w.addr) +
                                           " beyond CTA " + std::to_string(r) + "'s window");
      windows[r][w.addr] = w.value;
    }
    out[r] = tx;
  }
  return out;
}

namespace {

// Chapter, 'restrictions on the .global.shared::cta direction'.
void check_store_access(const TensorMapParams& map, const TensorAccess& a) {
  need(a.mode == TensorMode::tile || a.mode == TensorMode::scatter4 || a.mode == TensorMode::im2col_no_offs,
       std::string("mode ") + to_string(a.mode) + " is not a .global.shared::cta mode (tile, tile::scatter4, "
                                                  "im2col_no_offs)");
  const unsigned n = a.mode == TensorMode::scatter4 ? 5 : map.rank;
  for (unsigned i = 0; i < n; ++i)
    need(a.coords[i] >= 0, "tensorCoords[" + std::to_string(i) + "] = " + std::to_string(a.coords[i]) +
                               ": 'Starting co-ordinates for Bounding Box (tensorCoords) must be non-negative.'");
  if (a.mode == TensorMode::im2col_no_offs)
    for (unsigned s = 0; s + 2 < map.rank; ++s) {
      need(map.lower_corner[s] >= 0, "'Bounding-Box Lower-Corner must be non-negative.'");
      need(map.upper_corner[s] <= 0, "'Bounding-Box Upper-Corner must be non-positive.'");
    }
  need(map.dtype != TensorDataType::T16U4_ALIGN16B,
       "'cp.async.bulk.tensor with the direction .global.shared::cta doesn't support the type .b4x16_p64.'");
}

template <typename F>
void for_each_stored_piece(const TensorMapParams& map, const TensorAccess& a, std::size_t global_size,
                           const PolicySet& p, F f) {
  check_store_access(map, a);
  // granule16_written was measured without interleave; under chunk_rows an OOB piece is a chunk past the row
  // (its coords[0] a chunk index), which that rule does not describe.
  const bool chunks = map.interleave != Interleave::NONE && a.mode == TensorMode::tile &&
                      p.get<InterleaveTileBox>(PolicyId::interleave_tile_box) == InterleaveTileBox::chunk_rows;
  const bool granule = p.get<StoreOob>(PolicyId::tensor_store_oob) == StoreOob::granule16_written &&
                       !is_packed(map.dtype) && !chunks;
  for (BoxPiece piece : tensor_box(map, a, p)) {
    if (!piece.in_bounds) {
      // OOB elements are not written (NOTES; relied on by CUTLASS epilogues), except under granule16_written:
      // elements past globalDim[0] inside the 16-byte granule that holds the row's last in-bounds byte.
      if (!granule) continue;
      bool rest_in = true;
      std::uint64_t row_off = 0;
      for (unsigned i = 1; i < map.rank; ++i) {
        rest_in = rest_in && piece.coords[i] >= 0 && piece.coords[i] < std::int64_t(map.dims[i]);
        if (rest_in) row_off += map.strides[i - 1] * std::uint64_t(piece.coords[i]);
      }
      const std::uint64_t esz = element_bits(map.dtype) / 8;
      const std::int64_t c0 = piece.coords[0];
      if (!rest_in || c0 < std::int64_t(map.dims[0])) continue;
      const std::uint64_t granule_end = (map.dims[0] * esz + 15) / 16 * 16;
      if (std::uint64_t(c0) * esz + piece.data_bytes > granule_end) continue;
      piece.global_off = row_off + std::uint64_t(c0) * esz;
    }
    need(piece.global_off + piece.data_bytes <= global_size,
         "tensor memory holds " + std::to_string(global_size) + " bytes, the element at byte " +
             std::to_string(piece.global_off) + " lies beyond");
    f(piece);
  }
}

}  // namespace

void tensor_store(const TensorMapParams& map, const TensorAccess& a, ByteSpan global, ConstByteSpan window,
                  const PolicySet& p) {
  for_each_stored_piece(map, a, global.size, p, [&](const BoxPiece& piece) {
    for (std::uint32_t j = 0; j < piece.data_bytes; ++j) {
      const std::uint64_t addr = swizzle_address(map.swizzle, a.smem_offset + piece.smem_off + j, p);
      need(addr < window.size, "tensor store reads shared byte " + std::to_string(addr) + " beyond the window");
      global.data[piece.global_off + j] = window.data[addr];
    }
  });
}

void tensor_reduce(const TensorMapParams& map, const TensorAccess& a, RedOp op, ByteSpan global, ConstByteSpan window,
                   const PolicySet& p) {
  need(!is_packed(map.dtype), "'cp.reduce.async.bulk doesn't support the types .b4x16, .b4x16_p64, .b6x16_p32 and "
                              ".b6p2x16.'");
  const auto type = tensor_reduce_type(map.dtype, op);
  need(type.has_value(), std::string("cp.reduce.async.bulk.tensor .") + to_string(op) + " on a " +
                             to_string(map.dtype) + " map: the type has no reduce element type");
  const ReduceOp rop{op, *type, false};
  std::string why;
  const bool allowed = reduce_op_allowed(ReduceSite::tensor, rop, &why);  // before the message reads `why`
  need(allowed, "cp.reduce.async.bulk.tensor: " + why);
  need(a.mode != TensorMode::scatter4, "cp.reduce.async.bulk.tensor has no .tile::scatter4 mode");
  const ReduceContext ctx{ReduceSite::tensor, map.dtype == TensorDataType::FLOAT32_FTZ};
  const unsigned n = elem_bytes(*type);
  for_each_stored_piece(map, a, global.size, p, [&](const BoxPiece& piece) {
    std::uint8_t src[8];
    for (std::uint32_t j = 0; j < n; ++j) {
      const std::uint64_t addr = swizzle_address(map.swizzle, a.smem_offset + piece.smem_off + j, p);
      need(addr < window.size, "tensor reduce reads shared byte " + std::to_string(addr) + " beyond the window");
      src[j] = window.data[addr];
    }
    std::uint8_t* dst = global.data + piece.global_off;
    store_le(dst, n, reduce_element(rop, load_le(dst, n), load_le(src, n), p, ctx));
  });
}

std::string tensor_access_trap(const TensorMapParams& map, const TensorAccess& a, const PolicySet& p) {
  const bool tile_like = a.mode == TensorMode::tile || a.mode == TensorMode::im2col ||
                         a.mode == TensorMode::im2col_no_offs;
  if (tile_like && !is_packed(map.dtype) &&
      p.get<CoordAlignment>(PolicyId::tensor_coord_alignment) == CoordAlignment::trap_16B) {
    const std::int64_t bytes = std::int64_t(a.coords[0]) * (element_bits(map.dtype) / 8);
    if (bytes % 16 != 0)
      return "innermost start coordinate " + std::to_string(a.coords[0]) + " is " + std::to_string(bytes) +
             " bytes, not a multiple of 16 (tensor_coord_alignment=16B_trap)";
  }
  if (tile_like && a.smem_offset % 128 != 0 &&
      p.get<SmemAlignment>(PolicyId::tensor_smem_alignment) == SmemAlignment::trap_128B)
    return "shared-memory address " + std::to_string(a.smem_offset) +
           " (from a 1024-byte-aligned base) is not 128-byte aligned (tensor_smem_alignment=128B_trap)";
  if (a.mode == TensorMode::im2col &&
      p.get<Im2colStartOutside>(PolicyId::im2col_start_outside_box) == Im2colStartOutside::trap) {
    static const char* names[] = {"W", "H", "D"};
    for (unsigned s = 0; s + 2 < map.rank; ++s) {
      const std::int64_t c = a.coords[1 + s];
      const std::int64_t lo = map.lower_corner[s], hi = std::int64_t(map.dims[1 + s]) + map.upper_corner[s];
      if (c < lo || c >= hi)
        return std::string("im2col start ") + names[s] + " = " + std::to_string(c) + " lies outside the bounding box [" +
               std::to_string(lo) + ", " + std::to_string(hi) + ") (im2col_start_outside_box=trap)";
    }
  }
  return {};
}

std::uint64_t tensor_global_bytes(const TensorMapParams& map) {
  std::uint64_t row = ceil_div(map.dims[0] * element_bits(map.dtype), 8);
  // An interleaved map's row under interleave_tile_box=chunk_rows is globalDim[0] chunks (16 or 32 bytes), which
  // may run past the last element (and past the next row's start): the tensor spans whichever row is longer, so
  // that each reading of its tile copies places its pieces inside it.
  if (map.interleave != Interleave::NONE)
    row = std::max<std::uint64_t>(row, map.dims[0] * (map.interleave == Interleave::B32 ? 32 : 16));
  // The last element's end: row bytes plus every dimension's stride times (dim - 1). For dense strides this is
  // the product of the dims; padding after the last row is not included.
  std::uint64_t extent = row;
  for (unsigned i = 1; i < map.rank; ++i) extent += map.strides[i - 1] * (map.dims[i] - 1);
  return extent;
}

std::vector<std::uint8_t> make_index_tensor(const TensorMapParams& map, std::uint64_t base) {
  std::vector<std::uint8_t> buf(tensor_global_bytes(map), 0);
  const unsigned bits = element_bits(map.dtype);
  const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << bits) - 1);
  std::uint64_t rows = 1;
  for (unsigned i = 1; i < map.rank; ++i) rows *= map.dims[i];
  std::uint64_t linear = 0;
  for (std::uint64_t r = 0; r < rows; ++r) {
    std::uint64_t row_off = 0, rest = r;
    for (unsigned i = 1; i < map.rank; ++i) {
      row_off += map.strides[i - 1] * (rest % map.dims[i]);
      rest /= map.dims[i];
    }
    for (std::uint64_t i0 = 0; i0 < map.dims[0]; ++i0, ++linear) {
      const std::uint64_t v = (base + linear) & mask;
      if (bits % 8 == 0) {
        need(row_off + (i0 + 1) * bits / 8 <= buf.size(), "strides place an element outside the tensor's bytes");
        store_le(buf.data() + row_off + i0 * bits / 8, bits / 8, v);
        continue;
      }
      for (unsigned b = 0; b < bits; ++b) {  // packed: value i0 occupies bits [i0*bits, (i0+1)*bits) of the row
        const std::uint64_t bit = i0 * bits + b;
        if ((v >> b) & 1) buf[row_off + bit / 8] |= static_cast<std::uint8_t>(1u << (bit % 8));
      }
    }
  }
  return buf;
}

}  // namespace ptxcts::ref
