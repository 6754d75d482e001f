#pragma once
// A load case as the workbench names it: its name, or "gravity only" for none (-1).

#include "engine/model/model.h"

#include <QObject>
#include <QString>

namespace mbdrom::app {

inline QString loadCaseName(const Model& model, int loadCase) {
  return loadCase < 0
             ? QObject::tr("gravity only")
             : QString::fromStdString(model.spec().loadCases[static_cast<std::size_t>(loadCase)].name);
}

}  // namespace mbdrom::app
