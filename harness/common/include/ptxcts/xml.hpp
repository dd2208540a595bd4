// Text for XML documents (the exploration's coverage.svg): what a device name, an id or a parameter name becomes
// inside an element or an attribute value.
#pragma once
#include <string>

namespace ptxcts {

// & < > " ' as entities; tab, newline and carriage return kept; every other control byte (0x00-0x1F and 0x7F,
// which XML 1.0 does not allow or discourages) as U+FFFD. Other bytes, UTF-8 included, as they are.
std::string xml_escape(const std::string& s);

}  // namespace ptxcts
