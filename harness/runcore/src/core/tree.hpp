// Where this binary's tree is, found at run time (nothing absolute is compiled in): PTXCTS_ROOT / PTXCTS_BUILD
// when set (./ptxcts sets them), else the build folder this executable lives in (<build>/harness/run/) and the
// source tree its stamp (<build>/ptxcts-build.txt, written by the top-level CMakeLists.txt) names.
#pragma once
#include <string>

namespace ptxcts::run {

std::string ptxcts_root();
std::string build_root();
// "" when the build folder is where it was configured and the environment agrees with it; else why not (a
// copied or moved build folder would read and write the tree it was configured from: refused).
std::string check_tree();

}  // namespace ptxcts::run
