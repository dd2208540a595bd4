// ptxcts::OptionReader: `--opt value` and `--opt=value` alike, and each misuse of the spelling a usage error that
// names the option; ptxcts::find_option, either spelling.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ptxcts/options.hpp"

namespace {

using ptxcts::OptionReader;
using ptxcts::UsageError;

// name=value for each option read; a flag (no value) as its name alone. Options in `repeatable` read with each().
std::vector<std::string> read(const std::vector<std::string>& args, const std::vector<std::string>& flags = {"--quiet"},
                              const std::vector<std::string>& repeatable = {"--family"}) {
  std::vector<std::string> out;
  OptionReader r(args);
  while (r.next()) {
    bool flag = false, rep = false;
    for (auto& f : flags) flag |= r.name() == f;
    for (auto& f : repeatable) rep |= r.name() == f;
    out.push_back(flag ? r.name() : r.name() + "=" + (rep ? r.each() : r.value()));
  }
  return out;
}

std::string error_of(const std::vector<std::string>& args) {
  try {
    read(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Options, BothSpellingsGiveTheSameValue) {
  EXPECT_EQ(read({"--seed", "1", "--out=d", "--quiet"}), (std::vector<std::string>{"--seed=1", "--out=d", "--quiet"}));
  EXPECT_EQ(read({"--seed=1"}), read({"--seed", "1"}));
}

TEST(Options, TheValueIsWhatFollowsTheFirstEquals) {
  EXPECT_EQ(read({"--filter=a=b"}), (std::vector<std::string>{"--filter=a=b"}));
  EXPECT_EQ(read({"--out="}), (std::vector<std::string>{"--out="}));   // empty: the command's own check refuses it
  // a value that looks like an option goes with '=' (`--out --quiet` is refused: AValueThatIsAnotherOptionIsRefused)
  EXPECT_EQ(read({"--out=--quiet"}), (std::vector<std::string>{"--out=--quiet"}));
}

TEST(Options, OnlyALongOptionIsSplit) {
  EXPECT_EQ(read({"-j=2"}, {"-j=2"}), (std::vector<std::string>{"-j=2"}));
  EXPECT_EQ(read({"--=x"}, {"--=x"}), (std::vector<std::string>{"--=x"}));
}

TEST(Options, AValueMissingNamesTheOption) {
  EXPECT_EQ(error_of({"--quiet", "--seed"}), "--seed needs a value");
}

TEST(Options, AFlagGivenAValueIsRefused) {
  EXPECT_EQ(error_of({"--quiet=1"}), "--quiet takes no value (given '--quiet=1')");
  EXPECT_EQ(error_of({"--quiet=", "--seed", "1"}), "--quiet takes no value (given '--quiet=')");
}

TEST(Options, ASingleValueGivenTwiceDifferentlyNamesBoth) {
  EXPECT_EQ(error_of({"--seed=1", "--seed", "2"}), "--seed given twice with different values: '1' and '2'");
  EXPECT_EQ(read({"--seed=1", "--seed", "1"}), (std::vector<std::string>{"--seed=1", "--seed=1"}));
}

TEST(Options, ARepeatableOptionTakesEveryValue) {
  EXPECT_EQ(read({"--family=a", "--family", "b"}), (std::vector<std::string>{"--family=a", "--family=b"}));
}

TEST(Options, ARepeatableOptionsValueGivenTwiceIsRefused) {
  EXPECT_EQ(error_of({"--family=a", "--family", "b", "--family", "a"}), "--family a: given twice (each value once)");
}

TEST(Options, TheArgumentsAnOptionSpans) {
  OptionReader r({"--seed", "1", "--out=d"});
  ASSERT_TRUE(r.next());
  r.value();
  EXPECT_EQ(r.first(), 0u);
  EXPECT_EQ(r.last(), 1u);
  ASSERT_TRUE(r.next());
  r.value();
  EXPECT_EQ(r.first(), 2u);
  EXPECT_EQ(r.last(), 2u);
  EXPECT_FALSE(r.next());
}

TEST(Options, FindOptionTakesEitherSpellingAndTheLast) {
  std::string v;
  EXPECT_TRUE(ptxcts::find_option({"--quiet", "--resume", "a"}, "--resume", &v));
  EXPECT_EQ(v, "a");
  EXPECT_TRUE(ptxcts::find_option({"--resume=a", "--resume=b"}, "--resume", &v));
  EXPECT_EQ(v, "b");
  EXPECT_TRUE(ptxcts::find_option({"--resume"}, "--resume", &v));
  EXPECT_EQ(v, "");
  EXPECT_FALSE(ptxcts::find_option({"--resumes=a", "--out", "--resume-x"}, "--resume", &v));
}

}  // namespace

TEST(Options, AValueThatIsAnotherOptionIsRefused) {
  // as argparse: `--out --quiet` must not make a folder named --quiet
  EXPECT_EQ(error_of({"--out", "--quiet"}),
            "--out needs a value, and the next argument '--quiet' is an option (a value that starts with '-' is given "
            "as --out=--quiet)");
  EXPECT_EQ(error_of({"--out", "-e"}).rfind("--out needs a value, and the next argument '-e' is an option", 0), 0u);
  // a negative number is a value (its range is the command's check); '=' passes any value, '-' alone too
  EXPECT_EQ(read({"--seed", "-1", "--timeout", "-.5", "--out=-e", "--in", "-"}),
            (std::vector<std::string>{"--seed=-1", "--timeout=-.5", "--out=-e", "--in=-"}));
}

TEST(Options, AValueThatIsNotUtf8IsRefused) {
  EXPECT_EQ(error_of({"--device-name", "gpu\xff"}), "--device-name 'gpu...': not UTF-8 text (byte 0xFF at offset 3)");
  EXPECT_EQ(error_of({"--out=caf\xe9"}), "--out 'caf...': not UTF-8 text (byte 0xE9 at offset 3)");
  EXPECT_EQ(error_of({"--out", "\xed\xa0\x80"}), "--out '...': not UTF-8 text (byte 0xED at offset 0)");   // a surrogate
  EXPECT_EQ(error_of({"--out", "\xc0\xaf"}), "--out '...': not UTF-8 text (byte 0xC0 at offset 0)");   // overlong
  EXPECT_EQ(read({"--device-name", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"}),
            (std::vector<std::string>{"--device-name=caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"}));
}

TEST(Options, GivenIsTheArgumentAsWritten) {
  // what a command's "unknown option" message names: the argument itself, '=' and value included ('--0=')
  OptionReader r({"--0=", "--seed=1", "--quiet"});
  std::vector<std::string> given;
  while (r.next()) {
    given.push_back(r.given());
    if (r.name() == "--seed") r.value();
    if (r.name() == "--0") break;
  }
  EXPECT_EQ(given, (std::vector<std::string>{"--0="}));
  OptionReader s({"--seed=1", "--quiet"});
  ASSERT_TRUE(s.next());
  EXPECT_EQ(s.given(), "--seed=1");
  EXPECT_EQ(s.value(), "1");
  ASSERT_TRUE(s.next());
  EXPECT_EQ(s.given(), "--quiet");
}
