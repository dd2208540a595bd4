// The run tier's JSON is the harness's one JSON value (harness/common, include/ptxcts/json.hpp): it reads
// forms.jsonl and the worker's per-case result lines, and writes results.json and the repro bundles.
#pragma once
#include <string>

#include "ptxcts/json.hpp"

namespace ptxcts::run {

using ptxcts::Json;
using ptxcts::JsonError;
using ptxcts::json_escape;

// A string field of a JSON record and the member of T that holds it: a record's string fields as one table, read
// (j.get_str(key)) and written in the table's order.
template <class T>
struct StringField {
  const char* key;
  std::string T::*field;
};

}  // namespace ptxcts::run
