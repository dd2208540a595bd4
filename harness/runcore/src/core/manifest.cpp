#include "manifest.hpp"

#include <dirent.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "contract.hpp"
#include "util.hpp"

namespace ptxcts::run {

namespace {

// The string fields of a forms.jsonl entry (ARCHITECTURE section 2) a Form keeps as they are.
constexpr StringField<Form> kFormKeys[] = {
    {"form", &Form::form}, {"family", &Form::family}, {"instr", &Form::instr}, {"kernel", &Form::kernel},
    {"kernel_file", &Form::kernel_file}, {"abi", &Form::abi}, {"min_ptx", &Form::min_ptx},
    {"targets", &Form::targets}, {"valid_from", &Form::valid_from}};

}  // namespace

std::vector<Form> load_forms(const std::string& root) {
  std::string path = root + "/generated/manifest/forms.jsonl";
  std::string text = read_file(path);
  std::vector<Form> forms;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    Json j;
    try {
      j = Json::parse(line);
    } catch (const std::exception& e) {
      throw std::runtime_error(path + ":" + std::to_string(lineno) + ": " + e.what());
    }
    Form f;
    for (const auto& k : kFormKeys) f.*k.field = j.get_str(k.key);
    if (auto* q = j.get("quals")) f.quals = *q;
    if (auto* r = j.get("run")) f.run = *r;
    if (auto* ib = j.get("invalid_by"); ib && ib->is_array())
      for (auto& s : ib->arr()) f.invalid_by.push_back(s.str());
    f.product = j.get_str("cases") == "boundaries";
    if (auto* vo = j.get("valid_on"); vo && vo->is_array())
      for (auto& s : vo->arr()) f.valid_on.push_back(s.str());
    if (f.form.empty() || f.family.empty() || f.kernel.empty())
      throw std::runtime_error(path + ":" + std::to_string(lineno) + ": entry lacks form, family or kernel");
    f.abi_row = abi_spec(f.abi);
    try {
      check_form(f);
    } catch (const std::exception& e) {
      throw std::runtime_error(path + ":" + std::to_string(lineno) + ": " + e.what());
    }
    forms.push_back(std::move(f));
  }
  return forms;
}

std::string module_dir(const Toolchain& tc, const std::string& target, const std::string& tag) {
  // Keyed by the toolchain (its ptxas's sha256) and the PTX version: another ptxas never reuses these cubins.
  // A front-end's kernels never share a folder with the hand-written ones.
  return build_root() + "/harness/run/modules/" + tc.cache_key() + "/" + target + "-" + tag +
         (tc.frontend.empty() ? "" : "-" + sanitize(tc.frontend));
}

void remove_tree(const std::string& dir) {
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") ::unlink((dir + "/" + n).c_str());
    }
    closedir(d);
    ::rmdir(dir.c_str());
  }
}

std::string content_folder(const std::string& stage, const std::string& parent) {
  // The digest of the index and every file beside it, in name order.
  std::vector<std::string> names;
  if (DIR* d = opendir(stage.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  uint64_t h = fnv1a("ptxcts-modules");
  for (auto& n : names) h = fnv1a(read_file(stage + "/" + n), fnv1a(n, h));
  const std::string dir = parent + "/" + hex(h).substr(2);
  // Another run that wrote the same modules first keeps its folder (and the cubins assembled there); rename()
  // fails on a folder that exists, so the first one in wins and the others drop their copies.
  if (::rename(stage.c_str(), dir.c_str()) != 0) remove_tree(stage);
  return dir;
}

std::string scan_modules(const std::string& dir, ModuleSet& out) {
  // The kernel -> module map is the one `./ptxcts modules` wrote beside the modules (index.json, "modules":
  // module file -> its entries; generator/ptxcts_gen/linemap.py), not a second reading of the PTX text.
  const std::string index_path = dir + "/index.json";
  if (!file_exists(index_path)) return "no module index " + index_path + " (written by ./ptxcts modules)";
  Json index;
  try {
    index = Json::parse(read_file(index_path));
  } catch (const std::exception& e) {
    return index_path + ": " + e.what();
  }
  if (const Json* fe = index.get("frontend"); fe && fe->is_object()) out.written_by = fe->get_str("name");
  // "not_written": form ID -> {"kernel", "kind", "reason"} (harness/frontend/silicon.py write_modules).
  if (const Json* nw = index.get("not_written")) {
    if (!nw->is_object()) return index_path + ": \"not_written\" is not an object (form -> {kernel, kind, reason})";
    for (const auto& [form, why] : nw->obj()) {
      if (!why.is_object() || why.get_str("kernel").empty() || why.get_str("reason").empty())
        return index_path + ": not_written." + form + " lacks its kernel or reason";
      out.not_written[why.get_str("kernel")] = why.get_str("kind") + ": " + why.get_str("reason");
    }
  }
  const Json* modules = index.get("modules");
  if (!modules || !modules->is_object()) return index_path + ": no \"modules\" object";
  for (const auto& [name, entries] : modules->obj()) {
    const std::string f = dir + "/" + name;
    if (!file_exists(f)) return index_path + ": module " + name + " is not in " + dir;
    if (!entries.is_array()) return index_path + ": modules." + name + " is not a list of entries";
    for (const Json& entry : entries.arr()) {
      if (!entry.is_string()) return index_path + ": modules." + name + " lists a " + entry.kind_name();
      out.module_of[entry.str()] = f;
    }
    const std::string text = read_file(f);
    out.cubin_of[f] = f.substr(0, f.size() - 4) + "." + hex(fnv1a(text)).substr(2) + "." + out.target + ".cubin";
  }
  out.dir = dir;
  return "";
}

namespace {
// A cubin is assembled into a file of this process's own and renamed into place: two runs assembling the same
// module at once never write one file.
std::string part_of(const std::string& cubin, pid_t owner = getpid()) {
  return cubin + ".part-" + std::to_string(owner);
}
}  // namespace

std::string prepare_modules(const Toolchain& tc, const std::string& target, const std::string& ptx_in,
                            const std::vector<std::string>& families, const std::string& tag, bool cubins, int jobs,
                            ModuleSet& out, bool quiet) {
  const std::string& ptx = ptx_in.empty() ? tc.ptx : ptx_in;
  const bool beyond = ptx != tc.ptx;  // only the forms that need more than the toolchain's own version
  out.target = target;
  out.ptx = ptx;
  std::string dir;
  std::string log;
  if (!tc.prebuilt.empty()) {
    // Written elsewhere by a front-end: used only when it was written from this tree's manifest and contract.
    dir = tc.prebuilt + "/" + target;
    if (!file_exists(dir + "/index.json")) {
      out.unavailable = "no prebuilt " + target + " modules in " + tc.prebuilt + " (--modules)";
      return "";
    }
    std::vector<std::string> argv = {"python3", ptxcts_root() + "/ptxcts", "frontend", "check-modules", dir,
                                     "--target", target, "--ptx", ptx};
    if (int rc = run_process(argv, &log); rc != 0)
      return "--modules " + tc.prebuilt + ": " + (log.empty() ? "the check failed (exit " + std::to_string(rc) + ")" : log.substr(0, 2000));
  } else {
    // The modules are written into a folder of this process's own, then kept under the digest of what was
    // written (content_folder): two runs at once (the shards of run --gpus, the self-test beside the run tier, a
    // planted fault's modules beside the clean ones) never remove or rewrite the modules another one loads, and
    // modules of an earlier manifest are never read again (their digest differs).
    const std::string parent = module_dir(tc, target, beyond ? tag + "-ptx" + ptx : tag);
    make_dirs(parent);
    const std::string stage = parent + "/.stage-" + std::to_string(getpid());
    remove_tree(stage);
    make_dirs(stage);
    std::vector<std::string> argv = {"python3", ptxcts_root() + "/ptxcts", "modules", "--target", target,
                                     "--ptx", ptx, "--valid-only", "--out", stage,
                                     "--max-entries", std::to_string(kMaxEntriesPerModule)};
    if (!tc.frontend.empty()) { argv.push_back("--frontend"); argv.push_back(tc.frontend); }
    if (beyond) { argv.push_back("--newer-than"); argv.push_back(tc.ptx); }
    for (auto& f : families) { argv.push_back("--family"); argv.push_back(f); }
    int rc = run_process(argv, &log);
    if (rc != 0) {
      remove_tree(stage);
      return "`./ptxcts modules --target " + target + " --ptx " + ptx +
             (tc.frontend.empty() ? "" : " --frontend " + tc.frontend) + "` failed (exit " + std::to_string(rc) +
             "): " + log.substr(0, 2000);
    }
    dir = content_folder(stage, parent);
  }
  if (auto e = scan_modules(dir, out); !e.empty()) return e;
  if (!cubins) return "";
  // Assemble the cubins that are not cached yet, `jobs` ptxas processes at a time.
  std::vector<std::pair<std::string, std::string>> todo;
  for (auto& [p, c] : out.cubin_of)
    if (!file_exists(c)) todo.emplace_back(p, c);
  struct Job { pid_t pid; std::string ptx, cubin, log; };
  std::vector<Job> running;
  size_t next = 0;
  double t0 = now_s();
  auto reap = [&](bool block) {
    for (size_t i = 0; i < running.size();) {
      int st = 0;
      pid_t r = waitpid(running[i].pid, &st, block ? 0 : WNOHANG);
      if (r == 0) { ++i; continue; }
      bool ok = r > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
      std::string log;
      try { log = read_file(running[i].log); } catch (...) {}
      ::unlink(running[i].log.c_str());
      if (!ok) {
        out.ptxas_error[running[i].ptx] = log.empty() ? "ptxas failed" : log.substr(0, 4000);
        ::unlink(part_of(running[i].cubin).c_str());
      } else {
        std::rename(part_of(running[i].cubin).c_str(), running[i].cubin.c_str());
      }
      running.erase(running.begin() + long(i));
      if (block) return;
    }
  };
  while (next < todo.size() || !running.empty()) {
    if (g_stop_requested) {
      // Interrupted: stop the ptxas processes (they are ours) and give up; the caller reports the rest skipped.
      for (auto& j : running) { kill(j.pid, SIGTERM); int st; waitpid(j.pid, &st, 0); ::unlink(j.log.c_str()); ::unlink(part_of(j.cubin).c_str()); }
      return "interrupted";
    }
    while (next < todo.size() && int(running.size()) < std::max(1, jobs)) {
      Job j{0, todo[next].first, todo[next].second, part_of(todo[next].second) + ".log"};
      ++next;
      pid_t pid = fork();
      if (pid == 0) {
        FILE* lf = std::freopen(j.log.c_str(), "w", stdout);
        (void)lf;
        dup2(1, 2);
        std::string arch = "-arch=" + tc.arch_of(target);
        std::string outp = part_of(j.cubin, getppid());   // the parent renames it into place
        const std::string& px = tc.ptxas;
        execlp(px.c_str(), px.c_str(), arch.c_str(), "-o", outp.c_str(), j.ptx.c_str(), (char*)nullptr);
        std::perror("exec ptxas");
        _exit(127);
      }
      j.pid = pid;
      running.push_back(j);
    }
    reap(true);
  }
  if (!quiet && !todo.empty())
    std::fprintf(stderr, "run: assembled %zu module(s) for %s with %s in %.1f s\n", todo.size(), target.c_str(),
                 tc.describe().c_str(), now_s() - t0);
  return "";
}

}  // namespace ptxcts::run
