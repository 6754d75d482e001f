// Safe reading and writing of exchanged files: special files, sizes, nesting,
// duplicate keys, one writer at a time, whole rows only.

#include "engine/core/file_io.h"
#include "engine/core/error.h"
#include "engine/core/json_input.h"
#include "engine/data/trajectory_csv.h"

#include <catch2/catch.hpp>
#include "tests/engine/test_files.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace mbdrom;
namespace fs = std::filesystem;

using namespace mbdrom::test;

namespace {

std::string readError(const std::string& path, std::uint64_t limit = 1 << 20) {
  try {
    readRegularFile(path, limit, "model file");
  } catch (const FileError& e) {
    return e.what();
  }
  return "(read)";
}

}  // namespace

TEST_CASE(
    "readers refuse a device, a FIFO, a directory and an oversized file, naming them, without hanging") {
  const fs::path dir = freshDir("special");
  CHECK_THAT(readError("/dev/zero"), Catch::Contains("/dev/zero") && Catch::Contains("a device"));
  REQUIRE(mkfifo((dir / "pipe").c_str(), 0600) == 0);
  CHECK_THAT(readError((dir / "pipe").string()), Catch::Contains("a FIFO"));
  CHECK_THAT(readError(dir.string()), Catch::Contains("a directory"));
  std::ofstream(dir / "big.json") << std::string(2000, ' ');
  CHECK_THAT(readError((dir / "big.json").string(), 1000),
             Catch::Contains("2000 bytes, more than the limit of 1000"));
  CHECK_THAT(readError((dir / "missing.json").string()),
             Catch::Contains("missing.json: cannot open the model file"));
}

TEST_CASE("JSON nested past the limit or with a repeated key is refused, naming the source") {
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += "[";
  for (int i = 0; i < 300; ++i) deep += "]";
  CHECK_THROWS_WITH(parseJsonInput<nlohmann::json>(deep, "deep.json"),
                    "deep.json: nested more than 256 levels deep");
  CHECK_THROWS_WITH(parseJsonInput<nlohmann::ordered_json>(R"({"a": {"mass": 1, "mass": 2}})", "dup.json"),
                    Catch::Contains("dup.json: duplicate key \"mass\""));
  CHECK(parseJsonInput<nlohmann::json>(R"({"a": {"mass": 1}, "b": {"mass": 2}})", "ok.json")["b"]["mass"] ==
        2);
}

TEST_CASE("a second writer of the same path is refused at once, in this process and in another") {
  const fs::path dir = freshDir("lock");
  const std::string target = (dir / "run.csv").string();
  AtomicFileWriter first(target);
  CHECK_THROWS_WITH(AtomicFileWriter(target), Catch::Contains("run.csv is being written by another process"));
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    try {
      AtomicFileWriter second(target);
    } catch (const FileError&) {
      _exit(7);
    }
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
  first.append("t\n0\n");
  first.commit();
  // Released: the next writer goes ahead, and no lock or temporary file is left behind.
  writeFileAtomically(target, "t\n1\n");
  for (const auto& entry : fs::directory_iterator(dir)) CHECK(entry.path().filename() == "run.csv");
}

TEST_CASE("two writers never share a temporary file name") {
  const fs::path dir = freshDir("unique");
  AtomicFileWriter a((dir / "a.json").string()), b((dir / "b.json").string());
  CHECK(a.temporaryPath() != b.temporaryPath());
  CHECK(fs::path(a.temporaryPath()).parent_path() == dir);
  CHECK(fs::path(a.temporaryPath()).filename().string().rfind(".a.json.", 0) == 0);
}

TEST_CASE("a CSV exported with a byte-order mark reads as its columns") {
  std::istringstream in("\xEF\xBB\xBFt,P.x\n0,1\n");
  const TrajectoryTable table = parseTrajectoryCsv(in, "bom.csv");
  REQUIRE(table.columns.size() == 2);
  CHECK(table.columns[0] == "t");
}

TEST_CASE("the temporaries of a killed writer are removed by the next writer of that target only") {
  const fs::path dir = freshDir("stale");
  const std::string target = (dir / "run.csv").string();
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    AtomicFileWriter out(target);
    out.append(std::string(1 << 17, 'x'));  // past the buffer: on disk
    makeTemporaryDirectory(target);         // as an export's build folder
    ::kill(::getpid(), SIGKILL);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  auto leftovers = [&] {
    int n = 0;
    for (const auto& entry : fs::directory_iterator(dir))
      n += entry.path().filename().string().rfind(".run.csv.", 0) == 0 && entry.path().extension() == ".part";
    return n;
  };
  REQUIRE(leftovers() == 2);
  // A writer of another target, even one whose name starts alike, leaves them.
  writeFileAtomically((dir / "run.csv.bak").string(), "t\n");
  writeFileAtomically((dir / "other.csv").string(), "t\n");
  CHECK(leftovers() == 2);
  // A link named like a temporary folder is removed as a link; what it points to stays.
  fs::create_directories(dir / "outside");
  std::ofstream(dir / "outside" / "keep.txt") << "keep";
  fs::create_directory_symlink(dir / "outside", dir / ".run.csv.AbC123.part");
  writeFileAtomically(target, "t\n1\n");
  CHECK(leftovers() == 1);  // the link: not a regular file nor a folder, so left alone
  CHECK(fs::exists(dir / "outside" / "keep.txt"));
  CHECK(std::ifstream(target).get() == 't');
}
