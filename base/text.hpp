// Text from input files (file, group and field names, quoted lines) reaches terminals, logs and JSON: it is shown
// escaped where it is not printable UTF-8, and error messages are kept to one readable size.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace kempe {

/// The length of the valid UTF-8 sequence at the start of `s` (1-4 bytes), or 0 when it is not one (a stray
/// continuation byte, an overlong form, a surrogate, a code point above U+10FFFF, a cut sequence).
inline std::size_t utf8_sequence_length(std::string_view s) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) n = 2;
  else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;  // no overlong forms
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;  // at most U+10FFFF
  } else {
    return 0;
  }
  if (s.size() < n || byte(1) < lo || byte(1) > hi) return 0;
  for (std::size_t i = 2; i < n; ++i)
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  return n;
}

/// `s` with every byte that is not part of printable UTF-8 (control characters, invalid sequences) written as
/// \xHH, and backslashes doubled, so that any name from a file prints as one readable line.
inline std::string escaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence_length(s.substr(i));
    const auto c = static_cast<unsigned char>(s[i]);
    if (n == 1 && c >= 0x20 && c != 0x7F) {
      if (c == '\\') out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (n > 1) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
      ++i;
    }
  }
  return out;
}

/// The most bytes an error message takes: one message fits a terminal screen and a log line.
inline constexpr std::size_t max_message_bytes = 480;

/// An error message as it is shown: escaped(), and when longer than max_message_bytes, its start and end with
/// " [...] " between them (the start names the file and place, the end says what was expected).
inline std::string shown_message(std::string_view message) {
  std::string text = escaped(message);
  if (text.size() <= max_message_bytes) return text;
  constexpr std::string_view cut = " [...] ";
  std::size_t head = (max_message_bytes - cut.size()) * 2 / 3, tail = max_message_bytes - cut.size() - head;
  // Cut at character boundaries: never inside a UTF-8 sequence.
  while (head > 0 && (static_cast<unsigned char>(text[head]) & 0xC0) == 0x80) --head;
  std::size_t tail_start = text.size() - tail;
  while (tail_start < text.size() && (static_cast<unsigned char>(text[tail_start]) & 0xC0) == 0x80) ++tail_start;
  return text.substr(0, head) + std::string(cut) + text.substr(tail_start);
}

}  // namespace kempe
