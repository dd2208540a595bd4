// Reading the generator's manifest and preparing the modules the worker loads (ARCHITECTURE section 2):
// PTX modules come from `./ptxcts modules`, cubins from ptxas for the exact device target, cached by content.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "case.hpp"
#include "toolchain.hpp"
#include "tree.hpp"

namespace ptxcts::run {

// Loads generated/manifest/forms.jsonl; throws with the file and line of a malformed entry.
std::vector<Form> load_forms(const std::string& root);

// The modules of one (target, PTX version): where each kernel's PTX module is, and its cubin.
struct ModuleSet {
  std::string target, ptx, dir;
  std::map<std::string, std::string> module_of;   // kernel entry -> PTX module path
  std::map<std::string, std::string> cubin_of;    // PTX module path -> cubin path (cubin path only)
  std::map<std::string, std::string> ptxas_error; // PTX module path -> ptxas diagnostics when it failed
  // A front-end's modules (index.json "frontend" and "not_written"): its name, and each kernel it did not write
  // with the reason; `unavailable`: why there are no modules for this target at all (no prebuilt folder).
  std::string written_by;
  std::map<std::string, std::string> not_written;
  std::string unavailable;
};

// Writes the PTX modules for `target` at the toolchain's PTX version into
// build/harness/run/modules/<toolchain key>/<target>-<tag>/ (through `./ptxcts modules`), and, when `cubins`,
// assembles each with the toolchain's ptxas -arch=<target> (parallel, cached by the PTX text's hash).
// A front-end (tc.frontend) writes them instead (`./ptxcts modules --frontend F`); a prebuilt folder
// (tc.prebuilt) is read from <prebuilt>/<target>/ after `./ptxcts frontend check-modules` says it was written
// from this tree's manifest and contract at this PTX version.
// Returns "" or an error message.
// `families` limits the modules to those families (empty: all); `tag` names the folder, so concurrent runs over
// different selections never share one.
// `ptx` other than tc.ptx: the modules of the forms beyond the toolchain's own version only (render_ptx,
// `./ptxcts modules --newer-than tc.ptx`), in a folder of their own.
std::string prepare_modules(const Toolchain& tc, const std::string& target, const std::string& ptx,
                            const std::vector<std::string>& families, const std::string& tag, bool cubins, int jobs,
                            ModuleSet& out, bool quiet);
// Rebuilds the kernel -> module map of an already prepared folder (the worker's view).
std::string scan_modules(const std::string& dir, ModuleSet& out);
// Keeps the modules written into stage (a folder of this process's own) as parent/<digest of their bytes>, or
// drops them where another run kept the same ones first; returns that folder.
std::string content_folder(const std::string& stage, const std::string& parent);
void remove_tree(const std::string& dir);   // a folder of plain files, and the folder
std::string module_dir(const Toolchain& tc, const std::string& target, const std::string& tag);
constexpr int kMaxEntriesPerModule = 16;  // smaller modules: parallel ptxas, and a worker JITs only what it runs

}  // namespace ptxcts::run
