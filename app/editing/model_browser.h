#pragma once
// The Model, Properties and Hardpoints docks: the mechanism's tree, the selected element's
// properties, the table of hardpoints, and the selection they share with the 3D view
// (clicking a point or a body there selects it in the tree, and the tree's element is
// highlighted there).

#include "engine/model/spec_edit.h"

#include <QObject>
#include <QString>
#include <Qt>

#include <functional>
#include <optional>
#include <vector>

class QDockWidget;
class QLabel;
class QMainWindow;

namespace mbdrom::widgets {
class HardpointTable;
class LogView;
class ModelTree;
class PropertyEditor;
}  // namespace mbdrom::widgets

namespace mbdrom::app {

class ProjectDocument;
class Viewport;

class ModelBrowser : public QObject {
  Q_OBJECT
 public:
  /// Applies an edited specification with a description for the undo stack; returns the
  /// reason it was refused, empty when applied.
  using EditHandler = std::function<QString(const ModelSpec& spec, const QString& description)>;

  /// Adds the three docks to the left of `window`.
  ModelBrowser(QMainWindow* window, ProjectDocument* doc, Viewport* viewport, widgets::LogView* log,
               EditHandler edit);

  widgets::ModelTree* tree() const { return tree_; }
  widgets::PropertyEditor* properties() const { return properties_; }
  widgets::HardpointTable* hardpoints() const { return hardpoints_; }
  QDockWidget* modelDock() const { return modelDock_; }
  QDockWidget* propertiesDock() const { return propertiesDock_; }
  /// The docks in the order the View menu lists them.
  std::vector<QDockWidget*> docks() const { return {modelDock_, propertiesDock_, hardpointsDock_}; }

  /// Shows the document's mechanism (or nothing when it has none) in the tree, the table and
  /// the property editor, keeping the tree's selection where it can.
  void refresh();
  /// Selects the element of `kind` named `name` in the tree and raises the Model dock
  /// (an analysis naming a culprit).
  void selectByName(ElementKind kind, const QString& name);
  /// The same for an analysis's culprit of `kind` "joint", "driver" or "body".
  void selectCulprit(const QString& kind, const QString& name);

 private:
  void createTreeAndProperties(QMainWindow* window, const EditHandler& edit);
  void createHardpoints(QMainWindow* window, const EditHandler& edit);
  void connectView();
  void rename(const ElementRef& ref);
  // The view's selection follows the tree's (points, markers, bodies and joints); a click in
  // the view selects in the tree (with Ctrl toggling, with Shift adding).
  void selectFromTree();
  struct ViewPick {
    ElementKind kind;  // Point (a drawn point: basic point or marker), Body or Joint
    int index;         // in the view's drawing
  };
  std::optional<ElementRef> elementOf(const ViewPick& pick) const;
  void selectInView(const ViewPick& pick, Qt::KeyboardModifiers modifiers);

  ProjectDocument* doc_;
  Viewport* viewport_;
  widgets::LogView* log_;
  widgets::ModelTree* tree_ = nullptr;
  widgets::PropertyEditor* properties_ = nullptr;
  widgets::HardpointTable* hardpoints_ = nullptr;
  QDockWidget* modelDock_ = nullptr;
  QDockWidget* propertiesDock_ = nullptr;
  QDockWidget* hardpointsDock_ = nullptr;
  QLabel* refusal_ = nullptr;  // the last refused hardpoint edit, until the model changes
};

}  // namespace mbdrom::app
