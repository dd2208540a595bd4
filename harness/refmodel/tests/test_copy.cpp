// cp.async, cp.async.bulk (.cp_mask, .multicast::cluster), cp.reduce.async.bulk into global and into a peer CTA.
#include <gtest/gtest.h>

#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "ptxcts/ref/copy.hpp"
#include "model_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;

namespace {
std::vector<std::uint8_t> iota_bytes(std::size_t n, std::uint8_t first) {
  std::vector<std::uint8_t> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}
ByteSpan span(std::vector<std::uint8_t>& v, std::size_t off = 0) { return ByteSpan{v.data() + off, v.size() - off}; }
ConstByteSpan cspan(const std::vector<std::uint8_t>& v) { return ConstByteSpan{v.data(), v.size()}; }
}  // namespace

TEST(CpAsync, FullCopyEachCpSize) {
  for (unsigned n : {4u, 8u, 16u}) {
    const auto src = iota_bytes(16, 1);
    std::vector<std::uint8_t> dst(20, 0xee);
    EXPECT_EQ(cp_async(span(dst), cspan(src), CpAsyncArgs{n, std::nullopt, false, false}), n);
    for (unsigned i = 0; i < n; ++i) EXPECT_EQ(dst[i], i + 1) << n;
    for (unsigned i = n; i < 20; ++i) EXPECT_EQ(dst[i], 0xee) << "byte " << i << " beyond cp-size changed";
  }
}

// 'src-size ... represents the size of the data in bytes to be copied from src to dst and must be less than
// cp-size. In such case, remaining bytes in destination dst are filled with zeros.' cp-size 16, src-size 5:
// bytes 0..4 = source 1..5, bytes 5..15 = 0.
TEST(CpAsync, SrcSizeZeroFills) {
  const auto src = iota_bytes(16, 1);
  std::vector<std::uint8_t> dst(16, 0xee);
  cp_async(span(dst), cspan(src), CpAsyncArgs{16, 5u, false, true});
  for (unsigned i = 0; i < 5; ++i) EXPECT_EQ(dst[i], i + 1);
  for (unsigned i = 5; i < 16; ++i) EXPECT_EQ(dst[i], 0);
  // src-size 0 is all zeros; the source is not read (a zero-length source span is enough).
  std::vector<std::uint8_t> dst2(8, 0xee);
  cp_async(span(dst2), ConstByteSpan{nullptr, 0}, CpAsyncArgs{8, 0u, false, false});
  for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(dst2[i], 0);
}

TEST(CpAsync, IgnoreSrcWritesZeros) {
  const auto src = iota_bytes(16, 1);
  std::vector<std::uint8_t> dst(16, 0xee);
  cp_async(span(dst), cspan(src), CpAsyncArgs{4, std::nullopt, true, false});
  for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(dst[i], 0);
  for (unsigned i = 4; i < 16; ++i) EXPECT_EQ(dst[i], 0xee);
  // ignore-src false copies.
  cp_async(span(dst), cspan(src), CpAsyncArgs{4, std::nullopt, false, false});
  EXPECT_EQ(dst[3], 4);
}

TEST(CpAsync, UndefinedOperandsAreRefused) {
  const auto src = iota_bytes(16, 1);
  std::vector<std::uint8_t> dst(16);
  EXPECT_THROW(cp_async(span(dst), cspan(src), CpAsyncArgs{2, std::nullopt, false, false}), ModelError);
  EXPECT_THROW(cp_async(span(dst), cspan(src), CpAsyncArgs{8, std::nullopt, false, true}), ModelError);  // .cg 8
  EXPECT_THROW(cp_async(span(dst), cspan(src), CpAsyncArgs{8, 9u, false, false}), ModelError);  // src-size > cp-size
  try {
    cp_async(span(dst), cspan(src), CpAsyncArgs{4, 7u, false, false});
    ADD_FAILURE() << "no throw";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("src-size 7 > cp-size 4"), std::string::npos) << e.what();
  }
}

TEST(BulkCopy, CopiesSizeBytesOnly) {
  const auto src = iota_bytes(64, 0);
  std::vector<std::uint8_t> dst(64, 0xee);
  EXPECT_EQ(bulk_copy(span(dst), cspan(src), 32), 32u);
  for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(dst[i], i);
  for (unsigned i = 32; i < 64; ++i) EXPECT_EQ(dst[i], 0xee);
  EXPECT_THROW(bulk_copy(span(dst), cspan(src), 24), ModelError);  // not a multiple of 16
  EXPECT_THROW(bulk_copy(span(dst), cspan(src), 80), ModelError);  // overflows
}

// byteMask 0x8001: bytes 0 and 15 of each 16-byte chunk copied; all others keep the destination's value.
TEST(BulkCopy, CpMaskPerChunk) {
  const auto src = iota_bytes(32, 0x40);
  std::vector<std::uint8_t> dst(32, 0xee);
  bulk_copy_cp_mask(span(dst), cspan(src), 32, 0x8001);
  for (unsigned i = 0; i < 32; ++i) {
    const bool copied = (i % 16 == 0) || (i % 16 == 15);
    EXPECT_EQ(dst[i], copied ? 0x40 + i : 0xee) << i;
  }
  std::vector<std::uint8_t> dst2(16, 0xee);
  bulk_copy_cp_mask(span(dst2), cspan(src), 16, 0x0000);
  for (auto b : dst2) EXPECT_EQ(b, 0xee);
  bulk_copy_cp_mask(span(dst2), cspan(src), 16, 0xffff);
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(dst2[i], 0x40 + i);
}

// .ignore_oob (PTX ISA 9.2): the bytes between the ignored ends are copied, the ignored ones are left for the judge
// to skip; the credit is `size` or only the determinate bytes, by policy ignore_oob_tx_bytes.
TEST(BulkCopy, IgnoreOobCopiesTheDeterminateBytesAndCreditsByPolicy) {
  const auto src = iota_bytes(48, 0x10);
  std::vector<std::uint8_t> dst(48, 0xee);
  const IgnoredBytes ignored{3, 9};
  EXPECT_EQ(bulk_copy_ignore_oob(span(dst), cspan(src), 48, ignored), 48u);
  for (unsigned i = 0; i < 48; ++i) {
    EXPECT_EQ(ignored.indeterminate(i, 48), i < 3 || i >= 39) << i;
    EXPECT_EQ(dst[i], ignored.indeterminate(i, 48) ? 0xee : 0x10 + i) << i;
  }
  PolicySet p;
  p.set("ignore_oob_tx_bytes", "determinate");
  EXPECT_EQ(bulk_copy_ignore_oob(span(dst), cspan(src), 48, ignored, p), 36u);
  // 16 bytes with 15 ignored at both ends: every byte is indeterminate, nothing is credited but by `size`
  EXPECT_EQ(bulk_copy_ignore_oob(span(dst), cspan(src), 16, IgnoredBytes{15, 15}, p), 0u);
  EXPECT_EQ(bulk_copy_ignore_oob(span(dst), cspan(src), 16, IgnoredBytes{0, 0}, p), 16u);
}

TEST(BulkCopy, IgnoreOobRefusesACountPast15) {
  const auto src = iota_bytes(32, 0);
  std::vector<std::uint8_t> dst(32, 0);
  EXPECT_THROW(bulk_copy_ignore_oob(span(dst), cspan(src), 32, IgnoredBytes{16, 0}), ModelError);
  EXPECT_THROW(bulk_copy_ignore_oob(span(dst), cspan(src), 32, IgnoredBytes{0, 16}), ModelError);
}

// ctaMask 0b1010 in a cluster of 4: ranks 1 and 3 receive the data at dst_off and size tx bytes; 0 and 2 nothing.
TEST(BulkCopy, MulticastToEveryMaskedCta) {
  std::vector<Window> w(4, Window(64, 0xee));
  const auto src = iota_bytes(16, 7);
  const auto tx = bulk_copy_multicast(w, 32, cspan(src), 16, 0b1010);
  EXPECT_EQ(tx, (std::vector<std::uint32_t>{0, 16, 0, 16}));
  for (unsigned r = 0; r < 4; ++r)
    for (unsigned i = 0; i < 64; ++i) {
      const bool dest = (r == 1 || r == 3) && i >= 32 && i < 48;
      EXPECT_EQ(w[r][i], dest ? 7 + (i - 32) : 0xee) << "rank " << r << " byte " << i;
    }
  EXPECT_THROW(bulk_copy_multicast(w, 0, cspan(src), 16, 0x10), ModelError);  // rank 4 outside the cluster
}

// cp.reduce.async.bulk.shared::cluster: rank 0's bytes 0..15 (four u32: 1,2,3,4) added into rank 1 at 16
// (four u32: 10,20,30,0xffffffff) -> 11, 22, 33, 3 (wrap).
TEST(BulkReduce, IntoPeerSharedMemory) {
  std::vector<Window> w(2, Window(32, 0));
  const std::uint32_t a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 0xffffffffu};
  for (int i = 0; i < 4; ++i) {
    store_le(w[0].data() + 4 * i, 4, a[i]);
    store_le(w[1].data() + 16 + 4 * i, 4, b[i]);
  }
  EXPECT_EQ(bulk_reduce_to_peer(ReduceOp{RedOp::add, ElemType::u32, false}, w, 0, 0, 1, 16, 16), 16u);
  const std::uint32_t want[4] = {11, 22, 33, 3};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(load_le(w[1].data() + 16 + 4 * i, 4), want[i]);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(w[1][i], 0);  // outside the range untouched
  // .add.f32 is in the global table only.
  EXPECT_THROW(bulk_reduce_to_peer(ReduceOp{RedOp::add, ElemType::f32, false}, w, 0, 0, 1, 16, 16), ModelError);
  EXPECT_THROW(bulk_reduce_to_peer(ReduceOp{RedOp::add, ElemType::u32, false}, w, 1, 0, 1, 8, 16), ModelError);
}

TEST(BulkReduce, GlobalMinS64) {
  std::vector<std::uint8_t> dst(16), src(16);
  store_le(dst.data(), 8, 5);
  store_le(dst.data() + 8, 8, 0x8000000000000000ull);
  store_le(src.data(), 8, 0xffffffffffffffffull);  // -1
  store_le(src.data() + 8, 8, 0);
  bulk_reduce(ReduceOp{RedOp::min, ElemType::s64, false}, ReduceSite::bulk_global, span(dst), cspan(src), 16);
  EXPECT_EQ(load_le(dst.data(), 8), 0xffffffffffffffffull);  // min(5, -1) = -1
  EXPECT_EQ(load_le(dst.data() + 8, 8), 0x8000000000000000ull);  // min(INT64_MIN, 0)
  EXPECT_THROW(bulk_reduce(ReduceOp{RedOp::min, ElemType::s64, false}, ReduceSite::bulk_shared_cluster, span(dst),
                           cspan(src), 16),
               ModelError);
}

// copy.hpp: bulk_reduce_to_peer refuses a rank outside the cluster (the windows), any rank past the last, not only
// the first one past it.
// Catches bulk_reduce_to_peer's rank bound 'src_rank < windows.size()' turned into '!='.
TEST(BulkReduce, PeerRankPastTheClusterIsRefused) {
  std::vector<Window> w(2, Window(32, 0));
  const ReduceOp add{RedOp::add, ElemType::u32, false};
  EXPECT_THROW(bulk_reduce_to_peer(add, w, 2, 0, 1, 0, 16), ModelError);
  EXPECT_THROW(bulk_reduce_to_peer(add, w, 5, 0, 1, 0, 16), ModelError);
  EXPECT_THROW(bulk_reduce_to_peer(add, w, 0, 0, 7, 0, 16), ModelError);
}

// The chapter for cp.async: '.cg ... cp-size 16'; the refusal names the operand and the rule.
// Catches cp_async's refusal with the rule's text emptied.
TEST(CpAsync, CgRefusalNamesTheRule) {
  std::vector<std::uint8_t> src(16, 1), dst(16, 0);
  const std::string e = error_of([&] {
    cp_async(ByteSpan{dst.data(), dst.size()}, ConstByteSpan{src.data(), src.size()},
             CpAsyncArgs{8, std::nullopt, false, true});
  });
  EXPECT_NE(e.find("cp-size 8"), std::string::npos) << e;
  EXPECT_NE(e.find("16 only"), std::string::npos) << e;
}

// Multicast: 'The source data is multicast to the same CTA-relative offset as dstMem in the shared memory of each
// destination CTA'; the range [dst_off, dst_off + size) must lie in each window: an exact fit is copied, one byte
// past the end is refused.
// Catches bulk_copy_multicast's bound 'dst_off + size <= w.size()' turned into '!='.
TEST(BulkCopy, MulticastRangeExactFitAndOverflow) {
  std::vector<std::uint8_t> src(16);
  for (int i = 0; i < 16; ++i) src[i] = static_cast<std::uint8_t>(i + 1);
  std::vector<Window> w(2, Window(32, 0));
  const auto tx = bulk_copy_multicast(w, 16, ConstByteSpan{src.data(), src.size()}, 16, 0x3);
  EXPECT_EQ(tx, (std::vector<std::uint32_t>{16, 16}));
  for (int i = 0; i < 16; ++i) EXPECT_EQ(w[1][16 + i], i + 1);
  std::vector<Window> small(2, Window(31, 0));
  EXPECT_THROW(bulk_copy_multicast(small, 16, ConstByteSpan{src.data(), src.size()}, 16, 0x3), ModelError);
}

// The chapter: 'cp-size can only be 4, 8 and 16.' 12 and 32 are refused, naming the size.
// Catches cp_async's size check 'n == 8' turned into 'n >= 8'.
TEST(CpAsync, RefusesCpSizesOtherThan4_8_16) {
  std::vector<std::uint8_t> src(64, 1), dst(64, 0);
  for (unsigned n : {12u, 32u}) {
    CpAsyncArgs a;
    a.cp_size = n;
    const std::string e =
        error_of([&] { cp_async(ByteSpan{dst.data(), dst.size()}, ConstByteSpan{src.data(), src.size()}, a); });
    EXPECT_NE(e.find("cp-size " + std::to_string(n) + ": 'cp-size can only be 4, 8 and 16'"), std::string::npos) << e;
  }
}

// copy.cpp bulk_reduce_to_peer: `dst_off + size <= window` -> `>=`. A destination range that ends before the
// window's end is legal (four u32 into bytes 16..31 of a 64-byte window: 1 + 10 = 11 ...); one that runs past it is
// refused, naming the destination.
TEST(BulkReduce, PeerDestinationRangeInsideAndPast) {
  std::vector<Window> w(2, Window(64, 0));
  for (int i = 0; i < 4; ++i) {
    store_le(w[0].data() + 4 * i, 4, 1 + i);
    store_le(w[1].data() + 16 + 4 * i, 4, 10 * (i + 1));
  }
  EXPECT_EQ(bulk_reduce_to_peer(ReduceOp{RedOp::add, ElemType::u32, false}, w, 0, 0, 1, 16, 16), 16u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(load_le(w[1].data() + 16 + 4 * i, 4), 11u * (i + 1));
  const std::string m = error_of(
      [&] { bulk_reduce_to_peer(ReduceOp{RedOp::add, ElemType::u32, false}, w, 0, 0, 1, 56, 16); });
  EXPECT_NE(m.find("destination range overflows the window"), std::string::npos) << m;
}

// copy.cpp bulk_reduce: `dst.size >= size && src.size >= size` -> `||`. A source shorter than the size is refused
// even when the destination is long enough.
TEST(BulkReduce, SourceShorterThanSizeIsRefused) {
  std::vector<std::uint8_t> dst(32, 0), src(16, 1);
  const std::string m = error_of([&] {
    bulk_reduce(ReduceOp{RedOp::add, ElemType::u32, false}, ReduceSite::bulk_global, span(dst), cspan(src), 32);
  });
  EXPECT_NE(m.find("a range overflows its memory space"), std::string::npos) << m;
}
