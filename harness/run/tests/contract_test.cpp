// The generator -> harness contract on the C++ side (generated/contract/run_contract.hpp, from
// generator/ptxcts_gen/contract.py): its tables agree with harness/refmodel's, every form of the manifest passes
// the load-time check, a form that breaks it is refused naming the form and the field, and the plan honours the
// facts the contract carries (peer_must_differ, type_cells, cp_mask).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "contract.hpp"
#include "manifest.hpp"
#include "model_device.hpp"
#include "plan.hpp"
#include "tensor_form.hpp"
#include "tensor_maps.hpp"
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
      // Explored cases (explicit parameters, results/explore/explored.jsonl) count too: a type they run with a
      // map the exploration found is a type the planner must run, not report.
      if (c.form != &f) continue;
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

// Whether any tensor map of this element type, rank and encode is legal on sm_90 (ref::validate_encode), found
// by brute force over the inner dimension alone (every other dimension 1, dense strides), independently of the
// planner's own tables: the rows of every width of 1-64 elements, boxes of 1-64 elements, channelsPerPixel 1-64.
bool some_legal_map(ref::TensorDataType dt, unsigned rank, bool im2col) {
  for (uint32_t n = 1; n <= 64; ++n) {
    ref::TensorMapParams p;
    p.kind = im2col ? ref::EncodeKind::im2col : ref::EncodeKind::tiled;
    p.dtype = dt;
    p.rank = rank;
    p.global_address = 1024;
    p.dims = {n, 1, 1, 1, 1};
    p.strides = ref::dense_strides(dt, rank, p.dims);
    if (im2col) {
      p.channels_per_pixel = n;
      p.pixels_per_column = 1;
      if (ref::validate_encode(p, 90).must_accept()) return true;
      continue;
    }
    for (uint32_t b = 1; b <= 64; ++b) {
      p.box = {b, 1, 1, 1, 1};
      if (ref::validate_encode(p, 90).must_accept()) return true;
    }
  }
  return false;
}

// The element type a planned reduce case runs with (its ref::ReduceOp, e.g. "add.noftz.f16" -> "f16").
std::string reduce_type_of(const RunCase& c) {
  ptxcts::run::Setup s;
  build_setup(c, 1, PlanOptions{}, s);
  const std::string op = s.info.get_str("op");
  return op.substr(op.rfind('.') + 1);
}

// Every (reduce tensor form, element type of the chapter's table) for which a legal tensor map exists gets a case
// of the planner's own: the dense 5-D rows of .f16 / .bf16 (40 bytes) once left those types reported as having no
// legal map although 48-byte rows are legal.
TEST(Contract, EveryTypeWithALegalMapIsPlanned) {
  size_t pairs = 0, padded = 0;
  for (auto& f : forms()) {
    if (!f.valid() || !f.run.get(contract::field::type_cells) || !f.run.get(contract::field::load_mode)) continue;
    const ptxcts::run::TensorForm t = ptxcts::run::tform(f);
    ASSERT_TRUE(t.reduce && t.modeled) << f.form << ": a form with type cells is a modelled tensor reduction";
    const bool im2col = t.mode != ref::TensorMode::tile;
    const unsigned rank = t.rank;
    std::set<std::string> planned;
    for (auto& c : cases())
      if (c.form == &f && !c.explicit_params && c.not_supported.empty()) {
        planned.insert(reduce_type_of(c));
        padded += c.variant.find(".gstrides_") != std::string::npos;
      }
    for (auto& [type, cell] : f.run.get(contract::field::type_cells)->obj()) {
      if (cell.str() != "allowed") continue;
      auto dt = ptxcts::run::tmaps::dtype_for(type);
      ASSERT_TRUE(dt) << f.form << " ." << type << ": no tensor data type for an element type of the table";
      if (!some_legal_map(*dt, rank, im2col)) continue;
      ++pairs;
      EXPECT_TRUE(planned.count(type)) << f.form << " ." << type << ": a legal " << rank << "-D "
                                       << (im2col ? "im2col" : "tile") << " map of " << ref::to_string(*dt)
                                       << " exists, yet the planner runs no case of the type";
    }
  }
  EXPECT_GT(pairs, 0u);
  EXPECT_GT(padded, 0u) << "no planned case needed padded rows: the 5-D .f16 reductions should";
}

// A case of padded rows is judged by the model as any other: on the model device (the model's own bytes) it
// passes, the reduction changes elements of the box, and the padding past each row's last element is left as it
// was (tensor_reduce writes tensor elements only).
TEST(Contract, PaddedRowsAreJudgedByTheModel) {
  size_t seen = 0;
  for (auto& c : cases()) {
    if (c.explicit_params || c.variant.find(".gstrides_") == std::string::npos) continue;
    ++seen;
    ptxcts::run::Setup s;
    build_setup(c, 1, PlanOptions{}, s);
    const ptxcts::run::CaseResult r = ptxcts::run::run_on_model(c, s, "model");
    EXPECT_EQ(r.cls, ptxcts::run::cls::pass) << c.id << ": " << r.message;
    ASSERT_EQ(s.expected.gdst.size(), s.gdst.size()) << c.id;
    EXPECT_NE(s.expected.gdst, s.gdst) << c.id << ": the model's reduction changed nothing";
    const ptxcts::run::TensorMapSpec& m = s.tmap;
    const uint64_t row = m.dims[0] * ref::element_bits(ref::TensorDataType(m.dtype)) / 8;
    ASSERT_LT(row, m.strides[0]) << c.id << ": rows not padded";
    for (uint64_t r1 = 0; r1 < m.dims[1] * m.dims[2] * m.dims[3] * m.dims[4]; ++r1) {
      const size_t at = s.gdst_off + size_t(r1 * m.strides[0]);  // the rows lie evenly: each stride covers the last
      for (uint64_t b = row; b < m.strides[0]; ++b)
        ASSERT_EQ(s.expected.gdst[at + b], s.gdst[at + b]) << c.id << ": padding byte " << b << " of row " << r1;
    }
  }
  EXPECT_GT(seen, 0u);
}

// reduce_map: the first candidate the validator accepts, and padded_rows keeps every stride legal and covering.
TEST(Contract, ReduceMapIsLegalForEveryTypeAndRank) {
  using ptxcts::run::tmaps::reduce_map;
  for (const char* type : {"u32", "s32", "u64", "s64", "f16", "bf16", "f32", "f64"})
    for (unsigned rank = 1; rank <= 5; ++rank)
      for (bool im2col : {false, true}) {
        if (im2col && rank < 3) continue;
        auto dt = ptxcts::run::tmaps::dtype_for(type);
        ASSERT_TRUE(dt) << type;
        auto m = reduce_map(*dt, rank, im2col);
        ASSERT_TRUE(m) << type << " rank " << rank << (im2col ? " im2col" : " tile");
        auto v = ref::validate_encode(m->map, 90);
        EXPECT_TRUE(v.must_accept()) << type << " rank " << rank;
        // the dense map whenever it is legal: the recipe names of the types that always ran stay as they were
        auto first = ptxcts::run::tmaps::reduce_map_candidates(*dt, rank, im2col)[0];
        if (ref::validate_encode(first.map, 90).must_accept()) EXPECT_EQ(m->name, "") << type << " rank " << rank;
      }
  auto m = reduce_map(ref::TensorDataType::FLOAT16, 5, false);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, ".gstrides_48_240_960_2880");
}

}  // namespace
