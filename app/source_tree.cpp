// Compiled alone with the source tree's path: in every source's command line
// it would defeat ccache between two clones of one commit.
#include "app/source_tree.h"

QString mbdrom::app::sourceTreePath(const QString& relative) {
  return QStringLiteral(MBDROM_SOURCE_DIR) + relative;
}
