// ptxcts-run's command line: its usage text and its options, parsed into the session and the selection
// (session.hpp); the options that say what a run is are saved with it (DIR/run-args.json) for --resume.
#pragma once
#include <string>
#include <vector>

#include "session.hpp"

namespace ptxcts::run {

// --help: every option and the exit statuses.
extern const char* const kUsage;

// Options that say what a run is (saved with the run, so that --resume runs exactly the same selection) and
// options that only say how it runs (allowed again with --resume).
bool how_option(const std::string& a);

struct Cli {
  Cli(Session& s, Selection& l) : ses(s), sel(l) {}
  Session& ses;
  Selection& sel;
  std::string out, run_id, resume, prepare_only, toolchain, frontend, prebuilt, device = "gpu", device_name;
  bool toolchain_given = false, lower_given = false, list = false, dry_build = false, dry_judge = false;
  bool shard_given = false, frontend_given = false;
  double deadline_s = 0;
  std::vector<std::string> lower;
  std::vector<std::string> saved;  // the "what" options, for DIR/run-args.json

  // Parses argv[from..); throws UsageError. `resuming`: only the "how" options are allowed.
  void parse(const std::vector<std::string>& args, bool resuming, bool saving);
};

// A front-end's name from `source` (--frontend, or PTXCTS_FRONTEND when `set`): one of toolchains/frontends.toml
// ([frontend."NAME"]), or "" for the hand-written PTX (the option or variable not given). Set but blank, or a name
// the catalog does not know: UsageError naming the source and the known names.
std::string checked_frontend(const std::string& source, const std::string& name, bool set);

// The line of a usage error on stderr ("ptxcts-run: <m>"); returns the exit status 2.
int usage_error(const std::string& m);

}  // namespace ptxcts::run
