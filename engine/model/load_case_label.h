#pragma once
/// @file
/// A load case as the front ends name it in text: "gravity only" for none, else its name in
/// quotes (the CLI's summaries; the workbench has its own translatable words).

#include "engine/model/model.h"

#include <string>

namespace mbdrom {

/// Load case `loadCase` of `model` (-1: none, gravity only).
inline std::string loadCaseLabel(const Model& model, int loadCase) {
  return loadCase < 0 ? std::string("gravity only")
                      : "\"" + model.spec().loadCases[static_cast<std::size_t>(loadCase)].name + "\"";
}

/// The load case a run recorded ("": none).
inline std::string loadCaseLabel(const std::string& recorded) {
  return recorded.empty() ? std::string("gravity only") : "\"" + recorded + "\"";
}

}  // namespace mbdrom
