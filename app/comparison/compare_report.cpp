// The Compare dock's exports: a reduced run as a trajectory CSV, and the comparison report
// (index.html with the metrics table, the plots as PNG, SVG and CSV, the 3D view), written
// into a temporary folder renamed into place.

#include "app/comparison/compare_panel.h"

#include "app/load_case_name.h"
#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/model/model.h"
#include "engine/project/project.h"
#include "widgets/plot_view.h"

#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QSaveFile>
#include <QTableWidget>
#include <QTextStream>

#include <cmath>
#include <limits>
#include <memory>

namespace mbdrom::app {

namespace {

// The metrics table as CSV: numbers at full precision, text quoted.
QString metricsCsv(const QTableWidget& table) {
  QString csv;
  QTextStream c(&csv);
  c << "metric";
  for (int col = 0; col < table.columnCount(); ++col)
    c << ",\"" << table.horizontalHeaderItem(col)->text() << '"';
  c << '\n';
  for (int row = 0; row < table.rowCount(); ++row) {
    c << '"' << table.verticalHeaderItem(row)->text() << '"';
    for (int col = 0; col < table.columnCount(); ++col) {
      const QTableWidgetItem* item = table.item(row, col);
      const double v = item ? item->data(Qt::UserRole).toDouble() : std::numeric_limits<double>::quiet_NaN();
      c << ',';
      if (item && std::isfinite(v))
        c << QString::number(v, 'g', 17);
      else if (item)
        c << '"' << QString(item->text()).replace('"', "'") << '"';
    }
    c << '\n';
  }
  return csv;
}

// The metrics table as an HTML table.
QString metricsHtml(const QTableWidget& table) {
  QString html;
  QTextStream h(&html);
  h << "<table>\n<tr><th>metric</th>";
  for (int col = 0; col < table.columnCount(); ++col)
    h << "<th>" << table.horizontalHeaderItem(col)->text().toHtmlEscaped() << "</th>";
  h << "</tr>\n";
  for (int row = 0; row < table.rowCount(); ++row) {
    h << "<tr><td>" << table.verticalHeaderItem(row)->text().toHtmlEscaped() << "</td>";
    for (int col = 0; col < table.columnCount(); ++col) {
      const QTableWidgetItem* item = table.item(row, col);
      h << "<td>" << (item ? item->text().toHtmlEscaped() : QString()) << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</table>\n";
  return html;
}

// What the reference run was, in a sentence.
QString referenceSentence(const ComparisonResult& r) {
  QString text;
  QTextStream h(&text);
  const RunInfo& info = r.referenceInfo;
  h << "<p>Reference run <b>" << r.referenceName.toHtmlEscaped() << "</b> (load case "
    << loadCaseName(info.loadCase).toHtmlEscaped() << ", " << info.tEnd << " s, "
    << (info.dt > 0.0 ? "step " : "error-controlled steps, tolerance ")
    << (info.dt > 0.0 ? info.dt : info.tolerance) << (info.dt > 0.0 ? " s" : "") << ", output every "
    << info.outputDt << " s). Every reduced model ran under the same load case, span and step from the "
    << "reference's initial state; position errors are over every point, vector and marker (the numbers of "
    << "<code>mbdrom-cli compare</code> on the two CSV files).</p>\n";
  return text;
}

}  // namespace

QString ComparePanel::exportReducedRun(int i, const QString& path) const {
  if (!result_ || i < 0 || static_cast<std::size_t>(i) >= result_->runs.size())
    return tr("no such compared model");
  try {
    writeRunCsv(*result_->model, result_->referenceInfo, result_->runs[static_cast<std::size_t>(i)].samples,
                path.toStdString());
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

QString ComparePanel::reportHtml(const QStringList& figures, bool withView) const {
  const ComparisonResult& r = *result_;
  const QString name = QString::fromStdString(r.model->spec().name).toHtmlEscaped();
  QString html;
  QTextStream h(&html);
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>mbdrom comparison: " << name
    << "</title>\n"
    << "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse}"
       "td,th{border:1px solid #bbb;padding:4px 8px;text-align:right}th{background:#eef}"
       "td:first-child,th:first-child{text-align:left}img{max-width:100%;border:1px solid #ddd}</style>\n"
    << "</head><body>\n<h1>Full against reduced: " << name << "</h1>\n"
    << referenceSentence(r) << "<h2>Metrics</h2>\n"
    << metricsHtml(*table_) << "<p><a href=\"metrics.csv\">metrics.csv</a></p>\n";
  if (withView)
    h << "<h2>3D view</h2>\n<p><img src=\"view.png\" alt=\"3D view with the reduced runs as ghosts\"></p>\n";
  for (const QString& base : figures) {
    const QString title = (base == "series" ? series_ : error_)->title().toHtmlEscaped();
    h << "<h2>" << title << "</h2>\n<p><img src=\"" << base << ".png\" alt=\"" << title
      << "\"></p>\n<p><a href=\"" << base << ".svg\">SVG</a> · <a href=\"" << base
      << ".csv\">data (CSV)</a></p>\n";
  }
  h << "<p style=\"color:#777\">Written by mbdrom.</p>\n</body></html>\n";
  return html;
}

QString ComparePanel::writeReportFiles(const QString& temp, const QImage* view) const {
  // Plots at a fixed size, whatever size the dock has.
  QStringList figures;
  for (const widgets::PlotView* source : {series_, error_}) {
    // The curves unzoomed, never shown: save() draws its own laid-out copy at this size.
    widgets::PlotView plot;
    plot.resize(960, 420);
    plot.plot(source->title(), source->xTitle(), source->yTitle(), source->curves());
    const QString base = source == series_ ? QStringLiteral("series") : QStringLiteral("error");
    for (const char* suffix : {".png", ".svg", ".csv"})
      if (QString error = plot.save(temp + "/" + base + suffix); !error.isEmpty()) return error;
    figures << base;
  }
  const bool withView = view && !view->isNull();
  if (withView && !view->save(temp + "/view.png", "PNG"))
    return tr("%1: cannot write the 3D view image").arg(temp + "/view.png");
  for (const auto& [name, text] : {std::pair<QString, QString>{"metrics.csv", metricsCsv(*table_)},
                                   {"index.html", reportHtml(figures, withView)}}) {
    QSaveFile file(temp + "/" + name);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0 || !file.commit())
      return tr("%1: cannot write: %2").arg(temp + "/" + name, file.errorString());
  }
  return {};
}

QString ComparePanel::writeReport(const QString& dir, const QImage* view) {
  if (!result_) return tr("nothing to report: compare first");
  const QString target = QFileInfo(dir).absoluteFilePath();
  if (QFileInfo::exists(target))
    return tr("%1 already exists: choose a new folder for the report").arg(target);
  const QString parent = QFileInfo(target).absolutePath();
  if (!QFileInfo(parent).isDir()) return tr("%1: the folder %2 does not exist").arg(target, parent);
  std::unique_ptr<WriteLock> lock;
  QString temp;
  try {
    lock = std::make_unique<WriteLock>(target.toStdString());
    temp = QString::fromStdString(makeTemporaryDirectory(target.toStdString()));
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  QString error = writeReportFiles(temp, view);
  if (error.isEmpty() && !QDir().rename(temp, target))
    error = tr("%1: cannot rename to %2").arg(temp, target);
  if (!error.isEmpty()) {
    QDir(temp).removeRecursively();
    return error;
  }
  emit reportWritten(target + "/index.html");
  return {};
}

}  // namespace mbdrom::app
