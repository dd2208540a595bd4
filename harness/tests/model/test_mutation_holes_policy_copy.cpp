// Tests added for faults that ./ptxcts selftest-model planted in the policies, the copies and the types
// (harness/refmodel/src/policy.cpp, copy.cpp, types.cpp) and the other model tests
// let through (issue 10, part 3). Each names the surviving mutant it kills and the rule it checks; every expected
// value is derived by hand from that rule (docs/POLICIES.md, the chapter's or cuda.h's sentence), never by running
// the model. The triage of the survivors that no test can kill: results/selftest/model-equivalent.json.
// The holes of the other model areas: test_mutation_holes_*.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ptxcts/ref/copy.hpp"
#include "ptxcts/ref/policy.hpp"
#include "ptxcts/ref/types.hpp"
#include "model_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;

// docs/POLICIES.md lists each alternative as '`value`: what it means' in the policy's row, the cell ending at
// '<br>' or ' |'; the catalog's text must be that whole text, not a prefix of it. Kills policy.cpp:18 (an
// alternative's description emptied).
TEST(MutationHoles, PolicyDescriptionsAreWholeCellsOfPoliciesMd) {
  for (const auto& [info, line] : policy_rows()) {
    const PolicyInfo& p = *info;
    ASSERT_FALSE(line.empty()) << p.name << " has no row in " << PTXCTS_POLICIES_MD;
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

// docs/POLICIES.md: each policy's row ends with a cell that starts with its question (what is not pinned down and
// the default's reason; findings may follow). Kills policy.cpp:39 (f32_add_subnormals' question emptied).
TEST(MutationHoles, PolicyQuestionsAreTheLastCellOfPoliciesMd) {
  for (const auto& [info, line] : policy_rows()) {
    const PolicyInfo& p = *info;
    ASSERT_FALSE(line.empty()) << p.name << " has no row in " << PTXCTS_POLICIES_MD;
    EXPECT_FALSE(p.question.empty()) << p.name;
    ASSERT_GE(line.size(), 4u) << p.name;
    const std::size_t last = line.rfind(" | ", line.size() - 3);
    ASSERT_NE(last, std::string::npos) << p.name;
    EXPECT_EQ(line.compare(last + 3, p.question.size(), p.question), 0) << p.name << ": " << line.substr(last + 3);
  }
}
