#pragma once
// A message box over `parent`, window-modal but non-blocking (no nested event loop), named
// "messageBox" for the tests; it deletes itself when closed.

#include <QMessageBox>
#include <QString>

namespace mbdrom::app {

inline void showMessageBox(QWidget* parent, QMessageBox::Icon icon, const QString& title,
                           const QString& text) {
  auto* box = new QMessageBox(icon, title, text, QMessageBox::Ok, parent);
  box->setObjectName("messageBox");
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

}  // namespace mbdrom::app
