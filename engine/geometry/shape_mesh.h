#pragma once
/// @file
/// The triangles of a model's display shapes, in reference coordinates:
/// boxes, cylinders and spheres tessellated here, meshes read from their files
/// (engine/geometry/mesh_file.h). The 3D view draws them through each body's
/// pose (engine/geometry/body_pose.h); the ParaView export writes them.

#include "engine/geometry/triangle_mesh.h"
#include "engine/model/model_spec.h"

#include <Eigen/Core>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mbdrom {

/// The triangles of a box, cylinder or sphere in the shape's own frame [m]
/// (centred on its origin; a cylinder along z). Throws ModelError for a mesh
/// shape or a bad size (body_shape.h: checkShape).
TriangleMesh primitiveMesh(const ShapeSpec& shape);

/// Mesh files already read, by path and scale; a file is read again when its
/// size or modification time changed. Not thread-safe: one per front end.
class MeshCache {
 public:
  /// The mesh of `path` at `scale` [m per unit], decimated for display
  /// (kMaxDisplayTriangles); `fileTriangles` gets the file's own count.
  /// Throws FileError as readMeshFile.
  std::shared_ptr<const TriangleMesh> get(const std::string& path, double scale,
                                          std::size_t* fileTriangles = nullptr);

 private:
  struct Entry {
    std::uintmax_t size = 0;
    long long modified = 0;
    std::shared_ptr<const TriangleMesh> mesh;
    std::size_t fileTriangles = 0;
    std::string error;
  };
  std::map<std::pair<std::string, double>, Entry> entries_;
};

/// One shape of one body, ready to draw.
struct ShapePart {
  int body = 0;                   ///< index into spec.bodies
  int shape = 0;                  ///< index into the body's shapes
  TriangleMesh mesh;              ///< reference coordinates [m], decimated (kMaxDisplayTriangles)
  Eigen::Vector3d colour;         ///< red, green, blue in [0, 1]
  double opacity = 1.0;           ///< [0, 1]
  std::size_t fileTriangles = 0;  ///< a mesh file's triangle count before decimation (0 otherwise)
};

/// Every shape of `spec` that can be drawn, and why the others cannot.
struct ShapeParts {
  std::vector<ShapePart> parts;  ///< body by body, each body's shapes in order
  /// One message per shape left out, naming the body and the file (a mesh that
  /// is missing, unreadable, outside the project, empty, ...), and per mesh decimated.
  std::vector<std::string> notes;
};

/// Builds the parts of every body's shapes. Mesh files resolve relative to
/// spec.directory, and only inside spec.confineTo when it is set. A shape that
/// cannot be drawn is left out with a note: its body keeps its default drawing.
/// `cache` (optional) keeps meshes between calls.
ShapeParts buildShapeParts(const ModelSpec& spec, MeshCache* cache = nullptr);

/// The path a mesh shape's file resolves to (spec.directory, spec.confineTo).
/// Throws FileError when it lies outside spec.confineTo.
std::string resolveShapeFile(const ModelSpec& spec, const std::string& file);

}  // namespace mbdrom
