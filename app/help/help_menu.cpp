#include "app/help/help_menu.h"

#include "app/help/user_guide_window.h"
#include "app/message_box.h"
#include "app/source_tree.h"
#include "engine/core/version.h"

#include <QAction>
#include <QApplication>
#include <QCoreApplication>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>

namespace mbdrom::app {

namespace {

void showAbout(QWidget* window) {
  QMessageBox::about(window, QCoreApplication::translate("Help", "About mbdrom"),
                     QCoreApplication::translate(
                         "Help",
                         "<h3>mbdrom %1</h3>"
                         "<p>Workbench for data-driven reduced-order modelling of multibody mechanisms: "
                         "build a mechanism, simulate it, train reduced models (auto-encoder, local PCA, "
                         "neural ODE, SINDy) and compare them with the full model.</p>"
                         "<p>Build %2 · Qt %3</p><p>BSD-3-Clause licence.</p>")
                         .arg(kVersion, gitCommit(), qVersion()));
}

}  // namespace

void addHelpEntries(QMenu* menu, QWidget* window) {
  auto* guide = menu->addAction(QCoreApplication::translate("Help", "&User Guide"));
  guide->setObjectName("userGuideAction");
  guide->setShortcut(QKeySequence::HelpContents);
  QObject::connect(guide, &QAction::triggered, window, [window] { openUserGuide(window); });
  QObject::connect(menu->addAction(QCoreApplication::translate("Help", "&About mbdrom")), &QAction::triggered,
                   window, [window] { showAbout(window); });
  QObject::connect(menu->addAction(QCoreApplication::translate("Help", "About &Qt")), &QAction::triggered,
                   qApp, &QApplication::aboutQt);
}

void openUserGuide(QWidget* window) {
  const QStringList candidates = {
      QCoreApplication::applicationDirPath() + "/../share/doc/mbdrom/user-guide.md",
      sourceTreePath(QStringLiteral("/docs/user-guide.md"))};
  for (const QString& path : candidates) {
    if (!QFileInfo::exists(path)) continue;
    // Rendered here: a desktop without a Markdown viewer shows it too.
    auto* guide = window->findChild<UserGuideWindow*>("userGuideWindow");
    if (!guide) guide = new UserGuideWindow(path, window);
    guide->show();
    guide->raise();
    guide->activateWindow();
    return;
  }
  showMessageBox(window, QMessageBox::Information, QCoreApplication::translate("Help", "User Guide"),
                 QCoreApplication::translate("Help",
                                             "The user guide (user-guide.md) is not installed next to the "
                                             "workbench; it is docs/user-guide.md in the source tree."));
}

}  // namespace mbdrom::app
