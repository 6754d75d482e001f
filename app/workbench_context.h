#pragma once
// What every controller of the workbench works with: the window its dialogs open over (and its
// parent), the open project, the worker thread's job runner and the message log.

class QMainWindow;

namespace mbdrom::widgets {
class LogView;
}

namespace mbdrom::app {

class JobRunner;
class ProjectDocument;

struct WorkbenchContext {
  QMainWindow* window = nullptr;
  ProjectDocument* doc = nullptr;
  JobRunner* runner = nullptr;
  widgets::LogView* log = nullptr;
};

}  // namespace mbdrom::app
