// Data files under faults (Linux): a full disk (a file-size limit in a forked
// child, SIGXFSZ ignored, so writes fail with EFBIG) and a place nothing can be
// written. The error names the file, the previous file stays intact and no
// temporary file is left.

#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>
#include "tests/engine/test_files.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include "tests/test_paths.h"

using namespace mbdrom;
namespace fs = std::filesystem;

using namespace mbdrom::test;

namespace {

// Runs `body` (which returns the message of the error it caught) in a child whose
// files may not grow beyond `limit` bytes; returns that message.
template <class Body>
std::string messageUnderFileSizeLimit(rlim_t limit, Body&& body) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit l{limit, limit};
    setrlimit(RLIMIT_FSIZE, &l);
    const std::string message = body();
    const ssize_t n = write(fds[1], message.data(), message.size());
    _exit(n == static_cast<ssize_t>(message.size()) ? 0 : 1);  // no atexit handlers in the child
  }
  close(fds[1]);
  std::string message;
  char buffer[512];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;)
    message.append(buffer, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  return message;
}

bool hasTemporaryFiles(const fs::path& dir) {
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.path().extension() == ".part" || entry.path().extension() == ".tmp") return true;
  return false;
}

}  // namespace

TEST_CASE("a full disk while writing a file atomically names the file and keeps the previous one") {
  const fs::path dir = freshDir("atomic");
  const std::string path = (dir / "data.json").string();
  writeFileAtomically(path, "previous");
  const std::string message = messageUnderFileSizeLimit(4096, [&]() -> std::string {
    try {
      writeFileAtomically(path, std::string(100000, 'x'));
    } catch (const FileError& e) {
      return e.what();
    }
    return "no FileError";
  });
  CHECK_THAT(message, Catch::Contains(path) && Catch::Contains("disk full"));
  CHECK(slurp(path) == "previous");
  CHECK_FALSE(hasTemporaryFiles(dir));
}

TEST_CASE("a full disk during a simulation's CSV output stops the run with an error naming the file") {
  const Model model = readModel(mbdrom::test::sourcePath("/resources/examples/pendulum.json"));
  const fs::path dir = freshDir("csv");
  const std::string path = (dir / "run.csv").string();
  writeFileAtomically(path, "previous run\n");
  const std::string message = messageUnderFileSizeLimit(64 * 1024, [&]() -> std::string {
    RunOptions o;
    o.tEnd = 5.0;  // 5000 rows, far more than 64 kB
    o.integrator.dt = 1e-3;
    TrajectoryCsvWriter writer(path);
    try {
      simulate(model, o, writer);
    } catch (const FileError& e) {
      return e.what();
    }
    return "no FileError";
  });
  // The rows written before the disk filled are kept under the partial name.
  const std::string partial = TrajectoryCsvWriter::partialPath(path);
  CHECK_THAT(message, Catch::Contains(partial) && Catch::Contains("disk full"));
  CHECK(slurp(path) == "previous run\n");
  CHECK(fs::exists(partial));
  // Only whole rows: the partial file reads back, and ends with a line end.
  CHECK_NOTHROW(readTrajectoryCsv(partial));
  CHECK(slurp(partial).back() == '\n');
  CHECK_FALSE(hasTemporaryFiles(dir));
}

TEST_CASE("a full disk while saving a dataset names the file and keeps the previous one") {
  const Model model = readModel(mbdrom::test::sourcePath("/resources/examples/pendulum.json"));
  Dataset dataset = makeDataset(model);
  RunOptions o;
  o.tEnd = 2.0;
  o.integrator.dt = 1e-3;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  addRun(dataset, runFromSamples(recorder.samples(), "swing"));
  const fs::path dir = freshDir("dataset");
  const std::string path = (dir / "data.json").string();
  Dataset small = makeDataset(model);
  saveDataset(small, path);
  const std::string before = slurp(path);
  const std::string message = messageUnderFileSizeLimit(before.size() + 1024, [&]() -> std::string {
    try {
      saveDataset(dataset, path);
    } catch (const FileError& e) {
      return e.what();
    }
    return "no FileError";
  });
  CHECK_THAT(message, Catch::Contains(path) && Catch::Contains("disk full"));
  CHECK(slurp(path) == before);
  CHECK_NOTHROW(loadDataset(path));
  CHECK_FALSE(hasTemporaryFiles(dir));
}

TEST_CASE("writing where nothing can be written names the file") {
  const fs::path dir = freshDir("read_only");
  std::ofstream(dir / "plain_file") << "x";
  // Root ignores permissions; under a regular file or in /proc nobody can create a file.
  std::vector<fs::path> places = {dir / "plain_file", "/proc"};
  if (geteuid() != 0) {
    fs::create_directories(dir / "locked");
    fs::permissions(dir / "locked", fs::perms::owner_read | fs::perms::owner_exec);
    places.push_back(dir / "locked");
  }
  for (const fs::path& place : places) {
    INFO(place);
    const std::string path = (place / "mbdrom_file_fault_test.csv").string();
    CHECK_THROWS_WITH(writeFileAtomically(path, "x"),
                      Catch::Contains(path) && Catch::Contains("cannot create"));
    // Before any work: the writer locks the path and creates its temporary file at once.
    CHECK_THROWS_AS(TrajectoryCsvWriter(path), FileError);
    CHECK_THROWS_WITH(TrajectoryCsvWriter(path), Catch::Contains(path));
  }
  if (geteuid() != 0) fs::permissions(dir / "locked", fs::perms::owner_all);
  fs::remove_all(dir);
}
