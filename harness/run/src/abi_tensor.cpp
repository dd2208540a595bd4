#include "abi.hpp"
namespace ptxcts::run {
void register_tensor(AbiRegistry&) {}
}  // namespace ptxcts::run
