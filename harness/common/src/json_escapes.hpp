// The table of short escapes the JSON reader (json_reader.cpp) and writer (json.cpp) share. Internal to
// ptxcts_json.
#pragma once

namespace ptxcts {

// RFC 8259 section 7: the two-character escapes, each as the letter after the backslash and the byte it stands for.
// The reader takes all of them; the writer (json_escape) writes those marked `written` and every other control
// byte as \u00XX.
struct ShortEscape {
  char letter, byte;
  bool written;
};
constexpr ShortEscape kShortEscapes[] = {{'"', '"', true},    {'\\', '\\', true}, {'/', '/', false},
                                         {'b', '\b', false},  {'f', '\f', false},  {'n', '\n', true},
                                         {'r', '\r', true},   {'t', '\t', true}};
inline const ShortEscape* short_escape_of_letter(char letter) {
  for (const ShortEscape& e : kShortEscapes)
    if (e.letter == letter) return &e;
  return nullptr;
}
inline const ShortEscape* short_escape_written_for(char byte) {
  for (const ShortEscape& e : kShortEscapes)
    if (e.written && e.byte == byte) return &e;
  return nullptr;
}

}  // namespace ptxcts
