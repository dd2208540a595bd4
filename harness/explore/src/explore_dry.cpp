// --dry-draw N: the exploration's drawing alone, on the CPU. N cases are drawn as the exploration would draw them
// (same seed, same cases), none is run; the coverage of the draws is reported (forms, encode rules broken,
// every parameter's bins, what no case can reach and why), with a digest of the drawn cases that shows whether
// two draws were the same. --out DIR also writes DIR/draws.json.
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "explore_draw.hpp"
#include "explore_state.hpp"
#include "plan.hpp"

namespace ptxcts::run::explore_impl {

int Explorer::dry_draw() {
  set_up();
  const double t0 = now_s();
  size_t drawn = 0, unbuildable = 0;
  std::string first_unbuildable;
  while (next_ < o_.dry_draws && !g_stop_requested) {
    const std::vector<RunCase> cases = draw_chunk(size_t(std::min<uint64_t>(4096, o_.dry_draws - next_)));
    drawn += cases.size();
    // Every drawn case must be one the workers can build (its inputs and the model's expectation): a draw the
    // harness cannot build would come back as a fail of the harness, not of the device.
    for (const RunCase& c : cases) {
      Setup s;
      try {
        build_setup(c, case_seed(ses_.seed, c.id), ses_.plan, s);
      } catch (const std::exception& e) {
        if (!unbuildable++) first_unbuildable = c.id + ": " + e.what();
      }
    }
  }
  const double took = now_s() - t0;
  Json doc = Json::object();
  doc["schema"] = "ptxcts-explore-draws";
  doc["seed"] = (unsigned long long)o_.seed;
  doc["guided"] = !o_.unguided;
  doc["draws"] = (unsigned long long)next_;
  doc["cases"] = (unsigned long long)drawn;
  doc["nothing_to_draw"] = (unsigned long long)nothing_;
  doc["unbuildable"] = (unsigned long long)unbuildable;
  if (unbuildable) doc["first_unbuildable"] = first_unbuildable;
  doc["draw_s"] = took;
  doc["digest"] = hex(digest_, 16);
  doc["forms_drawable"] = (unsigned long long)forms_.size();
  doc["coverage"] = guide_.drawn.to_json();
  const auto [forms, forms_of] = guide_.drawn.reached("form");
  const auto [rules, rules_of] = guide_.drawn.reached("encode.rule_broken");
  std::printf("dry draw: %llu draws of seed %llu (%s) in %.1f s (%.0f/s), %zu cases, %zu with nothing to draw, digest %s\n",
              (unsigned long long)next_, (unsigned long long)o_.seed, o_.unguided ? "unguided" : "guided", took,
              double(next_) / std::max(1e-3, took), drawn, nothing_, doc.get_str("digest").c_str());
  if (unbuildable)
    std::printf("dry draw: %zu drawn case(s) the harness cannot build; the first: %s\n", unbuildable, first_unbuildable.c_str());
  std::printf("forms drawn %zu / %zu reachable, encode rules broken %zu / %zu reachable\n\ncoverage of the draws (value bins reached)\n%s",
              forms, forms_of, rules, rules_of, coverage_text(*doc.get("coverage")).c_str());
  if (!o_.out_dir.empty()) {
    if (!make_dirs(o_.out_dir)) throw std::runtime_error(o_.out_dir + ": cannot create the folder: " + std::strerror(errno));
    const std::string path = o_.out_dir + "/draws.json";
    if (!write_file(path, doc.dump(1) + "\n")) throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
    std::printf("draws: %s\n", path.c_str());
  }
  return g_stop_requested ? 128 + int(g_stop_requested) : 0;
}

}  // namespace ptxcts::run::explore_impl
