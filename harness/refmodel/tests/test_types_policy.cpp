// Spellings, the redOp x type tables of the chapter, and the policy catalog.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "ptxcts/ref/policy.hpp"
#include "ptxcts/ref/types.hpp"
#include "model_helpers.hpp"

using namespace ptxcts::ref;
using namespace ptxcts::ref::testing;

namespace {
const RedOp kOps[] = {RedOp::and_op, RedOp::or_op, RedOp::xor_op, RedOp::add,
                      RedOp::inc,    RedOp::dec,   RedOp::min,    RedOp::max};
const ElemType kTypes[] = {ElemType::b32, ElemType::b64, ElemType::u32, ElemType::s32, ElemType::u64,
                           ElemType::s64, ElemType::f16, ElemType::bf16, ElemType::f32, ElemType::f64};

std::set<std::string> cells(ReduceSite site) {
  std::set<std::string> out;
  for (RedOp op : kOps)
    for (ElemType t : kTypes)
      for (bool noftz : {false, true}) {
        const ReduceOp r{op, t, noftz};
        if (reduce_op_allowed(site, r)) out.insert(to_string(r));
      }
  return out;
}
}  // namespace

TEST(Types, ParsePrintRoundTrip) {
  for (RedOp op : kOps)
    for (ElemType t : kTypes)
      for (bool noftz : {false, true}) {
        const ReduceOp r{op, t, noftz};
        const auto back = parse_reduce_op(to_string(r));
        ASSERT_TRUE(back.has_value()) << to_string(r);
        EXPECT_EQ(*back, r);
      }
  EXPECT_EQ(to_string(ReduceOp{RedOp::add, ElemType::f16, true}), "add.noftz.f16");
  EXPECT_EQ(elem_bytes(ElemType::bf16), 2u);
  EXPECT_EQ(elem_bytes(ElemType::s64), 8u);
}

TEST(Types, ParseErrorsSayWhy) {
  std::string why;
  EXPECT_FALSE(parse_reduce_op("add", &why).has_value());
  EXPECT_NE(why.find("is not <redOp>.<type>"), std::string::npos);
  EXPECT_FALSE(parse_reduce_op("mul.u32", &why).has_value());
  EXPECT_NE(why.find("unknown redOp 'mul'"), std::string::npos);
  EXPECT_FALSE(parse_reduce_op("add.u16", &why).has_value());
  EXPECT_NE(why.find("unknown type 'u16'"), std::string::npos);
}

// The chapter's table for .dst = .shared::cluster, cell by cell.
TEST(Types, SharedClusterTable) {
  const std::set<std::string> want = {"add.u32", "add.s32", "add.u64", "min.u32", "min.s32", "max.u32",
                                      "max.s32", "inc.u32", "dec.u32", "and.b32", "or.b32",  "xor.b32"};
  EXPECT_EQ(cells(ReduceSite::bulk_shared_cluster), want);
}

// The chapter's table for .dst = .global; f16/bf16 add only with .noftz ('require .noftz qualifier'), and
// .add.noftz.f32 from PTX ISA 9.4 (`.add.noftz.type ... .type = { .f16, .bf16, .f32 }`).
TEST(Types, GlobalTable) {
  const std::set<std::string> want = {
      "add.u32", "add.s32", "add.u64", "add.f32", "add.f64", "add.noftz.f16", "add.noftz.bf16", "add.noftz.f32",
      "min.u32", "min.s32", "min.u64", "min.s64", "min.f16", "min.bf16",      "max.u32",
      "max.s32", "max.u64", "max.s64", "max.f16", "max.bf16", "inc.u32",      "dec.u32",
      "and.b32", "and.b64", "or.b32",  "or.b64",  "xor.b32", "xor.b64"};
  EXPECT_EQ(cells(ReduceSite::bulk_global), want);
  std::string why;
  EXPECT_FALSE(reduce_op_allowed(ReduceSite::bulk_global, ReduceOp{RedOp::add, ElemType::f16, false}, &why));
  EXPECT_NE(why.find("noftz_required"), std::string::npos);
}

// cp.reduce.async.bulk.tensor's table: no .f64 add, no .noftz.
TEST(Types, TensorTable) {
  const std::set<std::string> want = {"add.u32", "add.s32", "add.u64", "add.f32", "add.f16",  "add.bf16", "min.u32",
                                      "min.s32", "min.u64", "min.s64", "min.f16", "min.bf16", "max.u32",  "max.s32",
                                      "max.u64", "max.s64", "max.f16", "max.bf16", "inc.u32", "dec.u32",  "and.b32",
                                      "and.b64", "or.b32",  "or.b64",  "xor.b32", "xor.b64"};
  EXPECT_EQ(cells(ReduceSite::tensor), want);
}

TEST(Types, LittleEndian) {
  std::uint8_t b[8] = {};
  store_le(b, 4, 0x11223344u);
  EXPECT_EQ(b[0], 0x44);
  EXPECT_EQ(b[3], 0x11);
  EXPECT_EQ(load_le(b, 4), 0x11223344u);
  EXPECT_EQ(load_le(b, 2), 0x3344u);
}

TEST(Policy, CatalogIsCompleteAndConsistent) {
  const auto& cat = policy_catalog();
  ASSERT_EQ(cat.size(), kPolicyCount);
  std::set<std::string> names;
  for (std::size_t i = 0; i < cat.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(cat[i].id), i);
    EXPECT_TRUE(names.insert(cat[i].name).second) << "duplicate " << cat[i].name;
    EXPECT_GE(cat[i].alternatives.size(), 2u) << cat[i].name << " needs alternatives";
    EXPECT_LT(cat[i].default_index, cat[i].alternatives.size());
    EXPECT_FALSE(cat[i].question.empty());
  }
}

TEST(Policy, EnumerateAndSelect) {
  EXPECT_EQ(policy_alternatives("f32_add_subnormals"),
            (std::vector<std::string>{"flush", "keep", "flush_inputs", "flush_results"}));
  EXPECT_TRUE(policy_alternatives("no_such_policy").empty());
  PolicySet p;
  EXPECT_TRUE(p.is_default());
  EXPECT_EQ(p.describe(), "default");
  EXPECT_EQ(p.value_name(PolicyId::f32_add_subnormals), "flush");  // the chapter's "current implementation"
  std::string why;
  EXPECT_TRUE(p.set_assignment("f32_add_subnormals=keep", &why)) << why;
  EXPECT_EQ(p.get<SubnormalMode>(PolicyId::f32_add_subnormals), SubnormalMode::keep);
  EXPECT_EQ(p.describe(), "f32_add_subnormals=keep");
  EXPECT_FALSE(p.set_assignment("f32_add_subnormals=maybe", &why));
  EXPECT_NE(why.find("alternatives: flush keep flush_inputs flush_results"), std::string::npos);
  EXPECT_FALSE(p.set_assignment("nope=1", &why));
  EXPECT_NE(why.find("unknown policy 'nope'"), std::string::npos);
  EXPECT_FALSE(p.set_assignment("f32_add_subnormals", &why));
}

TEST(Policy, SingleDeviationsCoverEveryAlternative) {
  std::size_t expected = 0;
  for (const auto& p : policy_catalog()) expected += p.alternatives.size() - 1;
  const auto devs = single_deviations(PolicySet{});
  EXPECT_EQ(devs.size(), expected);
  for (const auto& d : devs) EXPECT_EQ(d.second.describe(), d.first);
}

// docs/POLICIES.md is the human-readable list: it must name every policy and every alternative.
TEST(Policy, DocumentedInPoliciesMd) {
  std::ifstream f(PTXCTS_POLICIES_MD);
  ASSERT_TRUE(f.good()) << "cannot read " << PTXCTS_POLICIES_MD;
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string doc = ss.str();
  for (const auto& p : policy_catalog()) {
    const std::string row = "| `" + p.name + "` | `" + p.alternatives[p.default_index].first + "` |";
    EXPECT_NE(doc.find(row), std::string::npos) << p.name << " (with its default) missing from POLICIES.md";
    for (const auto& a : p.alternatives)
      EXPECT_NE(doc.find("`" + a.first + "`: " + a.second), std::string::npos) << p.name << "=" << a.first;
  }
}

// docs/POLICIES.md lists each alternative as '`value`: what it means' in the policy's row, the cell ending at '<br>'
// or ' |'; the catalog's text must be that whole text, not a prefix of it.
// Catches make_catalog with an alternative's description emptied.
TEST(Policy, DescriptionsAreWholeCellsOfPoliciesMd) {
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
// Catches PolicySet::describe stopping after the first non-default policy.
TEST(Policy, DescribeListsEveryDeviation) {
  PolicySet s;
  EXPECT_EQ(s.describe(), "default");
  ASSERT_TRUE(s.set("f32_add_subnormals", "keep"));
  ASSERT_TRUE(s.set("tensor_store_oob", "granule16_written"));
  const std::string d = s.describe();
  EXPECT_NE(d.find("f32_add_subnormals=keep"), std::string::npos) << d;
  EXPECT_NE(d.find("tensor_store_oob=granule16_written"), std::string::npos) << d;
  EXPECT_EQ(std::count(d.begin(), d.end(), ','), 1) << d;
}

// The reduce sites as ptxcts-ref's --site spells them (README: bulk_global|bulk_shared_cluster|tensor).
// Catches to_string(ReduceSite) without its tensor case ("?").
TEST(Types, ReduceSiteNames) {
  EXPECT_STREQ(to_string(ReduceSite::bulk_global), "bulk_global");
  EXPECT_STREQ(to_string(ReduceSite::bulk_shared_cluster), "bulk_shared_cluster");
  EXPECT_STREQ(to_string(ReduceSite::tensor), "tensor");
}

// --policy takes NAME=VALUE; 'f32_add_subnormals=' has no value and is refused as not NAME=VALUE.
// Catches PolicySet::set_assignment's 'eq + 1 == assignment.size()' turned into 'eq + (1-1) == ...' (refused later
// for another reason).
TEST(Policy, AssignmentNeedsAValue) {
  PolicySet s;
  std::string why;
  EXPECT_FALSE(s.set_assignment("f32_add_subnormals=", &why));
  EXPECT_NE(why.find("is not NAME=VALUE"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(s.set_assignment("=keep", &why));
  EXPECT_NE(why.find("is not NAME=VALUE"), std::string::npos) << why;
  EXPECT_TRUE(s.set_assignment("f32_add_subnormals=keep", &why)) << why;
}

// policy.hpp: default_index is 'the model's choice when nothing is selected, with the reason in `question`': every
// question says 'Default' and names the default alternative.
// Catches make_catalog with the f16_minmax_nan question's 'Default other_operand ...' line commented out.
TEST(Policy, QuestionGivesTheDefault) {
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

// docs/POLICIES.md: each policy's row ends with a cell that starts with its question (what is not pinned down and
// the default's reason; findings may follow).
// Catches make_catalog with f32_add_subnormals' question emptied.
TEST(Policy, QuestionsAreTheLastCellOfPoliciesMd) {
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

// policy.cpp: set_index refuses an index past the last alternative (mutant: `>=` -> `>` let the one-past index in).
TEST(Policy, SetIndexRefusesOnePastTheLast) {
  for (const PolicyInfo& info : policy_catalog()) {
    PolicySet p;
    const std::size_t n = info.alternatives.size();
    EXPECT_NO_THROW(p.set_index(info.id, n - 1)) << info.name;
    EXPECT_EQ(p.index(info.id), n - 1) << info.name;
    EXPECT_THROW(p.set_index(info.id, n), std::out_of_range) << info.name;
    EXPECT_EQ(p.index(info.id), n - 1) << info.name << ": a refused index leaves the choice as it was";
  }
}
