#include "widgets/log_view.h"

#include <QFontDatabase>
#include <QTime>

namespace mbdrom::widgets {

LogView::LogView(QWidget* parent) : QPlainTextEdit(parent) {
  setReadOnly(true);
  setMaximumBlockCount(kMaxBlocks);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setObjectName("logView");
}

void LogView::addMessage(Level level, const QString& text) {
  const char* tag = level == Level::Error ? "error" : level == Level::Warning ? "warning" : "info";
  const char* color = level == Level::Error ? "#c0392b" : level == Level::Warning ? "#b9770e" : "#555555";
  const QString line = QStringLiteral(
                           "<span style=\"color:#888\">%1</span> "
                           "<span style=\"color:%2\"><b>%3</b></span> %4")
                           .arg(QTime::currentTime().toString("HH:mm:ss"), color, tag, text.toHtmlEscaped());
  appendHtml(line);
}

}  // namespace mbdrom::widgets
