// Non-tensor copy semantics: cp.async, cp.async.bulk (each direction, .cp_mask, .multicast::cluster),
// cp.reduce.async.bulk into global or into another CTA's shared memory. All functions operate on byte spans
// the caller owns (a CTA's window image, a global buffer) and throw ModelError for operands the chapter
// leaves undefined, naming the operand and the sentence.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ptxcts/ref/policy.hpp"
#include "ptxcts/ref/reduce.hpp"
#include "ptxcts/ref/types.hpp"

namespace ptxcts::ref {

// cp.async [dst], [src], cp-size{, src-size}{, ignore-src}: writes exactly cp-size bytes at dst.
// src-size bytes come from src (src-size < cp-size: the rest are zeros); ignore-src true: cp-size zeros.
// `dst` must hold at least cp-size bytes, `src` at least the bytes read. Returns the bytes written (cp-size).
struct CpAsyncArgs {
  unsigned cp_size = 16;                 // 4, 8, 16 (.cg: 16 only)
  std::optional<std::uint32_t> src_size; // absent: cp-size
  bool ignore_src = false;
  bool cg = false;  // .cg variant
};
unsigned cp_async(ByteSpan dst, ConstByteSpan src, const CpAsyncArgs& args);

// Checks a bulk operand set: size a multiple of 16, each span holding `size` bytes, offsets 16-aligned.
void check_bulk_size(std::uint32_t size, const char* what);

// cp.async.bulk in any direction (global->shared::cta, global->shared::cluster, shared::cta->shared::cluster,
// shared::cta->global): dst[0..size) = src[0..size). Returns the complete-tx byte count (size).
std::uint32_t bulk_copy(ByteSpan dst, ConstByteSpan src, std::uint32_t size);

// cp.async.bulk.global.shared::cta...cp_mask: byte i of each 16-byte chunk is copied iff bit i of byteMask is set;
// other destination bytes keep their value.
void bulk_copy_cp_mask(ByteSpan dst, ConstByteSpan src, std::uint32_t size, std::uint16_t byte_mask);

// cp.async.bulk.shared::cta.global ... .ignore_oob [dstMem], [srcMem], size, ignoreBytesLeft, ignoreBytesRight
// (PTX ISA 9.2): "up to 15 bytes at the beginning or ending of [srcMem .. srcMem+size) may be out-of-bounds of a
// global memory allocation, and the value of the corresponding bytes in destination shared memory [dstMem ..
// dstMem+size) is indeterminate". Copies the determinate bytes (the others keep their value: the caller does not
// judge them, IgnoredBytes says which they are) and returns the complete-tx byte count, which the text leaves
// open (policy ignore_oob_tx_bytes). Throws for a count outside [0..15] ("any other value may result in undefined
// behavior").
struct IgnoredBytes {
  std::uint32_t left = 0, right = 0;  // [0, left) and [size - right, size) of the destination are indeterminate
  bool indeterminate(std::uint32_t i, std::uint32_t size) const { return i < left || i + right >= size; }
};
std::uint32_t bulk_copy_ignore_oob(ByteSpan dst, ConstByteSpan src, std::uint32_t size, IgnoredBytes ignored,
                                   const PolicySet& policies = PolicySet{});

// One CTA's shared-memory window image (rank order in a cluster).
using Window = std::vector<std::uint8_t>;

// cp.async.bulk ... .multicast::cluster: the source goes to offset dst_off of every CTA whose bit is set in
// ctaMask; returns, per rank, the complete-tx bytes its mbarrier receives (size for a destination, 0 otherwise).
// Throws when a set bit names a rank beyond `windows`.
std::vector<std::uint32_t> bulk_copy_multicast(std::vector<Window>& windows, std::size_t dst_off, ConstByteSpan src,
                                               std::uint32_t size, std::uint16_t cta_mask);

// cp.reduce.async.bulk (either destination): dst[i] = dst[i] <op> src[i] over `size` bytes.
// The site selects the table (shared::cluster or global) and is checked: an op outside it throws.
void bulk_reduce(const ReduceOp& op, ReduceSite site, ByteSpan dst, ConstByteSpan src, std::uint32_t size,
                 const PolicySet& policies = PolicySet{});

// cp.reduce.async.bulk.shared::cluster.shared::cta: reduce from the issuing CTA's window (src_rank, src_off)
// into a CTA's window (peer, dst_off), normally another CTA's. Overlapping source and destination ranges in
// one window are refused (no order is defined between reads and writes). Returns the complete-tx bytes (size).
std::uint32_t bulk_reduce_to_peer(const ReduceOp& op, std::vector<Window>& windows, std::size_t src_rank,
                                  std::size_t src_off, std::size_t peer, std::size_t dst_off, std::uint32_t size,
                                  const PolicySet& policies = PolicySet{});

}  // namespace ptxcts::ref
