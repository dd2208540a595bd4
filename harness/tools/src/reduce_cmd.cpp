#include <cstdio>
#include <istream>
#include <ostream>
#include <sstream>

#include "commands.hpp"
#include "ptxcts/ref/policy.hpp"
#include "ptxcts/ref/reduce.hpp"

namespace ptxcts::tools {

using namespace ptxcts::ref;

namespace {

// A hex bit pattern (optional 0x) that fits in `bytes` bytes.
bool parse_hex(const std::string& tok, unsigned bytes, std::uint64_t& out, std::string& why, const char* name) {
  std::string d = tok;
  if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) d = d.substr(2);
  if (d.empty() || d.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
    why = std::string(name) + " '" + tok + "' is not a hex bit pattern";
    return false;
  }
  std::size_t first = d.find_first_not_of('0');
  const std::size_t sig = first == std::string::npos ? 0 : d.size() - first;
  if (sig > 2 * bytes) {
    why = std::string(name) + " '" + tok + "' is wider than the element (" + std::to_string(8 * bytes) + " bits)";
    return false;
  }
  out = std::stoull(d, nullptr, 16);
  return true;
}

}  // namespace

int run_policies(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const bool markdown = args.size() == 1 && args[0] == "--markdown";
  if (!args.empty() && !markdown) {
    err << "ptxcts-ref policies: unexpected argument '" << args[0] << "' (policies takes only --markdown)\n";
    return kExitUsage;
  }
  if (markdown) {  // the table of docs/POLICIES.md, one row per policy
    out << "| policy | default | alternatives | measured on a device | question |\n| --- | --- | --- | --- | --- |\n";
    for (const PolicyInfo& p : policy_catalog()) {
      out << "| `" << p.name << "` | `" << p.alternatives[p.default_index].first << "` | ";
      for (std::size_t i = 0; i < p.alternatives.size(); ++i)
        out << (i ? "<br>" : "") << "`" << p.alternatives[i].first << "`: " << p.alternatives[i].second;
      out << " | ";
      for (std::size_t i = 0; i < p.measured.size(); ++i)
        out << (i ? "<br>" : "") << "`" << p.alternatives[p.measured[i].alternative].first << "` on "
            << p.measured[i].device << ": " << p.measured[i].evidence;
      out << " | " << p.question << " |\n";
    }
    return 0;
  }
  const PolicySet defaults;
  for (const PolicyInfo& p : policy_catalog()) {
    out << p.name << " (default " << p.alternatives[p.default_index].first << ")\n  " << p.question << "\n";
    for (const auto& a : p.alternatives) out << "  - " << a.first << ": " << a.second << "\n";
    for (const Measured& m : p.measured)
      out << "  measured: " << p.alternatives[m.alternative].first << " on " << m.device << " (" << m.evidence << ")\n";
  }
  return 0;
}

int run_reduce(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
  PolicySet policies;
  bool site_given = false, map_ftz = false;
  ReduceSite site = ReduceSite::bulk_global;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string why;
    if (a == "--policy" && i + 1 < args.size()) {
      if (!policies.set_assignment(args[++i], &why)) {
        err << "ptxcts-ref reduce: --policy: " << why << "\n";
        return kExitUsage;
      }
    } else if (a == "--site" && i + 1 < args.size()) {
      const auto s = parse_reduce_site(args[++i]);
      if (!s) {
        err << "ptxcts-ref reduce: --site '" << args[i] << "': expected bulk_global, bulk_shared_cluster or tensor\n";
        return kExitUsage;
      }
      site = *s;
      site_given = true;
    } else if (a == "--map-ftz") {
      map_ftz = true;
    } else {
      err << "ptxcts-ref reduce: unknown or incomplete argument '" << a << "'\n";
      return kExitUsage;
    }
  }
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    const auto hash = line.find('#');
    std::istringstream ls(line.substr(0, hash));
    std::string op_s, old_s, src_s, extra;
    if (!(ls >> op_s)) continue;  // blank line or comment
    auto bad = [&](const std::string& why) {
      err << "ptxcts-ref reduce: line " << lineno << ": " << why << "\n";
      return kExitMalformed;
    };
    if (!(ls >> old_s >> src_s)) return bad("expected '<op> <old> <src>', got '" + line + "'");
    if (ls >> extra) return bad("unexpected '" + extra + "' after '<op> <old> <src>'");
    std::string why;
    const auto op = parse_reduce_op(op_s, &why);
    if (!op) return bad(why);
    // Without --site: a bulk table cell is computed as cp.reduce.async.bulk, a tensor-only cell (add.f16,
    // add.bf16 without .noftz) as cp.reduce.async.bulk.tensor.
    ReduceSite s = site;
    if (!site_given) {
      if (reduce_op_allowed(ReduceSite::bulk_global, *op) || reduce_op_allowed(ReduceSite::bulk_shared_cluster, *op))
        s = ReduceSite::bulk_global;
      else if (reduce_op_allowed(ReduceSite::tensor, *op))
        s = ReduceSite::tensor;
      else {
        reduce_op_allowed(ReduceSite::bulk_global, *op, &why);
        return bad("op '" + op_s + "' is in no reduce table: " + why);
      }
    } else if (!reduce_op_allowed(s, *op, &why)) {
      return bad("op '" + op_s + "': " + why);
    }
    const unsigned n = elem_bytes(op->type);
    std::uint64_t old_v = 0, src_v = 0;
    if (!parse_hex(old_s, n, old_v, why, "old") || !parse_hex(src_s, n, src_v, why, "src")) return bad(why);
    const std::uint64_t r = reduce_element(*op, old_v, src_v, policies, ReduceContext{s, map_ftz});
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%0*llx", static_cast<int>(2 * n), static_cast<unsigned long long>(r));
    out << buf << "\n";
  }
  return 0;
}

}  // namespace ptxcts::tools
