// Catch2 main for GUI tests: one QApplication for all of them, with the
// OpenGL surface format the 3D view needs.
#include "tests/catch_session.h"
#include "tests/test_paths.h"

#include "widgets/scene_view.h"

#include <QApplication>
#include <QDir>

#include <cstring>

#include <dlfcn.h>

namespace {

// Under the sanitizers, Mesa's software driver stays loaded to the end: it is
// unloaded with the OpenGL context, and LeakSanitizer would then report what
// its globals still hold as leaks of a module it cannot name (which no
// suppression can match).
void keepOpenGlDriverLoaded() {
#ifdef MBDROM_SANITIZED
  dlopen("/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so", RTLD_NOW | RTLD_NODELETE);
  // llvmpipe draws on the calling thread: without its rasterizer threads alive at exit,
  // LeakSanitizer's tracer no longer crashes stopping them ("Tracer caught signal 11", about one
  // run in four of the FMU export test after another test).
  qputenv("LP_NUM_THREADS", "0");
#endif
}

}  // namespace

int main(int argc, char** argv) {
  // Test discovery runs at build time, where there may be no display.
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--list", 6) == 0) return mbdrom::test::runCatchSession(argc, argv);

  // Settings, recent files and autosaves of the tests stay out of the user's,
  // and out of each other's: ctest runs every test in its own process, and a
  // window state saved by one (a dock made taller) must not shrink the next one's view.
  const QByteArray home = QByteArray::fromStdString(mbdrom::test::outputPath("/home-")) +
                          QByteArray::number(QCoreApplication::applicationPid());
  qputenv("XDG_CONFIG_HOME", home + "/config");
  qputenv("XDG_DATA_HOME", home + "/data");
  // X11 (Xvfb) and Mesa's software OpenGL, as in CI. Set here rather than as a ctest
  // ENVIRONMENT property: catch_discover_tests splits a list value at its ';' and
  // then drops the properties that follow (the display lock, the serial run).
  qputenv("QT_QPA_PLATFORM", "xcb");
  qputenv("LIBGL_ALWAYS_SOFTWARE", "1");
  keepOpenGlDriverLoaded();
  mbdrom::widgets::SceneView::setDefaultSurfaceFormat();
  QApplication::setApplicationName("mbdrom-gui-tests");
  QApplication::setOrganizationName("mbdrom-tests");
  QApplication app(argc, argv);
  QDir().mkpath(QString::fromStdString(mbdrom::test::outputPath()));
  const int failed = mbdrom::test::runCatchSession(argc, argv);
  QDir(QString::fromLocal8Bit(home)).removeRecursively();
  return failed;
}
