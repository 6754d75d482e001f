// ParaView time series: the .pvd lists the frames, each .vtp holds the run's
// positions and the bodies' and springs' connectivity; exports are atomic.

#include "engine/data/paraview_export.h"
#include "engine/core/error.h"
#include "engine/core/monitor.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>
#include "tests/engine/test_files.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace mbdrom;
namespace fs = std::filesystem;

using namespace mbdrom::test;

namespace {

// Double pendulum of two bars in the plane z = 0, a marker on the lower bar and
// a spring from a fixed point to that marker. Points: O A B S, then marker "mid".
Model doublePendulum() {
  return Model(parseModelSpec(R"({"format": "mbdrom-model", "version": 1, "name": "double",
  "gravity": [0, -9.81, 0],
  "points": [{"name": "O", "position": [0, 0, 0], "fixed": true}, {"name": "A", "position": [1, 0, 0]},
             {"name": "B", "position": [2, 0, 0]}, {"name": "S", "position": [0, 1, 0], "fixed": true}],
  "vectors": [{"name": "z0", "direction": [0, 0, 1], "fixed": true}],
  "bodies": [
    {"name": "upper", "type": "bar", "points": ["O", "A"], "mass": 1, "com": [0.5, 0, 0]},
    {"name": "lower", "type": "bar", "points": ["A", "B"], "mass": 1, "com": [1.5, 0, 0],
     "markers": [{"name": "mid", "position": [1.5, 0, 0]}]}],
  "joints": [
    {"name": "plane_a", "type": "point_on_plane", "body1": "ground", "body2": "upper", "point1": "O", "point2": "A", "axis1": "z0"},
    {"name": "plane_b", "type": "point_on_plane", "body1": "ground", "body2": "lower", "point1": "O", "point2": "B", "axis1": "z0"}],
  "spring_dampers": [{"name": "spring", "point1": "S", "point2": "mid", "free_length": 1, "stiffness": [10]}],
  "load_cases": [{"name": "free", "loads": []}]})",
                              "double.json"));
}

std::vector<Sample> swing(const Model& model) {
  RunOptions o;
  o.tEnd = 0.2;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  return recorder.samples();
}

std::vector<double> numbers(const std::string& text) {
  std::vector<double> v;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    while (p < end && (*p == ' ' || *p == '\n')) ++p;
    if (p == end) break;
    double x = 0.0;
    const auto [next, ec] = std::from_chars(p, end, x);
    REQUIRE(ec == std::errc());
    v.push_back(x);
    p = next;
  }
  return v;
}

// The numbers of the first DataArray whose start tag contains `tag` (e.g. `Name="fixed"`)
// after the first occurrence of `section` (e.g. "<PointData").
std::vector<double> dataArray(const std::string& xml, const std::string& section, const std::string& tag) {
  const auto from = xml.find(section);
  REQUIRE(from != std::string::npos);
  const auto at = xml.find(tag, from);
  REQUIRE(at != std::string::npos);
  const auto open = xml.find('>', at);
  const auto close = xml.find("</DataArray>", open);
  REQUIRE(close != std::string::npos);
  return numbers(xml.substr(open + 1, close - open - 1));
}

struct PvdEntry {
  double t;
  std::string file;
};

std::vector<PvdEntry> pvdEntries(const std::string& pvd) {
  std::vector<PvdEntry> entries;
  for (auto at = pvd.find("<DataSet "); at != std::string::npos; at = pvd.find("<DataSet ", at + 1)) {
    const auto t0 = pvd.find("timestep=\"", at) + 10;
    const auto t1 = pvd.find('"', t0);
    const auto f0 = pvd.find("file=\"", at) + 6;
    const auto f1 = pvd.find('"', f0);
    double t = 0.0;
    std::from_chars(pvd.data() + t0, pvd.data() + t1, t);
    entries.push_back({t, pvd.substr(f0, f1 - f0)});
  }
  return entries;
}

// Nothing the export may leave behind after a failure: the destination, its work and backup directories.
bool leftNothing(const fs::path& dest) {
  return !fs::exists(dest) && !fs::exists(dest.string() + ".part") && !fs::exists(dest.string() + ".old");
}

int vtpCount(const fs::path& dir) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) n += entry.path().extension() == ".vtp" ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("the pvd collection lists every frame with increasing times", "[paraview_export]") {
  const Model model = doublePendulum();
  const std::vector<Sample> samples = swing(model);
  const int n = static_cast<int>(samples.size());
  REQUIRE(n >= 21);  // 0 to 0.2 s every 0.01 s
  const fs::path dest = freshDir("pvd") / "swing";

  const ParaviewExportResult all = exportParaview(model, samples, dest.string());
  CHECK(all.frames == n);
  CHECK(all.collection == (dest / "swing.pvd").string());
  const std::vector<PvdEntry> entries = pvdEntries(slurp(all.collection));
  REQUIRE(entries.size() == samples.size());
  for (std::size_t k = 0; k < entries.size(); ++k) {
    INFO("frame " << k);
    CHECK(entries[k].t == samples[k].t);  // shortest exact form: bit-identical
    CHECK(fs::is_regular_file(dest / entries[k].file));
    if (k > 0) CHECK(entries[k].t > entries[k - 1].t);
  }
  CHECK(vtpCount(dest) == n);

  // Stride 3: samples 0, 3, 6, ...
  ParaviewExportOptions o;
  o.stride = 3;
  const ParaviewExportResult strided = exportParaview(model, samples, dest.string(), o);
  CHECK(strided.frames == (n - 1) / 3 + 1);
  const std::vector<PvdEntry> some = pvdEntries(slurp(strided.collection));
  REQUIRE(static_cast<int>(some.size()) == strided.frames);
  for (std::size_t f = 0; f < some.size(); ++f) CHECK(some[f].t == samples[3 * f].t);
  CHECK(vtpCount(dest) == strided.frames);  // the earlier export was replaced, not merged
}

TEST_CASE("a frame's point coordinates equal the run's positions at that frame", "[paraview_export]") {
  const Model model = doublePendulum();
  const std::vector<Sample> samples = swing(model);
  const fs::path dest = freshDir("points") / "swing";
  const ParaviewExportResult r = exportParaview(model, samples, dest.string());
  for (int k : {0, 7, static_cast<int>(samples.size()) - 1}) {
    INFO("frame " << k);
    const Sample& s = samples[static_cast<std::size_t>(k)];
    const std::string file = pvdEntries(slurp(r.collection))[static_cast<std::size_t>(k)].file;
    const std::string vtp = slurp(dest / file);
    CHECK_THAT(vtp, Catch::Contains("NumberOfPoints=\"5\""));
    const std::vector<double> xyz = dataArray(vtp, "<Points>", "NumberOfComponents=\"3\"");
    REQUIRE(xyz.size() == 15);
    for (int i = 0; i < 4; ++i)
      for (int c = 0; c < 3; ++c)
        CHECK(xyz[static_cast<std::size_t>(3 * i + c)] == pointPosition(model, s.q, i)(c));
    for (int c = 0; c < 3; ++c)
      CHECK(xyz[static_cast<std::size_t>(12 + c)] == markerPosition(model, s.q, 0)(c));
    // The free points move with the run, they are not the reference positions.
    if (k > 0) CHECK(xyz[4] < -1e-3);  // A.y: the pendulum falls
    CHECK(dataArray(vtp, "<FieldData>", "Name=\"TIME\"") == std::vector<double>{s.t});
  }
}

TEST_CASE("a frame connects each body's points and each spring-damper's ends", "[paraview_export]") {
  const Model model = doublePendulum();
  const std::vector<Sample> samples = swing(model);
  const fs::path dest = freshDir("lines") / "swing";
  exportParaview(model, samples, dest.string());
  const std::string vtp = slurp(dest / "frame_000000.vtp");
  CHECK_THAT(vtp, Catch::Contains("NumberOfLines=\"3\"") && Catch::Contains("NumberOfVerts=\"0\""));
  // upper O-A, lower A-B, spring S-mid (points O A B S mid = 0..4).
  CHECK(dataArray(vtp, "<Lines>", "Name=\"connectivity\"") == std::vector<double>{0, 1, 1, 2, 3, 4});
  CHECK(dataArray(vtp, "<Lines>", "Name=\"offsets\"") == std::vector<double>{2, 4, 6});
  CHECK(dataArray(vtp, "<CellData", "Name=\"kind\"") == std::vector<double>{0, 0, 1});
  CHECK(dataArray(vtp, "<CellData", "Name=\"index\"") == std::vector<double>{0, 1, 0});
  CHECK(dataArray(vtp, "<PointData", "Name=\"fixed\"") == std::vector<double>{1, 0, 0, 1, 0});
  CHECK(dataArray(vtp, "<PointData", "Name=\"kind\"") == std::vector<double>{0, 0, 0, 0, 1});
}

TEST_CASE("a frame holds each body's shape triangles where the body is at that frame",
          "[paraview_export][shapes]") {
  // The lower bar gets a box around it: 12 triangles over 8 vertices after the 5 points.
  ModelSpec spec = doublePendulum().spec();
  ShapeSpec box;
  box.type = "box";
  box.size = {0.1, 0.1, 1.0};
  box.center = {1.5, 0, 0};
  box.axis = {1, 0, 0};
  box.colour = Eigen::Vector3d(1.0, 0.0, 0.0);
  spec.bodies[1].shapes.push_back(box);
  const Model model(spec);
  const std::vector<Sample> samples = swing(model);
  const fs::path dest = freshDir("shapes") / "swing";
  const ParaviewExportResult r = exportParaview(model, samples, dest.string());
  CHECK(r.notes.empty());
  const int last = static_cast<int>(samples.size()) - 1;
  const std::string vtp = slurp(dest / pvdEntries(slurp(r.collection))[static_cast<std::size_t>(last)].file);
  CHECK_THAT(vtp, Catch::Contains("NumberOfPoints=\"13\"") && Catch::Contains("NumberOfPolys=\"12\""));
  const std::vector<double> kinds = dataArray(vtp, "<CellData", "Name=\"kind\"");
  REQUIRE(kinds.size() == 15);
  CHECK(std::count(kinds.begin(), kinds.end(), 2.0) == 12);
  const std::vector<double> colours = dataArray(vtp, "<CellData", "Name=\"colour\"");
  REQUIRE(colours.size() == 45);
  CHECK(colours[3 * 14] == 255);  // a shape triangle in its own red
  CHECK(colours[3 * 14 + 1] == 0);
  // The box's vertices ride with the bar: every one stays 0.05 m (half its width, in the
  // plane z = +-0.05) from the line through A and B, and its centre is the bar's midpoint.
  const Eigen::VectorXd& q = samples.back().q;
  const Eigen::Vector3d a = pointPosition(model, q, 1), b = pointPosition(model, q, 2);
  REQUIRE((b - a).norm() == Approx(1.0).epsilon(1e-6));
  const std::vector<double> xyz = dataArray(vtp, "<Points>", "NumberOfComponents=\"3\"");
  REQUIRE(xyz.size() == 39);
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  for (int v = 5; v < 13; ++v) {
    const Eigen::Vector3d x(xyz[static_cast<std::size_t>(3 * v)], xyz[static_cast<std::size_t>(3 * v + 1)],
                            xyz[static_cast<std::size_t>(3 * v + 2)]);
    centre += x / 8.0;
    const Eigen::Vector3d e = (b - a).normalized();
    const Eigen::Vector3d off = (x - a) - (x - a).dot(e) * e;
    CHECK(off.norm() == Approx(0.05 * std::sqrt(2.0)).epsilon(1e-6));
  }
  CHECK((centre - 0.5 * (a + b)).norm() < 1e-9);
  CHECK((0.5 * (a + b) - Eigen::Vector3d(1.5, 0, 0)).norm() > 0.05);  // it has moved
}

TEST_CASE("an export to an unwritable place names it and leaves nothing behind", "[paraview_export]") {
  const Model model = doublePendulum();
  const std::vector<Sample> samples = swing(model);
  const fs::path dir = freshDir("unwritable");
  std::ofstream(dir / "plain_file") << "x";
  // Root ignores permissions; under a regular file or in /proc nobody can create anything.
  std::vector<fs::path> places = {dir / "plain_file", "/proc", dir / "missing_parent"};
  if (geteuid() != 0) {
    fs::create_directories(dir / "locked");
    fs::permissions(dir / "locked", fs::perms::owner_read | fs::perms::owner_exec);
    places.push_back(dir / "locked");
  }
  for (const fs::path& place : places) {
    INFO(place);
    const fs::path dest = place / "export";
    CHECK_THROWS_AS(exportParaview(model, samples, dest.string()), FileError);
    CHECK_THROWS_WITH(exportParaview(model, samples, dest.string()),
                      Catch::Contains(dest.string()) && Catch::Contains("cannot create"));
    CHECK(leftNothing(dest));
  }
  if (geteuid() != 0) fs::permissions(dir / "locked", fs::perms::owner_all);
  CHECK(slurp(dir / "plain_file") == "x");
  fs::remove_all(dir);
}

TEST_CASE("a full disk during an export names it and leaves nothing behind", "[paraview_export]") {
  const Model model = doublePendulum();
  const std::vector<Sample> samples = swing(model);
  const fs::path dest = freshDir("disk_full") / "swing";
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // A child whose files may not grow beyond 256 bytes (every frame is larger): writes fail with EFBIG.
    close(fds[0]);
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit l{256, 256};
    setrlimit(RLIMIT_FSIZE, &l);
    std::string message = "no FileError";
    try {
      exportParaview(model, samples, dest.string());
    } catch (const FileError& e) {
      message = e.what();
    }
    const ssize_t n = write(fds[1], message.data(), message.size());
    _exit(n == static_cast<ssize_t>(message.size()) ? 0 : 1);
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
  CHECK_THAT(message, Catch::Contains(dest.string()) && Catch::Contains("disk full"));
  CHECK(leftNothing(dest));
}

TEST_CASE("a cancelled export leaves nothing new and keeps the earlier export", "[paraview_export]") {
  const Model model = doublePendulum();
  const std::vector<Sample> samples = swing(model);
  const fs::path dest = freshDir("cancel") / "swing";
  int calls = 0;
  Monitor stopAtThird(
      [&](const Progress& p) {
        CHECK(p.total == static_cast<long long>(samples.size()));
        return ++calls < 3;
      },
      std::chrono::milliseconds(0));
  CHECK_THROWS_AS(exportParaview(model, samples, dest.string(), {}, &stopAtThird), Cancelled);
  CHECK(calls == 3);
  CHECK(leftNothing(dest));

  ParaviewExportOptions o;
  o.stride = 5;
  const ParaviewExportResult earlier = exportParaview(model, samples, dest.string(), o);
  const std::string pvd = slurp(earlier.collection);
  Monitor stopNow([](const Progress&) { return false; });
  CHECK_THROWS_AS(exportParaview(model, samples, dest.string(), {}, &stopNow), Cancelled);
  CHECK(slurp(earlier.collection) == pvd);
  CHECK(vtpCount(dest) == earlier.frames);
  CHECK_FALSE(fs::exists(dest.string() + ".part"));
  CHECK_FALSE(fs::exists(dest.string() + ".old"));
}

TEST_CASE("an existing destination is replaced only when it holds an earlier export", "[paraview_export]") {
  const Model model = doublePendulum();
  const std::vector<Sample> samples = swing(model);
  const fs::path dir = freshDir("existing");

  SECTION("an empty directory receives the export") {
    fs::create_directories(dir / "empty");
    CHECK(exportParaview(model, samples, (dir / "empty").string()).frames ==
          static_cast<int>(samples.size()));
    CHECK(fs::exists(dir / "empty" / "empty.pvd"));
  }
  SECTION("a trailing separator names the same directory") {
    const ParaviewExportResult r = exportParaview(model, samples, (dir / "slash").string() + "/");
    CHECK(fs::exists(dir / "slash" / "slash.pvd"));
    CHECK(r.frames == static_cast<int>(samples.size()));
  }
  SECTION("a directory holding other files is refused and left as it was") {
    fs::create_directories(dir / "notes");
    std::ofstream(dir / "notes" / "notes.txt") << "keep me";
    CHECK_THROWS_WITH(exportParaview(model, samples, (dir / "notes").string()),
                      Catch::Contains((dir / "notes").string()) && Catch::Contains("notes.txt") &&
                          Catch::Contains("not replaced"));
    CHECK(slurp(dir / "notes" / "notes.txt") == "keep me");
    CHECK(vtpCount(dir / "notes") == 0);
    CHECK_FALSE(fs::exists(dir / "notes.part"));
  }
  SECTION("a file is refused and left as it was") {
    std::ofstream(dir / "file") << "keep me";
    CHECK_THROWS_AS(exportParaview(model, samples, (dir / "file").string()), FileError);
    CHECK(slurp(dir / "file") == "keep me");
  }
  SECTION("without replace, even an earlier export is refused") {
    exportParaview(model, samples, (dir / "run").string());
    ParaviewExportOptions o;
    o.replace = false;
    o.stride = 2;
    CHECK_THROWS_WITH(exportParaview(model, samples, (dir / "run").string(), o),
                      Catch::Contains((dir / "run").string()) && Catch::Contains("already exists"));
    CHECK(vtpCount(dir / "run") == static_cast<int>(samples.size()));
  }
  SECTION("a leftover of an interrupted export is cleared") {
    fs::create_directories(dir / "run.part");
    std::ofstream(dir / "run.part" / "frame_000000.vtp") << "<half";
    CHECK(exportParaview(model, samples, (dir / "run").string()).frames == static_cast<int>(samples.size()));
    CHECK_FALSE(fs::exists(dir / "run.part"));
  }
}

TEST_CASE("bad export input is refused with a message naming it", "[paraview_export]") {
  const Model model = doublePendulum();
  const std::vector<Sample> samples = swing(model);
  const fs::path dest = freshDir("bad_input") / "swing";
  ParaviewExportOptions o;
  o.stride = 0;
  CHECK_THROWS_WITH(exportParaview(model, samples, dest.string(), o), Catch::Contains("stride"));
  CHECK_THROWS_AS(exportParaview(model, std::vector<Sample>{}, dest.string()), InputError);
  Eigen::VectorXd t(2);
  t << 0.0, 0.0;
  const Eigen::MatrixXd q = model.q0().replicate(1, 2);
  CHECK_THROWS_WITH(exportParaview(model, t, q, dest.string()),
                    Catch::Contains("sample 2") && Catch::Contains("does not increase"));
  t << 0.0, 0.1;
  Eigen::MatrixXd bad = q;
  bad(1, 1) = std::nan("");
  CHECK_THROWS_WITH(exportParaview(model, t, bad, dest.string()),
                    Catch::Contains("A.y") && Catch::Contains("finite"));
  CHECK_THROWS_AS(exportParaview(model, t, q.topRows(3), dest.string()), InputError);
  CHECK(leftNothing(dest));
}
