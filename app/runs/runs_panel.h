#pragma once
// The project's reference runs: name (editable), load case, status, span.
// Context menu: play, rename, export CSV, delete.

#include <QTreeWidget>

namespace mbdrom::app {

class ProjectDocument;

class RunsPanel : public QTreeWidget {
  Q_OBJECT
 public:
  RunsPanel(ProjectDocument* doc, QWidget* parent = nullptr);
  /// Index of the selected run, -1 when none.
  int currentRun() const;

 signals:
  void playRequested(int run);
  void plotRequested(int run);
  /// Something went wrong (rename refused, export failed): the message.
  void failed(const QString& message);

 private:
  void rebuild();
  void showContextMenu(const QPoint& pos);
  void exportRun(int run);

  ProjectDocument* doc_;
  bool rebuilding_ = false;
};

}  // namespace mbdrom::app
