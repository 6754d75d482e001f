#pragma once
// The project's trained reduced models: name (editable), method, reduced size,
// its key training figure, file size, the mechanism it was trained for, and a
// mark for models stopped early. Context menu: details, rename, export,
// retrain with changed settings, delete.

#include <QTreeWidget>

namespace mbdrom::app {

class ProjectDocument;

class ModelsPanel : public QTreeWidget {
  Q_OBJECT
 public:
  ModelsPanel(ProjectDocument* doc, QWidget* parent = nullptr);
  /// Index of the selected model, -1 when none.
  int currentModel() const;
  /// One-line summary of a model's key training figure (also used in messages).
  static QString keyFigure(const ProjectDocument& doc, int index);

 signals:
  void detailsRequested(int model);
  void retrainRequested(int model);
  void exportRequested(int model);
  void exportFmuRequested(int model);
  /// Something went wrong (rename refused): the message.
  void failed(const QString& message);

 private:
  void rebuild();
  void showContextMenu(const QPoint& pos);

  ProjectDocument* doc_;
  bool rebuilding_ = false;
};

}  // namespace mbdrom::app
