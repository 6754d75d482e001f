// The training curves and the time-function preview export as every plot does (PlotView's one
// path): an image at the size asked after its file name, from the right-click menu, and the points
// as CSV.

#include "gui_helpers.h"
#include "widgets/function_preview.h"
#include "widgets/plot_view.h"
#include "widgets/training_curves_plot.h"
#include "workbench_helpers.h"

#include <catch2/catch.hpp>

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QContextMenuEvent>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QGuiApplication>
#include <QMenu>
#include <QPushButton>
#include <QScreen>
#include <QSpinBox>
#include <QTest>

#include <cmath>

using namespace mbdrom;
using namespace mbdrom::test;

TEST_CASE("the training curves export as an image from their menu and as CSV, as every plot does") {
  widgets::TrainingCurvesPlot curves;
  curves.resize(900, 500);
  curves.setTitle("auto-encoder: encoder and decoder");
  curves.addCurve("train", "training", QColor("steelblue"), false);
  curves.addCurve("validation", "validation", QColor("darkorange"), true);
  QList<QPointF> train, validation;
  for (int epoch = 1; epoch <= 200; ++epoch) {
    train.append({double(epoch), 0.5 * std::exp(-epoch / 40.0) + 1e-4});
    validation.append({double(epoch), 0.6 * std::exp(-epoch / 45.0) + 2e-4});
  }
  curves.setPoints("train", train);
  curves.setPoints("validation", validation);
  curves.rescale(200);
  curves.show();
  REQUIRE(QTest::qWaitForWindowExposed(&curves));

  // Right-click: the menu has the exports, not the zoom of a plot it does not show.
  QMenu* menu = nullptr;
  auto* view = curves.findChild<QWidget*>("trainingCurvesView");
  REQUIRE(view != nullptr);
  emit view->customContextMenuRequested(QPoint(100, 100));
  REQUIRE(waitFor([&] { return (menu = curves.findChild<QMenu*>("plotContextMenu")) != nullptr; }));
  QAction* image = menu->findChild<QAction*>("plotExportImage");
  REQUIRE(image != nullptr);
  CHECK(image->isEnabled());
  CHECK(menu->findChild<QAction*>("plotExportData")->isEnabled());
  CHECK_FALSE(menu->findChild<QAction*>("plotResetZoom")->isVisible());
  // With MBDROM_SCREENSHOT_DIR set: the curves with their menu open, as a user sees them.
  if (const QString shots = qEnvironmentVariable("MBDROM_SCREENSHOT_DIR"); !shots.isEmpty()) {
    REQUIRE(waitFor([&] { return menu->isVisible(); }));
    QTest::qWait(200);
    const QRect area = curves.frameGeometry().united(menu->frameGeometry());
    CHECK(
        QGuiApplication::primaryScreen()->grabWindow(0).copy(area).save(shots + "/training_curves_menu.png"));
  }

  const QString dir = freshOutputDir("training_curves_export");
  const QString png = dir + "/curves.png";
  const auto offered = answerImageExport(png, QSize(1000, 600), &curves);
  image->trigger();
  menu->close();
  REQUIRE(waitFor([&] { return QFile::exists(png); }, 15000));
  CHECK(offered->isValid());  // the size was asked
  const QImage written(png);
  REQUIRE_FALSE(written.isNull());
  CHECK(written.size() == QSize(1000, 600));
  CHECK(greyVariance(written) > 50.0);  // curves, axes and legend, not a blank page
  written.save(QString::fromStdString(outputPath("/training_curves_export.png")));

  // The points: one epoch column (both curves share it), one column per curve.
  const QString csv = dir + "/curves.csv";
  REQUIRE(curves.save(csv).isEmpty());
  QFile file(csv);
  REQUIRE(file.open(QIODevice::ReadOnly | QIODevice::Text));
  CHECK(QString::fromUtf8(file.readLine()).trimmed().toStdString() == "epoch,training,validation");
  // Epoch 1: both losses as plotted.
  const QStringList epoch1 = QString::fromUtf8(file.readLine()).trimmed().split(',');
  REQUIRE(epoch1.size() == 3);
  CHECK(epoch1[0].toDouble() == 1.0);
  CHECK(epoch1[1].toDouble() == Approx(train.front().y()).epsilon(1e-12));
  CHECK(epoch1[2].toDouble() == Approx(validation.front().y()).epsilon(1e-12));
  // SVG too, through the same path.
  REQUIRE(curves.save(dir + "/curves.svg").isEmpty());
  CHECK(QFile(dir + "/curves.svg").size() > 1000);
}

TEST_CASE(
    "six training curves in a short dock keep their axes' labels: a smaller legend, or one under the plot") {
  widgets::TrainingCurvesPlot curves;
  curves.resize(1000, 500);
  curves.setTitle("auto-encoder: three networks");
  const char* names[] = {"encoder", "encoder (validation)", "force", "force (validation)",
                         "decoder", "decoder (validation)"};
  for (int k = 0; k < 6; ++k) {
    curves.addCurve(QString::number(k), names[k], QColor::fromHsv(60 * k, 200, 200), k % 2 == 1);
    QList<QPointF> points;
    for (int epoch = 1; epoch <= 100; ++epoch)
      points.append({double(epoch), (k + 1) * std::exp(-epoch / 30.0)});
    curves.setPoints(QString::number(k), points);
  }
  curves.rescale(100);
  curves.show();
  REQUIRE(QTest::qWaitForWindowExposed(&curves));
  auto* chart = curves.findChild<QChartView*>("trainingCurvesView")->chart();
  CHECK(chart->legend()->alignment() == Qt::AlignRight);  // tall enough for six rows beside it
  const double normal = chart->legend()->font().pointSizeF();
  curves.resize(1000, 170);  // the Training dock's height in the workbench: a smaller legend
  QCoreApplication::processEvents();
  CHECK(chart->legend()->alignment() == Qt::AlignRight);
  CHECK(chart->legend()->font().pointSizeF() < normal);
  CHECK(chart->plotArea().height() > 60.0);  // the axes keep their room
  curves.grab().save(QString::fromStdString(outputPath("/training_curves_six.png")));
  curves.resize(1000, 120);  // shorter still: under the plot
  QCoreApplication::processEvents();
  CHECK(chart->legend()->alignment() == Qt::AlignBottom);
  curves.resize(1000, 500);
  QCoreApplication::processEvents();
  CHECK(chart->legend()->font().pointSizeF() == normal);
}

TEST_CASE("the time-function preview exports f(t) as CSV, PNG and SVG from its right-click menu") {
  widgets::FunctionPreview preview(nullptr);
  preview.resize(500, 120);
  // 0.2 sin(2 pi 2 t): span 2 s (four periods at 2 Hz), peaks of 0.2.
  preview.setFunction(TimeFunction::sine(0.2, 2.0, 0.0, 0.0));
  preview.show();
  REQUIRE(QTest::qWaitForWindowExposed(&preview));
  QContextMenuEvent click(QContextMenuEvent::Mouse, QPoint(50, 50), preview.mapToGlobal(QPoint(50, 50)));
  QCoreApplication::sendEvent(&preview, &click);
  QMenu* menu = nullptr;
  REQUIRE(waitFor([&] { return (menu = preview.findChild<QMenu*>("plotContextMenu")) != nullptr; }));
  CHECK(menu->findChild<QAction*>("plotExportImage")->isEnabled());
  CHECK(menu->findChild<QAction*>("plotExportData")->isEnabled());
  menu->close();

  const QString dir = freshOutputDir("function_preview_export");
  REQUIRE(preview.save(dir + "/f.csv").isEmpty());
  QFile file(dir + "/f.csv");
  REQUIRE(file.open(QIODevice::ReadOnly | QIODevice::Text));
  CHECK(QString::fromUtf8(file.readLine()).trimmed().toStdString() == "t [s],f(t)");
  double peak = 0.0, lastT = 0.0;
  int rows = 0;
  while (!file.atEnd()) {
    const QStringList row = QString::fromUtf8(file.readLine()).trimmed().split(',');
    REQUIRE(row.size() == 2);
    const double t = row[0].toDouble(), f = row[1].toDouble();
    CHECK(f == Approx(0.2 * std::sin(2.0 * M_PI * 2.0 * t)).margin(1e-12));
    peak = std::max(peak, std::abs(f));
    lastT = t;
    ++rows;
  }
  CHECK(rows == 401);
  CHECK(lastT == Approx(preview.span()));
  CHECK(peak == Approx(0.2).epsilon(1e-3));
  REQUIRE(preview.save(dir + "/f.png").isEmpty());
  const QImage image(dir + "/f.png");
  REQUIRE_FALSE(image.isNull());
  CHECK(greyVariance(image) > 20.0);
  REQUIRE(preview.save(dir + "/f.svg").isEmpty());
  CHECK(QFile(dir + "/f.svg").size() > 1000);
}
