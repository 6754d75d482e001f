// Mesh readers: a unit cube as binary STL, ASCII STL
// and OBJ gives 8 vertices, 12 triangles, its bounds and outward normals; bad
// files are named; a 100,000-triangle mesh is decimated for display.

#include "engine/geometry/mesh_file.h"
#include "engine/core/error.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <sys/stat.h>
#include <unistd.h>

using namespace mbdrom;

namespace {

// The 12 triangles of the cube [0, 1]^3, counter-clockwise seen from outside.
const int kCube[12][3][3] = {
    {{0, 0, 0}, {0, 1, 0}, {1, 1, 0}}, {{0, 0, 0}, {1, 1, 0}, {1, 0, 0}},  // z = 0, normal -z
    {{0, 0, 1}, {1, 0, 1}, {1, 1, 1}}, {{0, 0, 1}, {1, 1, 1}, {0, 1, 1}},  // z = 1, +z
    {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}}, {{0, 0, 0}, {1, 0, 1}, {0, 0, 1}},  // y = 0, -y
    {{0, 1, 0}, {0, 1, 1}, {1, 1, 1}}, {{0, 1, 0}, {1, 1, 1}, {1, 1, 0}},  // y = 1, +y
    {{0, 0, 0}, {0, 0, 1}, {0, 1, 1}}, {{0, 0, 0}, {0, 1, 1}, {0, 1, 0}},  // x = 0, -x
    {{1, 0, 0}, {1, 1, 0}, {1, 1, 1}}, {{1, 0, 0}, {1, 1, 1}, {1, 0, 1}},  // x = 1, +x
};

std::string binaryStl(int triangles = 12) {
  std::string bytes(80, ' ');
  bytes.replace(0, 11, "solid cube ");  // a binary header may start with "solid"
  const auto count = static_cast<std::uint32_t>(triangles);
  bytes.append(reinterpret_cast<const char*>(&count), 4);
  for (int t = 0; t < triangles; ++t) {
    const float zero[3] = {0, 0, 0};  // writers often leave the normal out
    bytes.append(reinterpret_cast<const char*>(zero), 12);
    for (const auto& v : kCube[t % 12]) {
      const float p[3] = {static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])};
      bytes.append(reinterpret_cast<const char*>(p), 12);
    }
    bytes.append(2, '\0');
  }
  return bytes;
}

std::string asciiStl() {
  std::string text = "solid cube\n";
  for (const auto& t : kCube) {
    text += "  facet normal 0 0 0\n    outer loop\n";
    for (const auto& v : t)
      text += "      vertex " + std::to_string(v[0]) + " " + std::to_string(v[1]) + " " +
              std::to_string(v[2]) + "\n";
    text += "    endloop\n  endfacet\n";
  }
  return text + "endsolid cube\n";
}

std::string obj() {
  // Quads (split into two triangles each), 1-based and negative indices, v/vt/vn forms.
  return "# cube\no cube\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
         "vn 0 0 1\nvt 0 0\ns off\n"
         "f 1 4 3 2\nf 5/1 6/1 7/1 8/1\nf 1//1 2//1 6//1 5//1\nf -5 -1 -2 -6\nf 1 5 8 4\nf 2 3 7 6\n";
}

void checkCube(const TriangleMesh& mesh, double scale) {
  CHECK(mesh.vertices.size() == 8u);
  CHECK(mesh.triangleCount() == 12u);
  CHECK(mesh.bounds().min().isApprox(Eigen::Vector3d::Zero()));
  CHECK(mesh.bounds().max().isApprox(Eigen::Vector3d::Constant(scale)));
  const Eigen::Vector3d centre = Eigen::Vector3d::Constant(scale / 2);
  for (std::size_t k = 0; k < mesh.triangleCount(); ++k) {
    const Eigen::Vector3d& n = mesh.normals[k];
    CHECK(n.norm() == Approx(1.0));
    CHECK(std::abs(n.maxCoeff()) + std::abs(n.minCoeff()) == Approx(1.0));  // along an axis
    const Eigen::Vector3d face = (mesh.vertices[mesh.triangles[k][0]] + mesh.vertices[mesh.triangles[k][1]] +
                                  mesh.vertices[mesh.triangles[k][2]]) /
                                 3.0;
    CHECK(n.dot(face - centre) > 0.0);  // outward
  }
}

}  // namespace

TEST_CASE("a cube reads the same from binary STL, ASCII STL and OBJ", "[mesh]") {
  checkCube(parseStl(binaryStl(), 1.0, "cube.stl"), 1.0);
  checkCube(parseStl(asciiStl(), 1.0, "cube.stl"), 1.0);
  checkCube(parseObj(obj(), 1.0, "cube.obj"), 1.0);
  checkCube(parseStl(binaryStl(), 0.001, "cube_mm.stl"), 0.001);  // a file in millimetres
}

TEST_CASE("a mesh file is read by its extension", "[mesh]") {
  const auto dir = std::filesystem::temp_directory_path() / ("mbdrom_mesh_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream((dir / "CUBE.STL").string(), std::ios::binary) << binaryStl();
  std::ofstream((dir / "cube.obj").string()) << obj();
  checkCube(readMeshFile((dir / "CUBE.STL").string()), 1.0);
  checkCube(readMeshFile((dir / "cube.obj").string(), 1.0), 1.0);
  CHECK_THROWS_WITH(readMeshFile((dir / "cube.ply").string()), Catch::Contains("an .stl or .obj file"));
  CHECK_THROWS_WITH(readMeshFile((dir / "none.stl").string()), Catch::Contains("none.stl"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("bad mesh files are named: empty, truncated, non-finite, not a mesh, absurd", "[mesh]") {
  CHECK_THROWS_WITH(parseStl("solid x\nendsolid x\n", 1.0, "e.stl"),
                    Catch::Contains("e.stl: the mesh has no triangles"));
  CHECK_THROWS_WITH(parseStl(binaryStl(0), 1.0, "e.stl"), Catch::Contains("no triangles"));
  CHECK_THROWS_WITH(parseStl(binaryStl().substr(0, 300), 1.0, "t.stl"), Catch::Contains("truncated"));
  CHECK_THROWS_WITH(parseStl(asciiStl().substr(0, 200), 1.0, "t.stl"), Catch::Contains("truncated"));
  std::string nan = binaryStl();
  const float bad = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(&nan[84 + 50 * 3 + 12 + 4], &bad, 4);
  CHECK_THROWS_WITH(parseStl(nan, 1.0, "n.stl"), Catch::Contains("triangle 4 has a non-finite coordinate"));
  CHECK_THROWS_WITH(parseStl(std::string(200, 'x'), 1.0, "x.stl"), Catch::Contains("not an STL file"));
  CHECK_THROWS_WITH(parseStl("PK\x03\x04", 1.0, "z.stl"), Catch::Contains("not an STL file"));
  std::string huge = binaryStl();
  const std::uint32_t count = 4000000000u;
  std::memcpy(&huge[80], &count, 4);
  CHECK_THROWS_WITH(parseStl(huge, 1.0, "h.stl"), Catch::Contains("truncated"));
  CHECK_THROWS_WITH(parseStl(binaryStl(), -1.0, "s.stl"), Catch::Contains("scale must be a positive number"));
  CHECK_THROWS_WITH(parseObj("v 0 0 0\nv 1 0 0\nf 1 2 3\n", 1.0, "i.obj"),
                    Catch::Contains("i.obj:3: vertex index 3 is out of range (2 vertices so far)"));
  CHECK_THROWS_WITH(parseObj("v 0 0 nan\n", 1.0, "n.obj"),
                    Catch::Contains("n.obj:1: a non-finite coordinate"));
  CHECK_THROWS_WITH(parseObj("v 0 0\n", 1.0, "s.obj"), Catch::Contains("a vertex needs x y z"));
  CHECK_THROWS_WITH(parseObj("v 0 0 0\nv 1 0 0\nf 1 2\n", 1.0, "f.obj"),
                    Catch::Contains("at least 3 corners"));
  CHECK_THROWS_WITH(parseObj("# only a comment\n", 1.0, "c.obj"), Catch::Contains("no triangles"));
  CHECK_THROWS_WITH(parseObj("<html><body>404</body></html>\n", 1.0, "w.obj"),
                    Catch::Contains("not a Wavefront OBJ statement"));
}

TEST_CASE("a mesh above the display size is decimated to it, keeping its bounds", "[mesh]") {
  // A sphere of 100,000 triangles (a latitude-longitude grid), as a binary STL.
  const int rings = 250, segments = 200;
  std::string bytes(80, ' ');
  const auto count = static_cast<std::uint32_t>(2 * rings * segments);
  bytes.append(reinterpret_cast<const char*>(&count), 4);
  auto at = [&](int i, int j) {
    const double theta = M_PI * i / rings, phi = 2 * M_PI * j / segments;
    return Eigen::Vector3f(static_cast<float>(std::sin(theta) * std::cos(phi)),
                           static_cast<float>(std::sin(theta) * std::sin(phi)),
                           static_cast<float>(std::cos(theta)));
  };
  auto facet = [&](const Eigen::Vector3f& a, const Eigen::Vector3f& b, const Eigen::Vector3f& c) {
    bytes.append(12, '\0');
    for (const Eigen::Vector3f* v : {&a, &b, &c}) bytes.append(reinterpret_cast<const char*>(v->data()), 12);
    bytes.append(2, '\0');
  };
  for (int i = 0; i < rings; ++i)
    for (int j = 0; j < segments; ++j) {
      facet(at(i, j), at(i + 1, j), at(i + 1, j + 1));
      facet(at(i, j), at(i + 1, j + 1), at(i, j + 1));
    }
  const TriangleMesh sphere = parseStl(bytes, 1.0, "sphere.stl");
  CHECK(sphere.triangleCount() == 100000u);
  const TriangleMesh small = decimated(sphere, 20000);
  CHECK(small.triangleCount() <= 20000u);
  CHECK(small.triangleCount() > 5000u);
  CHECK(small.bounds().min().isApprox(sphere.bounds().min(), 0.05));
  CHECK(small.bounds().max().isApprox(sphere.bounds().max(), 0.05));
  CHECK(decimated(sphere, 200000).triangleCount() == 100000u);  // below the display size: unchanged
}

TEST_CASE("mesh coordinates get the model's number rule and a FIFO is named", "[mesh]") {
  CHECK_THROWS_WITH(parseObj("v 0 0 0\nv 1e300 0 0\nv 0 1 0\nf 1 2 3\n", 1.0, "h.obj"),
                    Catch::Contains("h.obj:2: has a coordinate beyond the model format's range"));
  // In millimetres scaled to metres the same number may be fine; scaled up it may not.
  CHECK_NOTHROW(parseObj("v 0 0 0\nv 1e17 0 0\nv 0 1 0\nf 1 2 3\n", 1e-3, "mm.obj"));
  CHECK_THROWS_WITH(parseObj("v 0 0 0\nv 1e14 0 0\nv 0 1 0\nf 1 2 3\n", 100.0, "up.obj"),
                    Catch::Contains("beyond the model format's range"));
  std::string far = binaryStl();
  const float big = 1e30f;
  std::memcpy(&far[84 + 50 * 2 + 12], &big, 4);
  CHECK_THROWS_WITH(parseStl(far, 1.0, "f.stl"), Catch::Contains("triangle 3 has a coordinate beyond"));
  const auto dir =
      std::filesystem::temp_directory_path() / ("mbdrom_mesh_fifo_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  REQUIRE(::mkfifo((dir / "pipe.obj").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(readMeshFile((dir / "pipe.obj").string()), Catch::Contains("is a FIFO"));
  std::filesystem::remove_all(dir);
}
