#include "ptxcts/ref/copy.hpp"

#include <cstring>
#include <string>

#include "model_checks.hpp"

namespace ptxcts::ref {

using detail::need;

unsigned cp_async(ByteSpan dst, ConstByteSpan src, const CpAsyncArgs& args) {
  const unsigned n = args.cp_size;
  need(n == 4 || n == 8 || n == 16, "cp.async: cp-size " + std::to_string(n) + ": 'cp-size can only be 4, 8 and 16'");
  need(!args.cg || n == 16, "cp.async.cg: cp-size " + std::to_string(n) + ": .cg takes cp-size 16 only");
  need(!(args.src_size && args.ignore_src), "cp.async: src-size and ignore-src are alternative operands");
  need(dst.size >= n, "cp.async: destination holds " + std::to_string(dst.size) + " bytes, cp-size is " +
                          std::to_string(n));
  std::uint32_t from_src = n;
  if (args.src_size) {
    need(*args.src_size <= n, "cp.async: src-size " + std::to_string(*args.src_size) + " > cp-size " +
                                  std::to_string(n) + ": 'Specifying src-size larger than cp-size results in "
                                  "undefined behavior'");
    from_src = *args.src_size;
  }
  if (args.ignore_src) from_src = 0;  // 'If the source data is ignored then zeros will be copied to destination'
  need(src.size >= from_src, "cp.async: source holds " + std::to_string(src.size) + " bytes, " +
                                 std::to_string(from_src) + " are read");
  if (from_src) std::memcpy(dst.data, src.data, from_src);
  std::memset(dst.data + from_src, 0, n - from_src);  // 'remaining bytes in destination dst are filled with zeros'
  return n;
}

void check_bulk_size(std::uint32_t size, const char* what) {
  need(size % 16 == 0, std::string(what) + ": size " + std::to_string(size) +
                           ": 'size must be a multiple of 16. If the value is not a multiple of 16, then the "
                           "behavior is undefined.'");
}

std::uint32_t bulk_copy(ByteSpan dst, ConstByteSpan src, std::uint32_t size) {
  check_bulk_size(size, "cp.async.bulk");
  need(dst.size >= size && src.size >= size,
       "cp.async.bulk: 'The memory range [dstMem, dstMem + size - 1] must not overflow the destination memory space "
       "and the memory range [srcMem, srcMem + size - 1] must not overflow the source memory space'");
  if (size) std::memmove(dst.data, src.data, size);
  return size;
}

void bulk_copy_cp_mask(ByteSpan dst, ConstByteSpan src, std::uint32_t size, std::uint16_t byte_mask) {
  check_bulk_size(size, "cp.async.bulk.cp_mask");
  need(dst.size >= size && src.size >= size, "cp.async.bulk.cp_mask: a range overflows its memory space");
  // 'The i-th bit in the 16-bit wide byteMask operand specifies whether the i-th byte of each 16-byte wide chunk
  // of source data is copied to the destination.'
  for (std::uint32_t i = 0; i < size; ++i)
    if ((byte_mask >> (i % 16)) & 1) dst.data[i] = src.data[i];
}

std::vector<std::uint32_t> bulk_copy_multicast(std::vector<Window>& windows, std::size_t dst_off, ConstByteSpan src,
                                               std::uint32_t size, std::uint16_t cta_mask) {
  check_bulk_size(size, "cp.async.bulk.multicast::cluster");
  std::vector<std::uint32_t> tx(windows.size(), 0);
  for (unsigned r = 0; r < 16; ++r) {
    if (!((cta_mask >> r) & 1)) continue;
    need(r < windows.size(), "cp.async.bulk.multicast::cluster: ctaMask bit " + std::to_string(r) +
                                 " names a CTA outside the cluster of " + std::to_string(windows.size()));
    Window& w = windows[r];
    need(dst_off + size <= w.size(), "multicast: destination range overflows CTA " + std::to_string(r) + "'s window");
    // 'The source data is multicast to the same CTA-relative offset as dstMem in the shared memory of each
    // destination CTA.'
    bulk_copy(ByteSpan{w.data() + dst_off, size}, src, size);
    tx[r] = size;
  }
  return tx;
}

std::uint32_t bulk_copy_ignore_oob(ByteSpan dst, ConstByteSpan src, std::uint32_t size, IgnoredBytes ignored,
                                   const PolicySet& policies) {
  check_bulk_size(size, "cp.async.bulk .ignore_oob");
  need(ignored.left <= 15 && ignored.right <= 15,
       "cp.async.bulk .ignore_oob: 'The only valid values for ignoreBytesLeft and ignoreBytesRight are [0..15], and "
       "any other value may result in undefined behavior.' (got " + std::to_string(ignored.left) + ", " +
           std::to_string(ignored.right) + ")");
  need(dst.size >= size && src.size >= size,
       "cp.async.bulk .ignore_oob: 'The memory range [dstMem, dstMem + size - 1] "
       "must not overflow the destination memory space and the memory range [srcMem, srcMem + size - 1] must not "
       "overflow the source memory space'");
  std::uint32_t determinate = 0;
  for (std::uint32_t i = 0; i < size; ++i)
    if (!ignored.indeterminate(i, size)) {
      dst.data[i] = src.data[i];
      ++determinate;
    }
  return policies.get<IgnoreOobTxBytes>(PolicyId::ignore_oob_tx_bytes) == IgnoreOobTxBytes::size ? size : determinate;
}

void bulk_reduce(const ReduceOp& op, ReduceSite site, ByteSpan dst, ConstByteSpan src, std::uint32_t size,
                 const PolicySet& policies) {
  check_bulk_size(size, "cp.reduce.async.bulk");
  std::string why;
  need(site != ReduceSite::tensor, "bulk_reduce: the tensor site is cp.reduce.async.bulk.tensor (tensor.hpp)");
  const bool allowed = reduce_op_allowed(site, op, &why);  // before the message reads `why` (argument order)
  need(allowed, "cp.reduce.async.bulk ." + to_string(op) + ": " + why);
  need(dst.size >= size && src.size >= size, "cp.reduce.async.bulk: a range overflows its memory space");
  reduce_array(op, ByteSpan{dst.data, size}, ConstByteSpan{src.data, size}, policies, ReduceContext{site, false});
}

std::uint32_t bulk_reduce_to_peer(const ReduceOp& op, std::vector<Window>& windows, std::size_t src_rank,
                                  std::size_t src_off, std::size_t peer, std::size_t dst_off, std::uint32_t size,
                                  const PolicySet& policies) {
  need(src_rank < windows.size() && peer < windows.size(), "cp.reduce.async.bulk.shared::cluster: rank outside the cluster");
  need(src_off + size <= windows[src_rank].size(), "cp.reduce.async.bulk: source range overflows the window");
  need(dst_off + size <= windows[peer].size(), "cp.reduce.async.bulk: destination range overflows the window");
  need(peer != src_rank || src_off + size <= dst_off || dst_off + size <= src_off,
       "cp.reduce.async.bulk: source and destination ranges overlap in one window");
  bulk_reduce(op, ReduceSite::bulk_shared_cluster, ByteSpan{windows[peer].data() + dst_off, size},
              ConstByteSpan{windows[src_rank].data() + src_off, size}, size, policies);
  return size;
}

}  // namespace ptxcts::ref
