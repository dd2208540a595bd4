// ptxcts::Json: the strict reader's errors and their positions, parse(dump(x)) round trips, exact 64-bit
// integers and string escaping. Expected positions are counted by hand on the literal inputs (1-based line and
// byte column of the byte the reader stopped at); expected texts follow RFC 8259.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "ptxcts/json.hpp"

namespace {

using ptxcts::Json;
using ptxcts::JsonError;

// The error parse() throws for `text`; fails the test when it parses.
JsonError parse_error(const std::string& text, const Json::ParseOptions& options = {}) {
  try {
    Json::parse(text, options);
  } catch (const JsonError& e) {
    return e;
  }
  ADD_FAILURE() << "parsed without an error: " << text;
  return JsonError("");
}

void expect_error(const std::string& text, int line, int column, const std::string& reason) {
  const JsonError e = parse_error(text);
  EXPECT_EQ(e.line(), line) << text;
  EXPECT_EQ(e.column(), column) << text;
  EXPECT_EQ(std::string(e.what()),
            "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + reason)
      << text;
}

TEST(Json, ErrorsNameLineAndColumn) {
  expect_error("{\n  \"dims\": [16, 4,]\n}", 2, 18, "unexpected character ']', expected a value");
  expect_error("{\"a\": 1,\n \"a\": 2}", 2, 5, "duplicate key 'a'");
  expect_error("[1,\r\n\t2 3]", 2, 4, "expected ']'");
  expect_error("[1, 2", 1, 6, "expected ']' before end of input");
  expect_error("", 1, 1, "unexpected end of input, expected a value");
  expect_error("{\"a\" 1}", 1, 6, "expected ':'");
  expect_error("{a: 1}", 1, 2, "expected a string key");
  expect_error("{\"a\": 1,}", 1, 9, "expected a string key");
  expect_error("\n\n  012", 3, 4, "leading zero in number");
  expect_error("-", 1, 2, "expected a digit in number");
  expect_error("1.", 1, 3, "expected a digit in number");
  expect_error("1e+", 1, 4, "expected a digit in number");
  expect_error("1 2", 1, 3, "unexpected text after the JSON value");
  expect_error("tru", 1, 4, "invalid literal (expected 'true')");
  expect_error("NaN", 1, 1, "unexpected character 'N', expected a value");
  expect_error("\"a\tb\"", 1, 4, "control character in string");
  expect_error("\"\\x\"", 1, 4, "bad escape '\\x'");
  expect_error("\"\\u12g4\"", 1, 7, "bad \\u escape");
  expect_error("\"abc", 1, 5, "unexpected end of input");
}

TEST(Json, NumbersNoDoubleHoldsAreRefused) {
  // as the Python reader: never read as infinity (a duration of 1e400 ms, a seed of thousands of digits)
  expect_error("[1e400]", 1, 7, "the number 1e400 is out of range: no 64-bit float holds it");
  expect_error("-1e999", 1, 7, "the number -1e999 is out of range: no 64-bit float holds it");
  expect_error(std::string(400, '9'), 1, 401,
               "the number 999999999999... (400 characters) is out of range: no 64-bit float holds it");
  EXPECT_DOUBLE_EQ(Json::parse("1e308").num(), 1e308);
  EXPECT_DOUBLE_EQ(Json::parse("1e-400").num(), 0.0);   // below the smallest double: 0, not an error
}

TEST(Json, NestingLimit) {
  const std::string ok = std::string(65, '[') + std::string(65, ']');  // depths 0..64
  EXPECT_NO_THROW(Json::parse(ok));
  expect_error(std::string(66, '['), 1, 66, "nesting deeper than 64");
}

TEST(Json, ValuePositions) {
  const Json doc = Json::parse("{\n  \"a\": [1,\n        \"x\"],\n  \"b\": null\n}");
  EXPECT_EQ(doc.line(), 1);
  EXPECT_EQ(doc.column(), 1);
  const Json& a = *doc.get("a");
  EXPECT_EQ(a.line(), 2);
  EXPECT_EQ(a.column(), 8);
  EXPECT_EQ(a.arr()[1].line(), 3);
  EXPECT_EQ(a.arr()[1].column(), 9);
  EXPECT_EQ(doc.get("b")->line(), 4);
  EXPECT_EQ(doc.get("b")->column(), 8);
  EXPECT_EQ(Json(5).line(), 0);  // built, not parsed
}

TEST(Json, TypedAccessRefusesOtherKinds) {
  const Json n = Json::parse("7");
  EXPECT_THROW(n.str(), JsonError);
  EXPECT_THROW(n.arr(), JsonError);
  EXPECT_THROW(Json("7").integer(), JsonError);
  EXPECT_STREQ(n.kind_name(), "number");
  EXPECT_STREQ(Json::parse("{}").kind_name(), "object");
  EXPECT_STREQ(Json::parse("false").kind_name(), "boolean");
}

Json sample() {
  Json j = Json::object();
  j["schema"] = "ptxcts-results";
  j["version"] = 1;
  j["neg"] = -42;
  j["half"] = 0.5;
  j["small"] = 1.5e-7;
  j["seed"] = std::numeric_limits<std::uint64_t>::max();
  j["min"] = std::numeric_limits<long long>::min();
  j["yes"] = true;
  j["none"] = Json();
  j["empty_a"] = Json::array();
  j["empty_o"] = Json::object();
  j["text"] = std::string("quote \" backslash \\ slash / nl \n cr \r tab \t bell \x07 del \x7f utf8 \xc3\xa9");
  Json cases = Json::array();
  for (int i = 0; i < 3; ++i) {
    Json c = Json::object();
    c["id"] = "cp.async/ca.shared.global/cp_size_4#size_" + std::to_string(4 << i);
    c["bits"] = Json(Json::Array{Json(i), Json(unsigned(i) * 3u), Json(nullptr)});
    cases.push(c);
  }
  j["cases"] = cases;
  return j;
}

TEST(Json, RoundTripKeepsEveryValueAndOrder) {
  const Json x = sample();
  for (int indent : {-1, 0, 2}) {
    const std::string text = x.dump(indent);
    const Json y = Json::parse(text);
    EXPECT_EQ(y.dump(indent), text) << "indent " << indent;
    ASSERT_EQ(y.size(), x.size());
    for (size_t i = 0; i < x.obj().size(); ++i) EXPECT_EQ(y.obj()[i].first, x.obj()[i].first);
    EXPECT_EQ(y.get("text")->str(), x.get("text")->str());
    EXPECT_EQ(y.get("half")->num(), 0.5);
    EXPECT_EQ(y.get("neg")->integer(), -42);
    EXPECT_TRUE(y.get("none")->is_null());
    EXPECT_EQ(y.get("empty_a")->size(), 0u);
    EXPECT_TRUE(y.get("empty_o")->is_object());
    EXPECT_EQ(y.get("cases")->arr()[2].get_str("id"), "cp.async/ca.shared.global/cp_size_4#size_16");
  }
  EXPECT_EQ(x.dump().substr(0, 38), "{\"schema\":\"ptxcts-results\",\"version\":1");
  EXPECT_EQ(Json::parse("[1,{\"a\":[]}]").dump(2), "[\n  1,\n  {\n    \"a\": []\n  }\n]");
}

TEST(Json, SixtyFourBitIntegersAreExact) {
  const std::uint64_t u_max = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t two63 = std::uint64_t{1} << 63;
  EXPECT_EQ(Json(u_max).dump(), "18446744073709551615");
  EXPECT_EQ(Json(two63).dump(), "9223372036854775808");
  EXPECT_EQ(Json(static_cast<unsigned long>(two63 + 1)).dump(), "9223372036854775809");
  EXPECT_EQ(Json(std::numeric_limits<long long>::min()).dump(), "-9223372036854775808");
  // 2^53 + 1 is the first integer a double cannot hold.
  EXPECT_EQ(Json::parse("9007199254740993").integer(), 9007199254740993LL);
  for (std::uint64_t v : {u_max, two63, two63 - 1, std::uint64_t{0x9E3779B97F4A7C15}, std::uint64_t{0}}) {
    const Json back = Json::parse(Json(v).dump());
    EXPECT_EQ(static_cast<std::uint64_t>(back.integer()), v);
    EXPECT_EQ(back.dump(), std::to_string(v));
    EXPECT_EQ(back.number_text(), std::to_string(v));
  }
  const Json lo = Json::parse("-9223372036854775808");
  EXPECT_EQ(lo.integer(), std::numeric_limits<long long>::min());
  EXPECT_EQ(lo.dump(), "-9223372036854775808");
  // Beyond 64 bits: no integer reading, but the text as written is kept.
  const Json big = Json::parse("18446744073709551616");
  EXPECT_EQ(big.number_text(), "18446744073709551616");
  EXPECT_DOUBLE_EQ(big.num(), 18446744073709551616.0);
  EXPECT_EQ(Json::parse("1.50e2").number_text(), "1.50e2");
  EXPECT_EQ(Json::parse("1.50e2").dump(), "150");
  EXPECT_EQ(Json(2.5).number_text(), "2.5");
}

TEST(Json, Escaping) {
  EXPECT_EQ(ptxcts::json_escape("a\"b\\c/\n\r\t\b\f\x01\x1f\x20~\x7f\xc3\xa9"),
            "a\\\"b\\\\c/\\n\\r\\t\\u0008\\u000c\\u0001\\u001f ~\x7f\xc3\xa9");
  EXPECT_EQ(Json::parse("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u0000z\"").str(),
            std::string("\"\\/\b\f\n\r\tA\0z", 11));
  // Every byte value survives dump and parse.
  std::string all;
  for (int c = 1; c < 256; ++c) all += char(c);
  EXPECT_EQ(Json::parse(Json(all).dump()).str(), all);
  // \u escapes above U+007F become UTF-8, surrogate pairs included.
  EXPECT_EQ(Json::parse("\"\\u00e9\\u20AC\\ud83d\\ude00\"").str(), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  // A reader whose inputs are ASCII refuses them, at the escape.
  Json::ParseOptions ascii;
  ascii.reject_non_ascii_escapes = "ASCII only here";
  EXPECT_EQ(Json::parse("\"\\u007f\"", ascii).str(), "\x7f");
  const JsonError e = parse_error("[\"ok\",\n \"\\u00e9\"]", ascii);
  EXPECT_EQ(std::string(e.what()), "line 2, column 9: ASCII only here");
}

TEST(Json, LoneSurrogateRefused) {
  // Half of a UTF-16 pair alone is no character: refused at its escape, as the Python reader refuses it.
  const JsonError hi = parse_error("{\"m\":\n \"ab\\ud800\"}");
  EXPECT_EQ(std::string(hi.what()), "line 2, column 5: \\ud800: half of a UTF-16 surrogate pair without its other "
                                    "half: not a character (a string must be Unicode text)");
  EXPECT_EQ(hi.line(), 2);
  // A high half followed by anything but a low half, a low half alone, a low half before a high one.
  EXPECT_EQ(parse_error("\"\\uD83Dx\"").column(), 2);
  EXPECT_EQ(parse_error("\"\\ud83d\\u0041\"").column(), 2);
  EXPECT_EQ(parse_error("\"\\ude00\"").column(), 2);
  EXPECT_EQ(parse_error("\"\\ude00\\ud83d\"").column(), 2);
  EXPECT_NE(std::string(parse_error("[\"\\uDFFF\"]").what()).find("\\uDFFF: half of a UTF-16"), std::string::npos);
  // A pair is one character, in either case of hex digits.
  EXPECT_EQ(Json::parse("\"\\uD83D\\uDE00\"").str(), "\xf0\x9f\x98\x80");
}

}  // namespace
