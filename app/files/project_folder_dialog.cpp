#include "app/files/project_folder_dialog.h"

#include "engine/project/project.h"

#include <QDir>
#include <QFileInfo>
#include <QLineEdit>
#include <QMessageBox>

namespace mbdrom::app {

ProjectFolderDialog::ProjectFolderDialog(QWidget* parent, const QString& caption, const QString& start)
    : QFileDialog(parent, caption, start) {
  setObjectName("saveAsDialog");
  setOption(QFileDialog::DontUseNativeDialog);
  setOption(QFileDialog::ShowDirsOnly);
  setFileMode(QFileDialog::AnyFile);
  setAcceptMode(QFileDialog::AcceptSave);
  setLabelText(QFileDialog::FileName, tr("Folder name:"));
  // A click in the list may leave the keyboard in the name field, so the field follows the
  // current folder whatever has the focus; typing a name only selects, it does not move it.
  connect(this, &QFileDialog::currentChanged, this, [this](const QString& path) {
    auto* name = findChild<QLineEdit*>("fileNameEdit");
    if (name && QFileInfo(path).isDir()) name->setText(QFileInfo(path).fileName());
  });
}

void ProjectFolderDialog::accept() {
  const QString path = selectedFiles().value(0);
  const QFileInfo info(path);
  if (info.exists() && !info.isDir()) {
    QMessageBox::warning(this, windowTitle(), tr("%1 is a file: choose a folder.").arg(path));
    return;
  }
  const bool usable = !info.exists() || QDir(path).isEmpty() ||
                      isProjectDirectory(QDir::toNativeSeparators(path).toStdString());
  if (!path.isEmpty() && usable) {
    folder_ = info.absoluteFilePath();
    QDialog::accept();
    return;
  }
  QFileDialog::accept();  // a folder with other things in it: opened, to make a new one inside
}

}  // namespace mbdrom::app
