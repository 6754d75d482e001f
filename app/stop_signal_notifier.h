#pragma once
// SIGTERM and SIGINT reach the workbench's event loop as a Qt signal (a handler may
// only write to a pipe), so that a save in progress finishes and the session ends
// through MainWindow::stopForSignal instead of being cut in the middle of a write.

#include <QObject>

class QSocketNotifier;

namespace mbdrom::app {

class StopSignalNotifier : public QObject {
  Q_OBJECT

 public:
  /// Installs the handlers of SIGTERM and SIGINT (one notifier per process).
  explicit StopSignalNotifier(QObject* parent = nullptr);
  ~StopSignalNotifier() override;

 signals:
  /// "SIGTERM" or "SIGINT"; emitted on the GUI thread, once per signal.
  void received(const QString& signalName);

 private:
  void readSignal();
  QSocketNotifier* notifier_ = nullptr;
};

}  // namespace mbdrom::app
