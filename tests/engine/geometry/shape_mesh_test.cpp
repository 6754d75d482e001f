// Display shapes: boxes, cylinders and spheres are closed,
// outward surfaces of their volume; a shape's frame (axis and turn) reaches
// every rotation; a mirrored mesh is the mirror image; a body's pose carries
// its reference points to their positions at q; a mesh that cannot be read
// leaves its body undrawn with a note naming the body and the file.

#include "engine/geometry/shape_mesh.h"
#include "engine/geometry/body_pose.h"

#include "engine/core/error.h"
#include "engine/model/body_shape.h"
#include "engine/model/mirror.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include <unistd.h>
#include "tests/test_paths.h"

using namespace mbdrom;
namespace fs = std::filesystem;

namespace {

// Volume enclosed by a triangle mesh (divergence theorem): positive when the
// triangles wind counter-clockwise seen from outside.
double enclosedVolume(const TriangleMesh& m) {
  double v = 0.0;
  for (const auto& t : m.triangles) v += m.vertices[t[0]].dot(m.vertices[t[1]].cross(m.vertices[t[2]])) / 6.0;
  return v;
}

// Every edge used once in each direction: closed and consistently wound.
bool closedAndConsistent(const TriangleMesh& m) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> edges;
  for (const auto& t : m.triangles)
    for (int k = 0; k < 3; ++k)
      ++edges[{t[static_cast<std::size_t>(k)], t[static_cast<std::size_t>((k + 1) % 3)]}];
  for (const auto& [e, n] : edges) {
    if (n != 1) return false;
    const auto back = edges.find({e.second, e.first});
    if (back == edges.end() || back->second != 1) return false;
  }
  return true;
}

ShapeSpec primitive(const std::string& type, std::vector<double> size) {
  ShapeSpec s;
  s.type = type;
  s.size = std::move(size);
  return s;
}

struct ShapeTempDir {
  fs::path path = fs::temp_directory_path() / ("mbdrom_shape_test_" + std::to_string(::getpid()));
  ShapeTempDir() { fs::create_directories(path); }
  ~ShapeTempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// A body "link" (rigid: points A, B, C) with one mesh shape read from `file`.
ModelSpec linkWithMesh(const std::string& directory, const std::string& file) {
  const std::string text = R"({"format": "mbdrom-model", "version": 1, "name": "link",
    "points": [{"name": "O", "position": [0, 0.5, 0], "fixed": true},
               {"name": "A", "position": [0.2, 0.5, 0]}, {"name": "B", "position": [0.2, 0.8, 0]},
               {"name": "C", "position": [0.2, 0.5, 0.3]}],
    "bodies": [{"name": "link_l", "type": "rigid", "points": ["A", "B", "C"], "mass": 1,
                "com": [0.2, 0.6, 0.1], "inertia": [[0.01, 0, 0], [0, 0.01, 0], [0, 0, 0.01]],
                "shape": {"type": "mesh", "file": ")" +
                           file + R"(", "center": [0.2, 0.5, 0], "axis": [0, 0, 1], "angle": 30}}]})";
  ModelSpec spec = parseModelSpec(text, "link.json");
  spec.directory = directory;
  return spec;
}

// An asymmetric tetrahedron: its mirror image is not a rotation of it.
void writeTetrahedron(const fs::path& path) {
  std::ofstream out(path);
  out << "v 0 0 0\nv 0.1 0 0\nv 0 0.05 0\nv 0 0 0.02\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
}

}  // namespace

TEST_CASE("boxes, cylinders and spheres are closed outward surfaces of their volume", "[shapes]") {
  const TriangleMesh box = primitiveMesh(primitive("box", {0.3, 0.2, 0.1}));
  CHECK(box.vertices.size() == 8);
  CHECK(box.triangleCount() == 12);
  CHECK(closedAndConsistent(box));
  CHECK(enclosedVolume(box) == Approx(0.3 * 0.2 * 0.1).epsilon(1e-12));
  CHECK(box.bounds().sizes().isApprox(Eigen::Vector3d(0.3, 0.2, 0.1), 1e-15));

  const double r = 0.05, length = 0.4;
  const TriangleMesh cylinder = primitiveMesh(primitive("cylinder", {r, length}));
  CHECK(closedAndConsistent(cylinder));
  // A regular n-gon prism exactly; the circle's area to its polygon's error.
  const double n = static_cast<double>(cylinder.triangleCount()) / 4.0;
  CHECK(enclosedVolume(cylinder) ==
        Approx(0.5 * n * r * r * std::sin(2.0 * M_PI / n) * length).epsilon(1e-12));
  CHECK(enclosedVolume(cylinder) == Approx(M_PI * r * r * length).epsilon(0.01));
  CHECK(cylinder.bounds().sizes().z() == Approx(length));  // along its own z

  const TriangleMesh sphere = primitiveMesh(primitive("sphere", {0.2}));
  CHECK(closedAndConsistent(sphere));
  CHECK(enclosedVolume(sphere) == Approx(4.0 / 3.0 * M_PI * 0.008).epsilon(0.03));
  for (std::size_t k = 0; k < sphere.triangleCount(); ++k) {  // normals point away from the centre
    const auto& t = sphere.triangles[k];
    CHECK(sphere.normals[k].dot(sphere.vertices[t[0]] + sphere.vertices[t[1]] + sphere.vertices[t[2]]) > 0.0);
  }
}

TEST_CASE("a shape's axis and turn reach every rotation and are read back from it", "[shapes]") {
  ShapeSpec s = primitive("box", {1, 1, 1});
  CHECK(shapeRotation(s).isApprox(Eigen::Matrix3d::Identity(), 1e-15));  // the default: the file's own axes
  s.axis = {1, 0, 0};
  CHECK(shapeRotation(s).col(2).isApprox(Eigen::Vector3d::UnitX(), 1e-15));
  s.axis = {0, 0, -1};
  CHECK(shapeRotation(s).col(2).isApprox(-Eigen::Vector3d::UnitZ(), 1e-15));
  CHECK(shapeRotation(s).determinant() == Approx(1.0));

  // Rotations an axis of least turn alone would miss: a cyclic permutation, half turns, and random ones.
  std::vector<Eigen::Matrix3d> rotations;
  Eigen::Matrix3d cyclic;
  cyclic << 0, 0, 1, 1, 0, 0, 0, 1, 0;
  rotations.push_back(cyclic);
  rotations.push_back(Eigen::AngleAxisd(M_PI, Eigen::Vector3d::UnitX()).toRotationMatrix());
  rotations.push_back(Eigen::AngleAxisd(M_PI, Eigen::Vector3d::UnitY()).toRotationMatrix());
  std::mt19937_64 random(33);
  std::normal_distribution<double> normal;
  for (int k = 0; k < 50; ++k)
    rotations.push_back(Eigen::Quaterniond(normal(random), normal(random), normal(random), normal(random))
                            .normalized()
                            .toRotationMatrix());
  for (const Eigen::Matrix3d& R : rotations) {
    ShapeSpec t = primitive("box", {1, 1, 1});
    setShapeRotation(t, R);
    CHECK((shapeRotation(t) - R).norm() < 1e-12);
  }
}

TEST_CASE("a mirrored mesh shape is the mirror image of the mesh, not a turned copy", "[shapes][mirror]") {
  const ShapeTempDir dir;
  writeTetrahedron(dir.path / "tetra.obj");
  ModelSpec spec = linkWithMesh(dir.path.string(), "tetra.obj");
  const ShapeParts before = buildShapeParts(spec);
  REQUIRE(before.parts.size() == 1);
  REQUIRE(before.notes.empty());
  mirrorElements(spec, {{ElementKind::Body, 0, 0}});
  REQUIRE(spec.bodies.size() == 2);
  CHECK(spec.bodies[1].name == "link_r");
  CHECK(spec.bodies[1].shapes.at(0).mirrored);
  const ShapeParts after = buildShapeParts(spec);
  REQUIRE(after.parts.size() == 2);
  const TriangleMesh& left = after.parts[0].mesh;
  const TriangleMesh& right = after.parts[1].mesh;
  REQUIRE(left.vertices.size() == right.vertices.size());
  for (std::size_t k = 0; k < left.vertices.size(); ++k) {
    const Eigen::Vector3d image(left.vertices[k].x(), -left.vertices[k].y(), left.vertices[k].z());
    CHECK((right.vertices[k] - image).norm() < 1e-12);
  }
  // Both wind outward (a reflection would turn the surface inside out unless rewound).
  CHECK(enclosedVolume(left) > 0.0);
  CHECK(enclosedVolume(right) == Approx(enclosedVolume(left)).epsilon(1e-12));
  // And the mirrored copy, written and read, keeps all of it.
  const ModelSpec again = parseModelSpec(serializeModelSpec(spec), "again.json");
  CHECK(again.bodies[1].shapes[0].mirrored);
  CHECK((shapeRotation(again.bodies[1].shapes[0]) - shapeRotation(spec.bodies[1].shapes[0])).norm() < 1e-12);
}

TEST_CASE("a body's pose carries its reference points to their positions at q", "[shapes]") {
  const Model model(readModelSpec(mbdrom::test::sourcePath("/resources/examples/macpherson.json")));
  const BodyPoses poses(model);
  Eigen::VectorXd q = model.q0();
  // Rigid motion of the whole reference about an arbitrary axis and point.
  const Eigen::Matrix3d R =
      Eigen::AngleAxisd(0.4, Eigen::Vector3d(0.2, -0.5, 0.8).normalized()).toRotationMatrix();
  const Eigen::Vector3d t(0.03, -0.02, 0.11);
  const ModelSpec& spec = model.spec();
  // Move every free entity rigidly (fixed ones stay: the bodies through them
  // are then not rigid, and their pose is the least-squares one; check the others).
  for (int c = 0; c < model.nq(); c += 3) {
    const std::string& name = model.coordinateName(c);
    const std::string entity = name.substr(0, name.size() - 2);
    if (model.findPoint(entity) >= 0)
      q.segment<3>(c) = R * q.segment<3>(c) + t;
    else
      q.segment<3>(c) = R * q.segment<3>(c);
  }
  const int knuckle = model.findBody("knuckle");
  REQUIRE(knuckle >= 0);
  const Eigen::Isometry3d pose = poses.pose(model, q, knuckle);
  for (const std::string& name : spec.bodies[static_cast<std::size_t>(knuckle)].points) {
    const int p = model.findPoint(name);
    CHECK((pose * spec.points[static_cast<std::size_t>(p)].position - pointPosition(model, q, p)).norm() <
          1e-12);
  }
  CHECK((pose.linear() - R).norm() < 1e-12);
  // The reference configuration is the identity for every body.
  for (int b = 0; b < static_cast<int>(spec.bodies.size()); ++b)
    CHECK((poses.pose(model, model.q0(), b).matrix() - Eigen::Matrix4d::Identity()).norm() < 1e-12);
  // A bar turns by the least rotation of its axis: its far end lands on its point.
  const int tie = model.findBody("tie_rod");
  const Eigen::Isometry3d barPose = poses.pose(model, q, tie);
  const int to = model.findPoint("TO"), ti = model.findPoint("TI");
  const Eigen::Vector3d axisNow = pointPosition(model, q, to) - pointPosition(model, q, ti);
  const Eigen::Vector3d axisRef =
      spec.points[static_cast<std::size_t>(to)].position - spec.points[static_cast<std::size_t>(ti)].position;
  CHECK((barPose.linear() * axisRef.normalized() - axisNow.normalized()).norm() < 1e-12);
}

TEST_CASE("a mesh that cannot be read leaves its body undrawn with a note naming body and file", "[shapes]") {
  const ShapeTempDir dir;
  {
    const ShapeParts parts = buildShapeParts(linkWithMesh(dir.path.string(), "missing.stl"));
    CHECK(parts.parts.empty());
    REQUIRE(parts.notes.size() == 1);
    CHECK_THAT(parts.notes[0], Catch::Contains("body \"link_l\"") && Catch::Contains("missing.stl") &&
                                   Catch::Contains("default drawing"));
  }
  {
    std::ofstream(dir.path / "empty.stl") << "";
    const ShapeParts parts = buildShapeParts(linkWithMesh(dir.path.string(), "empty.stl"));
    CHECK(parts.parts.empty());
    REQUIRE(parts.notes.size() == 1);
    CHECK_THAT(parts.notes[0], Catch::Contains("empty.stl"));
  }
  {
    // A project reads only its own files: a mesh reached through ".." is refused before it is read.
    fs::create_directories(dir.path / "project");
    writeTetrahedron(dir.path / "outside.obj");
    ModelSpec spec = linkWithMesh((dir.path / "project").string(), "../outside.obj");
    spec.confineTo = (dir.path / "project").string();
    const ShapeParts parts = buildShapeParts(spec);
    CHECK(parts.parts.empty());
    REQUIRE(parts.notes.size() == 1);
    CHECK_THAT(parts.notes[0], Catch::Contains("outside the project"));
    spec.confineTo.clear();  // the same file read from a model file outside any project
    CHECK(buildShapeParts(spec).parts.size() == 1);
  }
}

TEST_CASE("bad shapes in a model file are refused naming the field", "[shapes]") {
  auto withShape = [](const std::string& shape) {
    return std::string(R"({"format": "mbdrom-model", "version": 1, "name": "s",
      "points": [{"name": "P", "position": [0, 0, -1]}],
      "bodies": [{"name": "ball", "type": "particle", "points": ["P"], "mass": 1, )") +
           shape + "}]}";
  };
  auto refusal = [&](const std::string& shape) {
    try {
      parseModelSpec(withShape(shape), "s.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK_THAT(refusal(R"("shape": {"type": "box", "size": [1, 2]})"), Catch::Contains("size of 3 numbers"));
  CHECK_THAT(refusal(R"("shape": {"type": "sphere", "size": [-1]})"), Catch::Contains("positive"));
  CHECK_THAT(refusal(R"("shape": {"type": "mesh"})"), Catch::Contains("needs a \"file\""));
  CHECK_THAT(refusal(R"("shape": {"type": "cone", "size": [1]})"), Catch::Contains("unknown shape type"));
  CHECK_THAT(refusal(R"("shape": {"type": "sphere", "size": [1], "opacity": 2})"),
             Catch::Contains("opacity"));
  CHECK_THAT(refusal(R"("shape": {"type": "sphere", "size": [1], "colour": [1, 0.5, 1.5]})"),
             Catch::Contains("colour"));
  CHECK_THAT(refusal(R"("shape": {"type": "sphere", "size": [1], "axis": [0, 0, 0]})"),
             Catch::Contains("axis"));
  CHECK_THAT(refusal(R"("shape": {"type": "sphere", "size": [1]}, "shapes": [])"),
             Catch::Contains("not both"));
  CHECK(
      refusal(
          R"("shapes": [{"type": "sphere", "size": [0.1]}, {"type": "box", "size": [1, 1, 1], "colour": [1, 0, 0], "opacity": 0.5}])") ==
      "accepted");
}

TEST_CASE("shapes are outside the mechanism's hash, files written before shape lists still match",
          "[shapes]") {
  const Model model(readModelSpec(mbdrom::test::sourcePath("/resources/examples/macpherson.json")));
  // The hash trained models recorded before bodies had shape lists (tests/data/trained).
  CHECK(hashToString(legacyMechanismHash(model.spec())) == "608218d2f0d41ac5");
  CHECK(model.matchesHash(0x608218d2f0d41ac5ULL));
  ModelSpec recoloured = model.spec();
  recoloured.bodies[0].shapes[0].colour = Eigen::Vector3d(1, 0, 0);
  recoloured.bodies[0].shapes.pop_back();
  recoloured.bodies[1].shapes.clear();
  CHECK(mechanismHash(recoloured) == model.mechanismHash());
  ModelSpec moved = model.spec();
  moved.points[4].position.x() += 1e-6;  // a hardpoint is the mechanism
  CHECK(mechanismHash(moved) != model.mechanismHash());
}
