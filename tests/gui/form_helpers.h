#pragma once
// Driving the workbench's creation dialogs (FormDialog) as a user does: trigger
// the action, type into the fields, press OK, read the refusals shown in place.

#include "app/form_dialog.h"
#include "app/main_window.h"
#include "gui_helpers.h"

#include <catch2/catch.hpp>

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>

namespace mbdrom::test {

inline app::FormDialog* visibleDialog(app::MainWindow& w, const char* dialog) {
  app::FormDialog* d = nullptr;
  waitFor(
      [&] {
        for (auto* f : w.findChildren<app::FormDialog*>(dialog))
          if (f->isVisible()) d = f;
        return d != nullptr;
      },
      3000);
  REQUIRE(d != nullptr);
  return d;
}

inline app::FormDialog* openDialog(app::MainWindow& w, const char* action, const char* dialog) {
  auto* a = w.findChild<QAction*>(action);
  REQUIRE(a != nullptr);
  a->trigger();
  return visibleDialog(w, dialog);
}

inline void setText(app::FormDialog* d, const QString& key, const QString& text) {
  auto* edit = d->findChild<QLineEdit*>(key);
  REQUIRE(edit != nullptr);
  edit->setText(text);
}

inline void setVector(app::FormDialog* d, const QString& key, double x, double y, double z) {
  setText(d, key + "_x", QString::number(x, 'g', 17));
  setText(d, key + "_y", QString::number(y, 'g', 17));
  setText(d, key + "_z", QString::number(z, 'g', 17));
}

inline void choose(app::FormDialog* d, const QString& key, const QString& value) {
  auto* combo = d->findChild<QComboBox*>(key);
  REQUIRE(combo != nullptr);
  const int i = combo->findText(value);
  REQUIRE(i >= 0);
  combo->setCurrentIndex(i);
}

/// Presses OK; returns the messages shown when the dialog refused (empty when it closed).
inline QString ok(app::FormDialog* dialog) {
  QPointer<app::FormDialog> d(dialog);  // deleted on close
  d->accept();
  QCoreApplication::processEvents();
  if (!d || !d->isVisible()) {
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    return {};
  }
  QString shown;
  for (auto* label : d->findChildren<QLabel*>())
    if (label->objectName().endsWith("error") && !label->isHidden()) shown += label->text() + "\n";
  return shown.isEmpty() ? QStringLiteral("(refused without a message)") : shown;
}

/// The message under field `key` (empty when hidden).
inline QString fieldError(app::FormDialog* d, const QString& key) {
  auto* label = d->findChild<QLabel*>(key + "_error");
  return label && !label->isHidden() ? label->text() : QString();
}

inline void cancel(app::FormDialog* d) {
  d->reject();
  QCoreApplication::processEvents();
  QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

}  // namespace mbdrom::test
