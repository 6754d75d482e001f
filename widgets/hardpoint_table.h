#pragma once
// The Hardpoints dock's table: one row per point (name, x, y, z, fixed, bodies),
// edited in place; Ctrl+V pastes a block copied from a spreadsheet as one edit
// (one undo step), Ctrl+C copies the selected cells as tab-separated text.
// Edits go through the window's handler, which applies them with undo.

#include "engine/core/error.h"
#include "engine/model/model_spec.h"

#include <QTableWidget>

#include <functional>

namespace mbdrom::widgets {

class HardpointTable : public QTableWidget {
  Q_OBJECT
 public:
  using EditHandler = std::function<QString(const ModelSpec& spec, const QString& description)>;

  explicit HardpointTable(QWidget* parent = nullptr);
  void setEditHandler(EditHandler handler) { applyEdit_ = std::move(handler); }

  /// Shows the points of `spec`; keeps the current cell when it still exists.
  void setSpec(const ModelSpec& spec);
  void clearSpec();
  /// Makes point `index` the current row (no signal).
  void selectPoint(int index);
  /// Pastes `text` with its top-left cell at the current cell, as one edit; returns
  /// the refusal (empty when applied).
  QString pasteText(const QString& text);

 signals:
  /// The user moved to the row of point `index`.
  void pointSelected(int index);
  /// An edit or paste was refused (the message names the cell, which the table marks).
  void editRefused(const QString& message);

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void cellEdited(QTableWidgetItem* item);
  QString apply(const ModelSpec& next, const QString& description);
  // Shows the model again with the refused cell (or row) marked and current, and says why.
  QString refuse(const Error& error);

  ModelSpec spec_;
  bool filling_ = false;
  EditHandler applyEdit_;
};

}  // namespace mbdrom::widgets
