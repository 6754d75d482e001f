#include "engine/geometry/shape_mesh.h"

#include "engine/core/error.h"
#include "engine/geometry/mesh_file.h"
#include "engine/model/body_shape.h"

#include <cmath>
#include <filesystem>

namespace mbdrom {

namespace {

namespace fs = std::filesystem;

constexpr int kShapeRoundSides = 40;  // cylinder and sphere longitudes
constexpr int kShapeSphereRings = 20;

std::uint32_t addVertex(TriangleMesh& m, const Eigen::Vector3d& v) {
  m.vertices.push_back(v);
  return static_cast<std::uint32_t>(m.vertices.size() - 1);
}

TriangleMesh boxMesh(const Eigen::Vector3d& size) {
  TriangleMesh m;
  const Eigen::Vector3d h = 0.5 * size;
  for (int k = 0; k < 8; ++k)
    addVertex(m,
              Eigen::Vector3d((k & 1) ? h.x() : -h.x(), (k & 2) ? h.y() : -h.y(), (k & 4) ? h.z() : -h.z()));
  // Two triangles per face, counter-clockwise seen from outside.
  const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                           {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& f : faces) {
    m.triangles.push_back({static_cast<std::uint32_t>(f[0]), static_cast<std::uint32_t>(f[1]),
                           static_cast<std::uint32_t>(f[2])});
    m.triangles.push_back({static_cast<std::uint32_t>(f[0]), static_cast<std::uint32_t>(f[2]),
                           static_cast<std::uint32_t>(f[3])});
  }
  return m;
}

TriangleMesh cylinderMesh(double radius, double length) {
  TriangleMesh m;
  const double h = 0.5 * length;
  const std::uint32_t bottom = addVertex(m, {0.0, 0.0, -h}), top = addVertex(m, {0.0, 0.0, h});
  const auto first = static_cast<std::uint32_t>(m.vertices.size());
  for (int k = 0; k < kShapeRoundSides; ++k) {
    const double phi = 2.0 * M_PI * k / kShapeRoundSides;
    addVertex(m, {radius * std::cos(phi), radius * std::sin(phi), -h});
    addVertex(m, {radius * std::cos(phi), radius * std::sin(phi), h});
  }
  for (int k = 0; k < kShapeRoundSides; ++k) {
    const std::uint32_t a = first + 2 * static_cast<std::uint32_t>(k);
    const std::uint32_t b = first + 2 * static_cast<std::uint32_t>((k + 1) % kShapeRoundSides);
    m.triangles.push_back({a, b, b + 1});
    m.triangles.push_back({a, b + 1, a + 1});
    m.triangles.push_back({bottom, b, a});
    m.triangles.push_back({top, a + 1, b + 1});
  }
  return m;
}

TriangleMesh sphereMesh(double radius) {
  TriangleMesh m;
  const std::uint32_t south = addVertex(m, {0.0, 0.0, -radius}), north = addVertex(m, {0.0, 0.0, radius});
  const auto first = static_cast<std::uint32_t>(m.vertices.size());
  for (int r = 1; r < kShapeSphereRings; ++r) {
    const double theta = M_PI * r / kShapeSphereRings - 0.5 * M_PI;
    for (int k = 0; k < kShapeRoundSides; ++k) {
      const double phi = 2.0 * M_PI * k / kShapeRoundSides;
      addVertex(m, radius * Eigen::Vector3d(std::cos(theta) * std::cos(phi), std::cos(theta) * std::sin(phi),
                                            std::sin(theta)));
    }
  }
  auto at = [&](int ring, int k) {
    return first + static_cast<std::uint32_t>((ring - 1) * kShapeRoundSides + (k % kShapeRoundSides));
  };
  for (int k = 0; k < kShapeRoundSides; ++k) {
    m.triangles.push_back({south, at(1, k + 1), at(1, k)});
    m.triangles.push_back({north, at(kShapeSphereRings - 1, k), at(kShapeSphereRings - 1, k + 1)});
    for (int r = 1; r + 1 < kShapeSphereRings; ++r) {
      m.triangles.push_back({at(r, k), at(r, k + 1), at(r + 1, k + 1)});
      m.triangles.push_back({at(r, k), at(r + 1, k + 1), at(r + 1, k)});
    }
  }
  return m;
}

void placeShapeMesh(TriangleMesh& mesh, const ShapeSpec& shape) {
  const Eigen::Affine3d T = shapePlacement(shape);
  for (Eigen::Vector3d& v : mesh.vertices) v = T * v;
  if (shape.mirrored)  // a reflection turns the winding inside out
    for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
  mesh.computeNormals();
}

std::string shapeWhere(const BodySpec& body, std::size_t k) {
  return "body \"" + body.name + "\"" + (body.shapes.size() > 1 ? " shape " + std::to_string(k + 1) : "");
}

}  // namespace

TriangleMesh primitiveMesh(const ShapeSpec& shape) {
  checkShape(shape, "shape");
  TriangleMesh m;
  if (shape.type == "box") {
    m = boxMesh({shape.size[0], shape.size[1], shape.size[2]});
  } else if (shape.type == "cylinder") {
    m = cylinderMesh(shape.size[0], shape.size[1]);
  } else if (shape.type == "sphere") {
    m = sphereMesh(shape.size[0]);
  } else {
    throw ModelError("shape: a mesh has no primitive triangles (its file has them)");
  }
  m.computeNormals();
  return m;
}

std::shared_ptr<const TriangleMesh> MeshCache::get(const std::string& path, double scale,
                                                   std::size_t* fileTriangles) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  const long long modified =
      ec ? 0 : static_cast<long long>(fs::last_write_time(path, ec).time_since_epoch().count());
  // A few meshes at a few scales are what a session shows; scales tried in an editor
  // would otherwise keep every version.
  if (entries_.size() >= 16 && !entries_.count({path, scale})) entries_.clear();
  Entry& e = entries_[{path, scale}];
  if (!ec && (e.mesh || !e.error.empty()) && e.size == size && e.modified == modified) {
    if (fileTriangles) *fileTriangles = e.fileTriangles;
    if (e.mesh) return e.mesh;
    throw FileError(e.error);
  }
  e = Entry{};
  if (!ec) {  // a file that could not even be stat'ed is tried again next time
    e.size = size;
    e.modified = modified;
  }
  try {
    const TriangleMesh read = readMeshFile(path, scale);
    e.fileTriangles = read.triangleCount();
    e.mesh = std::make_shared<const TriangleMesh>(decimated(read));
  } catch (const FileError& error) {
    if (!ec) e.error = error.what();
    throw;
  }
  if (fileTriangles) *fileTriangles = e.fileTriangles;
  return e.mesh;
}

std::string resolveShapeFile(const ModelSpec& spec, const std::string& file) {
  const fs::path p(file);
  const fs::path path = p.is_absolute() || spec.directory.empty() ? p : fs::path(spec.directory) / p;
  if (!spec.confineTo.empty()) {
    std::error_code rootError, pathError;
    const std::string root = fs::weakly_canonical(spec.confineTo, rootError).string() + "/";
    const std::string real = fs::weakly_canonical(path, pathError).string();
    if (rootError || pathError || real.rfind(root, 0) != 0)
      throw FileError("mesh file \"" + file + "\" lies outside the project " + spec.confineTo +
                      " (a project reads only its own files)");
  }
  return path.string();
}

ShapeParts buildShapeParts(const ModelSpec& spec, MeshCache* cache) {
  ShapeParts out;
  MeshCache local;
  MeshCache& meshes = cache ? *cache : local;
  for (std::size_t b = 0; b < spec.bodies.size(); ++b) {
    const BodySpec& body = spec.bodies[b];
    for (std::size_t k = 0; k < body.shapes.size(); ++k) {
      const ShapeSpec& shape = body.shapes[k];
      ShapePart part;
      part.body = static_cast<int>(b);
      part.shape = static_cast<int>(k);
      part.colour = shape.colour.value_or(kDefaultShapeColour);
      part.opacity = shape.opacity;
      try {
        checkShape(shape, shapeWhere(body, k));
        if (shape.type == "mesh") {
          const std::string path = resolveShapeFile(spec, shape.file);
          part.mesh = *meshes.get(path, shape.scale, &part.fileTriangles);
          if (part.mesh.triangleCount() < part.fileTriangles)
            out.notes.push_back(shapeWhere(body, k) + ": mesh \"" + shape.file + "\" has " +
                                std::to_string(part.fileTriangles) + " triangles; drawn with " +
                                std::to_string(part.mesh.triangleCount()) + " (decimated above " +
                                std::to_string(kMaxDisplayTriangles) + ")");
        } else {
          part.mesh = primitiveMesh(shape);
        }
      } catch (const Error& e) {
        out.notes.push_back(shapeWhere(body, k) + " keeps its default drawing: " + e.what());
        continue;
      }
      placeShapeMesh(part.mesh, shape);
      out.parts.push_back(std::move(part));
    }
  }
  return out;
}

}  // namespace mbdrom
