#include "resume.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "cli_options.hpp"
#include "output.hpp"
#include "util.hpp"

namespace ptxcts::run {

int load_resume(const std::string& dir, Resumed& r) {
  std::string args_path = dir + "/run-args.json", res_path = dir + "/results.json";
  if (!file_exists(res_path)) {
    // A run interrupted before it judged a case writes no document (docs/CLI.md, "Signals"): say so, and how to
    // start it again, with the options run-args.json kept where it has them.
    std::string how = "./ptxcts run [the same options] --out " + dir;
    try {
      Json a = Json::parse(read_file(args_path));
      if (const Json* v = a.get("args"); v && v->is_array()) {
        how = "./ptxcts run";
        for (auto& x : v->arr()) how += " " + (x.is_string() ? x.str() : x.dump());
        how += " --out " + dir;
      }
    } catch (const std::exception&) {}
    return usage_error("--resume " + dir + ": no results.json there: nothing was judged there (a run stopped before "
                       "its first case writes no document), or it is not a run folder; start the run afresh: " + how);
  }
  if (!file_exists(args_path))
    return usage_error("--resume " + dir + ": no run-args.json there (written by ptxcts-run at the start of each run; "
                       "this folder was not written by one that can resume)");
  try {
    Json a = Json::parse(read_file(args_path));
    const Json* v = a.get("args");
    if (!v || !v->is_array()) throw std::runtime_error("field 'args' must be an array of strings");
    for (auto& x : v->arr()) {
      if (!x.is_string()) throw std::runtime_error("field 'args' must be an array of strings");
      r.args.push_back(x.str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxcts-run: %s: %s\n", args_path.c_str(), e.what());
    return 3;
  }
  try {
    r.doc = Json::parse(read_file(res_path));
    check_run_document(r.doc);
    if (!r.doc.get("seed") || !r.doc.get("seed")->is_number() || !(r.doc.get("seed")->num() >= 0) ||
        r.doc.get("seed")->num() != std::floor(r.doc.get("seed")->num()))
      throw std::runtime_error("field 'seed' must be an integer >= 0");
    if (r.doc.get_str("run_id").empty()) throw std::runtime_error("field 'run_id' is missing");
    // The shard decides which cases this run holds (case k belongs to shard k % count): a count below 1 or an
    // index outside 0..count-1 would divide by zero or select nothing.
    if (const Json* sh = r.doc.get("shard")) {
      const Json* i = sh->is_object() ? sh->get("index") : nullptr;
      const Json* n = sh->is_object() ? sh->get("count") : nullptr;
      if (!i || !n || !i->is_number() || !n->is_number() || !(n->num() >= 1) || n->num() > 1e6 ||
          !(i->num() >= 0) || i->num() >= n->num() || i->num() != std::floor(i->num()) ||
          n->num() != std::floor(n->num()))
        throw std::runtime_error("field 'shard' must be {\"index\": i, \"count\": n} with 0 <= i < n");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptxcts-run: %s: %s\n", res_path.c_str(), e.what());
    return 3;
  }
  return 0;
}

}  // namespace ptxcts::run
