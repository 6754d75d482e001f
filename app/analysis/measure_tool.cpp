#include "app/analysis/measure_tool.h"

#include "app/dock.h"
#include "app/project_document.h"
#include "app/viewport.h"
#include "engine/core/error.h"
#include "engine/geometry/body_pose.h"
#include "engine/model/model.h"
#include "widgets/model_tree.h"
#include "widgets/scene_view.h"

#include <QAction>
#include <QDockWidget>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

namespace mbdrom::app {

namespace {

constexpr double kDegrees = 180.0 / 3.14159265358979323846;

// Position of drawn point i (the basic points, then the markers) at q [m].
Eigen::Vector3d drawnPosition(const Model& model, const Eigen::VectorXd& q, int i) {
  const int np = static_cast<int>(model.spec().points.size());
  return i < np ? pointPosition(model, q, i) : markerPosition(model, q, i - np);
}

std::string drawnName(const Model& model, int i) {
  const int np = static_cast<int>(model.spec().points.size());
  return i < np ? model.spec().points[static_cast<std::size_t>(i)].name
                : model.markers()[static_cast<std::size_t>(i - np)].name;
}

// Angle at b between the directions to a and c [rad], in [0, pi].
double angleAt(const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& c) {
  const Eigen::Vector3d u = a - b, v = c - b;
  return std::atan2(u.cross(v).norm(), u.dot(v));
}

}  // namespace

MeasureTool::Frames MeasureTool::framesOf(const Viewport& viewport, int frame) {
  Frames f;
  const RunMotion* motion = viewport.motion();
  if (motion && viewport.motionModel() && frame >= 0 && static_cast<std::size_t>(frame) < motion->q.size()) {
    const std::size_t k = static_cast<std::size_t>(frame), last = motion->q.size() - 1;
    const std::size_t k0 = k > 0 ? k - 1 : k, k1 = k < last ? k + 1 : k;
    f.model = viewport.motionModel();
    f.now = &motion->q[k];
    f.before = &motion->q[k0];
    f.after = &motion->q[k1];
    f.span = motion->t[k1] - motion->t[k0];
    return f;
  }
  if (const Model* model = viewport.shownMechanism()) {
    f.model = model;
    f.now = f.before = f.after = &model->q0();
  }
  return f;
}

namespace {

QString number(double v, const char* unit) {
  if (!std::isfinite(v)) return QObject::tr("– (play a run for rates)");
  return QStringLiteral("%1 %2").arg(v, 0, 'g', 5).arg(QString::fromUtf8(unit));
}

}  // namespace

MeasureTool::MeasureTool(QMainWindow* window, ProjectDocument* doc, Viewport* viewport,
                         widgets::ModelTree* tree, EditHandler edit)
    : QObject(window), doc_(doc), viewport_(viewport), edit_(std::move(edit)) {
  auto* box = new QWidget(window);
  auto* layout = new QVBoxLayout(box);
  auto* hint =
      new QLabel(tr("Pick two points (distance), three points (angle at the second) or two bodies in the "
                    "3D view or the model tree, with Ctrl or Shift."),
                 box);
  hint->setWordWrap(true);
  layout->addWidget(hint);
  auto* form = new QFormLayout;
  between_ = new QLabel(box);
  valueLabel_ = new QLabel(box);
  rateLabel_ = new QLabel(box);
  speedLabel_ = new QLabel(box);
  for (QLabel* label : {between_, valueLabel_, rateLabel_, speedLabel_})
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  between_->setObjectName("measureBetween");
  valueLabel_->setObjectName("measureValue");
  rateLabel_->setObjectName("measureRate");
  speedLabel_->setObjectName("measureSpeed");
  form->addRow(tr("Between"), between_);
  form->addRow(tr("Value"), valueLabel_);
  form->addRow(tr("Rate"), rateLabel_);
  form->addRow(tr("Relative speed"), speedLabel_);
  layout->addLayout(form);
  keep_ = new QPushButton(tr("Keep as Measure"), box);
  keep_->setObjectName("keepMeasureButton");
  keep_->setToolTip(tr("Adds this distance or angle to the mechanism's measures: every run records it"));
  layout->addWidget(keep_, 0, Qt::AlignLeft);
  layout->addStretch();
  dock_ = addDock(window, tr("Measure"), "measureDock", box, Qt::RightDockWidgetArea);
  dock_->hide();

  action_ = new QAction(tr("&Measure..."), this);
  action_->setObjectName("measureToolAction");
  action_->setShortcut(QKeySequence(Qt::Key_M));
  action_->setStatusTip(
      tr("Distance, angle and relative velocity between picked points or bodies, live in playback"));
  connect(action_, &QAction::triggered, this, [this] {
    dock_->show();
    dock_->raise();
    update();
  });
  connect(keep_, &QPushButton::clicked, this, &MeasureTool::keep);
  connect(tree, &widgets::ModelTree::selectedElementsChanged, this, &MeasureTool::update);
  connect(viewport_, &Viewport::frameShown, this, [this](int frame, double) {
    frame_ = frame;
    if (dock_->isVisible()) update();
  });
  // After an edit or a run the view draws the new mechanism and its selection: measured then.
  connect(viewport_->scene(), &widgets::SceneView::mechanismShown, this, &MeasureTool::update,
          Qt::QueuedConnection);
  connect(doc_, &ProjectDocument::modelChanged, this, &MeasureTool::update, Qt::QueuedConnection);
  // Hidden (behind another dock's tab) it follows the frames and measures when shown.
  connect(dock_, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (visible) update();
  });
  update();
}

MeasureTool::~MeasureTool() = default;

void MeasureTool::show(const QString& quantity, const QString& between, const QString& valueText,
                       const QString& rateText, const QString& speedText) {
  quantity_ = quantity;
  if (quantity.isEmpty()) value_ = rate_ = relativeSpeed_ = std::numeric_limits<double>::quiet_NaN();
  between_->setText(between);
  valueLabel_->setText(valueText);
  rateLabel_->setText(rateText);
  speedLabel_->setText(speedText);
  keep_->setEnabled(!keepPoints_.empty());
}

void MeasureTool::update() {
  keepPoints_.clear();
  if (!viewport_->motion()) frame_ = -1;
  const Frames f = framesOf(*viewport_, frame_);
  const widgets::SceneView* scene = viewport_->scene();
  const std::vector<int>& points = scene->selectedPoints();
  const std::vector<int>& bodies = scene->selectedBodies();
  if (f.model && bodies.empty() && (points.size() == 2 || points.size() == 3)) {
    measurePoints(f, points);
  } else if (f.model && points.empty() && bodies.size() == 2) {
    measureBodies(f, bodies[0], bodies[1]);
  } else {
    show({}, tr("nothing to measure: pick 2 or 3 points, or 2 bodies"), {}, {}, {});
  }
}

void MeasureTool::measurePoints(const Frames& f, const std::vector<int>& points) {
  const Model& model = *f.model;
  const int np = static_cast<int>(model.spec().points.size());
  for (int i : points)
    if (i < 0 || i >= np + static_cast<int>(model.markers().size())) return show({}, {}, {}, {}, {});
  auto at = [&](const Eigen::VectorXd& q, std::size_t k) { return drawnPosition(model, q, points[k]); };
  QStringList names;
  for (int i : points) {
    keepPoints_.push_back(drawnName(model, i));
    names << QString::fromStdString(keepPoints_.back());
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool rates = f.span > 0.0;
  if (points.size() == 2) {
    auto distance = [&](const Eigen::VectorXd& q) { return (at(q, 1) - at(q, 0)).norm(); };
    value_ = distance(*f.now);
    rate_ = rates ? (distance(*f.after) - distance(*f.before)) / f.span : nan;
    relativeSpeed_ =
        rates ? ((at(*f.after, 1) - at(*f.after, 0)) - (at(*f.before, 1) - at(*f.before, 0))).norm() / f.span
              : nan;
    return show("distance", names.join(" – "), number(value_, "m"), number(rate_, "m/s"),
                number(relativeSpeed_, "m/s"));
  }
  auto angle = [&](const Eigen::VectorXd& q) { return angleAt(at(q, 0), at(q, 1), at(q, 2)) * kDegrees; };
  value_ = angle(*f.now);
  rate_ = rates ? (angle(*f.after) - angle(*f.before)) / f.span : nan;
  relativeSpeed_ = nan;
  show("angle", tr("%1, at %2").arg(names[0] + " – " + names[2], names[1]), number(value_, "°"),
       number(rate_, "°/s"), tr("– (of two points)"));
}

void MeasureTool::measureBodies(const Frames& f, int body1, int body2) {
  const Model& model = *f.model;
  const int nb = static_cast<int>(model.bodies().size());
  if (body1 < 0 || body2 < 0 || body1 >= nb || body2 >= nb) return show({}, {}, {}, {}, {});
  // Built for this model each time (cheap): a model is replaced by every edit.
  const BodyPoses poses(model);
  // The centroid of a body's points, carried from the reference by the body's pose.
  auto centroid = [&](const Eigen::VectorXd& q, int b) {
    const int np = static_cast<int>(model.spec().points.size());
    Eigen::Vector3d sum = Eigen::Vector3d::Zero();
    int n = 0;
    for (int e : model.bodies()[static_cast<std::size_t>(b)].entities)
      if (e < np) {
        sum += model.spec().points[static_cast<std::size_t>(e)].position;
        ++n;
      }
    return Eigen::Vector3d(poses.pose(model, q, b) * (n > 0 ? Eigen::Vector3d(sum / n) : sum));
  };
  auto centroidDistance = [&](const Eigen::VectorXd& q) {
    return (centroid(q, body2) - centroid(q, body1)).norm();
  };
  auto relative = [&](const Eigen::VectorXd& q) -> Eigen::Matrix3d {
    return poses.pose(model, q, body1).linear().transpose() * poses.pose(model, q, body2).linear();
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const bool rates = f.span > 0.0;
  value_ = Eigen::AngleAxisd(relative(*f.now)).angle() * kDegrees;
  // The relative angular speed: the turn from the frame before to the frame after, over their span
  // (the displayed angle, in [0, 180], would turn back at 180 degrees).
  rate_ = rates ? Eigen::AngleAxisd(relative(*f.before).transpose() * relative(*f.after)).angle() * kDegrees /
                      f.span
                : nan;
  const double distance = centroidDistance(*f.now);
  relativeSpeed_ = rates ? (centroidDistance(*f.after) - centroidDistance(*f.before)) / f.span : nan;
  const QString names = QString::fromStdString(model.spec().bodies[static_cast<std::size_t>(body1)].name) +
                        " – " +
                        QString::fromStdString(model.spec().bodies[static_cast<std::size_t>(body2)].name);
  show("bodies", names,
       tr("%1 apart (centroids of their points); turned %2 relative to each other since the reference")
           .arg(number(distance, "m"), number(value_, "°")),
       number(rate_, "°/s"), number(relativeSpeed_, "m/s"));
}

void MeasureTool::keep() {
  if (keepPoints_.empty() || !doc_->hasModel()) return;
  ModelSpec spec = doc_->spec();
  MeasureSpec m;
  m.type = keepPoints_.size() == 2 ? MeasureType::Distance : MeasureType::PointAngle;
  m.point1 = keepPoints_[0];
  m.point2 = keepPoints_[1];
  if (keepPoints_.size() == 3) m.point3 = keepPoints_[2];
  m.name = uniqueName(spec, ElementKind::Measure, m.type == MeasureType::Distance ? "distance" : "angle");
  spec.measures.push_back(m);
  const QString error = edit_(spec, tr("keep measure %1").arg(QString::fromStdString(m.name)));
  if (!error.isEmpty()) keep_->setToolTip(error);
}

}  // namespace mbdrom::app
