// Paths the user gives a C++ command, by an option or an environment variable: each checked one way, as the
// Python verbs check theirs (harness/framework/given.py, the same kinds, the same refusals, docs/CLI.md "Paths
// and environment variables"). A problem is a message that starts with the option or variable and the value.
#pragma once

#include <string>

namespace ptxcts::given {

enum class Kind {
  File,       // an existing regular file that can be read
  Folder,     // an existing folder that can be listed
  Input,      // either of the two (a run's folder, or its document)
  NewFile,    // a file to write: where it exists a regular file; the nearest existing part above it a folder
  NewFolder,  // a folder to write into: where it exists a folder; the nearest existing part of the path a folder
  Resume,     // a Folder that --resume finishes; missing, it says to start the run afresh with --out
};

// What is wrong with value as a path of this kind ("" when nothing is): an empty name, a NUL, a link that leads
// nowhere, then the kind's own checks.
std::string problem(const std::string& value, Kind kind);

// "<how><value>: <what is wrong>" or "" (how: "--out " or "PTXCTS_RESCUE=").
std::string path_problem(const std::string& how, const std::string& value, Kind kind);

// The problem of $var as a path of this kind, or "" when it is unset or usable. Set but blank is a problem (unset
// it for the default), never the default.
std::string env_problem(const char* var, Kind kind);

// The files that make a folder a run's (a run, an exploration, a self-test); Python's are
// framework/documents/runio.py's RUN_FILES.
inline constexpr const char* kRunFiles[] = {"results.json", "results.json.gz", "explore.json", "explore.json.gz",
                                            "selftest.json"};

// "" or why writing the output <how><out> would replace the input `in` that the command reads: out is in (through
// links), or a run document (kRunFiles) of the folder in -- as framework/documents/runio.py's output_over_input says it.
std::string output_over_input(const std::string& how, const std::string& out, const std::string& in);

}  // namespace ptxcts::given
