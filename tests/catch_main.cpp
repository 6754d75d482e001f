// The main of the engine and CLI tests (the GUI tests have their own, with a QApplication).
#include "tests/catch_session.h"

int main(int argc, char** argv) {
  return mbdrom::test::runCatchSession(argc, argv);
}
