// The training curves export as every plot does (PlotView's one path): an image at the size
// asked after its file name, from the right-click menu, and the points as CSV.

#include "gui_helpers.h"
#include "widgets/plot_view.h"
#include "widgets/training_curves_plot.h"
#include "workbench_helpers.h"

#include <catch2/catch.hpp>

#include <QAction>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QMenu>
#include <QPushButton>
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

  const QString dir = freshOutputDir("training_curves_export");
  const QString png = dir + "/curves.png";
  bool sizeAsked = false;
  whenModal(
      [&](QWidget* modal) {
        if (auto* files = qobject_cast<QFileDialog*>(modal)) {
          typeFileName(files, png);
          return false;  // the size comes next
        }
        auto* width = modal->findChild<QSpinBox*>("imageWidth");
        auto* height = modal->findChild<QSpinBox*>("imageHeight");
        if (!width || !height) return false;
        sizeAsked = true;
        width->setValue(1000);
        height->setValue(600);
        modal->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
        return true;
      },
      15000, &curves);
  image->trigger();
  menu->close();
  REQUIRE(waitFor([&] { return QFile::exists(png); }, 15000));
  CHECK(sizeAsked);
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
  const QStringList first = QString::fromUtf8(file.readLine()).trimmed().split(',');
  REQUIRE(first.size() == 3);
  CHECK(first[0].toDouble() == 1.0);
  CHECK(first[1].toDouble() == Approx(train.front().y()).epsilon(1e-12));
  // SVG too, through the same path.
  REQUIRE(curves.save(dir + "/curves.svg").isEmpty());
  CHECK(QFile(dir + "/curves.svg").size() > 1000);
}
