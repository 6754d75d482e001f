// Edit ▸ Mirror...: the MacPherson corner mirrored about
// y = 0 in one undo step; a second mirror, whose names are taken, is refused in
// the dialog before OK.

#include "app/editing/mirror_dialog.h"
#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/main_window.h"
#include "app/project_document.h"
#include "gui_helpers.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QUndoStack>

#include <catch2/catch.hpp>
#include "tests/test_paths.h"

using mbdrom::app::MainWindow;
using mbdrom::app::MirrorDialog;

namespace {

QAction* action(MainWindow& window, const char* name) {
  for (QAction* a : window.findChildren<QAction*>())
    if (a->objectName() == name) return a;
  return nullptr;
}

// Opens the dialog, reads its preview and OK state, clicks OK when it is enabled.
struct Outcome {
  bool shown = false, okEnabled = false;
  QString preview;
};

Outcome runMirror(MainWindow& window) {
  Outcome o;
  QTimer::singleShot(500, [&] {
    auto* dialog = qobject_cast<MirrorDialog*>(QApplication::activeModalWidget());
    if (!dialog) return;
    o.shown = true;
    o.preview = dialog->findChild<QLabel*>("preview")->text();
    QPushButton* ok = dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    o.okEnabled = ok->isEnabled();
    dialog->grab().save(QString::fromStdString(mbdrom::test::outputPath("/mirror_dialog.png")));
    if (o.okEnabled)
      ok->click();
    else
      dialog->reject();
  });
  action(window, "mirrorAction")->trigger();
  return o;
}

}  // namespace

TEST_CASE("the MacPherson corner mirrored from the Edit menu is one undo step, and a clash is refused") {
  MainWindow window;
  window.resize(1280, 800);
  window.show();
  REQUIRE(window.files()->openModel(
      QString::fromStdString(mbdrom::test::sourcePath("/resources/examples/macpherson.json"))));
  auto* doc = window.document();
  const std::size_t bodies = doc->spec().bodies.size();
  const int nq = doc->model()->nq();
  const int undoBefore = doc->undoStack()->count();

  const Outcome first = runMirror(window);
  REQUIRE(first.shown);
  CHECK(first.okEnabled);
  CHECK(first.preview.contains("lca_r"));
  CHECK(first.preview.contains("ball_joint_r"));
  REQUIRE(doc->spec().bodies.size() == 2 * bodies);
  REQUIRE(doc->model() != nullptr);
  CHECK(doc->model()->nq() == 2 * nq);
  CHECK(doc->undoStack()->count() == undoBefore + 1);
  mbdrom::test::waitFor([] { return false; }, 300);
  window.grab().save(QString::fromStdString(mbdrom::test::outputPath("/mirror_window.png")));

  const Outcome second = runMirror(window);  // lca_r -> lca_l is free, but lca -> lca_r is taken
  REQUIRE(second.shown);
  CHECK_FALSE(second.okEnabled);
  CHECK(second.preview.contains("the name is taken"));
  CHECK(doc->spec().bodies.size() == 2 * bodies);

  doc->undoStack()->undo();
  CHECK(doc->spec().bodies.size() == bodies);
  CHECK(doc->model()->nq() == nq);
}
