#include "model_device.hpp"

#include <cstdio>
#include <cstring>
#include <optional>

#include "device_quirks.hpp"
#include "judge.hpp"
#include "plan.hpp"
#include "util.hpp"
#include "ptxcts/ref/tensor.hpp"
#include "tensor_map_json.hpp"
#include "tensor_maps.hpp"

namespace ptxcts::run {

namespace {

struct PlantedFault {
  const char* name;
  const char* what;  // the wrong behaviour and the condition under which it shows
  void (*apply)(const RunCase&, const Setup&, Image&);
  // A fault that traps instead: whether the case's kernel traps (an illegal instruction, as a device's would).
  bool (*traps)(const RunCase&) = nullptr;
};

// The interleaved im2col map of an im2col access (explicit cases), if the case is one.
std::optional<ref::TensorMapParams> interleaved_im2col_map(const RunCase& c) {
  const Json* mj = c.params.get("map");
  const Json* aj = c.params.get("access");
  if (!mj || !aj || c.params.get("encode_only")) return std::nullopt;
  const ref::TensorMapParams m = tmaps::map_from_json(*mj);
  const ref::TensorMode mode = tmaps::access_from_json(*aj).mode;
  if (m.kind != ref::EncodeKind::im2col || m.interleave == ref::Interleave::NONE ||
      (mode != ref::TensorMode::im2col && mode != ref::TensorMode::im2col_no_offs))
    return std::nullopt;
  return m;
}

// Every im2col access with an interleaved map traps, whatever its pixel: those whose pixel is wider than the
// chunk are the recorded finding h100-explored-im2col-interleave-traps (device_quirks.hpp), the others are not.
bool im2col_interleave_trap(const RunCase& c) { return interleaved_im2col_map(c).has_value(); }
// Only those whose pixel is wider than the chunk trap: the recorded finding's family and nothing else.
bool im2col_interleave_wide_trap(const RunCase& c) {
  auto m = interleaved_im2col_map(c);
  return m && im2col_pixel_wider_than_chunk(*m);
}

// Tensor loads: an out-of-bounds element below the start of dimension 1 (coordinate < 0) is filled with 0x5A
// instead of the OOB fill. Shows only in loads of rank >= 2 whose box crosses dimension 1's low edge.
void oob_low_dim1(const RunCase& c, const Setup& s, Image& img) {
  const Json* mj = c.params.get("map");
  const Json* aj = c.params.get("access");
  if (!mj || !aj || !s.gdst.empty() || s.tmap.on_dst) return;  // loads only (a store's tensor is the destination)
  const ref::TensorMapParams m = tmaps::map_from_json(*mj);
  const ref::TensorAccess a = tmaps::access_from_json(*aj);
  if (m.rank < 2) return;
  const uint32_t peer = uint32_t(c.params.get_int("peer"));
  const uint32_t mask = uint32_t(c.params.get_int("cta_mask"));
  for (auto& p : ref::tensor_box(m, a)) {
    if (p.in_bounds || p.coords[1] >= 0) continue;
    for (uint32_t k = 0; k < s.ranks; ++k) {
      bool dest = mask ? ((mask >> k) & 1) : k == peer;
      if (!dest) continue;
      for (uint32_t b = 0; b < p.data_bytes; ++b)
        img.smem[size_t(k) * s.window + ref::swizzle_address(m.swizzle, a.smem_offset + p.smem_off + b)] = 0x5A;
    }
  }
}

// Bulk copies (not reductions) of 4096 bytes or more leave the destination's last 16 bytes as they were.
void bulk_tail_4096(const RunCase& c, const Setup& s, Image& img) {
  if (c.params.get("map") || !c.params.get("size") || c.params.get("cp_size")) return;
  const uint64_t size = uint64_t(c.params.get_int("size"));
  if (size < 4096 || s.info.get("op")) return;
  const size_t dst = size_t(s.info.get_int("dst_off"));
  if (!s.gdst.empty()) {
    std::memcpy(img.gdst.data() + dst + size - 16, s.gdst.data() + dst + size - 16, 16);
    return;
  }
  for (uint32_t k = 0; k < s.ranks; ++k) {
    const size_t at = size_t(k) * s.window + dst + size - 16;
    std::memcpy(img.smem.data() + at, s.smem_init.data() + at, 16);
  }
}

const PlantedFault kFaults[] = {
    {"oob_low_dim1", "tensor loads fill an out-of-bounds element below dimension 1's start with 0x5A", oob_low_dim1},
    {"bulk_tail_4096", "bulk copies of 4096 bytes or more leave the destination's last 16 bytes unwritten", bulk_tail_4096},
    {"im2col_interleave_trap", "im2col accesses with an interleaved map trap (illegal instruction), whatever the pixel",
     nullptr, im2col_interleave_trap},
    {"im2col_interleave_wide_trap", "im2col accesses with an interleaved map whose pixel is wider than the interleave "
     "chunk trap (illegal instruction): the recorded finding h100-explored-im2col-interleave-traps", nullptr,
     im2col_interleave_wide_trap},
};

const PlantedFault* fault_of(const std::string& device) {
  if (device.rfind("model:", 0) != 0) return nullptr;
  for (auto& f : kFaults)
    if (device.substr(6) == f.name) return &f;
  return nullptr;
}

}  // namespace

bool model_device_known(const std::string& device) { return device == "model" || fault_of(device); }

std::string model_device_help() {
  std::string h = "expected gpu, model, or model:FAULT with FAULT one of";
  for (auto& f : kFaults) h += std::string(" ") + f.name + " (" + f.what + ")";
  return h;
}

CaseResult run_on_model(const RunCase& c, const Setup& s, const std::string& device) {
  CaseResult r;
  r.id = c.id; r.family = c.form->family; r.form = c.form->form; r.target = c.target; r.ptx = c.ptx;
  r.details = s.info;
  if (s.encode_only) {
    r.cls = cls::pass;
    r.message = "model device: the encode call is the validator's own verdict";
    return r;
  }
  const PlantedFault* f = fault_of(device);
  if (f && f->traps && f->traps(c)) {
    // judged as the worker judges a device's trap (exec.cpp): one a named alternative predicts is a divergence
    const std::string what = "kernel trapped: cudaErrorIllegalInstruction (an illegal instruction was encountered; "
                             "planted fault " + std::string(f->name) + ")";
    r.details["kernel_error"] = "cudaErrorIllegalInstruction";
    CaseResult t;
    if (judge_trap(s, what, t)) {
      for (auto& k : {"matched_policy", "predicted_trap"}) r.details[k] = t.details[k];
      r.cls = t.cls;
      r.message = t.message;
    } else {
      r.cls = cls::crash;
      r.message = what;
    }
    return r;
  }
  Image act = s.expected;
  if (f && f->apply) f->apply(c, s, act);
  judge(c, s, s.gsrc, act, correct_status(s), r);
  return r;
}

std::vector<uint32_t> correct_status(const Setup& s) {
  std::vector<uint32_t> st(size_t(s.ranks) * kStatusWords, 0);
  for (uint32_t k = 0; k < s.ranks; ++k) {
    st[k * kStatusWords] = 1;
    st[k * kStatusWords + 1] = (s.waiters >> k) & 1;
    st[k * kStatusWords + 2] = s.expect_bits;
  }
  return st;
}

}  // namespace ptxcts::run
