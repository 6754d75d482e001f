#pragma once
// The message log: time-stamped info, warnings and errors from the engine and
// the GUI. Errors stay visible; the log can be copied or cleared.

#include <QPlainTextEdit>

namespace mbdrom::widgets {

class LogView : public QPlainTextEdit {
  Q_OBJECT
 public:
  enum class Level { Info, Warning, Error };

  explicit LogView(QWidget* parent = nullptr);

 public slots:
  void addMessage(mbdrom::widgets::LogView::Level level, const QString& text);
  void info(const QString& text) { addMessage(Level::Info, text); }
  void warning(const QString& text) { addMessage(Level::Warning, text); }
  void error(const QString& text) { addMessage(Level::Error, text); }

 private:
  static constexpr int kMaxBlocks = 5000;
};

}  // namespace mbdrom::widgets
