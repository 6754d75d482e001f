#pragma once
// The measure tool (Model ▸ Measure, M): distance, angle and relative velocity
// between the points or bodies picked in the 3D view or the model tree, live
// while a run plays; a measure of points can be kept in the mechanism, so that
// every run records it.
//
// Two points: distance, its rate and the relative speed |v2 - v1|; three points:
// the angle at the second and its rate; two bodies: the distance between the
// centroids of their points and the angle of their relative rotation since the
// reference configuration, with the rate of the distance and the relative
// angular speed. Rates are central differences of the played run's samples (of
// the displayed value: a three-point angle's rate changes sign at 0 and 180
// degrees); with no run played the mechanism is at rest.

#include "app/editing/model_browser.h"
#include "engine/model/spec_edit.h"

#include <Eigen/Core>

#include <QObject>
#include <QString>

#include <vector>

class QAction;
class QDockWidget;
class QLabel;
class QMainWindow;
class QPushButton;

namespace mbdrom {
class Model;
}  // namespace mbdrom

namespace mbdrom::widgets {
class ModelTree;
}

namespace mbdrom::app {

class ProjectDocument;
class Viewport;

class MeasureTool : public QObject {
  Q_OBJECT
 public:
  /// Applies an edited specification (as the model browser's docks do).
  using EditHandler = ModelBrowser::EditHandler;
  /// Adds the Measure dock (objectName measureDock, hidden until asked for) to `window`.
  MeasureTool(QMainWindow* window, ProjectDocument* doc, Viewport* viewport, widgets::ModelTree* tree,
              EditHandler edit);
  ~MeasureTool() override;
  /// Shows and raises the dock (objectName measureToolAction, key M).
  QAction* action() const { return action_; }
  QDockWidget* dock() const { return dock_; }

  /// What is measured now: "" when the selection gives nothing to measure.
  QString quantity() const { return quantity_; }
  /// The values shown, in the units shown (m, m/s, degrees, degrees/s); NaN for a rate with no run played.
  double value() const { return value_; }
  double rate() const { return rate_; }
  double relativeSpeed() const { return relativeSpeed_; }

 private:
  // The coordinates a measure is evaluated at: the played run's frame and its neighbours, or the
  // mechanism at rest.
  struct Frames {
    const Model* model = nullptr;
    const Eigen::VectorXd* now = nullptr;
    const Eigen::VectorXd *before = nullptr, *after = nullptr;
    double span = 0.0;  // time from `before` to `after` [s]; 0: no rates
  };
  static Frames framesOf(const Viewport& viewport, int frame);

  void update();
  void measurePoints(const Frames& f, const std::vector<int>& points);
  void measureBodies(const Frames& f, int body1, int body2);
  void keep();
  void show(const QString& quantity, const QString& between, const QString& valueText,
            const QString& rateText, const QString& speedText);

  ProjectDocument* doc_;
  Viewport* viewport_;
  EditHandler edit_;
  QAction* action_ = nullptr;
  QDockWidget* dock_ = nullptr;
  QLabel* between_ = nullptr;
  QLabel* valueLabel_ = nullptr;
  QLabel* rateLabel_ = nullptr;
  QLabel* speedLabel_ = nullptr;
  QPushButton* keep_ = nullptr;
  int frame_ = -1;  // of the played run, -1: none
  QString quantity_;
  double value_ = 0.0, rate_ = 0.0, relativeSpeed_ = 0.0;
  std::vector<std::string> keepPoints_;  // the points of a measure that can be kept
};

}  // namespace mbdrom::app
