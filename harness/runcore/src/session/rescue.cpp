// rescue.hpp: the rescue folder of a document its own folder refused.
#include "rescue.hpp"

#include "ptxcts/given.hpp"
#include "util.hpp"

namespace ptxcts::run {

std::string rescue_problem() {
  if (auto e = ptxcts::given::env_problem("PTXCTS_RESCUE", ptxcts::given::Kind::NewFolder); !e.empty())
    return e + " (where a document that cannot be written is kept)";
  return "";
}

std::string rescue_folder(const std::string& id) {
  std::string base = env("PTXCTS_RESCUE");
  if (base.empty())   // as Python's tempfile: $TMPDIR when it is a usable folder, else /tmp
    base = (ptxcts::given::problem(env("TMPDIR"), ptxcts::given::Kind::Folder).empty() ? env("TMPDIR")
                                                                                       : std::string("/tmp")) +
           "/ptxcts-rescue";
  return base + "/" + (id.empty() ? std::string("run") : id);
}

std::string rescue(const std::string& failure, const std::string& id, const std::string& out, const std::string& document,
                   size_t judged, const std::function<std::string(const std::string&)>& write_into,
                   const std::string& then) {
  const std::string keep = rescue_folder(id), n = std::to_string(judged);
  if (auto e = write_into(keep); !e.empty())
    return failure + "; the " + n + " judged cases could not be kept elsewhere either (" + e +
           "; PTXCTS_RESCUE names another folder)";
  return failure + "; the " + n + " judged cases are kept in " + keep + "/" + document + " instead: free the disk (or "
         "make " + out + " writable) and copy that folder there; " + then;
}

}  // namespace ptxcts::run
