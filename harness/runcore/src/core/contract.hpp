// The generator -> harness contract on the C++ side: generated/contract/run_contract.hpp (written by
// ./ptxcts gen from generator/ptxcts_gen/contract.py) and the check every form of forms.jsonl passes when the
// run tier loads it. The drivers read a form's facts only through the typed accessors below, by the contract's
// field names (field::<name>): never from its ID, never from another field standing in.
#pragma once
#include <string>
#include <vector>

#include "json.hpp"
#include "run_contract.hpp"

namespace ptxcts::run {

using contract::Word;
using contract::kStatusWords;
using contract::W_SRC; using contract::W_DST; using contract::W_SMEM_INIT; using contract::W_SMEM_OUT;
using contract::W_STATUS; using contract::W_SIZE; using contract::W_WINDOW; using contract::W_SRC_OFF;
using contract::W_DST_OFF; using contract::W_CTA_MASK; using contract::W_BYTE_MASK; using contract::W_IGNORE_SRC;
using contract::W_TX_BYTES; using contract::W_WAIT_LIMIT; using contract::W_COORD0; using contract::W_IM2COL0;
using contract::W_PEER; using contract::W_ISSUER; using contract::W_WAITERS; using contract::W_COUNT;
using contract::W_IGNORE_LEFT; using contract::W_IGNORE_RIGHT;

struct Form;

// The contract's ABI row of a run ABI name, or nullptr.
const contract::Abi* abi_spec(const std::string& abi);
// Throws std::runtime_error "form <ID>: run.<field> ..." when the form's run object (or a quals field the run
// tier reads) breaks the contract: an unknown or missing field, a value of another type, an unknown load mode.
void check_form(const Form& f);
// Space-separated list -> items.
std::vector<std::string> words_of(const char* list);

}  // namespace ptxcts::run
