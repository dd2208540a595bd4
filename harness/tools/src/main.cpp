// ptxcts-ref: ask the reference model what the hardware should have done.
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"

namespace {
const char* kUsage =
    "usage: ptxcts-ref reduce [--policy NAME=VALUE]... [--site bulk_global|bulk_shared_cluster|tensor] [--map-ftz]\n"
    "         stdin: lines '<op> <old> <src>' (op as after the redOp's dot in PTX, e.g. add.u32, add.noftz.f16,\n"
    "         min.s64; old and src hex bit patterns); stdout: one 0x-hex result per line\n"
    "       ptxcts-ref tensor [--policy NAME=VALUE]...\n"
    "         stdin: one JSON object (tensor map, mode, coords, fill); stdout: the shared-memory bytes of the load,\n"
    "         32 per line, then 'tx_bytes N'; exit 2 when the driver must reject the tensor map\n"
    "       ptxcts-ref policies [--markdown]\n"
    "         the named policies and their alternatives (--markdown: the table of docs/POLICIES.md)\n";
}

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    (args.empty() ? std::cerr : std::cout) << kUsage;
    return args.empty() ? ptxcts::tools::kExitUsage : 0;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  if (cmd == "reduce") return ptxcts::tools::run_reduce(args, std::cin, std::cout, std::cerr);
  if (cmd == "tensor") return ptxcts::tools::run_tensor(args, std::cin, std::cout, std::cerr);
  if (cmd == "policies") return ptxcts::tools::run_policies(args, std::cout, std::cerr);
  std::cerr << "ptxcts-ref: unknown command '" << cmd << "' (reduce, tensor, policies)\n" << kUsage;
  return ptxcts::tools::kExitUsage;
}
