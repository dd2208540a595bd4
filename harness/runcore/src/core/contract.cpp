#include "contract.hpp"

#include <algorithm>
#include <stdexcept>

#include "form.hpp"

namespace ptxcts::run {

namespace {

bool is_int(const Json& v) {
  if (!v.is_number()) return false;
  std::string t = v.number_text();
  return t.find_first_of(".eE") == std::string::npos;
}

bool type_ok(contract::FieldType t, const Json& v) {
  using T = contract::FieldType;
  switch (t) {
    case T::boolean: return v.is_bool();
    case T::integer: return is_int(v);
    case T::string: return v.is_string();
    case T::size: return is_int(v) || (v.is_string() && v.str() == "args");
    case T::str_list:
      return v.is_array() && std::all_of(v.arr().begin(), v.arr().end(), [](const Json& x) { return x.is_string(); });
    case T::type_cells: {
      if (!v.is_object() || v.size() != std::size(contract::kTypes)) return false;
      for (const char* ty : contract::kTypes) {
        const Json* c = v.get(ty);
        if (!c || !c->is_string() || (c->str() != "allowed" && c->str() != "not_in_table")) return false;
      }
      return true;
    }
  }
  return false;
}

const contract::Field* field_spec(const std::string& name) {
  for (auto& f : contract::kFields)
    if (name == f.name) return &f;
  return nullptr;
}

}  // namespace

std::vector<std::string> words_of(const char* list) {
  std::vector<std::string> out;
  std::string cur;
  for (const char* p = list; ; ++p) {
    if (*p == ' ' || *p == 0) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
      if (!*p) break;
    } else {
      cur += *p;
    }
  }
  return out;
}

const contract::Abi* abi_spec(const std::string& abi) {
  for (auto& a : contract::kAbis)
    if (abi == a.name) return &a;
  return nullptr;
}

void check_form(const Form& f) {
  auto bad = [&](const std::string& what) {
    throw std::runtime_error("form " + f.form + ": " + what + " (the contract: generator/ptxcts_gen/contract.py)");
  };
  const contract::Abi* a = abi_spec(f.abi);
  if (!a) bad("run ABI '" + f.abi + "' is not one the contract declares");
  if (!f.run.is_object()) bad("run is not an object");
  auto required = words_of(a->required), optional = words_of(a->optional);
  for (auto& r : required)
    if (!f.run.get(r)) bad("run." + r + " is missing (required by ABI " + f.abi + ")");
  for (auto& [name, v] : f.run.obj()) {
    if (std::find(required.begin(), required.end(), name) == required.end() &&
        std::find(optional.begin(), optional.end(), name) == optional.end())
      bad("run." + name + " is not a field of ABI " + f.abi);
    const contract::Field* spec = field_spec(name);
    if (!spec) bad("run." + name + " is not a field the contract declares");
    if (!type_ok(spec->type, v)) bad("run." + name + " = " + v.dump() + " is not of the contract's type");
  }
  if (const Json* m = f.run.get(contract::field::load_mode)) {
    bool known = false;
    for (auto& lm : contract::kLoadModes) known |= m->str() == lm.spelling;
    if (!known) bad("run.load_mode '" + m->str() + "' is not a load mode of the contract");
  }
  for (auto& q : contract::kQualsRead)
    if (const Json* v = f.quals.is_object() ? f.quals.get(q.name) : nullptr; v && !type_ok(q.type, *v))
      bad(std::string("quals.") + q.name + " = " + v->dump() + " is not of the contract's type");
}

}  // namespace ptxcts::run
