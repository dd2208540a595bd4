#include "ptxcts/xml.hpp"

namespace ptxcts {

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (unsigned char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\t': case '\n': case '\r': out += char(c); break;
      default:
        if (c < 0x20 || c == 0x7F) out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
        else out += char(c);
    }
  }
  return out;
}

}  // namespace ptxcts
