#pragma once
// Help ▸ User Guide inside the workbench: the guide's Markdown rendered by Qt (its images, its
// links to the other documents), its headings as a table of contents, and a find field. It needs
// no Markdown viewer on the desktop.

#include <QString>
#include <QWidget>

class QLineEdit;
class QListWidget;
class QTextBrowser;
class QUrl;

namespace mbdrom::app {

class UserGuideWindow : public QWidget {
  Q_OBJECT
 public:
  /// Shows the Markdown file `path` (its images and links relative to it).
  UserGuideWindow(const QString& path, QWidget* parent = nullptr);

  QTextBrowser* browser() const { return browser_; }
  /// The table of contents: one entry per heading of levels 1 to 3.
  QListWidget* contents() const { return contents_; }
  /// Follows a link of the guide as a click does: a heading of it ("#installing"), another
  /// document beside it, or the web (the desktop's browser).
  void follow(const QUrl& url);
  /// Finds `text` after the cursor, from the top again past the end; false when it is nowhere.
  bool find(const QString& text);

 private:
  void fillContents();
  void goToHeading(int row);

  QTextBrowser* browser_;
  QListWidget* contents_;
  QLineEdit* findField_;
};

}  // namespace mbdrom::app
