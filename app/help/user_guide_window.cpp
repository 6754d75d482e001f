#include "app/help/user_guide_window.h"

#include <QDesktopServices>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTextBlock>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace mbdrom::app {

UserGuideWindow::UserGuideWindow(const QString& path, QWidget* parent)
    : QWidget(parent, Qt::Window),
      browser_(new QTextBrowser(this)),
      contents_(new QListWidget(this)),
      findField_(new QLineEdit(this)) {
  setObjectName("userGuideWindow");
  setWindowTitle(tr("mbdrom user guide"));
  browser_->setObjectName("userGuideBrowser");
  browser_->setOpenLinks(false);  // links are followed below: the guide's own anchors have no names in Qt
  browser_->setSource(QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath()),
                      QTextDocument::MarkdownResource);
  contents_->setObjectName("userGuideContents");
  findField_->setObjectName("userGuideFind");
  findField_->setPlaceholderText(tr("Find in the guide (Enter: next)"));
  findField_->setClearButtonEnabled(true);

  auto* left = new QWidget(this);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->addWidget(findField_);
  leftLayout->addWidget(contents_, 1);
  auto* splitter = new QSplitter(this);
  splitter->addWidget(left);
  splitter->addWidget(browser_);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({280, 820});
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(splitter);
  resize(1100, 800);

  fillContents();
  connect(contents_, &QListWidget::currentRowChanged, this, &UserGuideWindow::goToHeading);
  connect(findField_, &QLineEdit::returnPressed, this, [this] { find(findField_->text()); });
  // Another document of the guide's links (the model format): its own headings.
  connect(browser_, &QTextBrowser::sourceChanged, this, &UserGuideWindow::fillContents);
  connect(browser_, &QTextBrowser::anchorClicked, this, &UserGuideWindow::follow);
}

namespace {

// A heading's anchor as Markdown renderers make it: lower case, spaces to hyphens, other
// punctuation dropped ("6. Export" -> "6-export").
QString headingSlug(const QString& heading) {
  QString slug;
  for (const QChar c : heading.toLower()) {
    if (c.isLetterOrNumber() || c == '-' || c == '_')
      slug += c;
    else if (c == ' ')
      slug += '-';
  }
  return slug;
}

}  // namespace

void UserGuideWindow::follow(const QUrl& url) {
  if (url.scheme() == "http" || url.scheme() == "https" || url.scheme() == "mailto") {
    QDesktopServices::openUrl(url);
    return;
  }
  if (!url.path().isEmpty())
    browser_->setSource(browser_->source().resolved(url), QTextDocument::MarkdownResource);
  if (!url.fragment().isEmpty())
    for (int row = 0; row < contents_->count(); ++row)
      if (headingSlug(contents_->item(row)->text().trimmed()) == url.fragment()) {
        contents_->setCurrentRow(row);
        return;
      }
}

void UserGuideWindow::fillContents() {
  const QSignalBlocker block(contents_);
  contents_->clear();
  for (QTextBlock b = browser_->document()->begin(); b.isValid(); b = b.next()) {
    const int level = b.blockFormat().headingLevel();
    if (level < 1 || level > 3) continue;
    auto* item = new QListWidgetItem(QString(2 * (level - 1), ' ') + b.text(), contents_);
    item->setData(Qt::UserRole, b.position());
  }
}

void UserGuideWindow::goToHeading(int row) {
  if (row < 0 || row >= contents_->count()) return;
  QTextCursor cursor(browser_->document());
  cursor.setPosition(contents_->item(row)->data(Qt::UserRole).toInt());
  // The heading at the top of the view, not merely somewhere in it.
  browser_->verticalScrollBar()->setValue(browser_->verticalScrollBar()->maximum());
  browser_->setTextCursor(cursor);
  browser_->ensureCursorVisible();
}

bool UserGuideWindow::find(const QString& text) {
  if (text.isEmpty()) return false;
  if (browser_->find(text)) return true;
  browser_->moveCursor(QTextCursor::Start);
  return browser_->find(text);
}

}  // namespace mbdrom::app
