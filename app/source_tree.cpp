#include "app/source_tree.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>

namespace {

// The build tree's mbdrom-build-paths.txt (written by cmake), looked for upwards
// from the executable: a path compiled in would defeat ccache between two clones.
QString readSourceTree() {
  QDir dir(QCoreApplication::applicationDirPath());
  for (int up = 0; up < 4; ++up) {
    QFile file(dir.filePath(QStringLiteral("mbdrom-build-paths.txt")));
    if (file.open(QIODevice::ReadOnly | QIODevice::Text)) {
      while (!file.atEnd()) {
        const QString line = QString::fromUtf8(file.readLine()).trimmed();
        if (line.startsWith(QLatin1String("source="))) return line.mid(7);
      }
      return {};
    }
    if (!dir.cdUp()) break;
  }
  return {};
}

}  // namespace

QString mbdrom::app::sourceTreePath(const QString& relative) {
  static const QString root = readSourceTree();
  return root.isEmpty() ? QString() : root + relative;
}
