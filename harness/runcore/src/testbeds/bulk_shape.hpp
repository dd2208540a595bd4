// A bulk form's run fields, decoded once (the contract's names): direction, completion, multicast/peer, reduce,
// prefetch, an immediate size. Shared by the planner (abi_bulk.cpp) and exploration's drawer (explore_bulk.cpp).
#pragma once
#include <string>

#include "abi.hpp"

namespace ptxcts::run {

struct BulkShape {
  bool src_shared = false, dst_shared = false, src_global = false, dst_global = false;
  bool multicast = false, remote = false, mbarrier = false, reduce = false, prefetch = false;
  bool fixed_size = false;
  uint32_t size = 0;  // immediate size of the form (fixed_size)
};

inline BulkShape shape_of(const Form& f) {
  BulkShape s;
  std::string dir = run_str(f, field::direction);
  std::string comp = run_str(f, field::completion);
  s.prefetch = std::string(f.abi_row->flow) == "prefetch";
  s.reduce = !run_str(f, field::redop).empty();
  s.multicast = run_bool(f, field::multicast);
  s.remote = run_bool(f, field::remote);
  s.mbarrier = comp.find("mbarrier") != std::string::npos;
  if (s.prefetch) {
    s.src_global = true;
  } else {
    auto arrow = dir.find("->");
    std::string from = dir.substr(0, arrow), to = arrow == std::string::npos ? "" : dir.substr(arrow + 2);
    s.src_shared = from.rfind("shared", 0) == 0;
    s.src_global = from == "global";
    s.dst_shared = to.rfind("shared", 0) == 0;
    s.dst_global = to == "global";
  }
  std::string sz = run_str(f, field::size, "args");
  if (sz != "args") {
    s.fixed_size = true;
    s.size = uint32_t(std::stoul(sz));
  }
  return s;
}

// A bulk case's parameters as abi_bulk.cpp's build reads them (planned variants and exploration's draws).
inline Json bulk_params(uint32_t size, unsigned align, uint32_t cluster, uint32_t mask, uint32_t peer) {
  Json p = Json::object();
  p["size"] = size;
  p["align"] = align;
  p["cluster"] = cluster;
  p["cta_mask"] = mask;
  p["peer"] = peer;
  return p;
}

// The largest size abi_bulk.cpp lays out for this form: shared operands live in one CTA's window (the device's
// opt-in shared memory, less a margin for the frame's static mbarrier), a 256-byte guard band around each region
// (+ up to 128 B of alignment shift each); prefetch (global only): 1 MiB.
inline uint32_t max_bulk_size(const BulkShape& sh, const PlanOptions& o) {
  if (!sh.src_shared && !sh.dst_shared) return 1u << 20;
  const size_t max_window = size_t(o.max_smem) - 1024, guard = 256;
  const bool two_regions = sh.src_shared && sh.dst_shared;  // source and destination may share a window (peer 0)
  return uint32_t(((max_window - 4 * guard - 512) / (two_regions ? 2 : 1)) / 16 * 16);
}

}  // namespace ptxcts::run
