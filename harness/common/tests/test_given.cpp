// ptxcts/given.hpp: a path the user gives, checked by kind; each problem names the option or variable and the value.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "ptxcts/given.hpp"

namespace {

using ptxcts::given::Kind;
using ptxcts::given::env_problem;
using ptxcts::given::path_problem;
using ptxcts::given::problem;

class Given : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ptxcts-given-XXXXXX";
    dir_ = mkdtemp(tmpl);
    std::ofstream(dir_ + "/afile") << "x\n";
    mkdir((dir_ + "/d").c_str(), 0755);
    symlink((dir_ + "/missing").c_str(), (dir_ + "/dangle").c_str());
    mkfifo((dir_ + "/fifo").c_str(), 0644);
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string dir_;
};

TEST_F(Given, BlankAndLinksToNowhereAreRefusedForEveryKind) {
  for (Kind k : {Kind::File, Kind::Folder, Kind::Input, Kind::NewFile, Kind::NewFolder}) {
    EXPECT_EQ(problem(" ", k), "an empty name");
    EXPECT_NE(problem(dir_ + "/dangle", k).find("a link that leads nowhere"), std::string::npos);
  }
}

TEST_F(Given, EachKindRefusesWhatItCannotUse) {
  EXPECT_EQ(problem(dir_ + "/none", Kind::File), "no such file");
  EXPECT_EQ(problem(dir_ + "/d", Kind::File), "is a folder, not a file");
  EXPECT_EQ(problem(dir_ + "/fifo", Kind::File), "is a FIFO, not a file");
  EXPECT_EQ(problem("/dev/null", Kind::NewFile), "is a device, not a file");
  EXPECT_EQ(problem(dir_ + "/afile", Kind::Folder), "is a file, not a folder");
  EXPECT_EQ(problem(dir_ + "/afile", Kind::Resume), "is a file, not a folder");
  EXPECT_EQ(problem(dir_ + "/none", Kind::Input), "no such file or folder");
  EXPECT_EQ(problem(dir_ + "/afile/x", Kind::NewFolder), dir_ + "/afile is a file, not a folder, so nothing can be under it");
}

// A run stopped before it judged anything leaves no folder: --resume of it says how to start afresh, in the words
// of ptxcts_gen.pathcheck.NO_RUN_THERE.
TEST_F(Given, AMissingResumeFolderSaysToStartAfresh) {
  const std::string p = problem(dir_ + "/none", Kind::Resume);
  EXPECT_EQ(p.rfind("no such folder", 0), 0u) << p;
  EXPECT_NE(p.find("start the run afresh"), std::string::npos) << p;
  EXPECT_NE(p.find("--out in place of --resume"), std::string::npos) << p;
}

// An output over what the command reads: the input itself, or a run document of the input folder (or below it,
// or through a link to it); anything else beside the input is no problem of this check.
TEST_F(Given, AnOutputOverTheInputIsRefused) {
  using ptxcts::given::output_over_input;
  mkdir((dir_ + "/d/s").c_str(), 0755);
  std::ofstream(dir_ + "/d/results.json") << "{}\n";
  symlink((dir_ + "/d").c_str(), (dir_ + "/dlink").c_str());
  EXPECT_EQ(output_over_input("--json ", dir_ + "/afile", dir_ + "/afile"),
            "--json " + dir_ + "/afile: is the input " + dir_ + "/afile; writing there would replace what this "
            "command reads: choose another path");
  for (const std::string& out : {dir_ + "/d/results.json", dir_ + "/d/s/explore.json", dir_ + "/dlink/results.json.gz"}) {
    const std::string p = output_over_input("--json ", out, dir_ + "/d");
    EXPECT_EQ(p.rfind("--json " + out + ": is the input " + dir_ + "/d (a run document in it)", 0), 0u) << p;
  }
  EXPECT_EQ(output_over_input("--json ", dir_ + "/d/verdict.json", dir_ + "/d"), "");
  EXPECT_EQ(output_over_input("--json ", dir_ + "/results.json", dir_ + "/d"), "");
  EXPECT_EQ(output_over_input("--json ", dir_ + "/d/results.json", dir_ + "/none"), "");
}

TEST_F(Given, WhatCanBeUsedPasses) {
  EXPECT_EQ(problem(dir_ + "/afile", Kind::File), "");
  EXPECT_EQ(problem(dir_ + "/d", Kind::Folder), "");
  EXPECT_EQ(problem(dir_ + "/d", Kind::Resume), "");
  EXPECT_EQ(problem(dir_ + "/d", Kind::Input), "");
  EXPECT_EQ(problem(dir_ + "/new/deeper", Kind::NewFolder), "");
  EXPECT_EQ(problem(dir_ + "/new.json", Kind::NewFile), "");
}

TEST_F(Given, ARelativePathInARemovedWorkingFolderNamesTheFolder) {
  char back[4096];
  ASSERT_NE(getcwd(back, sizeof back), nullptr);
  const std::string gone = dir_ + "/gone";
  mkdir(gone.c_str(), 0755);
  ASSERT_EQ(chdir(gone.c_str()), 0);
  rmdir(gone.c_str());
  const std::string p = problem("o", Kind::NewFolder), abs = problem(dir_ + "/o", Kind::NewFolder);
  ASSERT_EQ(chdir(back), 0);
  EXPECT_EQ(p.rfind("the working folder " + gone + " no longer exists (removed under this command)", 0), 0u) << p;
  EXPECT_EQ(abs, "");   // an absolute path means what it says
}

TEST_F(Given, MessagesNameTheOptionOrTheVariable) {
  EXPECT_EQ(path_problem("--out ", dir_ + "/afile", Kind::NewFolder), "--out " + dir_ + "/afile: is a file, not a folder");
  setenv("PTXCTS_GIVEN_TEST", " ", 1);
  EXPECT_EQ(env_problem("PTXCTS_GIVEN_TEST", Kind::NewFolder).rfind("PTXCTS_GIVEN_TEST=' ' is set but empty", 0), 0u);
  setenv("PTXCTS_GIVEN_TEST", (dir_ + "/fifo").c_str(), 1);
  EXPECT_EQ(env_problem("PTXCTS_GIVEN_TEST", Kind::File), "PTXCTS_GIVEN_TEST=" + dir_ + "/fifo: is a FIFO, not a file");
  unsetenv("PTXCTS_GIVEN_TEST");
  EXPECT_EQ(env_problem("PTXCTS_GIVEN_TEST", Kind::File), "");
}

}  // namespace
