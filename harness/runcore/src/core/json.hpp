// The run tier's JSON is the harness's one JSON value (harness/common, include/ptxcts/json.hpp): it reads
// forms.jsonl and the worker's per-case result lines, and writes results.json and the repro bundles.
#pragma once
#include "ptxcts/json.hpp"

namespace ptxcts::run {

using ptxcts::Json;
using ptxcts::JsonError;
using ptxcts::json_escape;

}  // namespace ptxcts::run
