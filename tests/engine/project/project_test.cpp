// Projects: manifest format and checks, save/read round trip, atomic saves.

#include "engine/project/project.h"
#include "engine/core/error.h"
#include "engine/data/dataset.h"
#include "engine/dynamics/simulation.h"
#include "engine/geometry/shape_mesh.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include "tests/engine/test_files.h"

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace mbdrom;
namespace fs = std::filesystem;

using namespace mbdrom::test;

namespace {

const char* const kPendulum = R"({
  "format": "mbdrom-model", "version": 1, "name": "pendulum", "gravity": [0, -9.81, 0],
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "P", "position": [1, 0, 0]}],
  "bodies": [{"name": "bob", "type": "particle", "points": ["P"], "mass": 1}],
  "joints": [{"name": "rod", "type": "distance", "body1": "ground", "body2": "bob", "point1": "O", "point2": "P"}],
  "load_cases": [{"name": "push", "loads": [{"name": "f", "type": "force", "point": "P", "direction": [0, 1, 0],
                                            "function": {"type": "constant", "value": 2}}]}]
})";

struct SavedRun {
  ProjectManifest manifest;
  std::vector<Sample> samples;
};

SavedRun saveWithOneRun(const fs::path& dir, const Model& model) {
  RunOptions o;
  o.loadCase = 0;
  o.tEnd = 0.5;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  SavedRun s;
  s.samples = recorder.samples();
  s.manifest.name = "demo";
  ProjectRun run;
  run.name = "push 1";
  run.file = projectFileName(run.name, "runs", ".csv", {});
  run.loadCase = "push";
  run.tEnd = 0.5;
  run.tReached = recorder.samples().back().t;
  run.dt = 1e-3;
  run.outputDt = 0.01;
  s.manifest.runs.push_back(run);
  const RunInfo info = recorder.info();
  saveProject(dir.string(), s.manifest, model.spec(),
              {{run.file, [&](const std::string& path) { writeRunCsv(model, info, s.samples, path); }}});
  return s;
}

}  // namespace

TEST_CASE("A saved project reads back with its model, runs and their samples", "[project]") {
  const Model model(parseModelSpec(kPendulum));
  const fs::path dir = freshPath("roundtrip");
  const SavedRun saved = saveWithOneRun(dir, model);

  REQUIRE(isProjectDirectory(dir.string()));
  const Project p = readProject(dir.string());
  CHECK(p.manifest.name == "demo");
  REQUIRE(p.manifest.runs.size() == 1);
  CHECK(p.manifest.runs[0].name == "push 1");
  CHECK(p.manifest.runs[0].file == "runs/push_1.csv");
  CHECK(p.manifest.runs[0].loadCase == "push");
  CHECK(p.manifest.runs[0].tReached == saved.samples.back().t);
  CHECK(mechanismHash(p.spec) == model.mechanismHash());
  REQUIRE(p.spec.loadCases.size() == 1);

  const Model reread(p.spec);
  const DatasetRun run =
      runFromTable(reread, readTrajectoryCsv((dir / p.manifest.runs[0].file).string()), "r");
  REQUIRE(run.samples() == static_cast<int>(saved.samples.size()));
  const int last = run.samples() - 1;
  CHECK((run.q.col(last) - saved.samples.back().q).norm() < 1e-12);
  CHECK(run.t(last) == Approx(0.5));
}

TEST_CASE("Saving drops data files the manifest no longer names, after writing the manifest", "[project]") {
  const Model model(parseModelSpec(kPendulum));
  const fs::path dir = freshPath("drop");
  SavedRun saved = saveWithOneRun(dir, model);
  REQUIRE(fs::exists(dir / "runs/push_1.csv"));
  saved.manifest.runs.clear();
  saveProject(dir.string(), saved.manifest, model.spec(), {});
  CHECK_FALSE(fs::exists(dir / "runs/push_1.csv"));
  CHECK(readProject(dir.string()).manifest.runs.empty());
}

TEST_CASE("A save that fails while writing data keeps the previous project readable", "[project]") {
  const Model model(parseModelSpec(kPendulum));
  const fs::path dir = freshPath("interrupted");
  SavedRun saved = saveWithOneRun(dir, model);
  const std::string manifestBefore = slurp(dir / "project.json");

  ProjectRun second = saved.manifest.runs[0];
  second.name = "second";
  second.file = "runs/second.csv";
  saved.manifest.runs.push_back(second);
  ModelSpec edited = model.spec();
  edited.points[1].position.x() = 2.0;
  CHECK_THROWS_AS(saveProject(dir.string(), saved.manifest, edited,
                              {{second.file, [](const std::string&) { throw FileError("disk full"); }}}),
                  FileError);
  // Neither the manifest nor the model changed; the old project still reads.
  CHECK(slurp(dir / "project.json") == manifestBefore);
  const Project p = readProject(dir.string());
  CHECK(p.manifest.runs.size() == 1);
  CHECK(p.spec.points[1].position.x() == 1.0);
}

TEST_CASE("Manifest errors name the entry at fault", "[project]") {
  const std::string head =
      R"({"format": "mbdrom-project", "version": 1, "name": "x", "model": "model.json", )";
  auto error = [](const std::string& text) {
    try {
      parseProjectManifest(text, "p.json");
    } catch (const FileError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error("{"), Catch::Contains("malformed JSON"));
  CHECK_THAT(error(R"({"format": "mbdrom-model", "version": 1})"), Catch::Contains("not an mbdrom project"));
  CHECK_THAT(error(R"({"format": "mbdrom-project", "version": 7, "name": "x", "model": "m.json"})"),
             Catch::Contains("unsupported version"));
  CHECK_THAT(error(head + R"("runs": [{"name": "a", "file": "../../etc/passwd"}]})"),
             Catch::Contains("runs[0]") && Catch::Contains("inside the project"));
  CHECK_THAT(error(head + R"("runs": [{"name": "a", "file": "/tmp/a.csv"}]})"),
             Catch::Contains("inside the project"));
  CHECK_THAT(
      error(head + R"("runs": [{"name": "a", "file": "runs/a.csv"}, {"name": "a", "file": "runs/b.csv"}]})"),
      Catch::Contains("runs[1]") && Catch::Contains("duplicate name"));
  CHECK_THAT(error(head + R"("runs": [{"name": "a", "file": "runs/a.csv", "status": "weird"}]})"),
             Catch::Contains("status"));
  CHECK_THAT(error(head + R"("runs": [{"name": "a", "file": "runs/a.csv", "t_end": -1}]})"),
             Catch::Contains("t_end"));
  CHECK_THAT(error(head + R"("models": [{"name": "a", "file": "models/a.json"}]})"),
             Catch::Contains("models[0]") && Catch::Contains("method"));
  CHECK_THAT(error(head + R"("training_settings": {"ae": 3}})"), Catch::Contains("training_settings.ae"));
  CHECK_THAT(error(head + R"("workbench_state": {"compare": [1]}})"),
             Catch::Contains("workbench_state.compare") && Catch::Contains("must be an object"));
  CHECK_THAT(error(head + R"("runs": [{"name": "a", "file": "runs/a.csv", "integrator": "euler"}]})"),
             Catch::Contains("runs[0]") && Catch::Contains("\"euler\"") && Catch::Contains("dopri5"));
}

TEST_CASE("A run records the integrator that made it, older manifests read as trapezoidal", "[project]") {
  ProjectManifest m;
  m.name = "x";
  ProjectRun run;
  run.name = "a";
  run.file = "runs/a.csv";
  run.tolerance = 1e-8;
  run.integrator = "dopri5";
  m.runs.push_back(run);
  run.name = "b";
  run.file = "runs/b.csv";
  run.integrator = "trapezoidal";
  m.runs.push_back(run);
  const std::string text = serializeProjectManifest(m);
  const ProjectManifest back = parseProjectManifest(text, "p.json");
  REQUIRE(back.runs.size() == 2);
  CHECK(back.runs[0].integrator == "dopri5");
  CHECK(back.runs[1].integrator == "trapezoidal");
  // The default is left out, so manifests of trapezoidal runs are unchanged.
  CHECK(text.find("\"integrator\": \"trapezoidal\"") == std::string::npos);
}

TEST_CASE("The last training settings per method survive a manifest round trip", "[project]") {
  ProjectManifest m;
  m.name = "x";
  m.trainingSettings["ae"] = R"({"epochs":50,"hidden":[8,4]})";
  m.trainingSettings["pod"] = R"({"nr":2})";
  const ProjectManifest back = parseProjectManifest(serializeProjectManifest(m), "p.json");
  CHECK(back.trainingSettings == m.trainingSettings);
  // Without any, the key is absent and old manifests read as before.
  m.trainingSettings.clear();
  CHECK(serializeProjectManifest(m).find("training_settings") == std::string::npos);
}

TEST_CASE("What the workbench's panels chose survives a manifest round trip, kept as it is", "[project]") {
  ProjectManifest m;
  m.name = "x";
  m.workbenchState["compare"] = R"({"reference":"train","load_case":"chirp","models":["POD","PCA"]})";
  const ProjectManifest back = parseProjectManifest(serializeProjectManifest(m), "p.json");
  CHECK(back.workbenchState == m.workbenchState);
  m.workbenchState.clear();
  CHECK(serializeProjectManifest(m).find("workbench_state") == std::string::npos);
}

TEST_CASE("Reading a project with a missing file names it", "[project]") {
  const Model model(parseModelSpec(kPendulum));
  const fs::path dir = freshPath("missing");
  saveWithOneRun(dir, model);
  fs::remove(dir / "runs/push_1.csv");
  CHECK_THROWS_WITH(readProject(dir.string()),
                    Catch::Contains("run \"push 1\"") && Catch::Contains("runs/push_1.csv"));
  CHECK_THROWS_WITH(readProject((dir / "nothing").string()), Catch::Contains("not a directory"));
  fs::remove(dir / "project.json");
  CHECK_THROWS_WITH(readProject(dir.string()), Catch::Contains("not an mbdrom project"));
}

TEST_CASE("Project file names are safe and unique", "[project]") {
  CHECK(projectFileName("push 1", "runs", ".csv", {}) == "runs/push_1.csv");
  CHECK(projectFileName("../x", "runs", ".csv", {}) == "runs/_.._x.csv");
  CHECK(projectFileName("a", "runs", ".csv", {"runs/a.csv", "runs/a_2.csv"}) == "runs/a_3.csv");
  CHECK(projectFileName("", "models", ".json", {}) == "models/_.json");
}

TEST_CASE("A run keeps the hash of the mechanism it ran on, older manifests have none", "[project]") {
  ProjectManifest m;
  m.name = "x";
  ProjectRun run;
  run.name = "family";
  run.file = "runs/family.csv";
  run.mechanism = "0123456789abcdef";  // a run of a sweep over a spring rate
  m.runs.push_back(run);
  run.name = "old";
  run.file = "runs/old.csv";
  run.mechanism.clear();
  m.runs.push_back(run);
  const std::string text = serializeProjectManifest(m);
  const ProjectManifest back = parseProjectManifest(text, "p.json");
  CHECK(back.runs[0].mechanism == "0123456789abcdef");
  CHECK(back.runs[1].mechanism.empty());
  std::string bad = text;
  bad.replace(bad.find("0123456789abcdef"), 16, "not a hash at al");
  CHECK_THROWS_WITH(parseProjectManifest(bad, "p.json"), Catch::Contains("16 hex digits"));
}

TEST_CASE("A mesh shape's file is copied into the project and read from there", "[project][shapes]") {
  const fs::path work = freshPath("mesh");
  fs::create_directories(work / "cad");
  {
    std::ofstream obj(work / "cad" / "bob.obj");
    obj << "v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
  }
  std::string text = kPendulum;
  text.replace(text.find(R"("mass": 1})"), 10,
               R"("mass": 1, "shape": {"type": "mesh", "file": "cad/bob.obj", "center": [1, 0, 0]}})");
  ModelSpec spec = parseModelSpec(text, "pendulum.json");
  spec.directory = work.string();  // as readModelSpec sets it for a model file in `work`
  ProjectManifest manifest;
  manifest.name = "meshes";
  const fs::path dir = work / "project";
  const ProjectSaveResult saved = saveProject(dir.string(), manifest, spec, {});
  CHECK(saved.spec.bodies[0].shapes[0].file == "meshes/bob.obj");
  CHECK(slurp(dir / "meshes/bob.obj") == slurp(work / "cad" / "bob.obj"));
  REQUIRE(saved.notes.size() == 1);
  CHECK_THAT(saved.notes[0], Catch::Contains("copied into the project as meshes/bob.obj"));

  // The project reads its own copy, even once the original is gone.
  fs::remove_all(work / "cad");
  const Project p = readProject(dir.string());
  CHECK(p.spec.bodies[0].shapes[0].file == "meshes/bob.obj");
  const ShapeParts parts = buildShapeParts(p.spec);
  CHECK(parts.notes.empty());
  REQUIRE(parts.parts.size() == 1);
  CHECK(parts.parts[0].mesh.triangleCount() == 4);
  CHECK(parts.parts[0].mesh.bounds().min().isApprox(Eigen::Vector3d(1, 0, 0)));

  // A mesh that is nowhere is named, and the save goes on without it.
  spec.bodies[0].shapes[0].file = "cad/gone.stl";
  const ProjectSaveResult second = saveProject((work / "second").string(), manifest, spec, {});
  REQUIRE(second.notes.size() == 1);
  CHECK_THAT(second.notes[0], Catch::Contains("\"cad/gone.stl\"") && Catch::Contains("not found"));
  CHECK(readProject((work / "second").string()).spec.bodies[0].shapes[0].file == "cad/gone.stl");
}

TEST_CASE("A file that is not a mesh is never copied into a project, saved or picked", "[project][shapes]") {
  const fs::path work = freshPath("not_a_mesh");
  fs::create_directories(work);
  std::ofstream(work / "secret.txt") << "not a mesh at all\n";
  std::ofstream(work / "notes.stl") << "solid x\nthis is not a facet\nendsolid x\n";
  for (const char* file : {"secret.txt", "notes.stl"}) {
    INFO(file);
    std::string text = kPendulum;
    text.replace(text.find(R"("mass": 1})"), 10,
                 std::string(R"("mass": 1, "shape": {"type": "mesh", "file": ")") + file + "\"}}");
    ModelSpec spec = parseModelSpec(text, "pendulum.json");
    spec.directory = work.string();
    ProjectManifest manifest;
    manifest.name = "x";
    const fs::path dir = work / (std::string("project_") + file);
    const ProjectSaveResult saved = saveProject(dir.string(), manifest, spec, {});
    REQUIRE(saved.notes.size() == 1);
    CHECK_THAT(saved.notes[0], Catch::Contains("not copied into the project"));
    CHECK_FALSE(fs::exists(dir / "meshes"));
    CHECK_THROWS_AS(importMeshFile(dir.string(), (work / file).string()), FileError);
    CHECK_FALSE(fs::exists(dir / "meshes"));
  }
  // A real mesh picked from elsewhere comes in under a fresh name each time.
  std::ofstream(work / "part.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
  const fs::path dir = work / "project_notes.stl";
  CHECK(importMeshFile(dir.string(), (work / "part.obj").string()) == "meshes/part.obj");
  CHECK(importMeshFile(dir.string(), (work / "part.obj").string()) == "meshes/part_2.obj");
  CHECK(slurp(dir / "meshes/part_2.obj") == slurp(work / "part.obj"));
}

TEST_CASE("A run keeps the design values it was made with, older manifests have none", "[project]") {
  ProjectManifest m;
  m.name = "x";
  ProjectRun run;
  run.name = "train a0.5_f2";
  run.file = "runs/a.csv";
  run.parameters = {{"load.amplitude_scale", 0.5}, {"load.frequency_scale", 2.0}};
  m.runs.push_back(run);
  run.name = "old";
  run.file = "runs/old.csv";
  run.parameters.clear();
  m.runs.push_back(run);
  const std::string text = serializeProjectManifest(m);
  const ProjectManifest back = parseProjectManifest(text, "p.json");
  CHECK(back.runs[0].parameters == m.runs[0].parameters);
  CHECK(back.runs[1].parameters.empty());
  const auto parsed = nlohmann::json::parse(text);
  CHECK_FALSE(parsed["runs"][1].contains("parameters"));  // as older manifests
  for (const auto& [value, why] : std::vector<std::pair<nlohmann::json, std::string>>{
           {"half", "parameter \"load.amplitude_scale\" must be a finite number"},
           {nullptr, "parameter \"load.amplitude_scale\" must be a finite number"}}) {
    nlohmann::json bad = parsed;
    bad["runs"][0]["parameters"]["load.amplitude_scale"] = value;
    CHECK_THROWS_WITH(parseProjectManifest(bad.dump(), "p.json"),
                      Catch::Contains("runs[0]") && Catch::Contains(why));
  }
  nlohmann::json notObject = parsed;
  notObject["runs"][0]["parameters"] = nlohmann::json::array({0.5, 2.0});
  CHECK_THROWS_WITH(parseProjectManifest(notObject.dump(), "p.json"),
                    Catch::Contains("\"parameters\" must be an object of numbers by parameter name"));
}
