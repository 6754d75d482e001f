#pragma once
// The mechanism as a tree: points, vectors, bodies (with their markers), joints,
// drivers, forces, load cases (with their loads) and measures. Rebuilding keeps
// the selection and the expanded groups; the context menu adds, duplicates,
// renames and deletes elements (the window carries them out, with undo).

#include "engine/model/spec_edit.h"

#include <QTreeWidget>

#include <optional>
#include <vector>

namespace mbdrom::widgets {

class ModelTree : public QTreeWidget {
  Q_OBJECT
 public:
  explicit ModelTree(QWidget* parent = nullptr);

  /// Shows `spec`; keeps the selected element when it still exists.
  void setSpec(const ModelSpec& spec);
  void clearSpec();
  /// The element whose properties are shown (the last one clicked).
  std::optional<ElementRef> currentElement() const;
  /// Every selected element (Ctrl or Shift click for several), in the tree's order.
  std::vector<ElementRef> selectedElements() const;
  /// Selects an element alone (no-op when it does not exist).
  void selectElement(const ElementRef& ref);
  /// Selects `refs` (those that exist), with `current` the current one when it is among them.
  void selectElements(const std::vector<ElementRef>& refs, const std::optional<ElementRef>& current);
  /// The element of this kind and name, if there is one.
  std::optional<ElementRef> elementNamed(ElementKind kind, const QString& name) const;
  /// Selects the element with this kind and name (joint, body, ...); returns success.
  bool selectByName(ElementKind kind, const QString& name);

 signals:
  /// The context menu with no mechanism shown offers a new project.
  void newProjectRequested();
  void currentElementChanged();
  /// The set of selected elements changed.
  void selectedElementsChanged();
  void addRequested(mbdrom::ElementKind kind, int parent);
  void duplicateRequested(const mbdrom::ElementRef& ref);
  void removeRequested(const mbdrom::ElementRef& ref);
  void renameRequested(const mbdrom::ElementRef& ref);

 private:
  void showContextMenu(const QPoint& pos);
  QTreeWidgetItem* findItem(const ElementRef& ref) const;

  ModelSpec spec_;
  bool haveSpec_ = false;
};

}  // namespace mbdrom::widgets
