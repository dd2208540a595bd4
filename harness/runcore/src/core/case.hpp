// The run tier's vocabulary: a run case (a form of the manifest, form.hpp, and a variant), the host images a case
// starts from and the images the reference model expects, and a case's result.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "contract.hpp"
#include "form.hpp"
#include "json.hpp"
#include "ptxcts/ref/policy.hpp"

namespace ptxcts::run {

// A run case: `<form ID>#<variant>` (ARCHITECTURE section 1). `params` holds the variant's choices (sizes,
// offsets, coordinates, box, ...) so the worker rebuilds exactly the same case from the ID list.
struct RunCase {
  std::string id;
  const Form* form = nullptr;
  std::string variant;
  Json params;
  std::string target = "sm_90";  // the .target of the module the kernel is assembled/JIT-compiled for
  std::string ptx = contract::kChapterPtx;  // the version its module is rendered at
  std::string not_supported;      // set by the planner when the device cannot run it (with the reason)
  // A case whose parameters are data, not a recipe the planner derives from the form (exploration's drawn
  // and shrunk cases, results/explore/explored.jsonl): the parent sends it to the worker whole (case_line).
  bool explicit_params = false;
};

// Whether the planner expects the case to trap (params.traps: a named alternative predicts it,
// ref::tensor_access_trap). Its own phase (plan_phases), its status words in mapped host memory (exec.cpp), and
// shard 0 under --shard-deal traps (deal_shard) all follow from this one mark.
inline bool expects_trap(const RunCase& c) { return c.params.get("traps") != nullptr; }

// The line the batch executor sends a worker for a case: its ID, or for an explicit case the case itself as
// one JSON object {"id", "form", "variant", "params"} (the worker rebuilds exactly that case).
std::string case_line(const RunCase& c);

// Result classes: a closed set (ARCHITECTURE section 3).
namespace cls {
inline const char* const pass = "pass";
inline const char* const fail = "fail";
inline const char* const spec_divergence = "spec_divergence";
inline const char* const not_supported = "not_supported";
inline const char* const compile_error = "compile_error";
inline const char* const crash = "crash";
inline const char* const timeout = "timeout";
inline const char* const skipped = "skipped";
}  // namespace cls
inline const std::array<const char*, 8> kClasses = {cls::pass, cls::fail, cls::spec_divergence, cls::not_supported,
                                                     cls::compile_error, cls::crash, cls::timeout, cls::skipped};

struct CaseResult {
  std::string id, family, form, target, ptx, load_path, cls, message;
  double duration_ms = 0;
  Json details = Json::object();
  Json to_json() const;
  static CaseResult from_json(const Json& j);
};


// A tensor map the worker encodes once the global buffer's address is known.
struct TensorMapSpec {
  enum Kind { None, Tiled, Im2col, Im2colWide } kind = None;
  int dtype = 0;  // CUtensorMapDataType
  uint32_t rank = 0;
  std::array<uint64_t, 5> dims{};
  std::array<uint64_t, 4> strides{};  // bytes, rank-1 values
  std::array<uint32_t, 5> box{};
  std::array<uint32_t, 5> estrides{1, 1, 1, 1, 1};
  int interleave = 0, swizzle = 0, l2promo = 0, oobfill = 0;
  std::array<int, 3> lower{}, upper{};  // im2col pixel box corners
  uint32_t channels = 0, pixels = 0;    // channelsPerPixel, pixelsPerColumn
  int wide_lower = 0, wide_upper = 0, wide_mode = 0;
  bool on_dst = false;   // true: the map describes the global destination (stores, reductions)
  bool expect_ok = true; // what the model's validator says the encode function must do
  std::string validator_reason;
  Json to_json() const;
};

// Host images of one case and what the model expects of them.
struct Image {
  std::vector<uint8_t> gdst;  // whole global destination buffer, guard bands included
  std::vector<uint8_t> smem;  // every rank's window dump, in rank order
};

struct Setup {
  uint32_t ranks = 1;       // CTAs launched (= cluster size for cluster forms)
  bool cluster = false;     // launch with a cluster dimension
  uint32_t window = 0;      // bytes per CTA
  std::vector<uint8_t> gsrc;             // global source buffer (guards included); empty if none
  size_t gsrc_off = 0;                   // where the source data starts in gsrc (args.src = base + gsrc_off)
  std::vector<uint8_t> gdst;             // global destination, initial image (guards included)
  size_t gdst_off = 0;
  std::vector<uint8_t> smem_init;        // ranks * window
  std::array<uint64_t, W_COUNT> w{};     // argument words; addresses (src/dst/smem/status) filled by the executor
  TensorMapSpec tmap;
  bool encode_only = false;              // driver-API case: judge the encode call, launch nothing
  Image expected;                        // the chapter's reading, from harness/refmodel (default policies)
  // Window bytes (ranks * window, nonzero = indeterminate) the chapter leaves open (.ignore_oob's ignored bytes):
  // never compared; `open_bytes` says what the device left there (details.indeterminate_bytes), which the chapter
  // does not decide.
  std::vector<uint8_t> smem_open;
  std::function<std::string(const Image&)> open_bytes;
  // Recomputes the expected images under another policy set (harness/refmodel): the judge calls it with each
  // single deviation from the defaults when the device does not match, to name a spec_divergence.
  std::function<Image(const ref::PolicySet&)> model;
  // Whether the model predicts a trap under a policy set ("" = the copy completes): a trap that only a named
  // alternative predicts is a spec_divergence naming it, any other trap a crash.
  std::function<std::string(const ref::PolicySet&)> trap;
  // Tensor loads: the bytes the model credits to the mbarrier under a policy set (a phase that completes early
  // or never is a spec_divergence when an alternative credits other bytes and the device's bytes are its).
  std::function<uint64_t(const ref::PolicySet&)> tx;
  // Tensor forms: what the model expects differently when the device runs the case with another tensor map (the
  // self-test's host faults, host_faults.hpp): "" when no window or global byte, no transaction count and no trap
  // changes (the fault cannot be observed with this case's inputs), else the first difference in words.
  std::function<std::string(const TensorMapSpec&)> map_change;
  uint32_t waiters = 0;                  // ranks whose status[1] must say "phase completed"
  bool self_check = false;               // completion case: status[2] must equal expect_bits
  uint32_t expect_bits = 0;
  // Naming a byte for a failure message: "dst[3] (elem 3 of u32)" or "rank 1 window +0x40 (box x=2,y=0)".
  std::function<std::string(bool smem, uint32_t rank, size_t off)> where;
  unsigned elem_bytes = 1;               // element width for printing expected/actual values
  Json info = Json::object();            // variant parameters and inputs worth keeping in the result/repro
  std::string inject;                    // harness self-test (PTXCTS_RUN_INJECT): crash | hang | fail
};

}  // namespace ptxcts::run
