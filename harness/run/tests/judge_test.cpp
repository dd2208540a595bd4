// The judge and the planner on the CPU (no GPU): real cases of the manifest are built with the reference model,
// then judged against fabricated device images. Each verdict the run tier can give must come out when, and
// only when, the images call for it.
#include <gtest/gtest.h>

#include <set>

#include "exec.hpp"
#include "manifest.hpp"
#include "plan.hpp"
#include "util.hpp"

using namespace ptxcts::run;

namespace {

struct Built {
  std::vector<Form> forms;
  std::vector<RunCase> cases;
  const RunCase* find(const std::string& form_part, const std::string& variant_part) const {
    for (auto& c : cases)
      if (c.not_supported.empty() && c.id.find(form_part) != std::string::npos &&
          c.variant.find(variant_part) != std::string::npos)
        return &c;
    return nullptr;
  }
};

const Built& built() {
  static Built b = [] {
    Built x;
    x.forms = load_forms(ptxcts_root());
    x.cases = plan_cases(x.forms, PlanOptions{});
    return x;
  }();
  return b;
}

std::vector<uint32_t> ok_status(const Setup& s) {
  std::vector<uint32_t> st(size_t(s.ranks) * kStatusWords, 0);
  for (uint32_t k = 0; k < s.ranks; ++k) {
    st[k * kStatusWords] = 1;
    st[k * kStatusWords + 1] = (s.waiters >> k) & 1;
    st[k * kStatusWords + 2] = k == s.w[W_ISSUER] ? s.expect_bits : 0;
  }
  return st;
}

CaseResult judged(const RunCase& c, const Setup& s, const std::vector<uint8_t>& gsrc, const Image& act,
                  const std::vector<uint32_t>& st) {
  CaseResult r;
  judge(c, s, gsrc, act, st, r);
  return r;
}

}  // namespace

TEST(Judge, ExpectedImagesPass) {
  const RunCase* c = built().find("cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes", "size_4112");
  ASSERT_NE(c, nullptr);
  ptxcts::run::Setup s;
  build_setup(*c, case_seed(1, c->id), PlanOptions{}, s);
  EXPECT_EQ(judged(*c, s, s.gsrc, s.expected, ok_status(s)).cls, "pass");
}

TEST(Judge, AByteOutsideTheDestinationFails) {
  const RunCase* c = built().find("cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes", "size_4112");
  ASSERT_NE(c, nullptr);
  ptxcts::run::Setup s;
  build_setup(*c, case_seed(1, c->id), PlanOptions{}, s);
  Image act = s.expected;
  act.smem[8] ^= 1;  // in the guard band before the destination
  auto r = judged(*c, s, s.gsrc, act, ok_status(s));
  EXPECT_EQ(r.cls, "fail");
  EXPECT_NE(r.message.find("guard band"), std::string::npos) << r.message;
}

TEST(Judge, AModifiedSourceFails) {
  const RunCase* c = built().find("cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes", "size_16.");
  ASSERT_NE(c, nullptr);
  ptxcts::run::Setup s;
  build_setup(*c, case_seed(1, c->id), PlanOptions{}, s);
  auto src = s.gsrc;
  src[s.gsrc_off] ^= 0x80;
  auto r = judged(*c, s, src, s.expected, ok_status(s));
  EXPECT_EQ(r.cls, "fail");
  EXPECT_NE(r.message.find("source was modified"), std::string::npos) << r.message;
}

TEST(Judge, AWaitThatGaveUpIsATimeout) {
  const RunCase* c = built().find("cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes", "size_16.");
  ASSERT_NE(c, nullptr);
  ptxcts::run::Setup s;
  build_setup(*c, case_seed(1, c->id), PlanOptions{}, s);
  auto st = ok_status(s);
  st[1] = 2;
  st[3] = 16384;
  EXPECT_EQ(judged(*c, s, s.gsrc, s.expected, st).cls, "timeout");
}

TEST(Judge, DeviceMatchingANamedAlternativeIsASpecDivergence) {
  // add.f32 with subnormal operands: the default reading flushes them; the device image computed with
  // f32_add_subnormals=keep must be reported as that alternative, not as a pass and not as a fail.
  const RunCase* c = built().find("cp.reduce.async.bulk/global.shared_cta.bulk_group/add.f32#", "size_4096");
  ASSERT_NE(c, nullptr);
  ptxcts::run::Setup s;
  build_setup(*c, case_seed(1, c->id), PlanOptions{}, s);
  ASSERT_TRUE(s.model);
  ptxcts::ref::PolicySet keep;
  ASSERT_TRUE(keep.set("f32_add_subnormals", "keep"));
  Image act = s.model(keep);
  ASSERT_NE(act.gdst, s.expected.gdst) << "the inputs exercise no subnormal: the test could not fail";
  auto r = judged(*c, s, s.gsrc, act, ok_status(s));
  EXPECT_EQ(r.cls, "spec_divergence") << r.message;
  EXPECT_NE(r.message.find("f32_add_subnormals=keep"), std::string::npos) << r.message;
  act.gdst[s.gdst_off + 4] ^= 0x10;  // and one more wrong byte: no alternative explains it any more
  EXPECT_EQ(judged(*c, s, s.gsrc, act, ok_status(s)).cls, "fail");
}

TEST(Judge, CompletionBitsAreChecked) {
  const RunCase* c = built().find("cp.async.wait_group/N_1/groups_3", "");
  ASSERT_NE(c, nullptr);
  ptxcts::run::Setup s;
  build_setup(*c, case_seed(1, c->id), PlanOptions{}, s);
  ASSERT_TRUE(s.self_check);
  auto st = ok_status(s);
  EXPECT_EQ(judged(*c, s, s.gsrc, s.expected, st).cls, "pass");
  st[2] &= ~1u;  // chunk 0 reported incomplete after the wait
  EXPECT_EQ(judged(*c, s, s.gsrc, s.expected, st).cls, "fail");
}

TEST(Plan, EveryValidFormHasCasesAndEveryCaseBuilds) {
  const Built& b = built();
  size_t valid = 0;
  for (auto& f : b.forms) valid += f.valid();
  std::set<std::string> planned;
  for (auto& c : b.cases) planned.insert(c.form->form);
  size_t missing = 0;
  for (auto& f : b.forms)
    if (f.valid() && !planned.count(f.form)) ++missing;
  EXPECT_EQ(missing, 0u) << "valid forms without a run case";
  size_t errors = 0;
  std::set<std::string> ids;
  for (auto& c : b.cases) {
    EXPECT_TRUE(ids.insert(c.id).second) << "duplicate run case ID " << c.id;
    if (!c.not_supported.empty()) continue;
    ptxcts::run::Setup s;
    try {
      build_setup(c, case_seed(1, c.id), PlanOptions{}, s);
    } catch (const std::exception& e) {
      if (++errors < 5) ADD_FAILURE() << c.id << ": " << e.what();
    }
  }
  EXPECT_EQ(errors, 0u);
  EXPECT_GT(valid, 0u);
}

TEST(Plan, CasesReplayWithTheSameBytes) {
  const RunCase* c = built().find("cp.reduce.async.bulk/global.shared_cta.bulk_group/add.noftz.f16#", "size_272");
  ASSERT_NE(c, nullptr);
  ptxcts::run::Setup a, b;
  build_setup(*c, case_seed(7, c->id), PlanOptions{}, a);
  build_setup(*c, case_seed(7, c->id), PlanOptions{}, b);
  EXPECT_EQ(a.smem_init, b.smem_init);
  EXPECT_EQ(a.gdst, b.gdst);
  ptxcts::run::Setup d;
  build_setup(*c, case_seed(8, c->id), PlanOptions{}, d);
  EXPECT_NE(a.smem_init, d.smem_init) << "the seed does not reach the inputs";
}
