#include "explored.hpp"

#include "ptxcts/given.hpp"

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

#include <sys/stat.h>

#include "manifest.hpp"
#include "util.hpp"

namespace ptxcts::run {

std::string explored_cases_path() {
  std::string e = env("PTXCTS_EXPLORED_CASES");  // tests point the run tier at a file of their own
  return e.empty() ? ptxcts_root() + "/results/explore/explored.jsonl" : e;
}

std::vector<ExploredRow> read_explored(const std::string& path) {
  std::vector<ExploredRow> rows;
  std::string e = env("PTXCTS_EXPLORED_CASES");
  const std::string named = (e == path ? "PTXCTS_EXPLORED_CASES=" : "") + path;
  if (path.find_first_not_of(" \t\n") == std::string::npos)
    throw UnusableCasesPath("PTXCTS_EXPLORED_CASES='" + path + "': set but empty; unset it for "
                            "results/explore/explored.jsonl, or name a file");
  // a link to nowhere, a path under a file: not "no rows yet" (ptxcts/given.hpp)
  if (auto p = ptxcts::given::problem(path, ptxcts::given::Kind::NewFile); !p.empty() && p.rfind("is ", 0) != 0)
    throw UnusableCasesPath(named + ": " + p + " (it names the file of explored cases)");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return rows;   // not written yet: no rows (the first finding creates it)
    throw UnusableCasesPath(named + ": " + std::strerror(errno) + " (it names the file of explored cases)");
  }
  if (!S_ISREG(st.st_mode)) {
    throw UnusableCasesPath(named + ": is " +
                            (S_ISDIR(st.st_mode) ? "a folder" : "not a regular file") +
                            "; it names the file of explored cases (one JSON object a line, like "
                            "results/explore/explored.jsonl)");
  }
  std::istringstream in(read_file(path));
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    try {
      Json j = Json::parse(line);
      ExploredRow r;
      r.id = j.get_str("id");
      r.form = j.get_str("form");
      r.variant = j.get_str("variant");
      const Json* p = j.get("params");
      if (r.id.empty() || r.form.empty() || r.variant.empty() || !p || !p->is_object())
        throw std::runtime_error("a row needs 'id', 'form', 'variant' (strings) and 'params' (an object)");
      if (r.id != r.form + "#" + r.variant) throw std::runtime_error("'id' must be '<form>#<variant>'");
      r.params = *p;
      if (auto* f = j.get("found")) r.found = *f;
      rows.push_back(r);
    } catch (const std::exception& e) {
      throw MalformedCasesFile(path + ":" + std::to_string(n) + ": " + e.what());
    }
  }
  return rows;
}

std::string add_explored(const std::string& path, const std::vector<ExploredRow>& add) {
  std::map<std::string, Json> by_id;
  try {
    for (auto& r : read_explored(path)) {
      Json j = Json::object();
      j["id"] = r.id; j["form"] = r.form; j["variant"] = r.variant; j["params"] = r.params;
      if (!r.found.is_null()) j["found"] = r.found;
      by_id[r.id] = j;
    }
  } catch (const std::exception& e) {
    return e.what();
  }
  for (auto& r : add) {
    if (by_id.count(r.id)) continue;
    Json j = Json::object();
    j["id"] = r.id; j["form"] = r.form; j["variant"] = r.variant; j["params"] = r.params;
    if (!r.found.is_null()) j["found"] = r.found;
    by_id[r.id] = j;
  }
  std::string text;
  for (auto& [id, j] : by_id) text += j.dump() + "\n";
  auto slash = path.rfind('/');
  if (slash != std::string::npos) make_dirs(path.substr(0, slash));
  if (!write_file(path, text)) return "cannot write " + path + ": " + std::strerror(errno);   // atomic (write_file)
  return "";
}

}  // namespace ptxcts::run
