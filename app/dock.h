#pragma once
// A dock of the workbench window: named, so the window's saved layout finds it again.

#include <QDockWidget>
#include <QMainWindow>
#include <QString>

namespace mbdrom::app {

inline QDockWidget* addDock(QMainWindow* window, const QString& title, const char* objectName,
                            QWidget* widget, Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, window);
  dock->setObjectName(objectName);
  dock->setWidget(widget);
  window->addDockWidget(area, dock);
  return dock;
}

}  // namespace mbdrom::app
