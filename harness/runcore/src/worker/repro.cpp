#include "repro.hpp"

#include "util.hpp"

namespace ptxcts::run {

namespace {
std::string shq(const std::string& s) {
  std::string o = "'";
  for (char c : s) {
    if (c == '\'') o += "'\\''";
    else o += c;
  }
  return o + "'";
}
std::string bytes(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }
}  // namespace

std::string replay_command(const std::string& id, const std::string& load_path, uint64_t seed, const std::string& target,
                           const std::string& toolchain, const std::vector<std::string>& source) {
  std::string cmd = "./ptxcts run --case " + shq(id) + " --load-path " + load_path + " --seed " + std::to_string(seed);
  if (!toolchain.empty()) cmd += " --toolchain " + shq(toolchain);
  for (auto& a : source) cmd += " " + shq(a);
  if (!target.empty() && target != "sm_90" && target != "sm_90a") cmd += " --target " + target;
  return cmd;
}

void write_repro(const std::string& dir, const RunCase& c, const Setup& s, const Image* actual, const CaseResult& r,
                 uint64_t run_seed, uint64_t cseed, const std::string& module_path, const std::string& toolchain,
                 const std::vector<std::string>& source) {
  std::string d = dir + "/" + sanitize(c.id) + "." + r.load_path;
  if (!make_dirs(d)) return;
  Json j = Json::object();
  j["schema"] = "ptxcts-repro";
  j["version"] = 1;
  j["id"] = c.id;
  j["form"] = c.form->form;
  j["family"] = c.form->family;
  j["instr"] = c.form->instr;
  j["kernel"] = c.form->kernel;
  j["abi"] = c.form->abi;
  j["target"] = c.target;
  j["ptx"] = c.ptx;
  j["toolchain"] = toolchain;
  j["load_path"] = r.load_path;
  j["seed"] = (unsigned long long)run_seed;
  j["case_seed"] = (unsigned long long)cseed;
  j["class"] = r.cls;
  j["message"] = r.message;
  j["replay"] = replay_command(c.id, r.load_path, run_seed, c.target, toolchain, source);
  j["variant"] = c.params;
  Json w = Json::array();
  for (int i = 0; i < W_COUNT; ++i) w.push(hex(s.w[i]));
  j["args"] = w;
  j["ranks"] = s.ranks;
  j["cluster"] = s.cluster;
  j["window"] = s.window;
  j["gsrc_off"] = (unsigned long long)s.gsrc_off;
  j["gdst_off"] = (unsigned long long)s.gdst_off;
  if (s.tmap.kind != TensorMapSpec::None) j["tensor_map"] = s.tmap.to_json();
  j["info"] = s.info;
  j["details"] = r.details;
  Json files = Json::object();
  auto put = [&](const char* name, const std::vector<uint8_t>& v) {
    if (v.empty()) return;
    write_file(d + "/" + name, bytes(v));
    files[name] = (unsigned long long)v.size();
  };
  put("gsrc.bin", s.gsrc);
  put("gdst.init.bin", s.gdst);
  put("smem.init.bin", s.smem_init);
  put("gdst.expected.bin", s.expected.gdst);
  put("smem.expected.bin", s.expected.smem);
  if (actual) {
    put("gdst.actual.bin", actual->gdst);
    put("smem.actual.bin", actual->smem);
  }
  if (!module_path.empty()) {
    try {
      write_file(d + "/module.ptx", read_file(module_path));
      files["module.ptx"] = "the PTX module holding " + c.form->kernel;
    } catch (...) {
    }
  }
  j["files"] = files;
  write_file(d + "/case.json", j.dump(2) + "\n");
  write_file(d + "/replay.sh", "#!/bin/sh\n# replays this case alone, from the repository root\n" +
                                   replay_command(c.id, r.load_path, run_seed, c.target, toolchain, source) + "\n");
}

}  // namespace ptxcts::run
