// The validator's rule sentences against their source: a sentence that quotes the CUDA driver API's documentation
// (cuda.h, above cuTensorMapEncodeTiled / Im2col / Im2colWide) must be found there, word for word (whitespace,
// Doxygen markers and '::' aside; ' ... ' marks an elision, a closing parenthesis a remark of ours) and end with
// its full stop. The rules whose
// sentence is ours (a paraphrase of a list, NOTES.md's open points) are named below: a quoted sentence that no
// longer matches, or a new rule that quotes nothing, fails here. cuda.h is read as text (PTXCTS_CUDA_H, else
// $CUDA_HOME/include/cuda.h, else /usr/local/cuda/include/cuda.h); without it the test is skipped.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ptxcts/ref/tensormap.hpp"

namespace {

std::string cuda_h_path() {
  if (const char* p = std::getenv("PTXCTS_CUDA_H")) return p;
  if (const char* h = std::getenv("CUDA_HOME")) return std::string(h) + "/include/cuda.h";
  return "/usr/local/cuda/include/cuda.h";
}

// cuda.h's comments as running text: comment leaders, \p and \ref, '::' and runs of whitespace folded.
std::string normalized(std::string s) {
  s = std::regex_replace(s, std::regex(R"(\n\s*\*\s?)"), " ");
  s = std::regex_replace(s, std::regex(R"(\\p\s+|\\ref\s+|::)"), " ");
  return std::regex_replace(s, std::regex(R"(\s+)"), " ");
}

// The sentence's quoted fragments: the remark in a closing parenthesis dropped, split at ' ... '.
std::vector<std::string> fragments(const std::string& sentence) {
  std::string core = std::regex_replace(normalized(sentence), std::regex(R"(\s*\([^()]*\)\s*$)"), "");
  std::vector<std::string> out;
  size_t at = 0;
  while (true) {
    size_t e = core.find("...", at);
    std::string f = core.substr(at, e == std::string::npos ? std::string::npos : e - at);
    f = std::regex_replace(f, std::regex(R"(^\s+|\s+$)"), "");
    if (f.size() >= 8) out.push_back(f);
    if (e == std::string::npos) break;
    at = e + 3;
  }
  return out;
}

}  // namespace

TEST(RuleSentences, QuotesAreCudaHs) {
  std::ifstream in(cuda_h_path());
  if (!in) GTEST_SKIP() << cuda_h_path() << ": not readable (set PTXCTS_CUDA_H)";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = normalized(ss.str());
  // Sentences of ours: lists of modes and ranges paraphrased, the layout rule, NOTES.md's open points and the
  // rules measured on a device (results/findings/).
  const std::set<std::string> ours = {
      "global_stride_covers_previous", "swizzle_u6_modes",       "swizzle_u4_16b_modes",
      "swizzle_enum",                  "oob_nan_float_only",     "im2col_corner_range",
      "im2col_wide_corner_range",      "channels_per_pixel_zero", "pixels_per_column_zero",
      "im2col_wide_swizzle_modes",     "im2col_wide_inner_box",  "im2col_channel_bytes_multiple16",
      "packed_type_refused",           "interleave_inner_box_multiple16", "swizzle_atom_refused"};
  std::set<std::string> not_found;
  size_t quoted = 0;
  for (const auto& [name, sentence] : ptxcts::ref::encode_rules()) {
    const auto frags = fragments(sentence);
    // an empty sentence quotes nothing; a quote ends where cuda.h's sentence ends (a cut one still matches)
    bool all = !frags.empty() && frags.back().back() == '.';
    for (const auto& f : frags) all = all && text.find(f) != std::string::npos;
    if (!all) not_found.insert(name);
    else ++quoted;
  }
  EXPECT_EQ(not_found, ours) << "a rule quoting cuda.h no longer matches it, or the list of our own sentences is stale";
  EXPECT_GE(quoted, 20u);
}
