#include "widgets/wheel_guard.h"

#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QEvent>

namespace mbdrom::widgets {

namespace {

bool isValueWidget(const QObject* o) {
  return qobject_cast<const QComboBox*>(o) || qobject_cast<const QAbstractSpinBox*>(o) ||
         qobject_cast<const QAbstractSlider*>(o);
}

}  // namespace

void WheelGuard::install() {
  auto* app = qApp;
  if (!app || app->findChild<WheelGuard*>(QString(), Qt::FindDirectChildrenOnly)) return;
  app->installEventFilter(new WheelGuard(app));
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Polish && isValueWidget(watched)) {
    // The wheel must not give them focus either (Qt's default for a combo box).
    auto* w = static_cast<QWidget*>(watched);
    if (w->focusPolicy() == Qt::WheelFocus) w->setFocusPolicy(Qt::StrongFocus);
  } else if (event->type() == QEvent::Wheel && isValueWidget(watched)) {
    auto* w = static_cast<QWidget*>(watched);
    // A scroll bar is a slider that the wheel is meant for; a spin box's line edit has the focus for it.
    if (qobject_cast<QAbstractSlider*>(w) && w->inherits("QScrollBar")) return false;
    if (w->hasFocus() || (w->focusProxy() && w->focusProxy()->hasFocus())) return false;
    // To the nearest area that scrolls (a sent wheel event does not propagate by itself);
    // the widget itself never sees it.
    for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
      if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
        QCoreApplication::sendEvent(area->viewport(), event);
        break;
      }
    return true;
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace mbdrom::widgets
