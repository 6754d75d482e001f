#pragma once
// Save As: the project's folder, new or existing, in Qt's own dialog (the same on every
// desktop). Qt's folder mode refuses a name that does not exist yet and leaves the name field
// alone when a folder is picked; as a save dialog it takes a new name (saving creates the
// folder), and here a picked folder fills the field. Save on an existing folder takes it when
// it is empty or a project, and opens it otherwise.

#include <QFileDialog>
#include <QString>

namespace mbdrom::app {

class ProjectFolderDialog : public QFileDialog {
  Q_OBJECT
 public:
  ProjectFolderDialog(QWidget* parent, const QString& caption, const QString& start);
  /// The folder accepted ("" until then).
  QString folder() const { return folder_; }
  void accept() override;

 private:
  QString folder_;
};

}  // namespace mbdrom::app
