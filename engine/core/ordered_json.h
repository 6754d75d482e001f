#pragma once
/// @file
/// The JSON type of mbdrom's files: objects keep their keys in the order written.

#include <nlohmann/json.hpp>

namespace mbdrom {

using OJson = nlohmann::ordered_json;

/// The number at `key` of object `j`, or `fallback` when it has none (or not a number).
inline double numberOr(const OJson& j, const char* key, double fallback) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

}  // namespace mbdrom
