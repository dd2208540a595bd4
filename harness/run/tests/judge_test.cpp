// The judge and the planner on the CPU (no GPU): real cases of the manifest are built with the reference model,
// then judged against fabricated device images. Each verdict the run tier can give must come out when, and
// only when, the images call for it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "exec.hpp"
#include "manifest.hpp"
#include "model_device.hpp"
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

// A bulk copy into the issuing CTA's shared memory, the cases most tests fabricate images for.
const char* const kBulkLoad = "cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes";

// The case whose ID holds form_part and whose variant holds variant_part, with its setup built for seed 1 into s;
// nullptr when the plan has no such case.
const RunCase* setup_of(const std::string& form_part, const std::string& variant_part, Setup& s) {
  const RunCase* c = built().find(form_part, variant_part);
  if (c) build_setup(*c, case_seed(1, c->id), PlanOptions{}, s);
  return c;
}

// The status words of a correct run (model_device.cpp's, shared with the model device).
std::vector<uint32_t> ok_status(const Setup& s) { return correct_status(s); }

CaseResult judged(const RunCase& c, const Setup& s, const std::vector<uint8_t>& gsrc, const Image& act,
                  const std::vector<uint32_t>& st) {
  CaseResult r;
  judge(c, s, gsrc, act, st, r);
  return r;
}

}  // namespace

TEST(Judge, ExpectedImagesPass) {
  ptxcts::run::Setup s;
  const RunCase* c = setup_of(kBulkLoad, "size_4112", s);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(judged(*c, s, s.gsrc, s.expected, ok_status(s)).cls, "pass");
}

TEST(Judge, AByteOutsideTheDestinationFails) {
  ptxcts::run::Setup s;
  const RunCase* c = setup_of(kBulkLoad, "size_4112", s);
  ASSERT_NE(c, nullptr);
  Image act = s.expected;
  act.smem[8] ^= 1;  // in the guard band before the destination
  auto r = judged(*c, s, s.gsrc, act, ok_status(s));
  EXPECT_EQ(r.cls, "fail");
  EXPECT_NE(r.message.find("guard band"), std::string::npos) << r.message;
  // Where the bytes went: the device's changes start at that byte, the model's at the destination.
  EXPECT_NE(r.message.find("; the device changed window rank 0 +0x8.."), std::string::npos) << r.message;
  const size_t model = r.message.find("; the model changes window rank 0 +");
  ASSERT_NE(model, std::string::npos) << r.message;
  EXPECT_NE(r.message.compare(model, 39, "; the model changes window rank 0 +0x8."), 0) << r.message;
}

TEST(Judge, AModifiedSourceFails) {
  ptxcts::run::Setup s;
  const RunCase* c = setup_of(kBulkLoad, "size_16.", s);
  ASSERT_NE(c, nullptr);
  auto src = s.gsrc;
  src[s.gsrc_off] ^= 0x80;
  auto r = judged(*c, s, src, s.expected, ok_status(s));
  EXPECT_EQ(r.cls, "fail");
  EXPECT_NE(r.message.find("source was modified"), std::string::npos) << r.message;
}

TEST(Judge, AWaitThatGaveUpIsATimeout) {
  ptxcts::run::Setup s;
  const RunCase* c = setup_of(kBulkLoad, "size_16.", s);
  ASSERT_NE(c, nullptr);
  auto st = ok_status(s);
  st[1] = 2;
  st[3] = 16384;
  EXPECT_EQ(judged(*c, s, s.gsrc, s.expected, st).cls, "timeout");
}

TEST(Judge, DeviceMatchingANamedAlternativeIsASpecDivergence) {
  // add.f32 with subnormal operands: the default reading flushes them; the device image computed with
  // f32_add_subnormals=keep must be reported as that alternative, not as a pass and not as a fail.
  ptxcts::run::Setup s;
  const RunCase* c = setup_of("cp.reduce.async.bulk/global.shared_cta.bulk_group/add.f32#", "size_4096", s);
  ASSERT_NE(c, nullptr);
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

// The device behaviours of the first H100 run, each as the device image its named alternative computes: the judge
// must name that alternative (spec_divergence), and one more wrong byte must make it a fail.
void expect_divergence(const std::string& form, const std::string& variant, const std::string& policy) {
  ptxcts::run::Setup s;
  const RunCase* c = setup_of(form, variant, s);
  ASSERT_NE(c, nullptr) << form << " " << variant;
  ptxcts::ref::PolicySet alt;
  ASSERT_TRUE(alt.set_assignment(policy));
  Image act = s.model(alt);
  ASSERT_TRUE(act.gdst != s.expected.gdst || act.smem != s.expected.smem)
      << c->id << ": the inputs do not exercise " << policy << ": the test could not fail";
  auto r = judged(*c, s, s.gsrc, act, ok_status(s));
  EXPECT_EQ(r.cls, "spec_divergence") << c->id << ": " << r.message;
  EXPECT_NE(r.message.find(policy), std::string::npos) << r.message;
  if (!act.gdst.empty()) act.gdst[s.gdst_off] ^= 0x10;
  else act.smem[act.smem.size() / 2] ^= 0x10;
  EXPECT_EQ(judged(*c, s, s.gsrc, act, ok_status(s)).cls, "fail") << c->id;
}

TEST(Judge, H100BehavioursAreNamedAlternatives) {
  expect_divergence("cp.reduce.async.bulk/global.shared_cta.bulk_group/add.f64#", "size_272.align_128",
                    "f64_add_nan=passthrough");
  expect_divergence("cp.async.bulk.tensor/2d.shared_cta.global#", "FLOAT32.box_8x8.oob_nan.coords_68_36.high_edges",
                    "oob_nan_pattern=repeat_7ff7");
  expect_divergence("cp.async.bulk.tensor/1d.global.shared_cta#", "UINT8.box_256.coords_160.high_edges",
                    "tensor_store_oob=granule16_written");
  expect_divergence("cp.reduce.async.bulk.tensor/1d.global.shared_cta.add#", "FLOAT16.box_128.coords_232.high_edges",
                    "tensor_store_oob=granule16_written");
}

// A trap is a spec_divergence only when a named alternative predicts it and the default reading does not.
TEST(Judge, PredictedTrapsAreDivergencesOtherTrapsCrash) {
  const std::string what = "kernel trapped: cudaErrorIllegalInstruction";
  // judge_trap on one planned case: whether it judged the trap, and how
  auto trapped = [&](const char* form, const char* variant, CaseResult& r) {
    ptxcts::run::Setup s;
    if (!setup_of(form, variant, s)) {
      ADD_FAILURE() << "no case " << form << " " << variant;
      return false;
    }
    return judge_trap(s, what, r);
  };
  CaseResult r, rb, ri;
  ASSERT_TRUE(trapped("cp.async.bulk.tensor/1d.shared_cta.global#", "misaligned", r));
  EXPECT_EQ(r.cls, "spec_divergence");
  EXPECT_NE(r.message.find("tensor_coord_alignment=16B_trap"), std::string::npos) << r.message;
  ASSERT_TRUE(trapped("cp.async.bulk.tensor/3d.shared_cta.global.im2col#", "start_outside_box", rb));
  EXPECT_NE(rb.message.find("im2col_start_outside_box=trap"), std::string::npos) << rb.message;
  EXPECT_FALSE(trapped("cp.async.bulk.tensor/1d.shared_cta.global#", "inside", ri));
}

// Deliberate traps: few, each marked for the serial trap phase; im2col edge sets start inside the bounding box.
TEST(Plan, DeliberateTrapsAreFewAndMarked) {
  size_t marked = 0;
  for (auto& c : built().cases) {
    if (!c.not_supported.empty()) continue;
    if (c.explicit_params) continue;  // exploration's permanent cases carry their finding's class (explored.jsonl)
    // Interleaved loads overrun their box but no longer trap: their window holds the overrun (device_quirks.hpp).
    const bool deliberate = c.variant.find("misaligned") != std::string::npos ||
                            c.variant.find("start_outside_box") != std::string::npos;
    EXPECT_EQ(deliberate, c.params.get("traps") != nullptr) << c.id;
    marked += c.params.get("traps") != nullptr;
    if (c.params.get("traps") && std::getenv("PTXCTS_LIST_TRAPS")) std::printf("trap case %s\n", c.id.c_str());
  }
  EXPECT_GT(marked, 0u);
  EXPECT_LE(marked, 40u) << "every trap costs a worker restart";
}

TEST(Plan, InterleavedLoadWindowsHoldTheMeasuredOverrun) {
  // The H100 wrote up to 16 times the box's bytes from dstMem (device_quirks.hpp): every interleaved load's window
  // holds that much past its destination, so the overrun lands in compared bytes instead of trapping.
  size_t seen = 0;
  for (auto& c : built().cases) {
    if (!c.not_supported.empty() || c.explicit_params || c.variant.find("interleave") == std::string::npos) continue;
    if (c.form->family != "cp.async.bulk.tensor" || c.id.find(".shared_cta.global") == std::string::npos) continue;
    ptxcts::run::Setup s;
    build_setup(c, case_seed(1, c.id), PlanOptions{}, s);
    const uint32_t tx = s.w[W_TX_BYTES];
    ASSERT_GT(tx, 0u) << c.id;
    EXPECT_GE(size_t(s.window), 1024 + 16 * size_t(tx)) << c.id;
    ++seen;
  }
  EXPECT_EQ(seen, 6u) << "ranks 3-5, interleave 16B and 32B";
}

TEST(Judge, CompletionBitsAreChecked) {
  ptxcts::run::Setup s;
  const RunCase* c = setup_of("cp.async.wait_group/N_1/groups_3", "", s);
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(s.self_check);
  auto st = ok_status(s);
  EXPECT_EQ(judged(*c, s, s.gsrc, s.expected, st).cls, "pass");
  st[2] &= ~1u;  // chunk 0 reported incomplete after the wait
  EXPECT_EQ(judged(*c, s, s.gsrc, s.expected, st).cls, "fail");
}

TEST(Judge, IgnoreOobsIgnoredBytesAreNotJudgedAndTheCreditIsANamedAlternative) {
  // .ignore_oob with ignoreBytesLeft 3, ignoreBytesRight 9: the first 3 and last 9 destination bytes are
  // indeterminate (never compared, what the device left there reported); the others are judged as any copy's.
  ptxcts::run::Setup s;
  const RunCase* c = setup_of("/ignore_oob", "size_48.align_16.ignore_3_9", s);
  ASSERT_NE(c, nullptr);
  const size_t dst = s.w[W_DST_OFF];
  ASSERT_EQ(s.smem_open.size(), s.smem_init.size());
  EXPECT_EQ(s.w[W_IGNORE_LEFT], 3u);
  EXPECT_EQ(s.w[W_IGNORE_RIGHT], 9u);
  Image act = s.expected;
  for (size_t i = 0; i < 48; ++i) act.smem[dst + i] = s.gsrc[s.gsrc_off + i];  // the device copied all 48
  auto r = judged(*c, s, s.gsrc, act, ok_status(s));
  EXPECT_EQ(r.cls, "pass") << r.message;
  EXPECT_EQ(r.details.get_str("indeterminate_bytes"), "12 byte(s) the source's bytes");
  act.smem[dst + 3] ^= 1;  // the first determinate byte
  r = judged(*c, s, s.gsrc, act, ok_status(s));
  EXPECT_EQ(r.cls, "fail") << r.message;
  // A phase that never completes, every determinate byte landed: the device credits only those (36 bytes).
  auto st = ok_status(s);
  st[1] = 2;
  r = judged(*c, s, s.gsrc, s.expected, st);
  EXPECT_EQ(r.cls, "spec_divergence") << r.message;
  EXPECT_EQ(r.details.get_str("matched_policy"), "ignore_oob_tx_bytes=determinate") << r.message;
}

TEST(Judge, AnArriveOnThatCompletesThePhaseEarlyFailsByName) {
  // cp.async.mbarrier.arrive{.noinc}: bit 1 is the phase-1 check that the phase is still pending after the copy
  // landed and before thread 0's last mbarrier.arrive (the self-test's planted .noinc clears it); bit 2 that the
  // phase completes after that arrival. A cleared bit fails and the message names that check.
  for (const char* form : {"cp.async.mbarrier.arrive/arrive", "cp.async.mbarrier.arrive.noinc/arrive"}) {
    SCOPED_TRACE(form);
    ptxcts::run::Setup s;
    const RunCase* c = setup_of(form, "", s);
    ASSERT_NE(c, nullptr);
    ASSERT_TRUE(s.self_check);
    EXPECT_EQ(s.expect_bits, 7u) << "chunk 0, phase 1 pending before the last own arrival, phase 1 complete after";
    auto st = ok_status(s);
    EXPECT_EQ(judged(*c, s, s.gsrc, s.expected, st).cls, "pass");
    st[2] &= ~2u;
    auto r = judged(*c, s, s.gsrc, s.expected, st);
    EXPECT_EQ(r.cls, "fail");
    EXPECT_NE(r.message.find("failed bit 1: phase 1 still pending"), std::string::npos) << r.message;
    EXPECT_EQ(r.message.find("failed bit 2"), std::string::npos) << r.message;
    st = ok_status(s);
    st[2] &= ~4u;
    r = judged(*c, s, s.gsrc, s.expected, st);
    EXPECT_EQ(r.cls, "fail");
    EXPECT_NE(r.message.find("failed bit 2: phase 1 complete"), std::string::npos) << r.message;
  }
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

// The self-test's host faults ask the model whether a perturbed map can be observed (Setup::map_change): the
// case's own map changes nothing; a swizzle that moves box bytes, a smaller box (fewer transaction bytes) and a
// larger row stride do; elementStrides[0] without interleave is ignored (DRV), so changing it does not.
TEST(Judge, MapChangeIsTheModelsVerdict) {
  ptxcts::run::Setup s;
  const RunCase* c = setup_of("cp.async.bulk.tensor/2d.shared_cta.global#", "FLOAT32.box_8x8.coords_24_13.inside", s);
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(bool(s.map_change));
  EXPECT_EQ(s.map_change(s.tmap), "");
  TensorMapSpec sw = s.tmap;
  sw.swizzle = 3;  // CU_TENSOR_MAP_SWIZZLE_128B: rows 4..7 of the 256-byte box move
  EXPECT_NE(s.map_change(sw).find("byte(s) differ"), std::string::npos) << s.map_change(sw);
  TensorMapSpec box = s.tmap;
  box.box[1] = 7;
  EXPECT_NE(s.map_change(box).find("transaction bytes: 256 -> 224"), std::string::npos) << s.map_change(box);
  TensorMapSpec stride = s.tmap;
  stride.strides[0] += 16;
  EXPECT_NE(s.map_change(stride), "");
  TensorMapSpec e0 = s.tmap;
  e0.estrides[0] = 2;
  EXPECT_EQ(s.map_change(e0), "");
}

// A load that never completes because the device credits other bytes than the kernel expects, under two measured
// alternatives at once (judge_tx_divergence's measured profile): the device image is the model's under both, the
// status a wait that gave up. Neither alternative alone gives its bytes; together they must be named, and one byte
// neither writes must leave it a timeout.
void expect_timeout_named(const std::string& form, const std::string& variant, const std::string& first,
                          const std::string& second) {
  ptxcts::run::Setup s;
  const RunCase* c = setup_of(form, variant, s);
  ASSERT_NE(c, nullptr) << variant << " is not planned (results/explore/explored.jsonl)";
  ASSERT_TRUE(s.model && s.tx);
  ptxcts::ref::PolicySet both, one, other;
  ASSERT_TRUE(both.set_assignment(first) && both.set_assignment(second));
  ASSERT_TRUE(one.set_assignment(first) && other.set_assignment(second));
  Image act = s.model(both);
  ASSERT_NE(s.tx(both), s.w[W_TX_BYTES]) << "the alternatives credit what the kernel expects: the test could not fail";
  ASSERT_TRUE(act.smem != s.model(one).smem && act.smem != s.model(other).smem)
      << "one alternative alone gives the bytes: the test would not need two";
  auto st = ok_status(s);
  st[1] = 2;
  st[3] = 16384;
  auto r = judged(*c, s, s.gsrc, act, st);
  EXPECT_EQ(r.cls, "spec_divergence") << c->id << ": " << r.message;
  EXPECT_NE(r.message.find(first), std::string::npos) << r.message;
  EXPECT_NE(r.message.find(second), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("never completes"), std::string::npos) << r.message;
  for (size_t i = 0; i < act.smem.size(); ++i)
    if (act.smem[i] != s.smem_init[i]) {
      act.smem[i] ^= 0x10;  // a byte that neither the alternatives nor the initial image hold
      break;
    }
  EXPECT_EQ(judged(*c, s, s.gsrc, act, st).cls, "timeout") << c->id;
}

// The explored interleaved loads of results/explore/explored.jsonl whose phase never completed on the H100: a 5-D
// load with a NaN fill whose chunk rows leave the tensor, and a multicast TFLOAT32 load (exploration of seed
// 20261128), whose bytes the device also rounds to tf32.
TEST(Judge, AWaitThatNeverEndsUnderTwoMeasuredAlternativesIsNamed) {
  expect_timeout_named("cp.async.bulk.tensor/5d.shared_cta.global.tile#", "explored.0xac96d8382d",
                       "interleave_tile_box=chunk_rows", "oob_nan_pattern=repeat_7ff7");
  expect_timeout_named("cp.async.bulk.tensor/3d.shared_cluster.global.tile/multicast_cluster#", "explored.0x57cfb3a31b",
                       "interleave_tile_box=chunk_rows", "tensor_tf32_load=round_nearest_even");
}
