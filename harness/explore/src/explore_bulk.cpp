// Exploration of the bulk and non-bulk copies: the parameters abi_bulk.cpp and abi_cp_async.cpp build a case
// from, drawn at random over what the chapter allows (sizes in 16-byte steps up to the shared-memory limit,
// every 16-byte alignment, clusters of 2-16 with any ctaMask, peers; cp-size, src-size, ignore-src and every
// alignment that is a multiple of cp-size), and the simpler parameter sets a shrinker tries.
#include "abi.hpp"
#include "bulk_shape.hpp"
#include "explore_draw.hpp"
#include "explore_registry.hpp"

namespace ptxcts::run {

namespace {

using namespace draw;

Json bulk_draw(const Form& f, Rng& r, const PlanOptions& o, DrawGuide* guide) {
  BulkShape sh = shape_of(f);
  uint32_t top = max_bulk_size(sh, o);
  // Most sizes small (fast), the boundaries and the largest window reached too.
  uint32_t size = sh.fixed_size ? sh.size
                                : uint32_t(edgy(r, 1, chance(r, 90) ? 4096 / 16 : top / 16,
                                                {1, 2, 3, 255, 256, 257, top / 16}) * 16);
  // Guided: a size in the size bin and a cluster of the size the draws reached least (16-byte steps).
  if (!sh.fixed_size) size = uint32_t((steer(guide, r, 10, "bulk.size", 16, top, size) + 15) / 16 * 16);
  const unsigned align = unsigned(edgy(r, 1, 8, {1, 8}) * 16);  // 16 .. 128: the offset from a 256-aligned base
  uint32_t cluster = 1, mask = 0, peer = 0;
  if (sh.multicast) {
    cluster = uint32_t(steer(guide, r, 20, "cluster.size", 2, 16, edgy(r, 2, 16, {2, 8, 16})));
    mask = uint32_t(r.below((1u << cluster) - 1) + 1);
    if (chance(r, 20)) mask = (1u << cluster) - 1;
  } else if (sh.remote) {
    cluster = uint32_t(steer(guide, r, 20, "cluster.size", 2, 8, edgy(r, 2, 8, {2, 8})));
    peer = uint32_t(1 + r.below(cluster - 1));  // another CTA: the chapter leaves a copy into the issuer undefined for some forms
  }
  Json p = bulk_params(size, align, cluster, mask, peer);
  if (run_bool(f, field::ignore_oob)) {  // .ignore_oob (PTX ISA 9.2): 0..15 bytes ignored at each end
    p["ignore_left"] = (unsigned long long)edgy(r, 0, 15, {0, 15});
    p["ignore_right"] = (unsigned long long)edgy(r, 0, 15, {0, 15});
  }
  return p;
}

std::vector<Json> bulk_simplify(const Form& f, const Json& p) {
  BulkShape sh = shape_of(f);
  std::vector<Json> out;
  auto with = [&](const char* k, uint64_t v) { Json q = clone(p); q[k] = (unsigned long long)v; out.push_back(q); };
  if (!sh.fixed_size)
    for (uint64_t s : smaller(uint64_t(p.get_int("size")), 16, 16)) with("size", s);
  if (p.get_int("align") != 128) with("align", 128);
  uint32_t cluster = uint32_t(p.get_int("cluster", 1)), mask = uint32_t(p.get_int("cta_mask"));
  if (sh.multicast) {
    for (uint64_t c : smaller(cluster, 2)) {
      Json q = clone(p);
      q["cluster"] = (unsigned long long)c;
      uint32_t m = mask & ((1u << c) - 1);
      q["cta_mask"] = m ? m : 1u;
      out.push_back(q);
    }
    for (unsigned b = 0; b < cluster; ++b)
      if ((mask >> b) & 1 && (mask & ~(1u << b))) with("cta_mask", mask & ~(1u << b));
  } else if (sh.remote) {
    uint32_t peer = uint32_t(p.get_int("peer"));
    if (cluster > 2) { Json q = clone(p); q["cluster"] = 2; q["peer"] = 1; out.push_back(q); }
    if (peer > 1) with("peer", 1);
  }
  for (const char* k : {"ignore_left", "ignore_right"})
    if (p.get_int(k) > 0) with(k, 0);
  return out;
}

Json cp_async_draw(const Form& f, Rng& r, const PlanOptions&, DrawGuide*) {
  unsigned cp = unsigned(run_int(f, field::cp_size, 16));
  std::string src_op = run_str(f, field::src_op, "none");
  Json p = Json::object();
  p["cp_size"] = cp;
  p["src_size"] = src_op.find("src_size") != std::string::npos ? unsigned(edgy(r, 0, cp, {0, 1, cp - 1, cp})) : cp;
  p["ignore_src"] = src_op.find("ignore_src") != std::string::npos && chance(r, 50) ? 1 : 0;
  // An address aligned to exactly cp-size .. 128 bytes, or 1024 (abi_cp_async.cpp: at_alignment).
  unsigned al = cp;
  while (al < 1024 && chance(r, 45)) al *= 2;
  p["align"] = al;
  return p;
}

std::vector<Json> cp_async_simplify(const Form&, const Json& p) {
  std::vector<Json> out;
  auto with = [&](const char* k, uint64_t v) { Json q = clone(p); q[k] = (unsigned long long)v; out.push_back(q); };
  unsigned cp = unsigned(p.get_int("cp_size"));
  if (uint64_t(p.get_int("src_size")) != cp) with("src_size", cp);
  if (p.get_int("ignore_src")) with("ignore_src", 0);
  if (p.get_int("align") != 1024) with("align", 1024);
  return out;
}

}  // namespace

void register_explore_bulk(ExploreRegistry& r) {
  for (const char* abi : {"v1.bulk_group", "v1.mbarrier", "v1.mbarrier.cluster", "v1.prefetch"})
    set_explore(r, abi, bulk_draw, bulk_simplify);
  set_explore(r, "v1.cp_async.wait_group", cp_async_draw, cp_async_simplify);
}

}  // namespace ptxcts::run
