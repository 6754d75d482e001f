#pragma once
// A dock of the workbench window: named, so the window's saved layout finds it again.

#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QString>

class QMenu;

namespace mbdrom::app {

/// Where a feature of the Train menu puts its parts: its dock tabbed with `tabWith` in the bottom
/// area, the dock's toggle in `viewMenu` before entry `viewPosition`, its action in `trainMenu`.
struct TrainDockPlacement {
  QDockWidget* tabWith = nullptr;
  QMenu* trainMenu = nullptr;
  QMenu* viewMenu = nullptr;
  int viewPosition = 0;
};

/// Adds `dock` to the bottom area tabbed as `placement` says, hidden until asked for (a hidden
/// dock costs the bottom area nothing when its other tabs are raised and laid out), its toggle
/// in the View menu.
inline void placeTrainDock(QMainWindow* window, QDockWidget* dock, const TrainDockPlacement& placement) {
  window->addDockWidget(Qt::BottomDockWidgetArea, dock);
  window->tabifyDockWidget(placement.tabWith, dock);
  dock->hide();
  placement.viewMenu->insertAction(placement.viewMenu->actions().value(placement.viewPosition),
                                   dock->toggleViewAction());
}

inline QDockWidget* addDock(QMainWindow* window, const QString& title, const char* objectName,
                            QWidget* widget, Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, window);
  dock->setObjectName(objectName);
  dock->setWidget(widget);
  window->addDockWidget(area, dock);
  return dock;
}

}  // namespace mbdrom::app
