#pragma once
// The autosave of the open project: a copy written every minute (MBDROM_AUTOSAVE_SECONDS) while
// it has unsaved changes, into a folder of this session that a lock marks as in use; the copies
// of sessions that did not end cleanly, offered for recovery at the next start.

#include <QObject>
#include <QString>

#include <memory>

class QLockFile;
class QStatusBar;
class QTimer;

namespace mbdrom::widgets {
class LogView;
}

namespace mbdrom::app {

class ProjectDocument;

class Autosave : public QObject {
  Q_OBJECT
 public:
  /// An autosave another session left: its folder and the project it was a copy of ("" for an
  /// untitled one).
  struct Left {
    QString dir;
    QString origin;
  };

  Autosave(ProjectDocument* doc, widgets::LogView* log, QStatusBar* status, QObject* parent);
  ~Autosave() override;

  /// Folder of the autosaves (per user); this session's lives in a subfolder.
  static QString root();
  /// Writes the copy now when there are unsaved changes; returns whether it wrote.
  bool saveNow();
  /// Drops this session's copy (the project was saved, opened or closed), and a recovered
  /// session's folder once nothing of the project reads from it any more.
  void remove();
  /// The newest copy left by a session that did not end cleanly (dir empty: none).
  Left newestLeft() const;
  /// The project now open was recovered from `left`: its folder goes once it is saved elsewhere.
  void markRecovered(const Left& left);
  /// The session ends (the window closes, its document still alive): its copy goes, unless kept
  /// for the next start (keepForNextStart); a recovered folder goes once nothing reads from it.
  void endSession();
  /// Writes what is unsaved and keeps it for the next start (the session stops on a signal);
  /// returns the folder written, or "" when nothing was unsaved.
  QString keepForNextStart();

 private:
  ProjectDocument* doc_;
  widgets::LogView* log_;
  QStatusBar* status_;
  QTimer* timer_;
  QString dir_;
  std::unique_ptr<QLockFile> lock_;
  QString recoveredDir_;
  bool keep_ = false;  // stopped by a signal: the copy is what the next start recovers
};

}  // namespace mbdrom::app
