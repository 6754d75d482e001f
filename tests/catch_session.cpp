// Catch2's implementation, compiled once for every test executable; each has
// its own main and runs the tests through runCatchSession.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "tests/catch_session.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>

#include <unistd.h>

namespace {

// Every temporary file of a test process goes into a folder of its own, which
// goes when the tests pass: the tests' files (a wine prefix alone is 700 MB)
// filled a CI machine's disk when they stayed in the system's temporary folder.
// A failing run keeps its folder for inspection and names it.
class TestTempFolder {
 public:
  TestTempFolder() {
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    std::string pattern = ((ec ? std::filesystem::path("/tmp") : base) / "mbdrom-tests-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) return;     // the tests then use the system's folder
    path_ = std::filesystem::absolute(pattern).string();  // removed at exit, wherever the tests cd to
    ::setenv("TMPDIR", path_.c_str(), 1);
  }

  void finish(bool passed) const {
    if (path_.empty()) return;
    std::error_code ec;
    // An empty folder holds nothing to inspect: it goes whatever the outcome.
    if (!passed && !std::filesystem::is_empty(path_, ec)) {
      std::cerr << "the failed tests' temporary files are kept in " << path_ << "\n";
      return;
    }
    std::filesystem::remove_all(path_, ec);
  }

 private:
  std::string path_;
};

}  // namespace

int mbdrom::test::runCatchSession(int argc, char** argv) {
  Catch::Session session;
  if (const int bad = session.applyCommandLine(argc, argv); bad != 0) return bad;
  const Catch::ConfigData& config = session.configData();
  // A listing (test discovery at build time) writes nothing, and its exit code is the count.
  if (config.listTests || config.listTestNamesOnly || config.listTags || config.listReporters)
    return session.run();
  const TestTempFolder temp;
  const int failed = session.run();
  temp.finish(failed == 0);
  return failed;
}
