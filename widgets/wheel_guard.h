#pragma once
// The mouse wheel over a combo box, spin box or slider that does not have keyboard
// focus scrolls the panel under it instead of changing the value: scrolling a long
// property panel must never edit the mechanism.

#include <QObject>

namespace mbdrom::widgets {

class WheelGuard : public QObject {
  Q_OBJECT

 public:
  /// Guards every such widget of the application (installed on QApplication).
  static void install();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  using QObject::QObject;
};

}  // namespace mbdrom::widgets
