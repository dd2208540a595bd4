// ptxcts-litmus --json (report_json): the document parses back with every value as given; a device name with
// markup, quotes, backslashes and control characters survives as the same string.
#include <gtest/gtest.h>

#include <string>

#include "litmus_report.hpp"
#include "ptxcts/json.hpp"

namespace {

using ptxcts::Json;
using ptxcts::litmus::Report;

Report sample(const std::string& device) {
  Report r;
  r.device = device;
  r.seed = 18446744073709551615ull;
  r.iters = 200;
  r.fault = true;
  r.cases.push_back({"bulk.wait_group", 264, 52800, 0, 12.5, false});
  r.cases.push_back({"multicast", 132, 26400, 7, 3.25, true});
  return r;
}

TEST(LitmusReport, DeviceNameWithSpecialCharactersRoundTrips) {
  const std::string name = "GPU <0> & \"H100\" \\ 'x'\n\t\x01\x1f end";
  const std::string text = ptxcts::litmus::report_json(sample(name));
  Json doc = Json::parse(text);
  EXPECT_EQ(doc.get_str("device"), name);
  EXPECT_EQ(text.find('\x01'), std::string::npos) << "a raw control byte in the JSON text";
  EXPECT_NE(text.find("\\u0001"), std::string::npos) << text;
}

TEST(LitmusReport, EveryFieldAsGiven) {
  Json doc = Json::parse(ptxcts::litmus::report_json(sample("NVIDIA H100 80GB HBM3")));
  EXPECT_EQ(doc.get_str("schema"), "ptxcts-litmus");
  EXPECT_EQ(doc.get("version")->integer(), 1);
  EXPECT_EQ((unsigned long long)doc.get("seed")->integer(), 18446744073709551615ull);
  EXPECT_EQ(doc.get("iters")->integer(), 200);
  EXPECT_TRUE(doc.get("fault")->boolean());
  const auto& cases = doc.get("cases")->arr();
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[1].get_str("case"), "multicast");
  EXPECT_EQ(cases[1].get("blocks")->integer(), 132);
  EXPECT_EQ(cases[1].get("checks")->integer(), 26400);
  EXPECT_EQ(cases[1].get("violations")->integer(), 7);
  EXPECT_DOUBLE_EQ(cases[1].get("ms")->num(), 3.25);
  EXPECT_TRUE(cases[1].get("ok")->boolean());
  EXPECT_FALSE(cases[0].get("ok")->boolean());
}

}  // namespace
