#pragma once
/// @file
/// Parsing JSON from exchanged files: nesting beyond kMaxJsonDepth and
/// duplicate keys (which the parser would resolve silently, last one wins) are
/// refused with a FileError naming the source.

#include "engine/core/error.h"
#include "engine/core/file_io.h"

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace mbdrom {

/// Parses `text` (nlohmann::json or nlohmann::ordered_json); `source` names it
/// in messages. Throws FileError.
template <typename JsonT>
JsonT parseJsonInput(const std::string& text, const std::string& source) {
  std::vector<std::set<std::string>> keys;  // one per open object
  auto check = [&](int depth, typename JsonT::parse_event_t event, JsonT& parsed) {
    using Event = typename JsonT::parse_event_t;
    if (depth > kMaxJsonDepth)
      throw FileError(source + ": nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
    if (event == Event::object_start) {
      keys.emplace_back();
    } else if (event == Event::object_end) {
      if (!keys.empty()) keys.pop_back();
    } else if (event == Event::key && !keys.empty() && parsed.is_string()) {
      const std::string& key = parsed.template get_ref<const std::string&>();
      if (!keys.back().insert(key).second)
        throw FileError(source + ": duplicate key \"" + key + "\" in one object");
    }
    return true;
  };
  try {
    return JsonT::parse(text, check);
  } catch (const typename JsonT::exception& e) {
    throw FileError(source + ": malformed JSON: " + e.what());
  }
}

}  // namespace mbdrom
