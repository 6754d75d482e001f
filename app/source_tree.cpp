#include "app/source_tree.h"

#include "engine/core/build_tree.h"

QString mbdrom::app::sourceTreePath(const QString& relative) {
  static const QString root = QString::fromStdString(buildTreePath("source"));
  return root.isEmpty() ? QString() : root + relative;
}
