#pragma once
// Catch2's session, from tests/catch_session.cpp: a main that is not Catch's own
// (the GUI tests' makes a QApplication first) runs the tests with this.

namespace mbdrom::test {

/// Runs the tests Catch2 registered, with Catch's command line; returns its exit code.
int runCatchSession(int argc, char** argv);

}  // namespace mbdrom::test
