// Tensor copies: where each element of a tensor-map box lands in shared memory (tile, tile::gather4 /
// scatter4, im2col, im2col_no_offs, im2col::w, im2col::w::128), OOB fill, swizzle on the absolute shared
// address, interleave, the packed sub-byte types, the bytes credited to the mbarrier; loads, stores and
// reductions over caller-owned byte spans. Sources: NOTES.md (layout model, swizzle formulas, im2col walk),
// the chapter (restrictions on tensor copies), the driver documentation (elementStrides, packed types).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ptxcts/ref/copy.hpp"
#include "ptxcts/ref/policy.hpp"
#include "ptxcts/ref/reduce.hpp"
#include "ptxcts/ref/tensormap.hpp"
#include "ptxcts/ref/types.hpp"

namespace ptxcts::ref {

// The load_mode of the instruction. gather4 (loads) and scatter4 (stores) share one layout; im2col_no_offs is
// im2col with zero offsets (stores and reductions).
enum class TensorMode : std::uint8_t { tile, gather4, scatter4, im2col, im2col_no_offs, im2col_w, im2col_w128 };
const char* to_string(TensorMode m);
std::optional<TensorMode> parse_tensor_mode(std::string_view s);
// The encode function a mode's tensor map comes from (tile/gather4/scatter4: Tiled; im2col*: Im2col;
// im2col::w*: Im2colWide).
EncodeKind encode_kind_for(TensorMode m);

// The instruction's operands other than the map.
struct TensorAccess {
  TensorMode mode = TensorMode::tile;
  std::array<std::int32_t, 5> coords{};           // tensorCoords; gather4/scatter4: {col, row0, row1, row2, row3}
  std::array<std::uint16_t, 3> im2col_offsets{};  // im2colInfo for .im2col: {offW, offH, offD}
  std::uint16_t w_halo = 0;                       // im2colInfo for .im2col::w / ::w::128
  std::uint16_t w_offset = 0;
  std::uint32_t smem_offset = 0;  // dstMem / srcMem: bytes from a 1024-byte-aligned shared-memory base
};

// The driver must reject this map (validate_encode found a violated rule): carries the first violation.
class TensorMapRejected : public ModelError {
 public:
  TensorMapRejected(EncodeKind kind, RuleViolation v);
  EncodeKind kind;
  RuleViolation violation;
};

// One piece of the box: `data_bytes` bytes of one element (or of one packed unit of 2 or 16 values) at
// `smem_off` (relative to dstMem, before swizzle), followed by `gap_bytes` padding (16U4_ALIGN16B: 8,
// 16U6_ALIGN16B: 4). In bounds: the bytes at `global_off` of the tensor; out of bounds: the OOB fill.
struct BoxPiece {
  std::uint32_t smem_off = 0;
  std::uint32_t data_bytes = 0;
  std::uint32_t gap_bytes = 0;
  bool in_bounds = false;
  std::uint64_t global_off = 0;
  std::array<std::int64_t, 5> coords{};  // tensor coordinates of the piece's first value (for messages)
};

// The box in shared-memory order. Validates the map (throws TensorMapRejected) and the access (ModelError).
std::vector<BoxPiece> tensor_box(const TensorMapParams& map, const TensorAccess& access,
                                 const PolicySet& policies = PolicySet{});

// Bytes credited to the mbarrier by a load: the box's shared-memory bytes, OOB elements included.
std::uint32_t tensor_tx_bytes(const TensorMapParams& map, const TensorAccess& access,
                              const PolicySet& policies = PolicySet{});

// The shared-memory bytes the box occupies from dstMem / srcMem under the policies: to the end of its last piece
// (gaps and row padding included), rounded up to the 128-byte line, since a swizzle moves bytes only within their
// 128-byte line. A caller sizes its shared-memory window by the largest extent any named alternative gives, so that
// a device laying the box out as an alternative does stays inside memory the caller owns and compares.
std::uint32_t tensor_smem_extent(const TensorMapParams& map, const TensorAccess& access,
                                 const PolicySet& policies = PolicySet{});

// The largest tensor_smem_extent under the default and each single alternative of the policies that shape the box
// in shared memory (swizzle_narrow_box, interleave_row_pitch, im2col_wrap_stride, im2col_w_halo); an alternative
// that cannot state the access is left out. What a case's window needs past dstMem / srcMem.
std::uint32_t tensor_smem_extent_any(const TensorMapParams& map, const TensorAccess& access);

// The shared-memory address a byte at absolute address A (offset from a 1024-byte-aligned base) is written to.
std::uint64_t swizzle_address(Swizzle s, std::uint64_t a, const PolicySet& policies = PolicySet{});

// The bytes an OOB element receives (little-endian pattern of the element's width): zero for OobFill::NONE.
std::uint64_t oob_fill_pattern(TensorDataType t, OobFill f, const PolicySet& policies = PolicySet{});

// The reduce element type a map's data type gives for a redOp (UINT32: .u32, or .b32 for and/or/xor; INT32:
// .s32; UINT64: .u64/.b64; INT64: .s64/.b64; FLOAT16: .f16; BFLOAT16: .bf16; FLOAT32(_FTZ): .f32;
// FLOAT64: .f64); nullopt for types with no reduce element type.
std::optional<ElemType> tensor_reduce_type(TensorDataType t, RedOp op);

// An fp32 bit pattern rounded to tf32 as policy tensor_tf32_load=round_nearest_even states.
std::uint32_t tf32_round_nearest_even(std::uint32_t f32);

struct ByteWrite {
  std::uint32_t addr;  // absolute shared address (from the 1024-byte-aligned base)
  std::uint8_t value;
};
// Every byte a load writes, in box order. `global` is the tensor's memory starting at globalAddress.
std::vector<ByteWrite> tensor_load_writes(const TensorMapParams& map, const TensorAccess& access, ConstByteSpan global,
                                          const PolicySet& policies = PolicySet{});
// Applies a load to `window` (a CTA's shared memory from the 1024-byte-aligned base). Returns tx bytes.
std::uint32_t tensor_load(const TensorMapParams& map, const TensorAccess& access, ConstByteSpan global,
                          ByteSpan window, const PolicySet& policies = PolicySet{});
// .multicast::cluster: the same load at the same offset in every CTA whose bit is set in ctaMask; returns
// per rank the tx bytes its mbarrier receives (0 for CTAs outside the mask). Throws for a bit beyond `windows`.
std::vector<std::uint32_t> tensor_load_multicast(const TensorMapParams& map, const TensorAccess& access,
                                                 ConstByteSpan global, std::vector<Window>& windows,
                                                 std::uint16_t cta_mask, const PolicySet& policies = PolicySet{});
// cp.async.bulk.tensor global <- shared::cta: in-bounds elements written, OOB ones not.
void tensor_store(const TensorMapParams& map, const TensorAccess& access, ByteSpan global, ConstByteSpan window,
                  const PolicySet& policies = PolicySet{});
// cp.reduce.async.bulk.tensor: in-bounds elements reduced, OOB ones untouched.
void tensor_reduce(const TensorMapParams& map, const TensorAccess& access, RedOp op, ByteSpan global,
                   ConstByteSpan window, const PolicySet& policies = PolicySet{});

// Whether the access traps under the selected policies (tensor_coord_alignment, tensor_smem_alignment, im2col_start_outside_box): the
// reason, or empty when the copy completes. Under the default policies no access traps.
std::string tensor_access_trap(const TensorMapParams& map, const TensorAccess& access,
                               const PolicySet& policies = PolicySet{});

// The bytes a tensor occupies from globalAddress: up to the end of its last element, or with interleave up to the
// end of its last row of globalDim[0] chunks (interleave_tile_box=chunk_rows), whichever is later.
std::uint64_t tensor_global_bytes(const TensorMapParams& map);
// A tensor whose element at linear index i (innermost dimension fastest) holds base + i truncated to the
// element width (packed types: bit-packed, value i at bit i*bits of its row). Padding bytes are zero.
std::vector<std::uint8_t> make_index_tensor(const TensorMapParams& map, std::uint64_t base);

}  // namespace ptxcts::ref
