#include "app/training/details_page.h"

#include "widgets/plot_view.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <memory>

namespace mbdrom::app {

namespace {

using widgets::PlotView;
using Curve = widgets::PlotView::Curve;

QString text(const std::string& s) {
  return QString::fromStdString(s);
}

// Neighbouring hues (clusters, coordinates) far apart: golden-ratio steps round the colour wheel.
QColor hueColor(int hue) {
  return QColor::fromHsvF(static_cast<float>(std::fmod(0.07 + 0.618034 * hue, 1.0)), 0.75f, 0.85f);
}

Curve curve(const DetailsSeries& s) {
  Curve c{text(s.name), s.x, s.y};
  c.style = s.markers ? Curve::Style::Markers : Curve::Style::Line;
  if (s.markerSize > 0.0) c.markerSize = s.markerSize;
  if (s.lineWidth > 0.0) c.lineWidth = s.lineWidth;
  if (s.dashed) c.lineStyle = Qt::DashLine;
  if (s.rgb >= 0)
    c.color = QColor::fromRgb(static_cast<QRgb>(s.rgb));
  else if (s.hue >= 0)
    c.color = s.darker ? hueColor(s.hue).darker(150) : hueColor(s.hue);
  return c;
}

void draw(PlotView& view, const DetailsPlot& p) {
  std::vector<Curve> curves;
  for (const DetailsSeries& s : p.series) curves.push_back(curve(s));
  view.setLogY(p.logY);
  view.plot(text(p.title), text(p.xLabel), text(p.yLabel), std::move(curves));
  view.chart()->legend()->setVisible(p.legend);
}

QLabel* makeNote(const DetailsItem& item, QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setObjectName(text(item.id));
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setTextFormat(Qt::RichText);
  label->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);  // its lines at its width, no more
  QString html = text(item.text).toHtmlEscaped();
  if (!item.emphasis.empty())
    html += (html.isEmpty() ? QString() : QStringLiteral(" ")) +
            QStringLiteral("<b>%1</b>").arg(text(item.emphasis).toHtmlEscaped());
  label->setText(html);
  return label;
}

QPlainTextEdit* makeText(const DetailsItem& item, QWidget* parent) {
  auto* edit = new QPlainTextEdit(text(item.text), parent);
  edit->setObjectName(text(item.id));
  edit->setReadOnly(true);
  edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  edit->setLineWrapMode(QPlainTextEdit::NoWrap);
  // As tall as its lines (a few equations), so the plots get the room.
  const int lines = static_cast<int>(std::count(item.text.begin(), item.text.end(), '\n')) + 1;
  edit->setMaximumHeight(edit->fontMetrics().lineSpacing() * (lines + 1) + 2 * edit->frameWidth() + 12);
  return edit;
}

QWidget* makeTable(const DetailsItem& item, QWidget* parent) {
  const DetailsTable& t = item.table;
  auto* box = new QWidget(parent);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  if (!item.text.empty()) {
    auto* caption = new QLabel(text(item.text), box);
    caption->setWordWrap(true);
    caption->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);  // its lines at its width, no more
    layout->addWidget(caption);
  }
  auto* table = new QTableWidget(static_cast<int>(t.cells.size()), static_cast<int>(t.columns.size()), box);
  table->setObjectName(text(item.id));
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  QStringList columns, rows;
  for (const std::string& c : t.columns) columns << text(c);
  for (const std::string& r : t.rows) rows << text(r);
  table->setHorizontalHeaderLabels(columns);
  if (!rows.isEmpty()) table->setVerticalHeaderLabels(rows);
  for (std::size_t i = 0; i < t.cells.size(); ++i)
    for (std::size_t j = 0; j < t.cells[i].size() && j < t.columns.size(); ++j) {
      const DetailsCell& cell = t.cells[i][j];
      QTableWidgetItem* w = nullptr;
      if (!cell.text.empty()) {
        w = new QTableWidgetItem(text(cell.text));
      } else {
        const double x = cell.number;
        w = new QTableWidgetItem(x == 0.0 ? QStringLiteral("0") : QString::number(x, 'g', 4));
        w->setData(Qt::UserRole, x);
        w->setToolTip(QString::number(x, 'g', 17));
        w->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (t.sparse && x == 0.0) {
          w->setForeground(QColor(165, 165, 165));
          w->setBackground(QColor(243, 243, 243));
        } else if (t.sparse) {
          QFont bold = w->font();
          bold.setBold(true);
          w->setFont(bold);
        }
      }
      table->setItem(static_cast<int>(i), static_cast<int>(j), w);
    }
  table->resizeColumnsToContents();
  table->resizeRowsToContents();
  // As tall as its rows (a few), so the plots get the room.
  int height = table->horizontalHeader()->height() + 2 * table->frameWidth() +
               table->horizontalScrollBar()->sizeHint().height();
  for (int i = 0; i < table->rowCount(); ++i) height += table->rowHeight(i);
  table->setMaximumHeight(height);
  layout->addWidget(table);
  return box;
}

QWidget* makePlot(const DetailsItem& item, QMap<QString, QString>* picks, QWidget* parent) {
  auto* box = new QWidget(parent);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* view = new PlotView(box);
  view->setObjectName(text(item.id));
  view->setMinimumSize(320, 220);
  view->chart()->setTitle({});
  if (item.chooserId.empty()) {
    if (!item.plots.empty()) draw(*view, item.plots.front());
    layout->addWidget(view, 1);
    return box;
  }
  auto* pick = new QHBoxLayout;
  pick->addWidget(new QLabel(text(item.chooserLabel), box));
  auto* chooser = new QComboBox(box);
  const QString id = text(item.chooserId);
  chooser->setObjectName(id);
  for (const std::string& c : item.choices) chooser->addItem(text(c));
  pick->addWidget(chooser, 1);
  pick->addStretch(2);
  layout->addLayout(pick);
  layout->addWidget(view, 1);
  int first = item.choice;
  if (picks && picks->contains(id) && chooser->findText(picks->value(id)) >= 0)
    first = chooser->findText(picks->value(id));
  auto plots = std::make_shared<const std::vector<DetailsPlot>>(item.plots);
  const auto show = [view, plots](int k) {
    if (k >= 0 && k < static_cast<int>(plots->size()))
      draw(*view, (*plots)[static_cast<std::size_t>(k)]);
    else if (!plots->empty() && k < 0)
      draw(*view, plots->front());
  };
  if (item.choices.empty()) {
    chooser->setEnabled(false);
    show(-1);
    return box;
  }
  chooser->setCurrentIndex(first);
  show(chooser->currentIndex());
  QObject::connect(chooser, &QComboBox::currentIndexChanged, view, [show, chooser, picks, id](int k) {
    if (picks) picks->insert(id, chooser->currentText());
    show(k);
  });
  return box;
}

}  // namespace

QWidget* makeDetailsPage(const DetailsSection& section, QMap<QString, QString>* picks, QWidget* parent) {
  auto* page = new QWidget(parent);
  auto* layout = new QVBoxLayout(page);
  // Tables, text and plots share the height in a splitter; plots marked "beside" sit in a row.
  auto* column = new QSplitter(Qt::Vertical, page);
  QSplitter* row = nullptr;
  QWidget* head = nullptr;  // tables and text over the first plot, in one pane
  QVBoxLayout* headLayout = nullptr;
  std::vector<QLabel*> notes;
  std::vector<QWidget*> heads;
  for (const DetailsItem& item : section.items) {
    switch (item.kind) {
      case DetailsKind::Note:
        // With the table or text it follows (a verdict under the equations), else under the figures.
        if (headLayout)
          headLayout->addWidget(makeNote(item, head));
        else
          notes.push_back(makeNote(item, page));
        break;
      case DetailsKind::Text:
      case DetailsKind::Table: {
        if (!head) {
          head = new QWidget(column);
          headLayout = new QVBoxLayout(head);
          headLayout->setContentsMargins(0, 0, 0, 0);
          column->addWidget(head);
          heads.push_back(head);
          column->setStretchFactor(column->indexOf(head), 0);
        }
        headLayout->addWidget(item.kind == DetailsKind::Text ? static_cast<QWidget*>(makeText(item, head))
                                                             : makeTable(item, head));
        row = nullptr;
        break;
      }
      case DetailsKind::Plot: {
        if (item.beside && row) {
          row->addWidget(makePlot(item, picks, row));
          row->setSizes({640, 420});
          break;
        }
        row = new QSplitter(Qt::Horizontal, column);
        row->addWidget(makePlot(item, picks, row));
        column->addWidget(row);
        column->setStretchFactor(column->indexOf(row), 1);
        head = nullptr;  // what follows goes below this plot
        headLayout = nullptr;
        break;
      }
    }
  }
  // Tables and text as tall as they are (a few rows and lines): the plots get the rest.
  for (QWidget* h : heads) {
    h->setMaximumHeight(h->sizeHint().height());
    static_cast<QVBoxLayout*>(h->layout())->addStretch(1);  // what is left goes under them
  }
  layout->addWidget(column, 1);
  // Notes under the figures, where the old views had their summary line.
  for (QLabel* note : notes) layout->addWidget(note);
  if (section.items.empty()) layout->addWidget(new QLabel(QObject::tr("Nothing to show."), page));
  return page;
}

}  // namespace mbdrom::app
