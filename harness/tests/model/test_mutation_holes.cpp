// Tests added for faults that ./ptxcts selftest-model planted in harness/refmodel/src and the other model tests
// let through (issue 10, part 3). Each names the surviving mutant it kills and the rule it checks; every expected
// value is derived by hand from that rule (docs/POLICIES.md, the chapter's or cuda.h's sentence), never by running
// the model. The triage of the survivors that no test can kill: results/selftest/model-equivalent.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ptxcts/ref/copy.hpp"
#include "ptxcts/ref/policy.hpp"
#include "ptxcts/ref/tensor.hpp"
#include "ptxcts/ref/tensormap.hpp"
#include "tensor_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;

namespace {
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const ModelError& e) {
    return e.what();
  }
  return "(no ModelError)";
}

std::set<std::string> rules_of(const std::vector<RuleViolation>& v) {
  std::set<std::string> s;
  for (const auto& r : v) s.insert(r.rule);
  return s;
}
}  // namespace

// POLICIES.md, tensor_coord_alignment: 'Tile and im2col tensor copies: whether the innermost start coordinate
// times the element size must be a multiple of 16 bytes'. gather4/scatter4 and im2col::w / ::w::128 are neither:
// under 16B_trap a FLOAT32 start of 1 (4 bytes) traps a tile and an im2col copy, and nothing else.
// Kills tensor.cpp:473 'a.mode == TensorMode::tile' -> '>=' and 'a.mode == TensorMode::im2col' -> '>='.
TEST(MutationHoles, CoordAlignmentTrapOnlyForTileAndIm2col) {
  const auto m = tile_map(TensorDataType::FLOAT32, {64, 4}, {16, 1});
  PolicySet al;
  ASSERT_TRUE(al.set("tensor_coord_alignment", "16B_trap"));
  EXPECT_NE(tensor_access_trap(m, at({1, 0}, TensorMode::tile), al), "");
  EXPECT_NE(tensor_access_trap(m, at({1, 0, 0}, TensorMode::im2col), al), "");
  for (TensorMode mode : {TensorMode::gather4, TensorMode::scatter4, TensorMode::im2col_w, TensorMode::im2col_w128})
    EXPECT_EQ(tensor_access_trap(m, at({1, 0, 0, 0, 0}, mode), al), "") << to_string(mode);
}

// The chapter: 'For .b4x16_p64, .b6x16_p32 and .b6p2x16, the first coordinate in the tensorCoords argument vector
// must be a multiple of 128.' The model's refusal quotes that rule (the run tier and ptxcts-ref print it).
// Kills tensor.cpp:92 (the quoted sentence emptied).
TEST(MutationHoles, PackedFirstCoordinateErrorQuotesTheRule) {
  const auto m = tile_map(TensorDataType::T16U4_ALIGN16B, {256, 2}, {128, 1});
  const std::string e = error_of([&] { load(m, at({64, 0})); });
  EXPECT_NE(e.find("tensorCoords[0] = 64"), std::string::npos) << e;
  EXPECT_NE(e.find("must be a multiple of 128"), std::string::npos) << e;
}

// Every validator rule carries the documentation sentence it enforces (RuleViolation::sentence, printed by
// ptxcts-ref as 'rule NAME: SENTENCE'), and names are unique. Kills the emptied sentences of tensormap.cpp's rule
// table (e.g. line 36, global_address_align32_interleave).
TEST(MutationHoles, EveryEncodeRuleHasItsSentence) {
  std::set<std::string> names;
  for (const auto& [name, sentence] : encode_rules()) {
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    EXPECT_GE(sentence.size(), 20u) << name << ": '" << sentence << "'";
  }
  EXPECT_GE(names.size(), 20u);
}

// cuda.h, cuTensorMapEncodeIm2col: channelsPerPixel and pixelsPerColumn have upper bounds only; POLICIES.md
// (open points): 'channelsPerPixel / pixelsPerColumn of 0 -> EncodeVerdict::open (channels_per_pixel_zero,
// pixels_per_column_zero)'. Kills tensormap.cpp:260 'p.channels_per_pixel != 0' -> '!= -1'.
TEST(MutationHoles, ZeroChannelsOrPixelsAreOpenPoints) {
  TensorMapParams p;
  p.kind = EncodeKind::im2col;
  p.dtype = TensorDataType::UINT8;
  p.rank = 4;
  p.dims = {16, 8, 8, 2, 1};
  p.strides = {16, 128, 1024, 0};
  p.lower_corner = {-1, -1, 0};
  p.channels_per_pixel = 16;
  p.pixels_per_column = 32;
  EXPECT_EQ(rules_of(validate_encode(p).open).count("channels_per_pixel_zero"), 0u);
  auto c0 = p;
  c0.channels_per_pixel = 0;
  EXPECT_EQ(rules_of(validate_encode(c0).open).count("channels_per_pixel_zero"), 1u);
  auto p0 = p;
  p0.pixels_per_column = 0;
  EXPECT_EQ(rules_of(validate_encode(p0).open).count("pixels_per_column_zero"), 1u);
}

// cuda.h: 'tensorRank must be non-zero and less than or equal to the maximum supported dimensionality of 5' and
// 'boxDim array ... must be non-zero'. A rank-6 map with boxDim[1] = 0 breaks both; the verdict lists every rule
// the parameter set breaks (tensormap.hpp), so the rank violation does not hide the box one.
// Kills tensormap.cpp:205 'p.rank > 5 ? 5' -> '? 1'.
TEST(MutationHoles, OversizedRankStillChecksEveryDimension) {
  TensorMapParams p;
  p.kind = EncodeKind::tiled;
  p.dtype = TensorDataType::FLOAT32;
  p.rank = 6;
  p.dims = {64, 32, 2, 2, 2};
  p.strides = {256, 8192, 16384, 32768};
  p.box = {32, 0, 1, 1, 1};
  const auto v = rules_of(validate_encode(p).violations);
  EXPECT_EQ(v.count("rank_range"), 1u);
  EXPECT_EQ(v.count("box_dim_range"), 1u);
}

// The enumerators' names as cuda.h spells them after CU_TENSOR_MAP_SWIZZLE_ / _INTERLEAVE_ / _L2_PROMOTION_ /
// _FLOAT_OOB_FILL_ (what ptxcts-ref reads and the run tier writes). Kills tensormap.cpp:15 ("64B" and "128B"
// swapped) and the like for the other tables.
TEST(MutationHoles, EnumeratorNamesAsCudaH) {
  const std::vector<std::pair<Swizzle, const char*>> sw = {
      {Swizzle::NONE, "NONE"}, {Swizzle::B32, "32B"}, {Swizzle::B64, "64B"}, {Swizzle::B128, "128B"},
      {Swizzle::B128_ATOM_32B, "128B_ATOM_32B"}, {Swizzle::B128_ATOM_32B_FLIP_8B, "128B_ATOM_32B_FLIP_8B"},
      {Swizzle::B128_ATOM_64B, "128B_ATOM_64B"}};
  for (const auto& [s, n] : sw) {
    EXPECT_EQ(std::string(to_string(s)), n);
    EXPECT_EQ(parse_swizzle(n), s) << n;
  }
  EXPECT_EQ(std::string(to_string(Interleave::NONE)), "NONE");
  EXPECT_EQ(std::string(to_string(Interleave::B16)), "16B");
  EXPECT_EQ(std::string(to_string(Interleave::B32)), "32B");
  EXPECT_EQ(parse_interleave("16B"), Interleave::B16);
  EXPECT_EQ(std::string(to_string(L2Promotion::L2_64B)), "L2_64B");
  EXPECT_EQ(std::string(to_string(L2Promotion::L2_256B)), "L2_256B");
  EXPECT_EQ(parse_l2_promotion("L2_128B"), L2Promotion::L2_128B);
  EXPECT_EQ(std::string(to_string(OobFill::NAN_REQUEST_ZERO_FMA)), "NAN_REQUEST_ZERO_FMA");
  EXPECT_EQ(parse_oob_fill("NONE"), OobFill::NONE);
  const std::vector<std::pair<TensorDataType, const char*>> ty = {
      {TensorDataType::UINT8, "UINT8"},         {TensorDataType::UINT16, "UINT16"},
      {TensorDataType::UINT32, "UINT32"},       {TensorDataType::INT32, "INT32"},
      {TensorDataType::UINT64, "UINT64"},       {TensorDataType::INT64, "INT64"},
      {TensorDataType::FLOAT16, "FLOAT16"},     {TensorDataType::FLOAT32, "FLOAT32"},
      {TensorDataType::FLOAT64, "FLOAT64"},     {TensorDataType::BFLOAT16, "BFLOAT16"},
      {TensorDataType::FLOAT32_FTZ, "FLOAT32_FTZ"}, {TensorDataType::TFLOAT32, "TFLOAT32"},
      {TensorDataType::TFLOAT32_FTZ, "TFLOAT32_FTZ"}};
  for (const auto& [t, n] : ty) EXPECT_EQ(std::string(to_string(t)), n);
  // Element sizes (cuda.h / PTX): 8, 16, 32, 32, 64, 64, 16, 32, 64, 16, 32, 32, 32 bits.
  const unsigned bits[] = {8, 16, 32, 32, 64, 64, 16, 32, 64, 16, 32, 32, 32};
  for (std::size_t i = 0; i < ty.size(); ++i) EXPECT_EQ(element_bits(ty[i].first), bits[i]) << ty[i].second;
}

// docs/POLICIES.md lists each alternative as '`value`: what it means' in the policy's row, the cell ending at
// '<br>' or ' |'; the catalog's text must be that whole text, not a prefix of it. Kills policy.cpp:18 (an
// alternative's description emptied).
TEST(MutationHoles, PolicyDescriptionsAreWholeCellsOfPoliciesMd) {
  std::ifstream f(PTXCTS_POLICIES_MD);
  ASSERT_TRUE(f.good()) << PTXCTS_POLICIES_MD;
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string doc = ss.str();
  for (const auto& p : policy_catalog()) {
    const std::size_t row = doc.find("| `" + p.name + "` |");
    ASSERT_NE(row, std::string::npos) << p.name;
    const std::string line = doc.substr(row, doc.find('\n', row) - row);
    for (const auto& [value, what] : p.alternatives) {
      EXPECT_FALSE(what.empty()) << p.name << "=" << value;
      const std::string cell = "`" + value + "`: " + what;
      EXPECT_TRUE(line.find(cell + "<br>") != std::string::npos || line.find(cell + " |") != std::string::npos)
          << p.name << "=" << value;
    }
  }
}

// policy.hpp: describe() is '"name=value" for every policy not at its default, comma separated'.
// Kills policy.cpp:219 (a break after the first non-default policy).
TEST(MutationHoles, DescribeListsEveryDeviation) {
  PolicySet s;
  EXPECT_EQ(s.describe(), "default");
  ASSERT_TRUE(s.set("f32_add_subnormals", "keep"));
  ASSERT_TRUE(s.set("tensor_store_oob", "granule16_written"));
  const std::string d = s.describe();
  EXPECT_NE(d.find("f32_add_subnormals=keep"), std::string::npos) << d;
  EXPECT_NE(d.find("tensor_store_oob=granule16_written"), std::string::npos) << d;
  EXPECT_EQ(std::count(d.begin(), d.end(), ','), 1) << d;
}

// copy.hpp: bulk_reduce_to_peer refuses a rank outside the cluster (the windows), any rank past the last, not only
// the first one past it. Kills copy.cpp:91 'src_rank < windows.size()' -> '!='.
TEST(MutationHoles, ReduceToPeerRankPastTheCluster) {
  std::vector<Window> w(2, Window(32, 0));
  const ReduceOp add{RedOp::add, ElemType::u32, false};
  EXPECT_THROW(bulk_reduce_to_peer(add, w, 2, 0, 1, 0, 16), ModelError);
  EXPECT_THROW(bulk_reduce_to_peer(add, w, 5, 0, 1, 0, 16), ModelError);
  EXPECT_THROW(bulk_reduce_to_peer(add, w, 0, 0, 7, 0, 16), ModelError);
}

// POLICIES.md, tensor_store_oob=granule16_written: 'box elements past globalDim[0] whose bytes lie in the 16-byte
// granule holding the row's last in-bounds byte (other coordinates in bounds) are written'. UINT16 tensor 6 x 3,
// row stride 16 B (row y holds elements at 16y + 2x, x < 6; bytes 16y+12..16y+15 are padding). A store of box 8 x 2
// at {0, 1}: the shared box rows are 16 B (box row r, element x at 16r + 2x). Rows 1 and 2 get box elements 6, 7
// (shared bytes 12..15 and 28..31) at 28..31 and 44..47 under the policy; row 0 (bytes 0..15) is never touched.
// Kills tensor.cpp:416 'i < map.rank' -> 'i > map.rank' (the row offset of a granule element).
TEST(MutationHoles, StoreGranuleElementsLandInTheirOwnRow) {
  auto m = tile_map(TensorDataType::UINT16, {6, 3}, {8, 2});
  m.strides = {16, 0, 0, 0};
  std::vector<std::uint8_t> win(64);
  for (std::size_t i = 0; i < win.size(); ++i) win[i] = static_cast<std::uint8_t>(0x40 + i);
  auto run = [&](const PolicySet& p) {
    std::vector<std::uint8_t> g(64, kPoison);
    tensor_store(m, at({0, 1}), ByteSpan{g.data(), g.size()}, ConstByteSpan{win.data(), win.size()}, p);
    return g;
  };
  PolicySet gr;
  ASSERT_TRUE(gr.set("tensor_store_oob", "granule16_written"));
  for (const bool granule : {false, true}) {
    const auto g = run(granule ? gr : PolicySet{});
    for (int i = 0; i < 16; ++i) EXPECT_EQ(g[i], kPoison) << "row 0 byte " << i;
    for (int y = 1; y <= 2; ++y) {
      for (int b = 0; b < 12; ++b) EXPECT_EQ(g[16 * y + b], win[16 * (y - 1) + b]) << y << " " << b;
      for (int b = 12; b < 16; ++b)
        EXPECT_EQ(g[16 * y + b], granule ? win[16 * (y - 1) + b] : kPoison) << granule << " row " << y << " " << b;
    }
    for (int i = 48; i < 64; ++i) EXPECT_EQ(g[i], kPoison) << i;
  }
}

// The chapter for cp.async: '.cg ... cp-size 16'; the refusal names the operand and the rule.
// Kills copy.cpp:17 (the rule's text emptied from the message).
TEST(MutationHoles, CpAsyncCgRefusalNamesTheRule) {
  std::vector<std::uint8_t> src(16, 1), dst(16, 0);
  const std::string e = error_of([&] {
    cp_async(ByteSpan{dst.data(), dst.size()}, ConstByteSpan{src.data(), src.size()},
             CpAsyncArgs{8, std::nullopt, false, true});
  });
  EXPECT_NE(e.find("cp-size 8"), std::string::npos) << e;
  EXPECT_NE(e.find("16 only"), std::string::npos) << e;
}

// The reduce sites as ptxcts-ref's --site spells them (README: bulk_global|bulk_shared_cluster|tensor).
// Kills types.cpp:100 (the tensor case deleted: "?").
TEST(MutationHoles, ReduceSiteNames) {
  EXPECT_STREQ(to_string(ReduceSite::bulk_global), "bulk_global");
  EXPECT_STREQ(to_string(ReduceSite::bulk_shared_cluster), "bulk_shared_cluster");
  EXPECT_STREQ(to_string(ReduceSite::tensor), "tensor");
}

// POLICIES.md, im2col_start_outside_box=trap: a W/H/D start outside [lowerCorner, globalDim + upperCorner) traps;
// the prediction names the coordinate and that box. W dim 20, corners -1/-1: box [-1, 19); start W = 19.
// Kills tensor.cpp:489 (the message's box emptied).
TEST(MutationHoles, Im2colStartTrapNamesTheBox) {
  auto m = tile_map(TensorDataType::FLOAT32, {8, 20, 3}, {8, 1, 1});
  m.kind = EncodeKind::im2col;
  m.lower_corner = {-1, 0, 0};
  m.upper_corner = {-1, 0, 0};
  m.channels_per_pixel = 8;
  m.pixels_per_column = 16;
  PolicySet ob;
  ASSERT_TRUE(ob.set("im2col_start_outside_box", "trap"));
  const std::string t = tensor_access_trap(m, at({0, 19, 2}, TensorMode::im2col), ob);
  EXPECT_NE(t.find("W = 19"), std::string::npos) << t;
  EXPECT_NE(t.find("[-1, 19)"), std::string::npos) << t;
}

// RuleViolation::detail holds 'the offending values' (tensormap.hpp). cuda.h: 16U4_ALIGN16B needs globalDim[0] a
// multiple of 128 and swizzle 128B or 128B_ATOM_32B (or none for tiled maps). Kills tensormap.cpp:220 (detail
// reads dims[-1]) and tensormap.cpp:306 (the detail's 'swizzle ' dropped).
TEST(MutationHoles, ViolationDetailsNameTheValues) {
  auto p = tile_map(TensorDataType::T16U4_ALIGN16B, {64, 4}, {128, 4});
  p.strides = {64, 0, 0, 0};
  p.swizzle = Swizzle::B64;
  const EncodeVerdict v = validate_encode(p);
  std::map<std::string, std::string> detail;
  for (const auto& r : v.violations) detail[r.rule] = r.detail;
  ASSERT_EQ(detail.count("global_dim0_packed16b"), 1u);
  EXPECT_EQ(detail["global_dim0_packed16b"], "globalDim[0] = 64");
  ASSERT_EQ(detail.count("swizzle_u4_16b_modes"), 1u);
  EXPECT_EQ(detail["swizzle_u4_16b_modes"], "swizzle 64B");
}

// --policy takes NAME=VALUE; 'f32_add_subnormals=' has no value and is refused as not NAME=VALUE.
// Kills policy.cpp:195 'eq + 1 == assignment.size()' -> 'eq + (1-1) == ...' (refused later for another reason).
TEST(MutationHoles, PolicyAssignmentNeedsAValue) {
  PolicySet s;
  std::string why;
  EXPECT_FALSE(s.set_assignment("f32_add_subnormals=", &why));
  EXPECT_NE(why.find("is not NAME=VALUE"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(s.set_assignment("=keep", &why));
  EXPECT_NE(why.find("is not NAME=VALUE"), std::string::npos) << why;
  EXPECT_TRUE(s.set_assignment("f32_add_subnormals=keep", &why)) << why;
}

// policy.hpp: default_index is 'the model's choice when nothing is selected, with the reason in `question`':
// every question says 'Default' and names the default alternative. Kills policy.cpp:63 (the f16_minmax_nan
// question's 'Default other_operand ...' line commented out).
TEST(MutationHoles, PolicyQuestionGivesTheDefault) {
  for (const auto& p : policy_catalog()) {
    const std::string& def = p.alternatives[p.default_index].first;
    const std::size_t at_default = p.question.find("Default");
    ASSERT_NE(at_default, std::string::npos) << p.name << ": " << p.question;
    // f32_add_subnormals: 'Default: that sentence' (the chapter's current-implementation sentence it quotes).
    const bool named = p.question.find(def, at_default) != std::string::npos ||
                       p.question.compare(at_default, 22, "Default: that sentence") == 0;
    EXPECT_TRUE(named) << p.name << " default " << def << ": " << p.question;
  }
}

// The 16B_trap prediction names the start coordinate and its byte offset: FLOAT32 start 1 is 4 bytes.
// Kills tensor.cpp:479 ('innermost start coordinate N is' dropped from the message).
TEST(MutationHoles, CoordAlignmentTrapNamesTheStart) {
  const auto m = tile_map(TensorDataType::FLOAT32, {64, 4}, {16, 1});
  PolicySet al;
  ASSERT_TRUE(al.set("tensor_coord_alignment", "16B_trap"));
  const std::string t = tensor_access_trap(m, at({1, 0}), al);
  EXPECT_NE(t.find("innermost start coordinate 1 is 4 bytes"), std::string::npos) << t;
}

// cuda.h: tensor maps need compute capability 9.0; cuTensorMapEncodeIm2colWide needs 10.0. At cc 90 a tiled and an
// im2col map are accepted, an im2col::w map is rejected for im2col_wide_cc100 only.
// Kills tensormap.cpp:193 'p.kind == EncodeKind::im2col_wide' -> '<='.
TEST(MutationHoles, Im2colWideNeedsCc100Only) {
  auto t = tile_map(TensorDataType::FLOAT32, {64, 32}, {32, 8});
  EXPECT_TRUE(validate_encode(t, 90).must_accept());
  TensorMapParams i;
  i.kind = EncodeKind::im2col;
  i.dtype = TensorDataType::UINT8;
  i.rank = 4;
  i.dims = {16, 8, 8, 2, 1};
  i.strides = {16, 128, 1024, 0};
  i.lower_corner = {-1, -1, 0};
  i.channels_per_pixel = 16;
  i.pixels_per_column = 32;
  EXPECT_TRUE(validate_encode(i, 90).must_accept());
  auto w = i;
  w.kind = EncodeKind::im2col_wide;
  w.swizzle = Swizzle::B64;
  w.lower_corner = {-2, 0, 0};
  w.upper_corner = {1, 0, 0};
  EXPECT_TRUE(validate_encode(w, 100).must_accept());
  EXPECT_EQ(rules_of(validate_encode(w, 90).violations), std::set<std::string>{"im2col_wide_cc100"});
}

// Multicast: 'The source data is multicast to the same CTA-relative offset as dstMem in the shared memory of each
// destination CTA'; the range [dst_off, dst_off + size) must lie in each window: an exact fit is copied, one byte
// past the end is refused. Kills copy.cpp:69 'dst_off + size <= w.size()' -> '!='.
TEST(MutationHoles, MulticastRangeExactFitAndOverflow) {
  std::vector<std::uint8_t> src(16);
  for (int i = 0; i < 16; ++i) src[i] = static_cast<std::uint8_t>(i + 1);
  std::vector<Window> w(2, Window(32, 0));
  const auto tx = bulk_copy_multicast(w, 16, ConstByteSpan{src.data(), src.size()}, 16, 0x3);
  EXPECT_EQ(tx, (std::vector<std::uint32_t>{16, 16}));
  for (int i = 0; i < 16; ++i) EXPECT_EQ(w[1][16 + i], i + 1);
  std::vector<Window> small(2, Window(31, 0));
  EXPECT_THROW(bulk_copy_multicast(small, 16, ConstByteSpan{src.data(), src.size()}, 16, 0x3), ModelError);
}

// ---- Held-out sample (./ptxcts selftest-model --seed 2): holes its survivors showed. ----

namespace {
// An im2col / im2col::w map from explicit values (every rule checked by hand in the tests below).
TensorMapParams im2col_params(EncodeKind kind, TensorDataType t, unsigned rank, std::array<std::uint64_t, 5> dims,
                              std::array<std::uint64_t, 4> strides, std::uint32_t cpp, std::uint32_t ppc) {
  TensorMapParams p;
  p.kind = kind;
  p.dtype = t;
  p.rank = rank;
  p.dims = dims;
  p.strides = strides;
  p.channels_per_pixel = cpp;
  p.pixels_per_column = ppc;
  return p;
}
}  // namespace

// cuda.h, cuTensorMapEncodeIm2col: 'channelsPerPixel ... must be less than or equal to 256'. A UINT8 rank-4 map
// (dims 16 x 8 x 8 x 2, dense strides 16 / 128 / 1024, corners within [-128, 127], no swizzle) breaks no rule with
// 256 channels; with 257 it breaks that one only. Kills tensormap.cpp:258 '<= 256' -> '<= (256-1)'.
TEST(MutationHoles, ChannelsPerPixelUpTo256) {
  auto p = im2col_params(EncodeKind::im2col, TensorDataType::UINT8, 4, {16, 8, 8, 2, 1}, {16, 128, 1024, 0}, 256, 32);
  p.lower_corner = {-1, -1, 0};
  EXPECT_TRUE(validate_encode(p).must_accept());
  p.channels_per_pixel = 257;
  EXPECT_EQ(rules_of(validate_encode(p).violations), std::set<std::string>{"channels_per_pixel_range"});
}

// cuda.h, cuTensorMapEncodeIm2col: 'when tensorDataType is ..._16U6_ALIGN16B or ..._16U4_ALIGN16B,
// channelsPerPixel must be 128'. Rank-3 maps, globalDim[0] = 128 (a multiple of 128), strides multiples of 32
// (16U4: 128 x 4 bit = 64 B, then 64 x 8 = 512; 16U6: 128 x 6 bit = 96 B, then 96 x 8 = 768), swizzle NONE
// (allowed for both types outside im2col::w): 128 channels accepted, 64 break that rule only.
// Kills tensormap.cpp:262 '== 128' -> '== (128+1)'.
TEST(MutationHoles, PackedTypesNeed128ChannelsPerPixel) {
  for (const auto& [t, row] : {std::pair{TensorDataType::T16U4_ALIGN16B, std::uint64_t{64}},
                               std::pair{TensorDataType::T16U6_ALIGN16B, std::uint64_t{96}}}) {
    auto p = im2col_params(EncodeKind::im2col, t, 3, {128, 8, 2, 1, 1}, {row, row * 8, 0, 0}, 128, 8);
    EXPECT_TRUE(validate_encode(p).must_accept()) << to_string(t);
    p.channels_per_pixel = 64;
    EXPECT_EQ(rules_of(validate_encode(p).violations), std::set<std::string>{"channels_per_pixel_packed16b"})
        << to_string(t);
  }
}

// cuda.h, cuTensorMapEncodeIm2colWide: 'pixelsPerColumn ... must be less than or equal to 1024. This field is
// ignored when mode is CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128.' The accepted im2col::w map of Im2colWideNeedsCc100Only
// with pixelsPerColumn 2000 or 0: mode W breaks pixels_per_column_range / has the open point pixels_per_column_zero
// (POLICIES.md open points), mode W128 neither. Kills tensormap.cpp:264 '== Im2colWideMode::W128' -> '>'.
TEST(MutationHoles, W128IgnoresPixelsPerColumn) {
  auto w = im2col_params(EncodeKind::im2col_wide, TensorDataType::UINT8, 4, {16, 8, 8, 2, 1}, {16, 128, 1024, 0},
                         16, 2000);
  w.swizzle = Swizzle::B64;
  w.lower_corner = {-2, 0, 0};
  w.upper_corner = {1, 0, 0};
  EXPECT_EQ(rules_of(validate_encode(w).violations), std::set<std::string>{"pixels_per_column_range"});
  w.wide_mode = Im2colWideMode::W128;
  EXPECT_TRUE(validate_encode(w).must_accept());
  w.pixels_per_column = 0;
  EXPECT_TRUE(validate_encode(w).must_accept());
  w.wide_mode = Im2colWideMode::W;
  const auto v = validate_encode(w);
  EXPECT_TRUE(v.violations.empty());
  EXPECT_EQ(rules_of(v.open), std::set<std::string>{"pixels_per_column_zero"});
}

// cuda.h, cuTensorMapEncodeIm2colWide: 'When the tensorDataType is ..._16U6_ALIGN16B, only the following swizzle
// modes are supported: CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B'. 64B is an im2col::w mode
// but not one for 16U6. Rank-3 16U6 map (globalDim[0] 128, strides 96 / 768, channelsPerPixel 128 = 96 bytes):
// 128B and 128B_ATOM_32B accepted; 64B breaks swizzle_u6_modes (and the inner box: 96 > 64 bytes).
// Kills tensormap.cpp:301 'p.swizzle == Swizzle::B128_ATOM_32B' -> 'p.swizzle < Swizzle::B128_ATOM_32B'.
TEST(MutationHoles, U6Im2colWideSwizzleModes) {
  auto p = im2col_params(EncodeKind::im2col_wide, TensorDataType::T16U6_ALIGN16B, 3, {128, 8, 2, 1, 1},
                         {96, 768, 0, 0}, 128, 8);
  for (Swizzle s : {Swizzle::B128, Swizzle::B128_ATOM_32B}) {
    p.swizzle = s;
    EXPECT_TRUE(validate_encode(p).must_accept()) << to_string(s);
  }
  p.swizzle = Swizzle::B64;
  EXPECT_EQ(rules_of(validate_encode(p).violations),
            (std::set<std::string>{"swizzle_u6_modes", "im2col_wide_inner_box"}));
}

// tensormap.hpp: 'Swizzle span in bytes (32, 64, 128; 96 for B96; 0 for NONE)'; NOTES.md: 'swizzle span
// (32/64/128 B; all 128B_* modes: 128)'. Kills tensormap.cpp:164 (the NONE case deleted: NONE -> 128).
TEST(MutationHoles, SwizzleSpanPerMode) {
  const std::vector<std::pair<Swizzle, unsigned>> want = {
      {Swizzle::NONE, 0},          {Swizzle::B32, 32},   {Swizzle::B64, 64},
      {Swizzle::B128, 128},        {Swizzle::B128_ATOM_32B, 128}, {Swizzle::B128_ATOM_32B_FLIP_8B, 128},
      {Swizzle::B128_ATOM_64B, 128}, {Swizzle::B96, 96}};
  for (const auto& [s, n] : want) EXPECT_EQ(swizzle_span(s), n) << to_string(s);
}

// cuda.h, cuTensorMapEncodeIm2colWide: 'When interleave is CU_TENSOR_MAP_INTERLEAVE_NONE, the bounding box inner
// dimension (channelsPerPixel * element size) must be less than or equal to the swizzle size.' A UINT16 map with
// 128 channels (256 bytes) and swizzle 128B breaks it without interleave; with interleave 16B the rule does not
// apply. Kills tensormap.cpp:284 (the 'interleave NONE and a swizzle span' condition deleted).
TEST(MutationHoles, Im2colWideInnerBoxOnlyWithoutInterleave) {
  auto p = im2col_params(EncodeKind::im2col_wide, TensorDataType::UINT16, 3, {128, 8, 2, 1, 1}, {256, 2048, 0, 0},
                         128, 8);
  p.swizzle = Swizzle::B128;
  EXPECT_EQ(rules_of(validate_encode(p).violations).count("im2col_wide_inner_box"), 1u);
  p.interleave = Interleave::B16;
  EXPECT_EQ(rules_of(validate_encode(p).violations).count("im2col_wide_inner_box"), 0u);
}

// RuleViolation::detail holds 'the offending values' (tensormap.hpp); ptxcts-ref prints it (README:
// '[boxDim[0] * elementSize = 7 * 16 bits]'). cuda.h: 16U4_ALIGN8B needs globalDim[0] a multiple of 2.
// Kills tensormap.cpp:222 and tensormap.cpp:242 (the details read dims[-1] / box[-1]).
TEST(MutationHoles, ViolationDetailsNameDim0AndBox0) {
  std::map<std::string, std::string> detail;
  for (const auto& r : validate_encode(tile_map(TensorDataType::T16U4_ALIGN8B, {3, 4}, {32, 1})).violations)
    detail[r.rule] = r.detail;
  ASSERT_EQ(detail.count("global_dim0_u4_align8b"), 1u);
  EXPECT_EQ(detail["global_dim0_u4_align8b"], "globalDim[0] = 3");
  detail.clear();
  for (const auto& r : validate_encode(tile_map(TensorDataType::UINT16, {16, 4}, {7, 2})).violations)
    detail[r.rule] = r.detail;
  ASSERT_EQ(detail.count("box_inner_multiple16"), 1u);
  EXPECT_EQ(detail["box_inner_multiple16"], "boxDim[0] * elementSize = 7 * 16 bits");
}

// cuda.h: 'tensorRank must be non-zero and less than or equal to ... 5'. A rank-6 map whose five dimensions are
// otherwise valid (FLOAT32 64 x 32 x 2 x 2 x 2, dense strides, box 32 x 8 x 1 x 1 x 1) breaks that rule and no
// other: the validator reads no sixth dimension. Kills tensormap.cpp:205 'p.rank > 5 ? 5' -> 'p.rank == 5 ? 5'.
TEST(MutationHoles, OversizedRankBreaksOnlyTheRankRule) {
  auto p = tile_map(TensorDataType::FLOAT32, {64, 32, 2, 2, 2}, {32, 8, 1, 1, 1});
  EXPECT_TRUE(validate_encode(p).must_accept());
  p.rank = 6;
  const auto v = validate_encode(p);
  EXPECT_EQ(rules_of(v.violations), std::set<std::string>{"rank_range"});
  EXPECT_TRUE(v.open.empty());
}

// The chapter, restrictions on the .global.shared::cta direction: 'The bounding box along the D, W and H
// dimensions must stay within the tensor boundaries. This implies: Bounding-Box Lower-Corner must be non-negative.
// Bounding-Box Upper-Corner must be non-positive.' -- for every spatial dimension, not only W. Rank-4 UINT8 map
// (C 16, W 4, H 3, N 1): corners {W 0, H -1} or {W 0, H +1} are valid maps but refused for an im2col_no_offs store.
// Kills tensor.cpp:397 (a break after the first spatial dimension's check).
TEST(MutationHoles, StoreCornersCheckedInEverySpatialDimension) {
  auto m = im2col_params(EncodeKind::im2col, TensorDataType::UINT8, 4, {16, 4, 3, 1, 1}, {16, 64, 192, 0}, 16, 4);
  std::vector<std::uint8_t> g(192, 0), win(1024, 1);
  const auto store = [&](const TensorMapParams& map) {
    return error_of([&] {
      tensor_store(map, at({0, 0, 0, 0}, TensorMode::im2col_no_offs), ByteSpan{g.data(), g.size()},
                   ConstByteSpan{win.data(), win.size()});
    });
  };
  EXPECT_EQ(store(m), "(no ModelError)");
  auto lo = m;
  lo.lower_corner = {0, -1, 0};
  ASSERT_TRUE(validate_encode(lo).must_accept());
  EXPECT_NE(store(lo).find("'Bounding-Box Lower-Corner must be non-negative.'"), std::string::npos) << store(lo);
  auto hi = m;
  hi.upper_corner = {0, 1, 0};
  ASSERT_TRUE(validate_encode(hi).must_accept());
  EXPECT_NE(store(hi).find("'Bounding-Box Upper-Corner must be non-positive.'"), std::string::npos) << store(hi);
}

// A tensor reduce whose box reads past the shared window is refused with the byte and the reason (the run tier and
// ptxcts-ref print it). UINT32 box 8 x 1 (32 bytes) from a 16-byte window: element 4 reads shared byte 16.
// Kills tensor.cpp:464 (' beyond the window' dropped from the message).
TEST(MutationHoles, TensorReduceWindowOverrunNamesTheByte) {
  const auto m = tile_map(TensorDataType::UINT32, {8, 1}, {8, 1});
  std::vector<std::uint8_t> g(32, 0), win(16, 0);
  const std::string e = error_of([&] {
    tensor_reduce(m, at({0, 0}), RedOp::add, ByteSpan{g.data(), g.size()}, ConstByteSpan{win.data(), win.size()});
  });
  EXPECT_NE(e.find("tensor reduce reads shared byte 16 beyond the window"), std::string::npos) << e;
}

// ---- seed 4 (held out, results/selftest/model-mutation-seed4.json) -------------------------------------------------

// The chapter: 'cp-size can only be 4, 8 and 16.' 12 and 32 are refused, naming the size.
// Kills copy.cpp:16 'n == 8' -> 'n >= 8'.
TEST(MutationHoles, CpAsyncRefusesCpSizesOtherThan4_8_16) {
  std::vector<std::uint8_t> src(64, 1), dst(64, 0);
  for (unsigned n : {12u, 32u}) {
    CpAsyncArgs a;
    a.cp_size = n;
    const std::string e =
        error_of([&] { cp_async(ByteSpan{dst.data(), dst.size()}, ConstByteSpan{src.data(), src.size()}, a); });
    EXPECT_NE(e.find("cp-size " + std::to_string(n) + ": 'cp-size can only be 4, 8 and 16'"), std::string::npos) << e;
  }
}

// A tensor load whose in-bounds element lies past the end of the global memory given to the model is refused with
// the sizes (ptxcts-ref prints it). UINT8 tensor of 64, box 16 at 0, only 8 bytes of memory: the box does not fit.
// Kills tensor.cpp:83 ('tensor memory holds ' emptied).
TEST(MutationHoles, TensorLoadPastTheGlobalMemoryNamesIt) {
  const auto m = tile_map(TensorDataType::UINT8, {64}, {16});
  std::vector<std::uint8_t> g(8, 0), win(64, 0);
  const std::string e = error_of(
      [&] { tensor_load(m, at({0}), ConstByteSpan{g.data(), g.size()}, ByteSpan{win.data(), win.size()}); });
  EXPECT_EQ(e.rfind("tensor memory holds 8 bytes, the element at byte ", 0), 0u) << e;
  EXPECT_NE(e.find(" lies beyond"), std::string::npos) << e;
}

// docs/POLICIES.md: each policy's row ends with a cell that starts with its question (what is not pinned down and
// the default's reason; findings may follow). Kills policy.cpp:39 (f32_add_subnormals' question emptied).
TEST(MutationHoles, PolicyQuestionsAreTheLastCellOfPoliciesMd) {
  std::ifstream f(PTXCTS_POLICIES_MD);
  ASSERT_TRUE(f.good()) << PTXCTS_POLICIES_MD;
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string doc = ss.str();
  for (const auto& p : policy_catalog()) {
    const std::size_t row = doc.find("| `" + p.name + "` |");
    ASSERT_NE(row, std::string::npos) << p.name;
    const std::string line = doc.substr(row, doc.find('\n', row) - row);
    EXPECT_FALSE(p.question.empty()) << p.name;
    ASSERT_GE(line.size(), 4u) << p.name;
    const std::size_t last = line.rfind(" | ", line.size() - 3);
    ASSERT_NE(last, std::string::npos) << p.name;
    EXPECT_EQ(line.compare(last + 3, p.question.size(), p.question), 0) << p.name << ": " << line.substr(last + 3);
  }
}

// NOTES (open, the model's reading): the im2col walk steps N by elementStrides[N] when W wraps. UINT8 C=16 W=4 N=4,
// zero corners, elementStrides {1, 1, 2}, 6 pixels from (w=0, n=0): (0,0) (1,0) (2,0) (3,0), then n += 2: (0,2)
// (1,2). Value = c + 16(w + 4n). Kills tensor_box.cpp:204 ('element_strides[rank - 1]' -> '[rank / 1]', the
// unused fourth stride, 1).
TEST(MutationHoles, Im2colWalkStepsNByItsElementStride) {
  TensorMapParams m;
  m.kind = EncodeKind::im2col;
  m.dtype = TensorDataType::UINT8;
  m.rank = 3;
  m.dims = {16, 4, 4, 1, 1};
  m.strides = dense_strides(m.dtype, m.rank, m.dims);
  m.element_strides = {1, 1, 2, 1, 1};
  m.channels_per_pixel = 16;
  m.pixels_per_column = 6;
  ASSERT_TRUE(validate_encode(m).must_accept());
  const Loaded l = load(m, at({0, 0, 0}, TensorMode::im2col));
  const int want_w[6] = {0, 1, 2, 3, 0, 1}, want_n[6] = {0, 0, 0, 0, 2, 2};
  for (int p = 0; p < 6; ++p)
    for (int c = 0; c < 16; ++c)
      EXPECT_EQ(l.window[16 * p + c], c + 16 * (want_w[p] + 4 * want_n[p])) << "pixel " << p << " channel " << c;
}

// cuda.h: 'globalAddress ... must be 32 byte aligned when interleave is CU_TENSOR_MAP_INTERLEAVE_32B' -- only
// then: a tiled map at an address 16 bytes past a 32-byte boundary without interleave is legal.
// Kills tensormap.cpp:209 (the 'interleave == B32' condition deleted).
TEST(MutationHoles, Align32OnlyWithInterleave32B) {
  auto m = tile_map(TensorDataType::FLOAT32, {64, 4}, {16, 1});
  m.global_address = 1024 + 16;
  const EncodeVerdict v = validate_encode(m);
  EXPECT_TRUE(v.must_accept()) << (v.violations.empty() ? "" : v.violations[0].rule);
  EXPECT_EQ(rules_of(v.violations).count("global_address_align32_interleave"), 0u);
}
