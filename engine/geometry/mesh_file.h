#pragma once
/// @file
/// Mesh files for display shapes: STL (binary and ASCII) and Wavefront OBJ,
/// read by plain C++ (the engine has no VTK). STL has no units, so a shape
/// gives a scale (e.g. 0.001 for a file in millimetres).
///
/// Bad files throw FileError naming the file and what is wrong: not a mesh,
/// empty (no triangle), truncated (a binary STL shorter than its count says,
/// an ASCII facet or an OBJ face cut short), a non-finite coordinate, an OBJ
/// index out of range, or more than kMaxMeshTriangles triangles. Files above
/// kMaxMeshFileBytes and special files are refused before reading.

#include "engine/geometry/triangle_mesh.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace mbdrom {

inline constexpr std::uint64_t kMaxMeshFileBytes = 1ull << 30;  ///< 1 GiB
inline constexpr std::size_t kMaxMeshTriangles = 20000000;      ///< 20 million

/// A binary or ASCII STL file's content (binary when its size is 84 + 50 n for
/// the count n its header gives; ASCII when it starts with "solid" otherwise).
/// Coordinates times `scale`; coincident vertices are shared. `source` names it in messages.
TriangleMesh parseStl(std::string_view bytes, double scale, const std::string& source);
/// A Wavefront OBJ file's content: `v` vertices and `f` faces (indices 1-based
/// or negative from the end, `v/vt/vn` forms), polygons split into fans; other
/// statements (vn, vt, g, o, s, usemtl, mtllib, l, comments) are skipped.
TriangleMesh parseObj(std::string_view text, double scale, const std::string& source);
/// Whether `path` ends in .stl or .obj (any case).
bool hasMeshExtension(const std::string& path);
/// The content `bytes` of the mesh file `path`, parsed by its extension (.stl or .obj,
/// any case; another is refused).
TriangleMesh parseMeshFile(std::string_view bytes, const std::string& path, double scale = 1.0);
/// Reads an .stl or .obj file (by its extension, case-insensitive).
TriangleMesh readMeshFile(const std::string& path, double scale = 1.0);

}  // namespace mbdrom
