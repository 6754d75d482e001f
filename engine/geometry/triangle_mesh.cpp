#include "engine/geometry/triangle_mesh.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

namespace mbdrom {

Eigen::AlignedBox3d TriangleMesh::bounds() const {
  Eigen::AlignedBox3d box;
  for (const Eigen::Vector3d& v : vertices) box.extend(v);
  return box;
}

void TriangleMesh::computeNormals() {
  normals.resize(triangles.size());
  for (std::size_t k = 0; k < triangles.size(); ++k) {
    const auto& t = triangles[k];
    const Eigen::Vector3d n = (vertices[t[1]] - vertices[t[0]]).cross(vertices[t[2]] - vertices[t[0]]);
    const double length = n.norm();
    normals[k] = length > 0.0 ? Eigen::Vector3d(n / length) : Eigen::Vector3d::Zero();
  }
}

TriangleMesh decimated(const TriangleMesh& mesh, std::size_t maxTriangles) {
  if (mesh.triangleCount() <= maxTriangles || mesh.vertices.empty()) return mesh;
  const Eigen::AlignedBox3d box = mesh.bounds();
  const Eigen::Vector3d extent = box.sizes().cwiseMax(1e-12);
  // Start near the cell count that would give about maxTriangles for a closed surface.
  double cellsPerSide = std::max(2.0, std::sqrt(static_cast<double>(maxTriangles) / 2.0));
  for (;;) {
    const double cell = extent.maxCoeff() / cellsPerSide;
    const auto index = [&](const Eigen::Vector3d& v) {
      const Eigen::Vector3d u = (v - box.min()) / cell;
      const auto i = static_cast<std::uint64_t>(std::max(0.0, std::floor(u.x())));
      const auto j = static_cast<std::uint64_t>(std::max(0.0, std::floor(u.y())));
      const auto k = static_cast<std::uint64_t>(std::max(0.0, std::floor(u.z())));
      return (i << 42) ^ (j << 21) ^ k;
    };
    std::unordered_map<std::uint64_t, std::uint32_t> cellVertex;
    std::vector<Eigen::Vector3d> sums;
    std::vector<double> counts;
    std::vector<std::uint32_t> map(mesh.vertices.size());
    for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
      const auto [it, added] =
          cellVertex.emplace(index(mesh.vertices[v]), static_cast<std::uint32_t>(sums.size()));
      if (added) {
        sums.emplace_back(Eigen::Vector3d::Zero());
        counts.push_back(0.0);
      }
      sums[it->second] += mesh.vertices[v];
      counts[it->second] += 1.0;
      map[v] = it->second;
    }
    TriangleMesh out;
    for (std::size_t c = 0; c < sums.size(); ++c) out.vertices.push_back(sums[c] / counts[c]);
    std::set<std::array<std::uint32_t, 3>> seen;
    for (const auto& t : mesh.triangles) {
      const std::array<std::uint32_t, 3> m{map[t[0]], map[t[1]], map[t[2]]};
      if (m[0] == m[1] || m[1] == m[2] || m[0] == m[2]) continue;
      std::array<std::uint32_t, 3> key = m;  // one triangle, whatever its starting corner
      std::rotate(key.begin(), std::min_element(key.begin(), key.end()), key.end());
      if (!seen.insert(key).second) continue;
      out.triangles.push_back(m);
    }
    if (out.triangleCount() <= maxTriangles || cellsPerSide <= 2.0) {
      out.computeNormals();
      return out;
    }
    cellsPerSide = std::max(2.0, cellsPerSide * 0.8);
  }
}

}  // namespace mbdrom
