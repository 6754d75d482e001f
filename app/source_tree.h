#pragma once
// The source tree the workbench was built from: where a build that is not
// installed finds its examples and its user guide.

#include <QString>

namespace mbdrom::app {

/// The source tree's root followed by `relative` (which starts with '/'); empty
/// when the workbench does not run from a build tree (installed).
QString sourceTreePath(const QString& relative);

}  // namespace mbdrom::app
