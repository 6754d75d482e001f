#include "app/editing/model_browser.h"

#include "app/dock.h"
#include "app/project_document.h"
#include "app/viewport.h"
#include "widgets/hardpoint_table.h"
#include "widgets/log_view.h"
#include "widgets/mechanism_scene.h"
#include "widgets/model_tree.h"
#include "widgets/property_editor.h"
#include "widgets/scene_view.h"

#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace mbdrom::app {

ModelBrowser::ModelBrowser(QMainWindow* window, ProjectDocument* doc, Viewport* viewport,
                           widgets::LogView* log, EditHandler edit)
    : QObject(window), doc_(doc), viewport_(viewport), log_(log) {
  createTreeAndProperties(window, edit);
  createHardpoints(window, edit);
  connect(tree_, &widgets::ModelTree::currentElementChanged, this, [this] {
    properties_->showElement(doc_->spec(), tree_->currentElement());
    if (const auto ref = tree_->currentElement(); ref && ref->kind == ElementKind::Point)
      hardpoints_->selectPoint(ref->index);
  });
  connect(tree_, &widgets::ModelTree::renameRequested, this, &ModelBrowser::rename);
  connectView();
}

void ModelBrowser::createTreeAndProperties(QMainWindow* window, const EditHandler& edit) {
  tree_ = new widgets::ModelTree(window);
  modelDock_ = addDock(window, tr("Model"), "modelDock", tree_, Qt::LeftDockWidgetArea);
  properties_ = new widgets::PropertyEditor(window);
  properties_->setEditHandler(edit);
  propertiesDock_ = addDock(window, tr("Properties"), "propertiesDock", properties_, Qt::LeftDockWidgetArea);
  window->splitDockWidget(modelDock_, propertiesDock_, Qt::Vertical);
}

void ModelBrowser::createHardpoints(QMainWindow* window, const EditHandler& edit) {
  hardpoints_ = new widgets::HardpointTable(window);
  hardpoints_->setEditHandler(edit);
  auto* box = new QWidget(window);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(hardpoints_);
  // A refused edit or paste is said under the table (its cell marked in it), not only in the log.
  refusal_ = new QLabel(box);
  refusal_->setObjectName("hardpointRefusal");
  refusal_->setWordWrap(true);
  refusal_->setStyleSheet("color: #b00020;");
  refusal_->hide();
  layout->addWidget(refusal_);
  auto* exportCsv = new QPushButton(tr("Export CSV..."), box);
  exportCsv->setObjectName("exportHardpoints");  // the export feature connects to it
  layout->addWidget(exportCsv, 0, Qt::AlignRight);
  hardpointsDock_ = addDock(window, tr("Hardpoints"), "hardpointsDock", box, Qt::LeftDockWidgetArea);
  window->tabifyDockWidget(propertiesDock_, hardpointsDock_);
  propertiesDock_->raise();
  connect(hardpoints_, &widgets::HardpointTable::pointSelected, this, [this](int index) {
    tree_->selectElement({ElementKind::Point, index, 0});
  });
  connect(hardpoints_, &widgets::HardpointTable::editRefused, this, [this](const QString& message) {
    log_->warning(tr("Hardpoints: %1").arg(message));
    refusal_->setText(message);
    refusal_->show();
  });
}

void ModelBrowser::connectView() {
  widgets::SceneView* scene = viewport_->scene();
  connect(tree_, &widgets::ModelTree::selectedElementsChanged, this, &ModelBrowser::selectFromTree);
  // A run played or an edit redrawn: the tree's selection is drawn again.
  connect(scene, &widgets::SceneView::mechanismShown, this, &ModelBrowser::selectFromTree);
  connect(scene, &widgets::SceneView::pointClicked, this, [this](int point, Qt::KeyboardModifiers modifiers) {
    selectInView({ElementKind::Point, point}, modifiers);
  });
  connect(scene, &widgets::SceneView::bodyClicked, this, [this](int body, Qt::KeyboardModifiers modifiers) {
    selectInView({ElementKind::Body, body}, modifiers);
  });
  connect(scene, &widgets::SceneView::jointClicked, this, [this](int joint, Qt::KeyboardModifiers modifiers) {
    selectInView({ElementKind::Joint, joint}, modifiers);
  });
  connect(scene, &widgets::SceneView::emptyClicked, this, [this](Qt::KeyboardModifiers modifiers) {
    if (!(modifiers & (Qt::ControlModifier | Qt::ShiftModifier))) tree_->selectElements({}, std::nullopt);
  });
}

void ModelBrowser::refresh() {
  refusal_->hide();  // the model changed: what was refused is past
  if (!doc_->hasModel()) {
    tree_->clearSpec();
    hardpoints_->clearSpec();
    properties_->showElement({}, std::nullopt);
    return;
  }
  tree_->setSpec(doc_->spec());
  hardpoints_->setSpec(doc_->spec());
  properties_->showElement(doc_->spec(), tree_->currentElement());
}

void ModelBrowser::selectByName(ElementKind kind, const QString& name) {
  if (tree_->selectByName(kind, name)) modelDock_->raise();
}

void ModelBrowser::selectCulprit(const QString& kind, const QString& name) {
  selectByName(kind == "joint"    ? ElementKind::Joint
               : kind == "driver" ? ElementKind::Driver
                                  : ElementKind::Body,
               name);
}

void ModelBrowser::rename(const ElementRef& ref) {
  tree_->selectElement(ref);
  propertiesDock_->raise();
  if (auto* name = qobject_cast<QLineEdit*>(properties_->fieldWidget("name"))) {
    name->setFocus();
    name->selectAll();
  }
}

namespace {

// The drawn point (basic points, then markers body by body) of a point or marker element.
int drawnPointOf(const ModelSpec& spec, const ElementRef& ref) {
  if (ref.kind == ElementKind::Point) return ref.index;
  int flat = static_cast<int>(spec.points.size());
  for (int b = 0; b < ref.index; ++b)
    flat += static_cast<int>(spec.bodies[static_cast<std::size_t>(b)].markers.size());
  return flat + ref.sub;
}

}  // namespace

void ModelBrowser::selectFromTree() {
  if (!doc_->hasModel()) return;
  const ModelSpec& spec = doc_->spec();
  const auto& mech = viewport_->scene()->scene();
  std::vector<int> points, bodies, joints;
  // Only what the drawing has (a run of an older version of the mechanism may be shown).
  auto add = [](std::vector<int>& list, int i, int count) {
    if (i >= 0 && i < count) list.push_back(i);
  };
  for (const ElementRef& ref : tree_->selectedElements()) {
    if (ref.kind == ElementKind::Point || ref.kind == ElementKind::Marker)
      add(points, drawnPointOf(spec, ref), mech.drawnPointCount());
    if (ref.kind == ElementKind::Body) add(bodies, ref.index, mech.bodyCount());
    if (ref.kind == ElementKind::Joint) add(joints, ref.index, mech.jointCount());
  }
  viewport_->scene()->setSelection(points, bodies, joints);
  viewport_->setTracedPoints(points);
}

std::optional<ElementRef> ModelBrowser::elementOf(const ViewPick& pick) const {
  const auto& mech = viewport_->scene()->scene();
  switch (pick.kind) {
    case ElementKind::Point: {
      const bool marker = pick.index >= mech.basicPointCount();
      return tree_->elementNamed(marker ? ElementKind::Marker : ElementKind::Point,
                                 QString::fromStdString(mech.drawnPointName(pick.index)));
    }
    case ElementKind::Body:
      return tree_->elementNamed(ElementKind::Body, QString::fromStdString(mech.bodyName(pick.index)));
    case ElementKind::Joint:
      return tree_->elementNamed(ElementKind::Joint, QString::fromStdString(mech.jointName(pick.index)));
    default: return std::nullopt;
  }
}

void ModelBrowser::selectInView(const ViewPick& pick, Qt::KeyboardModifiers modifiers) {
  const std::optional<ElementRef> clicked = elementOf(pick);
  if (!clicked) return;
  std::vector<ElementRef> selection;
  if (modifiers & (Qt::ControlModifier | Qt::ShiftModifier)) selection = tree_->selectedElements();
  const auto it = std::find(selection.begin(), selection.end(), *clicked);
  if (it == selection.end())
    selection.push_back(*clicked);
  else if (modifiers & Qt::ControlModifier)
    selection.erase(it);  // Ctrl toggles; Shift only adds
  const bool kept = std::find(selection.begin(), selection.end(), *clicked) != selection.end();
  tree_->selectElements(
      selection, kept ? clicked : (selection.empty() ? std::nullopt : std::optional(selection.back())));
}

}  // namespace mbdrom::app
