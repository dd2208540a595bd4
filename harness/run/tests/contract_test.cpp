// The generator -> harness contract on the C++ side (generated/contract/run_contract.hpp, from
// generator/ptxcts_gen/contract.py): its tables agree with harness/refmodel's, every form of the manifest passes
// the load-time check, a form that breaks it is refused naming the form and the field, and the plan honours the
// facts the contract carries (peer_must_differ, type_cells, cp_mask).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "contract.hpp"
#include "manifest.hpp"
#include "plan.hpp"
#include "ptxcts/ref/tensor.hpp"
#include "ptxcts/ref/types.hpp"

using namespace ptxcts::run;
namespace ref = ptxcts::ref;
namespace contract = ptxcts::contract;

namespace {

const std::vector<Form>& forms() {
  static const std::vector<Form> f = load_forms(ptxcts_root());
  return f;
}
const std::vector<RunCase>& cases() {
  static const std::vector<RunCase> c = plan_cases(forms(), PlanOptions{});
  return c;
}

TEST(Contract, ReduceTablesAgreeWithTheModel) {
  std::set<std::string> cells;
  for (auto& c : contract::kReduceCells) cells.insert(std::string(c.site) + " " + c.redop + " " + c.type);
  size_t checked = 0;
  for (const char* site_name : {"bulk_shared_cluster", "bulk_global", "tensor"}) {
    auto site = ref::parse_reduce_site(site_name);
    ASSERT_TRUE(site) << site_name;
    for (const char* redop : contract::kRedOps)
      for (const char* type : contract::kTypes) {
        auto op = ref::parse_reduce_op(std::string(redop) + "." + type);
        ASSERT_TRUE(op) << redop << "." << type;
        auto noftz = *op;
        noftz.noftz = true;
        // The model's table, with .noftz where the chapter requires it (.add.f16/.bf16 to .global).
        bool model = ref::reduce_op_allowed(*site, *op) || ref::reduce_op_allowed(*site, noftz);
        bool python = cells.count(std::string(site_name) + " " + redop + " " + type) > 0;
        EXPECT_EQ(python, model) << site_name << " ." << redop << " ." << type
                                 << ": rules/reduce.py and ref::reduce_op_allowed disagree";
        ++checked;
      }
  }
  EXPECT_EQ(checked, 3u * std::size(contract::kRedOps) * std::size(contract::kTypes));
}

TEST(Contract, LoadModesAreTheModelsModes) {
  std::set<int> seen;
  for (auto& m : contract::kLoadModes) {
    auto mode = ref::parse_tensor_mode(m.ref_mode);
    ASSERT_TRUE(mode) << m.spelling << " -> " << m.ref_mode << " is no ref::TensorMode";
    EXPECT_TRUE(seen.insert(int(*mode)).second) << m.spelling << ": two spellings for one mode";
  }
  EXPECT_EQ(seen.size(), 7u);
}

TEST(Contract, EveryFormOfTheManifestPassesAndNamesItsAbi) {
  ASSERT_FALSE(forms().empty());
  for (auto& f : forms()) EXPECT_NE(f.abi_row, nullptr) << f.form;
}

// A copy of a valid tensor form whose run object is its own (Json objects share their members when copied).
Form good_tensor_form() {
  for (const Form& f : forms())
    if (f.valid() && f.run.get(contract::field::load_mode)) {
      Form g = f;
      g.run = Json::parse(f.run.dump());
      return g;
    }
  throw std::runtime_error("no tensor form in the manifest");
}

void expect_refused(const Form& f, const std::string& needle) {
  try {
    check_form(f);
    ADD_FAILURE() << "accepted: " << needle;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("form " + f.form + ": " + needle), std::string::npos) << e.what();
  }
}

TEST(Contract, ABrokenFormIsRefusedNamingFormAndField) {
  Form f = good_tensor_form();
  EXPECT_NO_THROW(check_form(f));
  Form a = good_tensor_form();
  a.run["load_mode"] = "tiles";  // an unknown spelling never silently becomes tile
  expect_refused(a, "run.load_mode 'tiles' is not a load mode");
  Form b = good_tensor_form();
  b.run["dims"] = "two";
  expect_refused(b, "run.dims = \"two\" is not of the contract's type");
  Form c = good_tensor_form();
  c.run["bogus"] = true;
  expect_refused(c, "run.bogus is not a field of ABI");
  Form d = f;
  Json run = Json::object();
  for (auto& [k, v] : f.run.obj())
    if (k != "dims") run[k] = v;
  d.run = run;
  expect_refused(d, "run.dims is missing");
  Form e = f;
  e.abi = "v1.nonesuch";
  expect_refused(e, "run ABI 'v1.nonesuch' is not one the contract declares");
}

TEST(Contract, PeerMustDifferNeverPlansTheIssuingCta) {
  size_t forms_seen = 0, remote_cases = 0;
  for (auto& c : cases()) {
    const Json* pmd = c.form->run.get(contract::field::peer_must_differ);
    if (!pmd || !pmd->boolean() || !c.form->run.get(contract::field::remote)->boolean()) continue;
    ++remote_cases;
    forms_seen += c.params.get_int("peer", -1) == 1;
    EXPECT_NE(c.params.get_int("peer", -1), 0) << c.id << ": a copy into the issuing CTA itself (undefined)";
  }
  EXPECT_GT(remote_cases, 0u);
  EXPECT_EQ(forms_seen, remote_cases);
}

TEST(Contract, EveryTypeCellIsRunOrReported) {
  size_t cells = 0;
  for (auto& f : forms()) {
    const Json* tc = f.run.get(contract::field::type_cells);
    if (!f.valid() || !tc) continue;
    std::map<std::string, int> run, reported;
    for (auto& c : cases()) {
      // The planner's own cases: an explored case (explicit parameters, results/explore/explored.jsonl) may run
      // an element type the planner reports, with a map the exploration found.
      if (c.form != &f || c.explicit_params) continue;
      if (!c.not_supported.empty()) {
        EXPECT_NE(c.variant.rfind("type_", 0), std::string::npos) << c.id;
        reported[c.variant.substr(5, c.variant.find('.') == std::string::npos ? std::string::npos
                                                                              : c.variant.find('.') - 5)]++;
        continue;
      }
      ptxcts::run::Setup s;
      build_setup(c, 1, PlanOptions{}, s);
      std::string op = s.info.get_str("op");  // e.g. "add.u32"
      run[op.substr(op.rfind('.') + 1)]++;
    }
    for (auto& [type, cell] : tc->obj()) {
      ++cells;
      bool r = run.count(type) > 0, n = reported.count(type) > 0;
      EXPECT_TRUE(r != n) << f.form << " ." << type << " (" << cell.str() << "): run " << r << ", reported " << n;
      if (cell.str() != "allowed") EXPECT_FALSE(r) << f.form << " ." << type << ": not in the table, yet run";
    }
  }
  EXPECT_GT(cells, 0u);
}

}  // namespace
