#pragma once
// Model editing (Edit menu, the model tree's Add, Duplicate and Delete, the 3D view's selection,
// clicks and drags):
// the dialogs that create points, unit vectors, bodies, joints, markers, spring-dampers, drivers,
// frictions, load cases, loads and measures, points placed on the work plane, and deletion with
// what depends on it. Each is a single undoable edit of the open mechanism, checked as a whole
// before it is applied; what the engine adds on its own (unit vectors a pin needs) is said in the
// log and the status bar.

#include "app/workbench_context.h"
#include "engine/model/spec_edit.h"

#include <Eigen/Core>
#include <QMessageBox>
#include <QObject>
#include <QString>

#include <optional>
#include <string>
#include <vector>

class QAction;
class QLineEdit;
class QWidget;
class QMenu;

namespace mbdrom {
struct ModelSpec;
}

namespace mbdrom::widgets {
class ModelTree;
class SceneView;
}  // namespace mbdrom::widgets

namespace mbdrom::app {

class FormDialog;

class ModelEditing : public QObject {
  Q_OBJECT
 public:
  /// Dialogs open over `wb`'s window; `scene` gives the selection and the work plane, `tree` shows
  /// what was made.
  ModelEditing(const WorkbenchContext& wb, widgets::SceneView* scene, widgets::ModelTree* tree);

  /// Adds Duplicate, Mirror and Delete, then the placing and creating actions, to the Edit menu.
  void addToMenu(QMenu* edit);
  /// The actions on existing elements, enabled when a project is open.
  void enableForProject(bool open);

  /// The dialogs open window-modal and return at once; each is a FormDialog child of the window
  /// named pointDialog, vectorDialog, bodyDialog, jointDialog, markerDialog, springDialog,
  /// driverDialog, frictionDialog, loadCaseDialog, loadDialog or measureDialog.
  void addPointDialog(const Eigen::Vector3d& at = Eigen::Vector3d::Zero());
  void addVectorDialog();
  void createBodyFromSelection();
  void createJointFromSelection();
  void addMarkerDialog(int body = -1);
  void addSpringDialog();
  /// Drivers (distance, angle about an axis found or added on body 1, a free point's coordinate)
  /// with their time function.
  void addDriverDialog();
  /// Friction along a sliding direction found or added on body 1.
  void addFrictionDialog();
  /// A force at a point or marker, or a torque on a body, in load case `loadCase` (-1: the last).
  void addLoadDialog(int loadCase = -1);
  /// A load case, asked by name.
  void addLoadCaseDialog();
  /// A measure of any type (joint angle, distance, wheel camber, ...).
  void addMeasureDialog();
  /// The dialog that creates an element of `kind` (the tree's Add) under `parent` (a body for a
  /// marker, a load case for a load).
  void addDialog(ElementKind kind, int parent);
  /// A point fixed to ground at `position` [m] (where the 3D view placed it on the work plane).
  void addPointAt(const Eigen::Vector3d& position);
  /// The field that adds a point fixed to ground from typed coordinates ("x y z" or
  /// "name: x y z" [m], then Enter; objectName pointCoordinatesField), for the toolbar.
  QLineEdit* createCoordinatesField(QWidget* parent);
  /// Deletes an element, after asking when others depend on it (they go too, one undo step).
  void removeElement(const ElementRef& ref);
  /// A renamed copy of an element, selected in the tree.
  void duplicateElement(const ElementRef& ref);
  /// Renamed copies of bodies, joints, forces and loads mirrored about a plane asked in a dialog.
  void mirrorDialog();
  /// Basic point `point` moved to `position` [m] (dragged in the 3D view).
  void movePoint(int point, const Eigen::Vector3d& position);

  /// Applies `spec` as one undoable edit named `description`; the refusal ("" when applied),
  /// also in the log.
  QString apply(const ModelSpec& spec, const QString& description);
  /// apply() that, once the edit took, selects `element` in the tree and announces `done` with
  /// the builder's `notes`.
  QString applyBuilt(const ModelSpec& spec, const QString& description, const ElementRef& element,
                     const QString& done, const std::vector<std::string>& notes = {});
  /// The same, selecting the element of `kind` named `name`.
  QString applyBuilt(const ModelSpec& spec, const QString& description, ElementKind kind, const QString& name,
                     const QString& done, const std::vector<std::string>& notes = {});

 private:
  struct JointEnds {
    QString body1 = "ground", body2, point1, point2;
  };
  JointEnds jointEndsFromSelection() const;
  // Adds a point fixed to ground (named `name`, or P1, P2, ... when empty); the refusal, empty when added.
  QString addFixedPoint(const QString& name, const Eigen::Vector3d& position);
  std::optional<std::vector<std::string>> selectedBodyPoints();
  void addBodyFields(FormDialog* d, const std::vector<std::string>& names);
  void rememberMassChoice(FormDialog* d);
  void createActions();
  // Duplicate, mirror and delete: on the element picked in the model tree.
  void createSelectedElementActions();
  // Everything that adds to the mechanism: points on the work plane, with the grid they snap to,
  // and a dialog for each kind of element.
  void createAddingActions();
  FormDialog* openForm(const QString& title, const QString& objectName);
  void announceBuilt(const QString& what, const std::vector<std::string>& notes);
  bool requireModel(const QString& title);
  Eigen::Vector3d workPlaneNormal() const;
  Eigen::Vector3d jointAxisDefault() const;
  // A joint of one type at each of three or more selected points, between the bodies holding it.
  void createJointsAtPoints(const std::vector<std::string>& points);
  JointEnds jointEndsAt(const std::string& point) const;
  void showMessage(QMessageBox::Icon icon, const QString& title, const QString& text);

  WorkbenchContext wb_;
  widgets::SceneView* scene_;
  widgets::ModelTree* modelTree_;
  QAction* duplicateAction_ = nullptr;
  QAction* mirrorAction_ = nullptr;
  QAction* deleteAction_ = nullptr;
  QAction* addPointAction_ = nullptr;
  QAction* snapAction_ = nullptr;
  std::vector<QAction*> creating_;  // the dialogs' actions, in the Edit menu's order
  // The Create Body dialog's last mass choice, which the next one starts from (source -1: none
  // yet, a rod or a sphere by the points).
  struct MassChoice {
    int source = -1;
    double mass = 1.0, density = 7850.0, radius = 0.01;
    Eigen::Vector3d inertia = Eigen::Vector3d::Constant(0.01), box = Eigen::Vector3d::Constant(0.1);
  };
  MassChoice lastMass_;
};

}  // namespace mbdrom::app
