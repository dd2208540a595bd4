// The toolchain the run tier assembles with: one name or ptxas path, resolved once at start by
// `<root>/ptxcts toolchains resolve --json [NAME|PATH]` (the one resolver of every tier). It decides the ptxas
// that makes the cubins, the PTX ISA version the modules are rendered at, which forms and targets it can carry
// (not_supported otherwise, with a reason naming the toolchain), and the module cache's key.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "case.hpp"

namespace ptxcts::run {

struct Toolchain {
  std::string spec;                 // what was asked for (--toolchain / PTXCTS_TOOLCHAIN); "" = the default
  std::string name, ptxas, ptxas_version, ptxas_sha256;
  std::string nvjitlink, nvjitlink_version;  // "" when the resolver says null
  std::vector<std::string> ptx_versions;
  std::string newest_ptx, chapter_ptx;
  std::map<std::string, std::string> targets;  // target -> the PTX version it starts at
  std::map<std::string, std::string> max_ptx;  // target -> the last PTX version it exists at (when the resolver says)
  std::map<std::string, std::string> arch;     // target -> ptxas -arch value (when it differs, e.g. renamed targets)
  std::map<std::string, std::string> refusals; // PTX version it does not know -> ptxas's own words (the resolver's)
  std::string ptx;                  // the version modules are rendered at: chapter_ptx if known, else newest_ptx
  // Who writes the kernels: "" = the hand-written PTX of generated/ (`./ptxcts modules`); else a compiler
  // front-end (harness/frontend, e.g. "llvm-22") writes each whole kernel and this ptxas assembles it (the
  // pairing). `prebuilt`: a folder of front-end modules written elsewhere (`./ptxcts modules --frontend F`), one
  // sub-folder per target, for a GPU runner without the front-end's library.
  std::string frontend, prebuilt;

  // "toolchain 12.4 (ptxas 12.4.131)", or "front-end llvm-22 + toolchain 13.0 (ptxas 13.0.88)"
  std::string describe() const;
  // What a replay command passes as --toolchain: the spec when it was a path, else the name.
  std::string replay_arg() const;
  // The options a replay command adds for the module source: {"--frontend", F} or {"--modules", DIR}, or none.
  std::vector<std::string> source_args() const;
  // The module cache's folder for this toolchain: build/harness/run/modules/<sha256 prefix>-ptx<NN>.
  std::string cache_key() const;
  bool has_target(const std::string& t) const { return targets.count(t) > 0; }
  std::string arch_of(const std::string& t) const { auto it = arch.find(t); return it == arch.end() ? t : it->second; }
};

// Parses the resolver's JSON object; throws std::runtime_error naming the field that is missing or wrong.
Toolchain parse_toolchain(const std::string& json_text, const std::string& spec);

// Runs the resolver (PTXCTS_TOOLCHAIN_RESOLVER, a command replacing `<root>/ptxcts toolchains resolve --json`,
// for tests and trees without that verb). Returns "" or the resolver's message (the caller exits 2 with it).
std::string resolve_toolchain(const std::string& spec, Toolchain& out);

// The PTX ISA version the module holding `form` is rendered at: the toolchain's (tc.ptx) for every form of the
// modelled chapter; for a form that needs a later version (a PTX ISA 9.x qualifier, a rule lifted later), the
// newest version the toolchain knows, when that is enough and the modules are written here (not --modules).
// Cases of such forms run on the cubin path; the driver's JIT answers for itself (exec.hpp).
std::string render_ptx(const Form& form, const Toolchain& tc);
// "" when the toolchain can assemble `form` for `target`, else the reason (the one place that says so).
std::string toolchain_support(const Form& form, const std::string& target, const Toolchain& tc);
// "" when the toolchain knows `target` at PTX version `ptx` (default: the version it renders at), else the reason.
std::string toolchain_target_support(const std::string& target, const Toolchain& tc, const std::string& ptx = "");

// Compares PTX ISA versions "8.6" < "9.0"; false for malformed text.
bool ptx_less(const std::string& a, const std::string& b);

}  // namespace ptxcts::run
