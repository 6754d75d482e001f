#pragma once
/// @file
/// A triangle mesh for display: a body's shape read from an STL or Wavefront
/// OBJ file (engine/geometry/mesh_file.h), in the file's coordinates times its
/// scale. The engine draws nothing; the 3D view and the ParaView export do.

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <array>
#include <cstdint>
#include <vector>

namespace mbdrom {

/// Triangles over shared vertices, each with its unit normal (from the
/// vertices' winding: (b - a) x (c - a), counter-clockwise seen from outside).
struct TriangleMesh {
  std::vector<Eigen::Vector3d> vertices;                ///< [m]
  std::vector<std::array<std::uint32_t, 3>> triangles;  ///< vertex indices
  std::vector<Eigen::Vector3d> normals;                 ///< one per triangle, unit [-]

  std::size_t triangleCount() const { return triangles.size(); }
  /// Axis-aligned bounds of the vertices [m] (empty box for an empty mesh).
  Eigen::AlignedBox3d bounds() const;
  /// Recomputes every normal from the vertices.
  void computeNormals();
};

/// The display size above which a mesh is decimated: a body drawn with more
/// triangles than this costs frame rate without showing more at screen size.
inline constexpr std::size_t kMaxDisplayTriangles = 200000;

/// A mesh with at most `maxTriangles` triangles (the mesh itself when it has
/// no more): vertex clustering on a uniform grid over its bounds (Rossignac &
/// Borrel 1993), the grid coarsened until the count fits; triangles whose
/// corners fall in one cell are dropped, and so are repeated ones.
TriangleMesh decimated(const TriangleMesh& mesh, std::size_t maxTriangles = kMaxDisplayTriangles);

}  // namespace mbdrom
