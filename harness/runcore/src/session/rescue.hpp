// Where a document its own folder refused is kept instead, so that nothing judged is lost with a full disk, a file
// past `ulimit -f` (EFBIG) or a folder remounted read-only: $PTXCTS_RESCUE/<run ID>/, else <temporary folder>/
// ptxcts-rescue/<run ID>/, as the Python tiers keep theirs (framework/documents/writer.py, runio.rescue_dir;
// docs/CLI.md, "Outputs"). The run tier and exploration both write through it.
#pragma once
#include <functional>
#include <string>

namespace ptxcts::run {

// "" or why $PTXCTS_RESCUE cannot hold a folder (blank, a file, under a file): a tier says it when it starts, not
// when the disk fails at its end.
std::string rescue_problem();

// The folder a document of run (or exploration) `id` is kept in when its own folder refuses it.
std::string rescue_folder(const std::string& id);

// A document that `out` refused (`failure`: the path and what the disk said): write_into(folder) writes the same
// files into another folder ("" or why not). Returns the one line for the user (exit 2): the failure, then where
// the `judged` cases are kept (rescue_folder(id)/<document>) and how to bring them back and finish (`then`: what
// --resume does with the copy) -- or that they could not be kept elsewhere either.
std::string rescue(const std::string& failure, const std::string& id, const std::string& out, const std::string& document,
                   size_t judged, const std::function<std::string(const std::string&)>& write_into,
                   const std::string& then);

}  // namespace ptxcts::run
