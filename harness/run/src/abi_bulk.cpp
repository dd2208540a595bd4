#include "abi.hpp"
namespace ptxcts::run {
void register_bulk(AbiRegistry&) {}
}  // namespace ptxcts::run
