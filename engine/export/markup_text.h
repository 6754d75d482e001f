#pragma once
/// @file
/// Text for XML and HTML attributes and content (the FMU's modelDescription and documentation).

#include <string>

namespace mbdrom {

/// `text` with &, <, >, " escaped and line breaks as spaces.
inline std::string markupText(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\n': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace mbdrom
