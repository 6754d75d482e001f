// Catch2 main for GUI tests: one QApplication for all of them, with the
// OpenGL surface format the 3D view needs.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "widgets/scene_view.h"

#include <QApplication>
#include <QDir>

#include <cstring>

int main(int argc, char** argv) {
  // Test discovery runs at build time, where there may be no display.
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--list", 6) == 0) return Catch::Session().run(argc, argv);

  // Settings, recent files and autosaves of the tests stay out of the user's.
  qputenv("XDG_CONFIG_HOME", MBDROM_TEST_OUTPUT_DIR "/xdg-config");
  qputenv("XDG_DATA_HOME", MBDROM_TEST_OUTPUT_DIR "/xdg-data");
  mbdrom::widgets::SceneView::setDefaultSurfaceFormat();
  QApplication::setApplicationName("mbdrom-gui-tests");
  QApplication::setOrganizationName("mbdrom-tests");
  QApplication app(argc, argv);
  QDir().mkpath(MBDROM_TEST_OUTPUT_DIR);
  return Catch::Session().run(argc, argv);
}
