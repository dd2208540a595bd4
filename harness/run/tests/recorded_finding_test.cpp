// The recorded device finding h100-explored-im2col-interleave-traps (device_quirks.hpp, recorded_finding) over
// the cases on record: every case of its entries in results/expectations/run.toml, with the map and access
// explored.jsonl keeps for it and the class it was recorded with, is named by it; its twins (interleave NONE, a
// pixel as wide as the chunk, interleave 32B with 32-byte pixels: the configurations the finding's sweep saw
// complete), its other classes and every other explored case are not.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "device_quirks.hpp"
#include "explored.hpp"
#include "manifest.hpp"
#include "tree.hpp"
#include "util.hpp"

using namespace ptxcts::run;

namespace {

const char* const kEntryPrefix = "h100-explored-im2col-interleave";

// The case IDs of run.toml's [[finding]] entries whose id starts with kEntryPrefix, each with the entry's class.
// A line reader of the file's own layout (id = "...", cases = [ "...", ... ], class = "..."), not a TOML parser.
std::map<std::string, std::string> recorded_cases() {
  std::istringstream in(read_file(ptxcts_root() + "/results/expectations/run.toml"));
  std::map<std::string, std::string> out;
  std::vector<std::string> cases;
  std::string line, id;
  bool in_cases = false;
  auto quoted = [](const std::string& l) {
    const size_t a = l.find('"'), b = l.find('"', a + 1);
    return a == std::string::npos || b == std::string::npos ? std::string() : l.substr(a + 1, b - a - 1);
  };
  while (std::getline(in, line)) {
    if (line == "[[finding]]") { id.clear(); cases.clear(); in_cases = false; continue; }
    if (line.rfind("id = ", 0) == 0) id = quoted(line);
    if (line.rfind("cases = [", 0) == 0) {
      in_cases = line.find(']') == std::string::npos;
      if (!in_cases && !quoted(line).empty()) cases.push_back(quoted(line));
      continue;
    }
    if (in_cases) {
      if (line.rfind("]", 0) == 0) in_cases = false;
      else if (!quoted(line).empty()) cases.push_back(quoted(line));
    }
    if (line.rfind("class = ", 0) == 0 && id.rfind(kEntryPrefix, 0) == 0)
      for (auto& c : cases) out[c] = quoted(line);
  }
  return out;
}

struct Explored {
  std::vector<Form> forms;
  std::vector<ExploredRow> rows;
};

const Explored& explored() {
  static Explored e = [] {
    Explored x;
    x.forms = load_forms(ptxcts_root());
    x.rows = read_explored(ptxcts_root() + "/results/explore/explored.jsonl");
    return x;
  }();
  return e;
}

// The row's case with its params (a deep copy) changed by `edit`.
RunCase case_of(const ExploredRow& row, const std::function<void(Json&)>& edit = nullptr) {
  RunCase c;
  for (auto& f : explored().forms)
    if (f.form == row.form) c.form = &f;
  c.id = row.id;
  c.variant = row.variant;
  c.params = Json::parse(row.params.dump());
  c.explicit_params = true;
  if (edit) edit(c.params);
  return c;
}

// A result of class k; a crash is an illegal-instruction trap unless `error` says otherwise.
CaseResult result(const std::string& k, const std::string& error = "cudaErrorIllegalInstruction") {
  CaseResult r;
  r.cls = k;
  if (k == cls::crash) r.details["kernel_error"] = error;
  return r;
}

unsigned element_bytes(const Json& map) {
  return ptxcts::ref::element_bits(*ptxcts::ref::parse_tensor_data_type(map.get_str("dtype"))) / 8;
}

const ExploredRow* row_of(const std::string& id) {
  for (auto& r : explored().rows)
    if (r.id == id) return &r;
  return nullptr;
}

}  // namespace

TEST(RecordedFinding, NamesEveryRecordedIm2colInterleaveCase) {
  const auto rec = recorded_cases();
  ASSERT_FALSE(rec.empty()) << "no case of the entries " << kEntryPrefix << "* read from run.toml";
  for (auto& [id, k] : rec) {
    const ExploredRow* row = row_of(id);
    ASSERT_NE(row, nullptr) << id << " is on record in run.toml but not in explored.jsonl";
    EXPECT_EQ(row->found.get_str("class"), k) << id;
    EXPECT_EQ(recorded_finding(case_of(*row), result(k)), kIm2colInterleaveTraps) << id << " (" << k << ")";
  }
}

TEST(RecordedFinding, RejectsTwinsAndOtherClassesOfRecordedCases) {
  const auto rec = recorded_cases();
  ASSERT_FALSE(rec.empty());
  for (auto& [id, k] : rec) {
    const ExploredRow& row = *row_of(id);
    const unsigned esize = element_bytes(*row.params.get("map"));
    const auto set_map = [](const char* interleave, unsigned channels) {
      return [=](Json& p) {
        p["map"]["interleave"] = interleave;
        p["map"]["channels_per_pixel"] = (long long)channels;
      };
    };
    const long long cpp = row.params.get("map")->get_int("channels_per_pixel");
    // interleave NONE: the encode refuses such a map or it completes (the finding's sweep)
    EXPECT_EQ(recorded_finding(case_of(row, set_map("NONE", unsigned(cpp))), result(k)), "") << id << " interleave NONE";
    // a pixel as wide as the 16-byte chunk (16-byte pixels complete, 6 of 6); and one element wider: named again
    if (esize <= 16) {
      EXPECT_EQ(recorded_finding(case_of(row, set_map("16B", 16 / esize)), result(k)), "") << id << " 16-byte pixel";
      EXPECT_EQ(recorded_finding(case_of(row, set_map("16B", 16 / esize + 1)), result(k)), kIm2colInterleaveTraps)
          << id << " pixel one element wider than 16 bytes";
    }
    // interleave 32B with 32-byte pixels (72 of 72 complete)
    EXPECT_EQ(recorded_finding(case_of(row, set_map("32B", 32 / esize)), result(k)), "") << id << " 32B, 32-byte pixel";
    // the map as recorded, but another outcome: the finding covers none of these
    for (const char* other : {cls::pass, cls::spec_divergence, cls::not_supported, cls::compile_error, cls::skipped})
      EXPECT_EQ(recorded_finding(case_of(row), result(other)), "") << id << " " << other;
    EXPECT_EQ(recorded_finding(case_of(row), result(cls::crash, "cudaErrorIllegalAddress")), "") << id << " other trap";
    // a fail is recorded for reductions only
    const bool reduce = row.form.rfind("cp.reduce.", 0) == 0;
    EXPECT_EQ(recorded_finding(case_of(row), result(cls::fail)), reduce ? kIm2colInterleaveTraps : "") << id << " fail";
  }
}

TEST(RecordedFinding, NamesNoOtherExploredCase) {
  const auto rec = recorded_cases();
  size_t others = 0;
  for (auto& row : explored().rows) {
    if (rec.count(row.id)) continue;
    ++others;
    const std::string k = row.found.get_str("class");
    EXPECT_EQ(recorded_finding(case_of(row), result(k)), "") << row.id << " (" << k << ")";
  }
  EXPECT_GT(others, 0u);
}
