// The generator -> harness contract on the C++ side (generated/contract/run_contract.hpp, from
// generator/ptxcts_gen/contract.py): its tables agree with harness/refmodel's, every form of the manifest passes
// the load-time check, a form that breaks it is refused naming the form and the field, and the plan honours the
// facts the contract carries (peer_must_differ, type_cells, cp_mask).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "abi.hpp"
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
    // A mode the contract lists as unmodelled (contract.UNMODELLED_LOAD_MODES) must not parse: once the model has
    // it, the contract must say so (and its cases run).
    if (!m.modelled) {
      EXPECT_FALSE(mode) << m.spelling << ": harness/refmodel models it; remove it from UNMODELLED_LOAD_MODES";
      continue;
    }
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
    if (f.product) {
      // A combination only the whole product adds is planned once (plan_cases): its type cells are its curated
      // form's; here, that one case.
      size_t planned = 0;
      for (auto& c : cases()) planned += c.form == &f && !c.explicit_params;
      EXPECT_EQ(planned, 1u) << f.form << ": a whole-product form is planned once";
      continue;
    }
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
    if (f.product) continue;  // planned once (plan_cases; EveryTypeCellIsRunOrReported checks that one case)
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
// passes; a load fills its box in shared memory; a store or reduction changes elements of the box and leaves every
// byte of the tensor's span that is no element -- the padding past each row -- as it was (tensor_store and
// tensor_reduce write tensor elements only).
TEST(Contract, PaddedRowsAreJudgedByTheModel) {
  size_t seen = 0, loads = 0, stores = 0, reductions = 0;
  for (auto& c : cases()) {
    // tensor copies only: the driver-API cases of tensormap.encode (no load mode) name padded rows too
    if (c.explicit_params || c.variant.find(".gstrides_") == std::string::npos ||
        !c.form->run.get(contract::field::load_mode))
      continue;
    ++seen;
    const ptxcts::run::TensorForm t = ptxcts::run::tform(*c.form);
    ptxcts::run::Setup s;
    build_setup(c, 1, PlanOptions{}, s);
    const ptxcts::run::CaseResult r = ptxcts::run::run_on_model(c, s, "model");
    EXPECT_EQ(r.cls, ptxcts::run::cls::pass) << c.id << ": " << r.message;
    const ptxcts::run::TensorMapSpec& m = s.tmap;
    const uint64_t row = m.dims[0] * ref::element_bits(ref::TensorDataType(m.dtype)) / 8;
    ASSERT_LT(row, m.strides[0]) << c.id << ": rows not padded";
    if (t.prefetch) continue;
    if (t.load) {
      ++loads;
      EXPECT_NE(s.expected.smem, s.smem_init) << c.id << ": the model's load wrote nothing";
      continue;
    }
    ++(t.reduce ? reductions : stores);
    ASSERT_EQ(s.expected.gdst.size(), s.gdst.size()) << c.id;
    EXPECT_NE(s.expected.gdst, s.gdst) << c.id << ": the model's " << (t.reduce ? "reduction" : "store")
                                       << " changed nothing";
    // The bytes of the tensor's elements, by their coordinates and the map's strides; every other byte of the
    // span is padding.
    const uint64_t span = uint64_t(s.info.get_int("tensor_bytes"));
    std::vector<bool> element(span, false);
    std::array<uint64_t, 5> d{1, 1, 1, 1, 1}, st{row, 0, 0, 0, 0};
    for (unsigned i = 0; i < m.rank; ++i) d[i] = m.dims[i];
    for (unsigned i = 1; i < m.rank; ++i) st[i] = m.strides[i - 1];
    for (uint64_t i4 = 0; i4 < d[4]; ++i4)
      for (uint64_t i3 = 0; i3 < d[3]; ++i3)
        for (uint64_t i2 = 0; i2 < d[2]; ++i2)
          for (uint64_t i1 = 0; i1 < d[1]; ++i1) {
            const uint64_t at = i1 * st[1] + i2 * st[2] + i3 * st[3] + i4 * st[4];
            ASSERT_LE(at + row, span) << c.id;
            std::fill(element.begin() + long(at), element.begin() + long(at + row), true);
          }
    size_t padding = 0;
    for (uint64_t b = 0; b < span; ++b) {
      if (element[b]) continue;
      ++padding;
      ASSERT_EQ(s.expected.gdst[s.gdst_off + b], s.gdst[s.gdst_off + b]) << c.id << ": padding byte " << b;
    }
    EXPECT_GT(padding, 0u) << c.id;
  }
  EXPECT_GT(reductions, 0u) << "the 5-D .f16 reductions run with padded rows";
  EXPECT_GT(loads, 0u) << "the UINT8 and swizzle tile loads of rank 2 and up run with padded rows";
  EXPECT_GT(stores, 0u) << "the UINT8 and swizzle tile stores of rank 2 and up run with padded rows";
  EXPECT_GT(seen, loads + stores + reductions) << "tile prefetches run the load maps, padded rows included";
}

// The swizzle modes of the sm_90 chapter (CUtensorMapSwizzle's NONE, 32B, 64B, 128B; the 128B atom modes are
// sm_100's, which the planner does not run).
constexpr ref::Swizzle kSm90Swizzles[] = {ref::Swizzle::NONE, ref::Swizzle::B32, ref::Swizzle::B64,
                                          ref::Swizzle::B128};

// Whether any tiled map of this rank and swizzle is legal on sm_90 (ref::validate_encode), found by brute force
// independently of the planner's tables: element widths of 1, 2, 4 and 8 bytes, rows of 1-64 elements (every
// other dimension 1, dense strides), inner boxes of 1-64 elements.
bool some_legal_swizzled_map(unsigned rank, ref::Swizzle sw) {
  for (auto dt : {ref::TensorDataType::UINT8, ref::TensorDataType::UINT16, ref::TensorDataType::UINT32,
                  ref::TensorDataType::UINT64})
    for (uint32_t n = 1; n <= 64; ++n)
      for (uint32_t b = 1; b <= 64; ++b) {
        ref::TensorMapParams p;
        p.kind = ref::EncodeKind::tiled;
        p.dtype = dt;
        p.rank = rank;
        p.global_address = 1024;
        p.swizzle = sw;
        p.dims = {n, 1, 1, 1, 1};
        p.strides = ref::dense_strides(dt, rank, p.dims);
        p.box = {b, 1, 1, 1, 1};
        if (ref::validate_encode(p, 90).must_accept()) return true;
      }
  return false;
}

// Every tile-mode load, store and prefetch form of rank 2 and up runs every swizzle mode some legal map of its rank
// allows: the dense rows of the swizzle maps (77, 45 and 29 .u16 elements) once dropped every 128B swizzle of rank
// 2 and up, 64B from rank 3 and 32B from rank 4, although their padded rows are legal. Rank 1 is left out: its
// box is one row of at most the swizzle span starting 1024-aligned, where every swizzle pattern is the identity,
// and tile_maps plans no swizzle there.
TEST(Contract, EverySwizzleALegalTileMapAllowsIsPlanned) {
  std::map<std::pair<unsigned, ref::Swizzle>, bool> legal;
  for (unsigned rank = 1; rank <= 5; ++rank)
    for (auto sw : kSm90Swizzles) legal[{rank, sw}] = some_legal_swizzled_map(rank, sw);
  EXPECT_TRUE(legal.at({2, ref::Swizzle::B128})) << "the brute force finds no legal 2-D 128B swizzle map";
  std::set<std::string> directions_ranks;
  size_t pairs = 0;
  for (auto& f : forms()) {
    if (!f.valid() || !f.run.get(contract::field::load_mode)) continue;
    if (f.product) continue;  // planned once (plan_cases): its swizzles are its curated form's
    const ptxcts::run::TensorForm t = ptxcts::run::tform(f);
    if (!t.modeled || t.mode != ref::TensorMode::tile || t.reduce) continue;
    std::vector<const RunCase*> planned;
    for (auto& c : cases())
      if (c.form == &f && !c.explicit_params && c.not_supported.empty()) planned.push_back(&c);
    if (planned.empty()) continue;  // a form the run tier does not drive (its case says why)
    std::set<ref::Swizzle> want, seen;
    for (auto sw : kSm90Swizzles)
      if (legal.at({t.rank, sw})) want.insert(sw);
    for (const RunCase* c : planned) {
      ptxcts::run::Setup s;
      build_setup(*c, 1, PlanOptions{}, s);
      seen.insert(ptxcts::run::tmaps::params_of(s.tmap, 1024).swizzle);
      if (std::includes(seen.begin(), seen.end(), want.begin(), want.end())) break;
    }
    for (auto sw : want) {
      if (t.rank < 2) break;
      ++pairs;
      EXPECT_TRUE(seen.count(sw)) << f.form << ": a legal " << t.rank << "-D tile map of swizzle "
                                  << ref::to_string(sw) << " exists, yet the planner runs no case of it";
    }
    directions_ranks.insert((t.load ? "load " : t.store ? "store " : "prefetch ") + std::to_string(t.rank));
  }
  EXPECT_GT(pairs, 0u);
  for (const char* dir : {"load ", "store ", "prefetch "})
    for (unsigned rank = 1; rank <= 5; ++rank)
      EXPECT_TRUE(directions_ranks.count(dir + std::to_string(rank))) << "no planned tile " << dir << rank << "-D form";
}

// A map the driver refuses only for its rows runs padded in its stead, and a map legal as it is keeps its name:
// padded_candidates and first_legal on the planner's own tile maps.
TEST(Contract, TileMapsRunPaddedWhereTheirRowsAreRefused) {
  using namespace ptxcts::run::tmaps;
  size_t padded = 0;
  for (unsigned rank = 1; rank <= 5; ++rank)
    for (bool store : {false, true})
      for (const ref::TensorMapParams& p : tile_maps(rank, store, 2)) {
        auto m = first_legal(padded_candidates(p));
        if (ref::validate_encode(p, 90).must_accept()) {
          ASSERT_TRUE(m) << map_name(p);
          EXPECT_EQ(m->name, "") << map_name(p) << ": a legal map renamed";
          continue;
        }
        if (!m) continue;
        ++padded;
        EXPECT_NE(m->name, "") << map_name(p);
        // only the strides change, each one covering the dimension before it on a multiple of 16 bytes
        EXPECT_EQ(map_name(m->map), map_name(p));
        EXPECT_EQ(m->map.dims, p.dims);
        EXPECT_EQ(m->map.box, p.box);
        for (unsigned i = 0; i + 1 < rank; ++i) {
          EXPECT_EQ(m->map.strides[i] % 16, 0u) << map_name(p);
          EXPECT_GE(m->map.strides[i], p.strides[i]) << map_name(p);
        }
      }
  EXPECT_GT(padded, 0u);
  Shape sh = tile_shape(2, 2);
  sh.box[0] = 64;
  sh.dims[0] = 77;
  ref::TensorMapParams p = tiled(ref::TensorDataType::UINT16, 2, sh);
  p.swizzle = ref::Swizzle::B128;
  auto m = first_legal(padded_candidates(p));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, ".gstrides_160");
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

// The driver-API cases (tensormap.encode, tensor/tensor_encode.cpp) draw every value of every driver enum the
// chapter's tensor maps take, on each encode function -- CUtensorMapDataType, CUtensorMapInterleave,
// CUtensorMapSwizzle (the 128B_ATOM_* modes included), CUtensorMapL2promotion, CUtensorMapFloatOOBfill, and for
// cuTensorMapEncodeIm2colWide CUtensorMapIm2ColWideMode -- each case's verdict the validator's at sm_90 (the
// documented rules), an "enum." case named "legal." exactly when it must be accepted. Every Im2colWide map must be refused below
// compute capability 10.0 (cuda.h: "This API is only supported on devices of compute capability 10.0 or higher").
TEST(Contract, EncodeCasesDrawEveryValueOfEveryDriverEnum) {
  const auto& reg = abi_registry();
  ASSERT_TRUE(reg.count("v1.encode_only"));
  auto names = [](auto of) {
    std::set<int> v;
    for (int i = 0; std::string(of(i)) != "?"; ++i) v.insert(i);
    return v;
  };
  const std::set<int> dtypes = names([](int i) { return ref::to_string(ref::TensorDataType(i)); });
  const std::set<int> interleaves = names([](int i) { return ref::to_string(ref::Interleave(i)); });
  const std::set<int> swizzles = names([](int i) { return ref::to_string(ref::Swizzle(i)); });
  const std::set<int> l2 = names([](int i) { return ref::to_string(ref::L2Promotion(i)); });
  const std::set<int> oob = names([](int i) { return ref::to_string(ref::OobFill(i)); });
  EXPECT_EQ(dtypes.size(), 16u);  // cuda.h (CUDA 13.0): UINT8 .. 16U6_ALIGN16B
  EXPECT_EQ(swizzles.size(), 8u);  // NONE .. 128B_ATOM_64B, and the chapter's 96B (no CUDA 13.0 value: refused)
  for (const char* fn : {"cuTensorMapEncodeTiled", "cuTensorMapEncodeIm2col", "cuTensorMapEncodeIm2colWide"}) {
    Form f;
    f.form = std::string("tensormap/") + fn;
    f.family = "tensormap.encode";
    f.instr = fn;
    f.abi = "v1.encode_only";
    const bool wide = std::string(fn) == "cuTensorMapEncodeIm2colWide";
    std::map<std::string, std::set<int>> seen, legal;
    size_t n = 0;
    for (auto& [variant, params] : reg.at("v1.encode_only").variants(f, PlanOptions{})) {
      RunCase c;
      c.id = f.form + "#" + variant;
      c.form = &f;
      c.variant = variant;
      c.params = params;
      ptxcts::run::Setup s;
      build_setup(c, 1, PlanOptions{}, s);
      const TensorMapSpec& t = s.tmap;
      ++n;
      EXPECT_EQ(t.kind, wide ? TensorMapSpec::Im2colWide
                             : std::string(fn) == "cuTensorMapEncodeIm2col" ? TensorMapSpec::Im2col : TensorMapSpec::Tiled)
          << c.id;
      if (variant.find("enum.") != std::string::npos)  // the enum cases' names say their verdict
        EXPECT_EQ(variant.rfind("legal.", 0) == 0, t.expect_ok) << c.id << ": " << t.validator_reason;
      if (wide) EXPECT_FALSE(t.expect_ok) << c.id << ": an Im2colWide map the validator accepts at sm_90";
      const std::map<std::string, int> values = {{"dtype", t.dtype}, {"interleave", t.interleave},
                                                 {"swizzle", t.swizzle}, {"l2promotion", t.l2promo},
                                                 {"oobfill", t.oobfill}, {"wide_mode", t.wide_mode}};
      for (auto& [e, v] : values) {
        seen[e].insert(v);
        if (t.expect_ok) legal[e].insert(v);
      }
    }
    EXPECT_GT(n, 0u) << fn;
    EXPECT_EQ(seen["dtype"], dtypes) << fn;
    EXPECT_EQ(seen["interleave"], interleaves) << fn;
    EXPECT_EQ(seen["swizzle"], swizzles) << fn;
    EXPECT_EQ(seen["l2promotion"], l2) << fn;
    EXPECT_EQ(seen["oobfill"], oob) << fn;
    if (wide) {
      EXPECT_EQ(seen["wide_mode"], (std::set<int>{0, 1})) << fn;  // CU_TENSOR_MAP_IM2COL_WIDE_MODE_W, _W128
      continue;
    }
    // Tiled and Im2col: every value has a legal case at sm_90 but the swizzle the CUDA 13.0 enum lacks (96B)
    EXPECT_EQ(legal["dtype"], dtypes) << fn;
    EXPECT_EQ(legal["interleave"], interleaves) << fn;
    std::set<int> swizzles_legal = swizzles;
    swizzles_legal.erase(int(ref::Swizzle::B96));
    EXPECT_EQ(legal["swizzle"], swizzles_legal) << fn;
    EXPECT_EQ(legal["l2promotion"], l2) << fn;
    EXPECT_EQ(legal["oobfill"], oob) << fn;
  }
}
