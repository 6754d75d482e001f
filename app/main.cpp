// mbdrom: the workbench. Thin front end over the engine.

#include "app/files/project_files.h"
#include "app/main_window.h"
#include "app/stop_signal_notifier.h"
#include "engine/core/version.h"
#include "widgets/log_view.h"
#include "widgets/scene_view.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTimer>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// Without a display Qt aborts with a core dump; say what is wrong instead.
void messageHandler(QtMsgType type, const QMessageLogContext&, const QString& message) {
  const QByteArray text = message.toLocal8Bit();
  if (type == QtFatalMsg) {
    std::fprintf(stderr, "mbdrom: %s\n", text.constData());
    if (message.contains("platform plugin") || message.contains("display"))
      std::fprintf(stderr,
                   "mbdrom: cannot open a window: no usable display. Set DISPLAY (X11) or "
                   "WAYLAND_DISPLAY, run under 'xvfb-run', or use mbdrom-cli for work without "
                   "a window.\n");
    std::fflush(stderr);
    _exit(2);
  }
  if (type == QtDebugMsg) return;
  std::fprintf(stderr, "mbdrom: %s\n", text.constData());
}

bool haveDisplay() {
  const char* platform = std::getenv("QT_QPA_PLATFORM");
  if (platform && *platform) return true;  // offscreen, vnc, ... chosen on purpose
  const char* x = std::getenv("DISPLAY");
  const char* wl = std::getenv("WAYLAND_DISPLAY");
  return (x && *x) || (wl && *wl);
}

// One list of options for the window and for --help without a display.
struct Options {
  QCommandLineOption screenshot{
      "screenshot", "Save a screenshot of the window to FILE once it is drawn, then quit.", "FILE"};

  void addTo(QCommandLineParser& parser) const {
    parser.setApplicationDescription(
        "Workbench for reduced-order models of multibody mechanisms.\n\n"
        "Opens MODEL.json (a mechanism, see docs/model-format.md) or a project\n"
        "directory, then offers to recover autosaved work of a session that did not end\n"
        "cleanly (SIGTERM or Ctrl+C autosave and quit). Example mechanisms are\n"
        "under File > New Project from Example (installed in share/mbdrom/examples).\n"
        "Needs a display (X11 or Wayland; 'xvfb-run mbdrom' without one); mbdrom-cli\n"
        "runs the same engine without a window.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption(screenshot);
    parser.addPositionalArgument("model", "Model file (.json) or project directory to open.",
                                 "[MODEL.json|PROJECT]");
  }
};

void setApplicationNames() {
  QCoreApplication::setApplicationName("mbdrom");
  QCoreApplication::setOrganizationName("mbdrom");
  QCoreApplication::setApplicationVersion(mbdrom::kVersion);
}

}  // namespace

int main(int argc, char** argv) {
  qInstallMessageHandler(messageHandler);
  for (int i = 1; i < argc; ++i) {
    // Answer --version and --help without a display.
    if (std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-v") == 0) {
      std::printf("mbdrom %s (%s)\n", mbdrom::kVersion, mbdrom::gitCommit());
      return 0;
    }
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0 ||
        std::strcmp(argv[i], "--help-all") == 0) {
      QCoreApplication core(argc, argv);  // no window system needed to print help
      setApplicationNames();
      QCommandLineParser parser;
      const Options options;
      options.addTo(parser);
      parser.process(core);  // prints the help and exits
      return 0;
    }
  }
  if (!haveDisplay()) {
    std::fprintf(stderr,
                 "mbdrom: cannot open a window: no display (DISPLAY and WAYLAND_DISPLAY are not "
                 "set). Run it in a desktop session, under 'xvfb-run mbdrom', or use mbdrom-cli.\n");
    return 2;
  }

  mbdrom::widgets::SceneView::setDefaultSurfaceFormat();
  QApplication app(argc, argv);
  setApplicationNames();

  QCommandLineParser parser;
  const Options options;
  options.addTo(parser);
  const QCommandLineOption& screenshot = options.screenshot;
  parser.process(app);

  mbdrom::app::MainWindow window;
  const mbdrom::app::StopSignalNotifier stopSignals;
  QObject::connect(&stopSignals, &mbdrom::app::StopSignalNotifier::received, &window,
                   &mbdrom::app::MainWindow::stopForSignal);
  window.show();
  const QString path =
      parser.positionalArguments().isEmpty() ? QString() : parser.positionalArguments().first();
  if (parser.isSet(screenshot)) {
    if (!path.isEmpty()) window.files()->openModel(path);
  } else {
    window.start(path);
  }

  if (parser.isSet(screenshot)) {
    const QString file = parser.value(screenshot);
    // Two render passes make sure the 3D view has drawn into the window.
    QTimer::singleShot(1500, &window, [&window, file] {
      window.sceneView()->requestRender();
      QTimer::singleShot(500, &window, [&window, file] {
        const bool ok = mbdrom::widgets::SceneView::grabWindow(&window).save(file);
        std::fprintf(ok ? stdout : stderr,
                     ok ? "mbdrom: screenshot saved to %s\n" : "mbdrom: cannot write %s\n", qPrintable(file));
        QApplication::exit(ok ? 0 : 1);
      });
    });
  }
  return app.exec();
}
