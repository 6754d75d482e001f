// Projects from a hostile or unlucky user, as exchanged files and projects
// arrive: links out of the project, unplain paths, outside tables, Save
// into an existing project. Nothing outside the project is read, written or
// deleted.

#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"
#include "engine/project/project.h"

#include <catch2/catch.hpp>
#include "tests/engine/test_files.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace mbdrom;
namespace fs = std::filesystem;

using namespace mbdrom::test;

namespace {

const char* const kSlider = R"({
  "format": "mbdrom-model", "version": 1, "name": "slider", "gravity": [0, 0, 0],
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P", "position": [1, 0, 0]}],
  "vectors": [{"name": "x", "direction": [1, 0, 0], "fixed": true}],
  "bodies": [{"name": "mass", "type": "particle", "points": ["P"], "mass": 2}],
  "joints": [{"name": "rail", "type": "point_on_line", "body1": "ground", "body2": "mass", "point1": "O",
              "point2": "P", "axis1": "x"}],
  "load_cases": [{"name": "pull", "loads": [{"name": "f", "type": "force", "point": "P", "direction": [1, 0, 0],
                  "function": {"type": "table", "file": "TABLE", "column": "force"}}]}]
})";

void put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// A model with its load table in `tableDir` (written there), named relative to `modelDir`.
ModelSpec sliderSpec(const fs::path& modelDir, const fs::path& tableFile) {
  put(tableFile, "t,force\n0,0\n1,5\n2,5\n");
  std::string text = kSlider;
  text.replace(text.find("TABLE"), 5, fs::relative(tableFile, modelDir).generic_string());
  return parseModelSpec(text, "slider.json", modelDir.string());
}

// A saved project `dir` with one run "a" (runs/a.csv) of the slider.
ProjectManifest saveOneRun(const fs::path& dir, const ModelSpec& spec, const std::string& sourceDir) {
  const Model model(spec);
  RunOptions o;
  o.loadCase = 0;
  o.tEnd = 0.1;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.05;
  auto recorder = std::make_shared<TrajectoryRecorder>();
  simulate(model, o, *recorder);
  ProjectManifest m;
  m.name = "slider";
  ProjectRun run;
  run.name = "a";
  run.file = "runs/a.csv";
  m.runs.push_back(run);
  const ProjectSaveResult saved =
      saveProject(dir.string(), m, spec,
                  {{run.file,
                    [spec, recorder](const std::string& path) {
                      const Model mm(spec);
                      writeRunCsv(mm, recorder->info(), recorder->samples(), path);
                    }}},
                  sourceDir);
  return saved.manifest;
}

std::string openError(const fs::path& dir) {
  try {
    readProject(dir.string());
  } catch (const Error& e) {
    return e.what();
  }
  return "(opened)";
}

}  // namespace

TEST_CASE("a project whose runs folder links out of it is refused on open and nothing outside is touched") {
  const fs::path base = freshDir("linked_runs");
  const fs::path project = base / "p", outside = base / "user_files";
  const ProjectManifest m =
      saveOneRun(project, sliderSpec(project, project / "tables/pull.csv"), project.string());
  put(outside / "thesis.txt", "precious");
  fs::rename(project / "runs", outside / "runs");
  fs::create_directory_symlink(outside / "runs", project / "runs");
  CHECK_THAT(openError(project),
             Catch::Contains("run \"a\"") && Catch::Contains("leads outside the project"));
  // A save through the link is refused too, and deletes nothing there.
  CHECK_THROWS_WITH(
      saveProject(project.string(), m, readModelSpec((project / m.modelFile).string()), {}, project.string()),
      Catch::Contains("neither exists nor was written"));
  CHECK(slurp(outside / "thesis.txt") == "precious");
  CHECK(fs::exists(outside / "runs/a.csv"));
}

TEST_CASE("a models folder linked to the parent gets no file deleted by a save") {
  const fs::path base = freshDir("models_parent");
  const fs::path project = base / "p";
  const ModelSpec spec = sliderSpec(project, project / "tables/pull.csv");
  ProjectManifest m = saveOneRun(project, spec, project.string());
  put(base / "notes.txt", "mine");
  fs::create_directory_symlink("..", project / "models");
  m.runs.clear();  // the save drops the run: only runs/a.csv, a file the old manifest named, may go
  saveProject(project.string(), m, spec, {}, project.string());
  CHECK(slurp(base / "notes.txt") == "mine");
  CHECK_FALSE(fs::exists(project / "runs/a.csv"));
  CHECK(fs::is_symlink(project / "models"));
}

TEST_CASE("a manifest naming runs/./a.csv is refused, so no save can delete runs/a.csv") {
  const fs::path project = freshDir("dot_path") / "p";
  saveOneRun(project, sliderSpec(project, project / "tables/pull.csv"), project.string());
  std::string manifest = slurp(project / "project.json");
  manifest.replace(manifest.find("runs/a.csv"), 10, "runs/./a.csv");
  put(project / "project.json", manifest);
  CHECK_THAT(openError(project),
             Catch::Contains("runs[0]") && Catch::Contains("relative path inside the project"));
  CHECK(fs::exists(project / "runs/a.csv"));
}

TEST_CASE("a table CSV outside the project is refused on open, before it is read") {
  const fs::path base = freshDir("outside_table");
  const fs::path project = base / "p";
  saveOneRun(project, sliderSpec(project, project / "tables/pull.csv"), project.string());
  std::string model = slurp(project / "model.json");
  model.replace(model.find("tables/pull.csv"), 15, "../../secret.csv");
  put(project / "model.json", model);
  put(base.parent_path() / "secret.csv", "t,force\n0,1\n");
  CHECK_THAT(openError(project), Catch::Contains("\"../../secret.csv\" lies outside the project"));
}

TEST_CASE("Save As copies a model's table CSV from outside into the project, which then reopens alone") {
  const fs::path base = freshDir("save_as_table");
  const fs::path source = base / "work", target = base / "copy";
  fs::create_directories(source);
  const ModelSpec spec = sliderSpec(source, base / "shared/pull.csv");  // "../shared/pull.csv"
  ProjectManifest m;
  m.name = "slider";
  const ProjectSaveResult saved = saveProject(target.string(), m, spec, {}, source.string());
  REQUIRE(saved.notes.size() == 1);
  CHECK_THAT(saved.notes[0],
             Catch::Contains("\"../shared/pull.csv\" copied into the project as tables/pull.csv"));
  fs::remove_all(base / "shared");  // the copy no longer needs it
  const Project p = readProject(target.string());
  CHECK(p.spec.loadCases[0].loads[0].function.file == "tables/pull.csv");
  CHECK(p.spec.loadCases[0].loads[0].function(1.5) == 5.0);
}

TEST_CASE("Save into an existing project never writes over a file its manifest names") {
  const fs::path base = freshDir("save_over");
  const fs::path project = base / "p";
  const ModelSpec spec = sliderSpec(project, project / "tables/pull.csv");
  saveOneRun(project, spec, project.string());
  const std::string before = slurp(project / "runs/a.csv");
  // A second save of a run under the same file name: written elsewhere, the old file removed after.
  const ProjectManifest second = saveOneRun(project, spec, project.string());
  CHECK(second.runs[0].file != "runs/a.csv");
  CHECK_FALSE(fs::exists(project / "runs/a.csv"));
  CHECK(slurp(project / second.runs[0].file) == before);
  CHECK(readProject(project.string()).manifest.runs[0].file == second.runs[0].file);
}

TEST_CASE("a project manifest that is a FIFO or a link to a device is refused without hanging") {
  const fs::path project = freshDir("special") / "p";
  saveOneRun(project, sliderSpec(project, project / "tables/pull.csv"), project.string());
  fs::remove(project / "project.json");
  fs::create_symlink("/dev/zero", project / "project.json");
  CHECK_THAT(openError(project), Catch::Contains("project.json"));
  fs::remove(project / "project.json");
  REQUIRE(mkfifo((project / "project.json").c_str(), 0600) == 0);
  CHECK_THAT(openError(project), Catch::Contains("FIFO"));
}

TEST_CASE(
    "a run file that is a link out of the project, or training settings nested 100000 deep, are refused on "
    "open") {
  const fs::path base = freshDir("link_and_depth");
  const fs::path project = base / "p";
  saveOneRun(project, sliderSpec(project, project / "tables/pull.csv"), project.string());
  fs::rename(project / "runs/a.csv", base / "a.csv");
  fs::create_symlink(base / "a.csv", project / "runs/a.csv");
  CHECK_THAT(openError(project),
             Catch::Contains("run \"a\"") && Catch::Contains("leads outside the project"));
  fs::remove(project / "runs/a.csv");
  fs::rename(base / "a.csv", project / "runs/a.csv");
  std::string manifest = slurp(project / "project.json");
  const std::size_t end = manifest.rfind('}');
  std::string deep = ", \"training_settings\": {\"ae\": {\"x\": ";
  for (int i = 0; i < 100000; ++i) deep += "[";
  for (int i = 0; i < 100000; ++i) deep += "]";
  deep += "}}";
  manifest.insert(end, deep);
  put(project / "project.json", manifest);
  CHECK_THAT(openError(project), Catch::Contains("project.json: nested more than 256 levels deep"));
}
