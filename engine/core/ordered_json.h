#pragma once
/// @file
/// The JSON type of mbdrom's files: objects keep their keys in the order written.

#include <nlohmann/json.hpp>

namespace mbdrom {

using OJson = nlohmann::ordered_json;

}  // namespace mbdrom
