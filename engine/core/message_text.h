#pragma once
/// @file
/// Pieces of the text of messages and files.

#include <string>

namespace mbdrom {

/// `s` between double quotes: a name as messages and XML attributes show it.
inline std::string inQuotes(const std::string& s) {
  return "\"" + s + "\"";
}

}  // namespace mbdrom
