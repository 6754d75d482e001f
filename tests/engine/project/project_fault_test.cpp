// Project saves under faults (Linux): a save killed part-way, a directory that
// cannot be written, a full disk. The previous project must always read back
// intact. Kills and full disks happen in forked children so the test process
// keeps its own limits and signals.

#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/data/dataset.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "engine/project/project.h"
#include "engine/project/project_check.h"

#include <catch2/catch.hpp>
#include "tests/engine/test_files.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include "tests/test_paths.h"

using namespace mbdrom;
namespace fs = std::filesystem;

using namespace mbdrom::test;

namespace {

std::vector<Sample> pendulumRun(const Model& model, double tEnd) {
  RunOptions o;
  o.tEnd = tEnd;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  return recorder.samples();
}

ProjectRun runEntry(const std::string& name, const std::string& message = "") {
  ProjectRun r;
  r.name = name;
  r.file = "runs/" + name + ".csv";
  r.tEnd = r.tReached = 0.05;
  r.dt = 1e-3;
  r.outputDt = 0.01;
  r.message = message;
  return r;
}

ProjectFileWriter runWriter(const Model& model, const std::string& file, const std::vector<Sample>& samples) {
  return {file, [&model, samples](const std::string& path) { writeRunCsv(model, RunInfo{}, samples, path); }};
}

// The two versions of the project: B adds a run. Its long message makes the
// manifest the largest file of the save, so a file-size limit can stop the save
// in any of its writes (the runs, the manifest; the model is rewritten only when it changed).
struct Versions {
  Model model = readModel(mbdrom::test::sourcePath("/resources/examples/pendulum.json"));
  std::vector<Sample> samples = pendulumRun(model, 0.0);  // one row: the run is the smallest file
  ProjectManifest a, b;
  Versions() {
    a.name = b.name = "demo";
    a.runs = {runEntry("r1")};
    b.runs = {runEntry("r1"), runEntry("r2", std::string(6000, 'm'))};
  }
  // Each save writes all its runs: a save never writes over a file the manifest
  // on disk names, so the file names it uses may differ from these.
  void saveA(const fs::path& dir) const {
    saveProject(dir.string(), a, model.spec(), {runWriter(model, "runs/r1.csv", samples)});
  }
  void saveB(const fs::path& dir) const {
    saveProject(dir.string(), b, model.spec(),
                {runWriter(model, "runs/r1.csv", samples), runWriter(model, "runs/r2.csv", samples)});
  }
};

// A manifest without its file names (a save may choose other ones).
std::string content(ProjectManifest m) {
  for (ProjectRun& r : m.runs) r.file.clear();
  m.modelFile.clear();
  return serializeProjectManifest(m);
}

// The project holds exactly version A or exactly version B (every file it names reads).
void checkReadsAs(const fs::path& dir, const ProjectManifest& expected) {
  const Project p = readProject(dir.string());
  CHECK(content(p.manifest) == content(expected));
}

bool isVersion(const fs::path& dir, const ProjectManifest& m) {
  return content(readProject(dir.string()).manifest) == content(m);
}

// Runs `body` in a child with the given file-size limit; returns the wait status.
template <class Body>
int inChild(rlim_t fileSizeLimit, bool ignoreSigxfsz, Body&& body) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const rlimit noCore{0, 0};
    setrlimit(RLIMIT_CORE, &noCore);
    if (ignoreSigxfsz) std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{fileSizeLimit, fileSizeLimit};
    setrlimit(RLIMIT_FSIZE, &limit);
    const int code = body();
    _exit(code);  // no atexit handlers, no leak report of the copied heap
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// A unique temporary file of `target`, or of the fresh name a save gave it
// (.STEM[_k].EXT.XXXXXX.part next to it), exists.
bool hasTemporaryOf(const fs::path& target) {
  const std::string prefix = "." + target.stem().string();
  for (const auto& entry : fs::directory_iterator(target.parent_path())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && entry.path().extension() == ".part") return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a project save killed in any of its writes leaves the previous project readable") {
  const Versions v;
  // Sizes of each file of save B, measured on a scratch copy.
  const fs::path scratch = freshDir("sizes");
  v.saveA(scratch);
  v.saveB(scratch);
  const auto runSize = fs::file_size(scratch / "runs/r2.csv");
  const auto modelSize = fs::file_size(scratch / "model.json");
  const auto manifestSize = fs::file_size(scratch / "project.json");
  REQUIRE(runSize < modelSize);
  REQUIRE(modelSize < manifestSize);

  struct Cut {
    const char* during;
    std::uintmax_t limit;
    const char* partFile;  // the target whose unique temporary file is left behind
  };
  for (const Cut& cut : {Cut{"the run", runSize / 2, "runs/r1.csv"},
                         Cut{"the manifest", (modelSize + manifestSize) / 2, "project.json"}}) {
    INFO("killed while writing " << cut.during);
    const fs::path dir = freshDir("killed");
    v.saveA(dir);
    const std::string manifestBefore = slurp(dir / "project.json");
    // Default SIGXFSZ action: the child dies in the middle of the write, as if killed.
    const int status = inChild(cut.limit, false, [&] {
      v.saveB(dir);
      return 0;
    });
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGXFSZ);
    // The half-written temporary file is there, and ignored.
    CHECK(hasTemporaryOf(dir / cut.partFile));
    CHECK(slurp(dir / "project.json") == manifestBefore);
    checkReadsAs(dir, v.a);
    CHECK(readProject(dir.string()).spec.name == "pendulum");
    // The next save goes over the leftovers.
    v.saveB(dir);
    checkReadsAs(dir, v.b);
  }
}

TEST_CASE("a project save killed at random moments leaves one whole version") {
  const Versions v;
  const fs::path dir = freshDir("random_kill");
  v.saveA(dir);
  std::mt19937 rng(20261123);
  std::uniform_int_distribution<int> delayUs(0, 20000);
  int sawA = 0, sawB = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // Saves A and B alternately until killed.
      for (int k = 0;; ++k) {
        try {
          (k % 2 ? v.saveA(dir) : v.saveB(dir));
        } catch (...) {
          _exit(3);
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(delayUs(rng)));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    INFO("trial " << trial);
    REQUIRE(WIFSIGNALED(status));
    const bool a = isVersion(dir, v.a), b = isVersion(dir, v.b);
    CHECK((a || b));
    sawA += a;
    sawB += b;
    CHECK(readProject(dir.string()).spec.name == "pendulum");
  }
  CHECK(sawA + sawB == 20);
}

TEST_CASE("saving where nothing can be written names the path") {
  const Versions v;
  const fs::path dir = freshDir("read_only");
  // Root ignores permissions: a path under a regular file and one under /proc
  // cannot be written by anyone, so the check is real in CI too.
  std::ofstream(dir / "plain_file") << "x";
  for (const fs::path& target :
       {dir / "plain_file" / "project", fs::path("/proc/mbdrom_project_fault_test")}) {
    INFO(target);
    CHECK_THROWS_AS(v.saveA(target), FileError);
    CHECK_THROWS_WITH(v.saveA(target), Catch::Contains(target.string()));
    CHECK_THROWS_WITH(writeFileAtomically((target / "x.json").string(), "{}"),
                      Catch::Contains((target / "x.json").string()) && Catch::Contains("cannot create"));
  }
  if (geteuid() != 0) {
    const fs::path locked = dir / "locked";
    v.saveA(locked);
    const std::string before = slurp(locked / "project.json");
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    try {
      v.saveB(locked);
      FAIL("expected a FileError");
    } catch (const FileError& e) {
      CHECK_THAT(e.what(), Catch::Contains(locked.string()));
    }
    fs::permissions(locked, fs::perms::owner_all);
    CHECK(slurp(locked / "project.json") == before);
    checkReadsAs(locked, v.a);
  }
}

TEST_CASE("a full disk during a project save gives a clear error and keeps the previous project") {
  const Versions v;
  const fs::path dir = freshDir("full_disk");
  v.saveA(dir);
  const std::string manifestBefore = slurp(dir / "project.json");
  const auto runSize = fs::file_size(dir / "runs/r1.csv");
  // The child reports the message through a pipe; SIGXFSZ ignored, writes fail with EFBIG.
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const int status = inChild(runSize + 2000, true, [&] {
    close(fds[0]);
    std::string message = "no error";
    try {
      v.saveB(dir);
    } catch (const FileError& e) {
      message = e.what();
    } catch (...) {
      message = "not a FileError";
    }
    const ssize_t n = write(fds[1], message.data(), message.size());
    close(fds[1]);
    return n == static_cast<ssize_t>(message.size()) ? 0 : 1;
  });
  close(fds[1]);
  std::string message;
  char buffer[512];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;)
    message.append(buffer, static_cast<std::size_t>(n));
  close(fds[0]);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK_THAT(message, Catch::Contains((dir / "project.json").string()) && Catch::Contains("disk full"));
  CHECK(slurp(dir / "project.json") == manifestBefore);
  CHECK_FALSE(fs::exists(dir / "project.json.part"));
  checkReadsAs(dir, v.a);
}

TEST_CASE("a project save or copy never removes a file another program is writing into the project") {
  const Versions v;
  const fs::path source = freshDir("concurrent_source");
  v.saveB(source);
  for (const char* file : {"runs/x.csv", "models/ae.json", "datasets/d.json"}) {
    for (const bool copy : {false, true}) {
      INFO(file << (copy ? ", during a copy into the project" : ", during a save"));
      const fs::path dir = freshDir("concurrent");
      v.saveA(dir);
      fs::create_directories((dir / file).parent_path());
      int ready[2], go[2];
      REQUIRE(pipe(ready) == 0);
      REQUIRE(pipe(go) == 0);
      const pid_t pid = fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {  // the writer: half its file on disk, then waits for the save to end
        close(ready[0]);
        close(go[1]);
        int code = 0;
        try {
          AtomicFileWriter out((dir / file).string());
          out.append(std::string(1 << 17, 'a') + "\n");
          char c = 'r';
          if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1) _exit(2);
          out.append("end\n");
          out.commit();
        } catch (...) {
          code = 1;
        }
        _exit(code);
      }
      close(ready[1]);
      close(go[0]);
      char c = 0;
      REQUIRE(read(ready[0], &c, 1) == 1);
      if (copy)
        copyProject(source.string(), dir.string());
      else
        v.saveB(dir);
      REQUIRE(write(go[1], "g", 1) == 1);
      int status = 0;
      waitpid(pid, &status, 0);
      close(ready[0]);
      close(go[1]);
      REQUIRE(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 0);
      CHECK(slurp(dir / file) == std::string(1 << 17, 'a') + "\nend\n");
      checkReadsAs(dir, v.b);
    }
  }
}

TEST_CASE("a Save As that fails part-way takes back what it wrote, so a retry goes ahead") {
  const Versions v;
  const fs::path scratch = freshDir("retry_sizes");
  v.saveB(scratch);
  const auto runSize = fs::file_size(scratch / "runs/r1.csv");
  const fs::path dir = freshDir("retry") / "new_project";
  // The first run fits, the second does not: the save fails in the middle of its files.
  const int status = inChild(runSize + 100, true, [&] {
    try {
      v.saveB(dir);
    } catch (const FileError&) {
      return 0;
    }
    return 1;
  });
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  // Nothing of it is left: no run, no folder it made.
  std::vector<std::string> left;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) left.push_back(entry.path().string());
  CHECK(left.empty());
  // The retry writes the project under its own names (runs/r1.csv, not runs/r1_2.csv).
  v.saveB(dir);
  checkReadsAs(dir, v.b);
  CHECK(readProject(dir.string()).manifest.runs[0].file == "runs/r1.csv");
}

TEST_CASE("of two copies into one folder the second is told the first is writing it") {
  const Versions v;
  const fs::path source = freshDir("copy_race_source");
  v.saveA(source);
  const fs::path to = freshDir("copy_race") / "copy";
  fs::create_directories(to);
  const WriteLock first(projectLockTarget(to.string()));  // the first copy, still writing
  std::ofstream(to / "half_written_run.csv") << "t\n";
  try {
    copyProject(source.string(), to.string());
    FAIL("the second copy went ahead");
  } catch (const FileError& e) {
    CHECK_THAT(e.what(), Catch::Contains("is being written by another process"));
  }
}
