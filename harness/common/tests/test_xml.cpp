// ptxcts::xml_escape: the five XML entities, the three control characters XML keeps, and every other control byte
// replaced (XML 1.0 section 2.2 allows no other character below 0x20).
#include <gtest/gtest.h>

#include <string>

#include "ptxcts/xml.hpp"

namespace {

using ptxcts::xml_escape;

TEST(Xml, EscapesTheFiveMarkupCharacters) {
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(xml_escape("&amp;"), "&amp;amp;");  // already-escaped text is escaped again: the input is text
}

TEST(Xml, KeepsTabNewlineReturnAndUtf8) {
  EXPECT_EQ(xml_escape("x\ty\nz\r"), "x\ty\nz\r");
  EXPECT_EQ(xml_escape("H100 \xC2\xB5s"), "H100 \xC2\xB5s");
}

TEST(Xml, ReplacesEveryOtherControlByte) {
  for (int c = 0; c < 0x20; ++c) {
    if (c == '\t' || c == '\n' || c == '\r') continue;
    EXPECT_EQ(xml_escape(std::string("a") + char(c) + "b"), "a\xEF\xBF\xBD" "b") << "byte " << c;
  }
  EXPECT_EQ(xml_escape("\x7F"), "\xEF\xBF\xBD");
}

}  // namespace
