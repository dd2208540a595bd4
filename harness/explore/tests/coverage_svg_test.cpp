// The exploration's coverage.svg (Coverage::svg): its title carries the device's name as the driver reports it, so
// markup, quotes and control characters in a name must come out as XML text, never as markup.
#include <gtest/gtest.h>

#include <string>

#include "explore_coverage.hpp"

namespace {

// Every '&' starts one of the five entities, and no '<' or '>' appears between a tag's end and the next tag.
void expect_well_formed_text(const std::string& svg) {
  bool in_tag = false;
  for (size_t i = 0; i < svg.size(); ++i) {
    char c = svg[i];
    if (c == '<') {
      ASSERT_FALSE(in_tag) << "'<' inside a tag at " << i << ": " << svg;
      in_tag = true;
    } else if (c == '>') {
      ASSERT_TRUE(in_tag) << "'>' outside a tag at " << i << ": " << svg;
      in_tag = false;
    } else if (c == '&') {
      bool entity = false;
      for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
        entity |= svg.compare(i, std::string(e).size(), e) == 0;
      ASSERT_TRUE(entity) << "a bare '&' at " << i << ": " << svg;
    } else if ((unsigned char)c < 0x20) {
      ASSERT_TRUE(c == '\n' || c == '\t' || c == '\r') << "control byte " << int(c) << " at " << i;
    }
  }
  EXPECT_FALSE(in_tag);
}

TEST(CoverageSvg, DeviceNameWithMarkupStaysText) {
  const std::string name = "GPU <b>&\"quoted\" 'x'</b>\x01\x1b[0m";
  const std::string svg = ptxcts::run::Coverage().svg("exploration e1 on " + name);
  expect_well_formed_text(svg);
  EXPECT_NE(svg.find("on GPU &lt;b&gt;&amp;&quot;quoted&quot; &apos;x&apos;&lt;/b&gt;\xEF\xBF\xBD\xEF\xBF\xBD[0m"),
            std::string::npos)
      << svg;
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
}

TEST(CoverageSvg, PlainNameUnchanged) {
  const std::string svg = ptxcts::run::Coverage().svg("exploration e1 on NVIDIA H100 80GB HBM3");
  expect_well_formed_text(svg);
  EXPECT_NE(svg.find(">exploration e1 on NVIDIA H100 80GB HBM3: share of each parameter"), std::string::npos) << svg;
}

}  // namespace
