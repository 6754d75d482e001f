#pragma once
// Small helpers shared by the GUI tests.

#include <QApplication>
#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QImage>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>

#include <functional>
#include <memory>

namespace mbdrom::test {

/// A bound on the workbench's latency [ms] (an event-loop gap, a repaint) as the test states it,
/// widened tenfold under the sanitizers: ASan + UBSan at -O1, with Mesa's software OpenGL, run
/// the workbench's main thread 2-7 times slower (a dialog's closing repaint 797 ms against 150, a
/// training's worst gap 360 against 50, on a slow day); the ci build holds the stated bound, and a
/// workbench frozen for seconds still fails there.
constexpr double latencyLimit(double ms) {
#ifdef MBDROM_SANITIZED
  return 10.0 * ms;
#else
  return ms;
#endif
}

/// Processes events until `done()` or the timeout; returns `done()`.
inline bool waitFor(const std::function<bool()>& done, int timeoutMs = 10000) {
  QElapsedTimer clock;
  clock.start();
  // Sleeps until an event comes, a timer waking it every 5 ms: processEvents without waiting
  // returns at once when nothing is pending, and the loop spun a core that the worker thread it
  // waits for (and the test beside it) needed.
  QTimer tick;
  tick.start(5);
  while (!done() && clock.elapsed() < timeoutMs)
    QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
  return done();
}

/// Calls `handle` with the active modal widget every 50 ms until it returns true
/// (a dialog opened by code that blocks in exec()) or `timeoutMs` passed; the
/// polling stops with `context` when given.
inline void whenModal(const std::function<bool(QWidget*)>& handle, int timeoutMs = 15000,
                      QObject* context = nullptr) {
  auto* timer = new QTimer(context);
  QElapsedTimer clock;
  clock.start();
  timer->setInterval(50);
  QObject::connect(timer, &QTimer::timeout, [timer, clock, handle, timeoutMs] {
    QWidget* modal = QApplication::activeModalWidget();
    if ((modal && handle(modal)) || clock.elapsed() > timeoutMs) {
      timer->stop();
      timer->deleteLater();
    }
  });
  timer->start();
}

/// Types `path` into a file dialog's name field and saves, as a user does; false without the field.
inline bool typeFileName(QFileDialog* files, const QString& path) {
  auto* name = files->findChild<QLineEdit*>("fileNameEdit");
  if (!name) return false;
  name->setText(path);
  static_cast<QDialog*>(files)->accept();  // the Save button
  return true;
}

/// Answers a plot's Export Image as a user does: `path` in the file dialog, then `size` [px] in the
/// size dialog that follows (saved as a picture to `grab` when given). Returns the size that
/// dialog offered, invalid until it was shown.
inline std::shared_ptr<QSize> answerImageExport(const QString& path, QSize size, QObject* context,
                                                const QString& grab = {}) {
  auto offered = std::make_shared<QSize>();
  whenModal(
      [=](QWidget* modal) {
        if (auto* files = qobject_cast<QFileDialog*>(modal)) {
          typeFileName(files, path);
          return false;  // the size comes next
        }
        auto* width = modal->findChild<QSpinBox*>("imageWidth");
        auto* height = modal->findChild<QSpinBox*>("imageHeight");
        if (!width || !height) return false;
        *offered = QSize(width->value(), height->value());
        width->setValue(size.width());
        height->setValue(size.height());
        if (!grab.isEmpty()) modal->grab().save(grab);
        modal->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
        return true;
      },
      15000, context);
  return offered;
}

/// Variance of the grey level over all pixels (0 for a blank image).
inline double greyVariance(const QImage& image) {
  const QImage grey = image.convertToFormat(QImage::Format_Grayscale8);
  double sum = 0.0, sum2 = 0.0;
  const double n = static_cast<double>(grey.width()) * grey.height();
  for (int y = 0; y < grey.height(); ++y) {
    const uchar* row = grey.constScanLine(y);
    for (int x = 0; x < grey.width(); ++x) {
      sum += row[x];
      sum2 += static_cast<double>(row[x]) * row[x];
    }
  }
  const double mean = sum / n;
  return sum2 / n - mean * mean;
}

/// Fraction of pixels that differ between two images of the same size.
inline double changedFraction(const QImage& a, const QImage& b) {
  const QImage ia = a.convertToFormat(QImage::Format_RGB32);
  const QImage ib = b.convertToFormat(QImage::Format_RGB32);
  if (ia.size() != ib.size()) return 1.0;
  long long changed = 0;
  for (int y = 0; y < ia.height(); ++y)
    for (int x = 0; x < ia.width(); ++x)
      if (ia.pixel(x, y) != ib.pixel(x, y)) ++changed;
  return static_cast<double>(changed) / (static_cast<double>(ia.width()) * ia.height());
}

}  // namespace mbdrom::test
