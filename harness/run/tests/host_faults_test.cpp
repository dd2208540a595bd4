// The self-test's host faults (host_faults.hpp) on the CPU: each kind changes exactly the field it names, to a
// value the model's validator calls legal, says when the change cannot be observed, refuses a map it cannot
// perturb legally, and an unknown PTXCTS_PLANT_HOST_FAULT is refused naming it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>

#include "host_faults.hpp"
#include "ptxcts/ref/tensormap.hpp"
#include "tensor_maps.hpp"

namespace ptxcts::run {
namespace {

using ref::OobFill;
using ref::Swizzle;
using ref::TensorDataType;

// A 2-D FLOAT32 tensor of 64 x 8 elements (256-byte rows), box 8 x 4 at (0, 0), no swizzle, no OOB fill.
// A FLOAT32 map of this kind, rank, dims and byte strides; every other field at its default.
TensorMapSpec float32_map(decltype(TensorMapSpec::kind) kind, unsigned rank, decltype(TensorMapSpec::dims) dims,
                          decltype(TensorMapSpec::strides) strides) {
  TensorMapSpec t;
  t.kind = kind;
  t.dtype = int(TensorDataType::FLOAT32);
  t.rank = rank;
  t.dims = dims;
  t.strides = strides;
  return t;
}

TensorMapSpec tiled2d() {
  TensorMapSpec t = float32_map(TensorMapSpec::Tiled, 2, {64, 8, 1, 1, 1}, {256, 0, 0, 0});
  t.box = {8, 4, 1, 1, 1};
  return t;
}

HostFaultContext ctx(const TensorMapSpec& t, std::array<int64_t, 5> coords = {}) {
  HostFaultContext c;
  c.global_address = 1 << 20;
  c.cc = 90;
  c.tx_bytes = int64_t(t.box[0]) * t.box[1] * 4;
  c.box_smem_off = 0;
  c.coords = coords;
  return c;
}

bool legal(const TensorMapSpec& t) { return ref::validate_encode(tmaps::params_of(t, 1 << 20), 90).must_accept(); }

// Every field of a and b equal except those the caller lists as changed.
void expect_only(const TensorMapSpec& a, const TensorMapSpec& b, const std::string& changed) {
  if (changed != "swizzle") EXPECT_EQ(a.swizzle, b.swizzle);
  if (changed != "oobfill") EXPECT_EQ(a.oobfill, b.oobfill);
  if (changed != "estrides") EXPECT_EQ(a.estrides, b.estrides);
  if (changed != "box") EXPECT_EQ(a.box, b.box);
  if (changed != "strides") EXPECT_EQ(a.strides, b.strides);
  if (changed != "pixels") EXPECT_EQ(a.pixels, b.pixels);
  if (changed != "dtype") EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.dims, b.dims);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.interleave, b.interleave);
  EXPECT_EQ(a.channels, b.channels);
}

// Plants kind k into u, a copy of t, in context c: the plant must apply to `field`, keep the map legal and change
// nothing but `member` (expect_only's name). The plant, for the test's own checks.
HostPlant planted(HostFault k, const TensorMapSpec& t, TensorMapSpec& u, const HostFaultContext& c,
                  const std::string& field, const std::string& member) {
  u = t;
  HostPlant p = plant_host_fault(k, u, c);
  EXPECT_TRUE(p.applied) << p.refused;
  EXPECT_EQ(p.field, field);
  EXPECT_TRUE(legal(u)) << field;
  expect_only(t, u, member);
  return p;
}

TEST(HostFaults, KindsAreNamedOnce) {
  std::set<std::string> names;
  for (auto& k : host_fault_kinds()) EXPECT_TRUE(names.insert(k.name).second) << k.name;
  EXPECT_EQ(names, (std::set<std::string>{"tmap_swizzle", "tmap_oobfill", "tmap_estride", "tmap_box", "tmap_stride",
                                          "tmap_dtype"}));
}

TEST(HostFaults, SwizzleNoneBecomes128B) {
  TensorMapSpec t = tiled2d(), u;
  HostPlant p = planted(HostFault::swizzle, t, u, ctx(t), "swizzle", "swizzle");
  EXPECT_EQ(p.from, "NONE");
  EXPECT_EQ(p.to, "128B");
  EXPECT_EQ(u.swizzle, int(Swizzle::B128));
  // 4 rows of 32 bytes (128 bytes at +0): 128B swizzle moves row k's chunks by k... only from byte 128 on, so
  // the 128-byte footprint is laid out the same: equivalent
  EXPECT_FALSE(p.equivalent.empty());
  // a larger box crosses 128-byte rows: observable
  TensorMapSpec big = tiled2d();
  big.box = {32, 8, 1, 1, 1};
  TensorMapSpec v = big;
  HostPlant q = plant_host_fault(HostFault::swizzle, v, ctx(big));
  ASSERT_TRUE(q.applied);
  EXPECT_TRUE(q.equivalent.empty()) << q.equivalent;
}

TEST(HostFaults, SwizzleOtherModeGoesToNone) {
  // 128-byte box rows under 128B swizzle: NONE is tried first
  TensorMapSpec t = tiled2d();
  t.box = {32, 4, 1, 1, 1};
  t.swizzle = int(Swizzle::B128);
  TensorMapSpec u = t;
  HostPlant p = plant_host_fault(HostFault::swizzle, u, ctx(t));
  ASSERT_TRUE(p.applied);
  EXPECT_EQ(p.to, "NONE");
  EXPECT_TRUE(legal(u));
}

TEST(HostFaults, OobFillFlipsForFloatAndIsRefusedForIntegers) {
  TensorMapSpec t = tiled2d(), u = t;
  HostPlant p = plant_host_fault(HostFault::oobfill, u, ctx(t, {-4, 0, 0, 0, 0}));
  ASSERT_TRUE(p.applied);
  EXPECT_EQ(p.from, "NONE");
  EXPECT_EQ(p.to, "NAN_REQUEST_ZERO_FMA");
  EXPECT_EQ(u.oobfill, int(OobFill::NAN_REQUEST_ZERO_FMA));
  EXPECT_TRUE(p.equivalent.empty()) << "the box starts at x = -4: OOB elements are filled";
  expect_only(t, u, "oobfill");
  // back again
  HostPlant back = plant_host_fault(HostFault::oobfill, u, ctx(t));
  EXPECT_EQ(u.oobfill, int(OobFill::NONE));
  EXPECT_EQ(back.to, "NONE");
  // inside the tensor: nothing is filled
  TensorMapSpec in = tiled2d();
  EXPECT_FALSE(plant_host_fault(HostFault::oobfill, in, ctx(t, {8, 2, 0, 0, 0})).equivalent.empty());
  // a store destination: the fill is for loads
  TensorMapSpec st = tiled2d();
  st.on_dst = true;
  EXPECT_NE(plant_host_fault(HostFault::oobfill, st, ctx(t, {-4, 0, 0, 0, 0})).equivalent.find("loads only"),
            std::string::npos);
  // integer data: NaN fill is illegal, so no plant and the map is unchanged
  TensorMapSpec i = tiled2d();
  i.dtype = int(TensorDataType::UINT32);
  TensorMapSpec j = i;
  HostPlant r = plant_host_fault(HostFault::oobfill, j, ctx(i));
  EXPECT_FALSE(r.applied);
  EXPECT_NE(r.refused.find("UINT32"), std::string::npos) << r.refused;
  expect_only(i, j, "");
}

TEST(HostFaults, ElementStrideOfTheOutermostWideDimension) {
  TensorMapSpec t = tiled2d(), u;
  HostPlant p = planted(HostFault::estride, t, u, ctx(t), "element_strides[1]", "estrides");
  EXPECT_EQ(u.estrides[1], 2u);
  EXPECT_EQ(u.estrides[0], 1u);
  EXPECT_TRUE(p.equivalent.empty());
  // a stride of 2 goes back to 1
  TensorMapSpec v = u;
  plant_host_fault(HostFault::estride, v, ctx(u));
  EXPECT_EQ(v.estrides[1], 1u);
  // a box of one row: the outer stride cannot matter, and without interleave elementStrides[0] is ignored (DRV):
  // the one-row dimension is taken, and said to be equivalent
  TensorMapSpec row = tiled2d();
  row.box = {8, 1, 1, 1, 1};
  HostPlant q = plant_host_fault(HostFault::estride, row, ctx(row));
  ASSERT_TRUE(q.applied);
  EXPECT_EQ(q.field, "element_strides[1]");
  EXPECT_FALSE(q.equivalent.empty());
  // rank 1: only dimension 0, ignored without interleave
  TensorMapSpec r1 = tiled2d();
  r1.rank = 1;
  r1.box = {8, 1, 1, 1, 1};
  HostPlant r = plant_host_fault(HostFault::estride, r1, ctx(r1));
  ASSERT_TRUE(r.applied);
  EXPECT_EQ(r.field, "element_strides[0]");
  EXPECT_NE(r.equivalent.find("ignored"), std::string::npos) << r.equivalent;
}

TEST(HostFaults, Im2colElementStrideOfW) {
  // the pixels walk W first: its element stride changes which pixels are read whatever the box
  TensorMapSpec t = float32_map(TensorMapSpec::Im2col, 4, {4, 16, 4, 2, 1}, {16, 256, 1024, 0});
  t.lower = {-1, -1, 0};
  t.upper = {-1, -1, 0};
  t.channels = 4;
  t.pixels = 8;
  ASSERT_TRUE(legal(t));
  TensorMapSpec u;
  HostPlant p = planted(HostFault::estride, t, u, ctx(t), "element_strides[1]", "estrides");
  EXPECT_EQ(u.estrides[1], 2u);
  EXPECT_TRUE(p.equivalent.empty());
}

TEST(HostFaults, BoxShrinksByOne) {
  TensorMapSpec t = tiled2d(), u;
  planted(HostFault::box, t, u, ctx(t), "boxDim[1]", "box");
  EXPECT_EQ(u.box[1], 3u);
  EXPECT_EQ(u.box[0], 8u);
  // one row of 4 floats (16 bytes): box[0] cannot shrink (a multiple of 16 bytes), box[1] is 1: refused
  TensorMapSpec small = tiled2d();
  small.box = {4, 1, 1, 1, 1};
  TensorMapSpec w = small;
  HostPlant r = plant_host_fault(HostFault::box, w, ctx(small));
  EXPECT_FALSE(r.applied);
  expect_only(small, w, "");
}

TEST(HostFaults, Im2colBoxIsPixelsPerColumn) {
  TensorMapSpec t = float32_map(TensorMapSpec::Im2col, 3, {4, 16, 2, 1, 1}, {16, 256, 0, 0});
  t.lower = {-1, 0, 0};
  t.upper = {-1, 0, 0};
  t.channels = 4;
  t.pixels = 8;
  ASSERT_TRUE(legal(t));
  TensorMapSpec u = t;
  HostPlant p = plant_host_fault(HostFault::box, u, ctx(t));
  ASSERT_TRUE(p.applied) << p.refused;
  EXPECT_EQ(p.field, "pixelsPerColumn");
  EXPECT_EQ(u.pixels, 7u);
  expect_only(t, u, "pixels");
}

TEST(HostFaults, GlobalStridePaddedBy16) {
  TensorMapSpec t = tiled2d(), u;
  HostPlant p = planted(HostFault::stride, t, u, ctx(t, {0, 2, 0, 0, 0}), "globalStrides[0]", "strides");
  EXPECT_EQ(u.strides[0], 272u);
  EXPECT_TRUE(p.equivalent.empty());
  // one row at y = 0: no address uses the stride
  TensorMapSpec row = tiled2d();
  row.box = {8, 1, 1, 1, 1};
  HostFaultContext c = ctx(row);
  EXPECT_FALSE(plant_host_fault(HostFault::stride, row, c).equivalent.empty());
  // dense 3-D rows: a larger row pitch needs the plane stride to grow with it (else the validator refuses the
  // map), as a padded layout would have it
  TensorMapSpec d3 = float32_map(TensorMapSpec::Tiled, 3, {64, 8, 4, 1, 1}, {256, 2048, 0, 0});
  d3.box = {8, 4, 2, 1, 1};
  TensorMapSpec g = d3;
  HostPlant q = plant_host_fault(HostFault::stride, g, ctx(d3, {0, 2, 1, 0, 0}));
  ASSERT_TRUE(q.applied) << q.refused;
  EXPECT_EQ(q.field, "globalStrides[0]");
  EXPECT_EQ(g.strides[0], 272u);
  EXPECT_GE(g.strides[1], 272u * 8) << "the plane stride covers the grown rows";
  // rank 1: nothing to pad
  TensorMapSpec r1 = tiled2d();
  r1.rank = 1;
  EXPECT_FALSE(plant_host_fault(HostFault::stride, r1, ctx(r1)).applied);
}

// The data type: another of the same width, integer <-> float first; for a reduction only a type whose element
// type the tensor table allows with the redOp (an illegal program is not a silent fault); none for 8-bit types.
TEST(HostFaults, DataTypeOfTheSameWidth) {
  TensorMapSpec t = tiled2d(), u;
  HostPlant p = planted(HostFault::dtype, t, u, ctx(t), "dtype", "dtype");
  EXPECT_EQ(p.from, "FLOAT32");
  EXPECT_EQ(p.to, "INT32");
  // a float map with a NaN OOB fill keeps a float type (the fill is legal only for floats)
  TensorMapSpec nan = tiled2d();
  nan.oobfill = int(OobFill::NAN_REQUEST_ZERO_FMA);
  EXPECT_EQ(planted(HostFault::dtype, nan, u, ctx(nan), "dtype", "dtype").to, "FLOAT32_FTZ");
  // reductions: .add on UINT32 computes in f32 after the plant; .and has no f32 cell, so INT32 (b32 either way);
  // .inc is defined for .u32 only: nothing to change to
  TensorMapSpec r = tiled2d();
  r.dtype = int(TensorDataType::UINT32);
  HostFaultContext c = ctx(r);
  c.redop = ref::RedOp::add;
  EXPECT_EQ(planted(HostFault::dtype, r, u, c, "dtype", "dtype").to, "FLOAT32");
  c.redop = ref::RedOp::and_op;
  EXPECT_EQ(planted(HostFault::dtype, r, u, c, "dtype", "dtype").to, "INT32");
  c.redop = ref::RedOp::inc;
  u = r;
  HostPlant inc = plant_host_fault(HostFault::dtype, u, c);
  EXPECT_FALSE(inc.applied);
  EXPECT_EQ(inc.refused, "no other data type of the same width is legal for this map and this reduction (.inc) "
                         "(data type UINT32)");
  expect_only(r, u, "");
  // FLOAT64 .add is not in the tensor table, but .min on INT64 is: FLOAT64 is skipped for it, UINT64 taken
  TensorMapSpec s64 = tiled2d();
  s64.dtype = int(TensorDataType::INT64);
  s64.dims = {32, 8, 1, 1, 1};
  s64.box = {4, 4, 1, 1, 1};
  HostFaultContext m = ctx(s64);
  m.redop = ref::RedOp::min;
  EXPECT_EQ(planted(HostFault::dtype, s64, u, m, "dtype", "dtype").to, "UINT64");
  // 8-bit: no other type of that width
  TensorMapSpec b = tiled2d();
  b.dtype = int(TensorDataType::UINT8);
  b.box = {32, 4, 1, 1, 1};
  u = b;
  EXPECT_FALSE(plant_host_fault(HostFault::dtype, u, ctx(b)).applied);
}

TEST(HostFaults, UnknownEnvironmentValueIsRefusedNamingIt) {
  unsetenv("PTXCTS_PLANT_HOST_FAULT");
  EXPECT_EQ(host_fault_env_error(), "");
  setenv("PTXCTS_PLANT_HOST_FAULT", "tmap_swizzle", 1);
  EXPECT_EQ(host_fault_env_error(), "");
  setenv("PTXCTS_PLANT_HOST_FAULT", "tmap_nonsense", 1);
  std::string e = host_fault_env_error();
  EXPECT_NE(e.find("tmap_nonsense"), std::string::npos) << e;
  EXPECT_NE(e.find("tmap_swizzle"), std::string::npos) << e;
  unsetenv("PTXCTS_PLANT_HOST_FAULT");
}

TEST(HostFaults, PlantedMapIsTheCaseOwnWhenUnset) {
  // PTXCTS_PLANT_HOST_FAULT is unset in this process: the executor's map is the case's own
  ptxcts::run::Setup s;
  s.tmap = tiled2d();
  Json details = Json::object();
  TensorMapSpec t = planted_tensor_map(s, 90, details);
  expect_only(s.tmap, t, "");
  EXPECT_EQ(details.get("host_fault"), nullptr);
}

}  // namespace
}  // namespace ptxcts::run
