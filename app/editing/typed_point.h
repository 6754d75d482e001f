#pragma once
// A point typed in one line, as the toolbar's coordinates field takes it:
// "x y z", "x, y, z", "(x, y, z)" or with a name first, "A 0 0 0.3" or "A: 0, 0, 0.3" [m].

#include <Eigen/Core>
#include <QString>

namespace mbdrom::app {

struct TypedPoint {
  QString name;                                        ///< empty: the workbench names it
  Eigen::Vector3d position = Eigen::Vector3d::Zero();  ///< [m]
  QString error;                                       ///< why the text is not a point; empty when it is
};

TypedPoint parseTypedPoint(const QString& text);

}  // namespace mbdrom::app
