#pragma once
// A load case as the workbench names it: its name, or "gravity only" for none (-1, or a run
// recorded without one); translatable, where the CLI takes the engine's loadCaseLabel.

#include "engine/model/model.h"

#include <QObject>
#include <QString>

#include <string>

namespace mbdrom::app {

inline QString loadCaseName(const Model& model, int loadCase) {
  return loadCase < 0
             ? QObject::tr("gravity only")
             : QString::fromStdString(model.spec().loadCases[static_cast<std::size_t>(loadCase)].name);
}

/// The load case a run recorded (empty: none).
inline QString loadCaseName(const std::string& recorded) {
  return recorded.empty() ? QObject::tr("gravity only") : QString::fromStdString(recorded);
}

}  // namespace mbdrom::app
