#include "engine/geometry/mesh_file.h"

#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/core/number_text.h"
#include "engine/model/model_file.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

namespace mbdrom {

namespace {

// The model format's number rule, for mesh coordinates as for every number of a mechanism.
const std::string beyondRange = " has a coordinate beyond the model format's range (|value| <= 1e15 m)";

// Shares coincident vertices (STL repeats them per facet).
class VertexPool {
 public:
  explicit VertexPool(TriangleMesh& mesh) : mesh_(mesh) {}
  std::uint32_t add(const Eigen::Vector3d& v) {
    const auto [it, added] = index_.emplace(std::array<double, 3>{v.x(), v.y(), v.z()},
                                            static_cast<std::uint32_t>(mesh_.vertices.size()));
    if (added) mesh_.vertices.push_back(v);
    return it->second;
  }

 private:
  TriangleMesh& mesh_;
  std::map<std::array<double, 3>, std::uint32_t> index_;
};

void checkScale(double scale, const std::string& source) {
  if (!std::isfinite(scale) || !(scale > 0.0))
    throw FileError(source + ": the mesh's scale must be a positive number, got " +
                    shortestNumberText(scale));
}

void finish(TriangleMesh& mesh, const std::string& source) {
  if (mesh.triangles.empty()) throw FileError(source + ": the mesh has no triangles");
  mesh.computeNormals();
}

float floatAt(std::string_view bytes, std::size_t at) {
  float x = 0.0f;
  std::memcpy(&x, bytes.data() + at, sizeof x);  // little-endian, as STL is, on every platform we build
  return x;
}

TriangleMesh parseBinaryStl(std::string_view bytes, double scale, const std::string& source,
                            std::uint32_t count) {
  if (count > kMaxMeshTriangles)
    throw FileError(source + ": " + std::to_string(count) + " triangles, more than the " +
                    std::to_string(kMaxMeshTriangles) + " a mesh may have");
  TriangleMesh mesh;
  VertexPool pool(mesh);
  mesh.triangles.reserve(count);
  for (std::uint32_t k = 0; k < count; ++k) {
    const std::size_t at = 84 + 50 * static_cast<std::size_t>(k) + 12;  // past the facet's normal
    std::array<std::uint32_t, 3> t{};
    for (int c = 0; c < 3; ++c) {
      const Eigen::Vector3d v(floatAt(bytes, at + 12 * c), floatAt(bytes, at + 12 * c + 4),
                              floatAt(bytes, at + 12 * c + 8));
      if (!v.allFinite())
        throw FileError(source + ": triangle " + std::to_string(k + 1) + " has a non-finite coordinate");
      if (!((v * scale).cwiseAbs().maxCoeff() <= kMaxModelNumber))
        throw FileError(source + ": triangle " + std::to_string(k + 1) + beyondRange);
      t[static_cast<std::size_t>(c)] = pool.add(v * scale);
    }
    mesh.triangles.push_back(t);
  }
  finish(mesh, source);
  return mesh;
}

// Splits text into whitespace-separated tokens, keeping each token's line.
struct Tokens {
  std::string_view text;
  std::size_t at = 0;
  int line = 1;
  bool next(std::string_view& token) {
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) {
      if (text[at] == '\n') ++line;
      ++at;
    }
    if (at >= text.size()) return false;
    const std::size_t start = at;
    while (at < text.size() && !std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    token = text.substr(start, at - start);
    return true;
  }
};

TriangleMesh parseAsciiStl(std::string_view text, double scale, const std::string& source) {
  TriangleMesh mesh;
  VertexPool pool(mesh);
  Tokens tokens{text};
  std::string_view token;
  auto fail = [&](const std::string& what) {
    throw FileError(source + ":" + std::to_string(tokens.line) + ": " + what);
  };
  auto expect = [&](std::string_view word, const char* where) {
    if (!tokens.next(token)) fail(std::string("the file ends inside ") + where + " (truncated)");
    if (token != word) fail("expected \"" + std::string(word) + "\", got \"" + std::string(token) + "\"");
  };
  auto number = [&](const char* where) {
    if (!tokens.next(token)) fail(std::string("the file ends inside ") + where + " (truncated)");
    const std::optional<double> x = parseWholeNumber(token);
    if (!x) fail("\"" + std::string(token) + "\" is not a number");
    if (!std::isfinite(*x)) fail("a non-finite coordinate");
    if (!(std::abs(*x * scale) <= kMaxModelNumber)) fail(beyondRange.substr(1));
    return *x;
  };
  tokens.next(token);  // "solid"
  // The solid's name runs to the end of its line.
  while (tokens.at < text.size() && text[tokens.at] != '\n') ++tokens.at;
  for (;;) {
    if (!tokens.next(token)) fail("the file ends without \"endsolid\" (truncated)");
    if (token == "endsolid") break;
    if (token != "facet") fail("expected \"facet\" or \"endsolid\", got \"" + std::string(token) + "\"");
    if (mesh.triangles.size() >= kMaxMeshTriangles)
      fail("more than the " + std::to_string(kMaxMeshTriangles) + " triangles a mesh may have");
    expect("normal", "a facet");
    for (int c = 0; c < 3; ++c) number("a facet");
    expect("outer", "a facet");
    expect("loop", "a facet");
    std::array<std::uint32_t, 3> t{};
    for (int c = 0; c < 3; ++c) {
      expect("vertex", "a facet");
      Eigen::Vector3d v;
      for (int d = 0; d < 3; ++d) v(d) = number("a facet");
      t[static_cast<std::size_t>(c)] = pool.add(v * scale);
    }
    expect("endloop", "a facet");
    expect("endfacet", "a facet");
    mesh.triangles.push_back(t);
  }
  finish(mesh, source);
  return mesh;
}

bool startsWithSolid(std::string_view bytes) {
  std::size_t at = 0;
  while (at < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[at]))) ++at;
  return bytes.substr(at, 5) == "solid";
}

// An OBJ face index: 1-based, or negative counting back from the last vertex read.
std::uint32_t objIndex(std::string_view token, std::size_t vertexCount, const std::string& where) {
  const std::string_view first = token.substr(0, token.find('/'));
  long long i = 0;
  const auto res = std::from_chars(first.data(), first.data() + first.size(), i);
  if (first.empty() || res.ec != std::errc() || res.ptr != first.data() + first.size())
    throw FileError(where + ": \"" + std::string(token) + "\" is not a vertex index");
  const long long resolved = i > 0 ? i - 1 : static_cast<long long>(vertexCount) + i;
  if (i == 0 || resolved < 0 || resolved >= static_cast<long long>(vertexCount))
    throw FileError(where + ": vertex index " + std::to_string(i) + " is out of range (" +
                    std::to_string(vertexCount) + " vertices so far)");
  return static_cast<std::uint32_t>(resolved);
}

}  // namespace

TriangleMesh parseStl(std::string_view bytes, double scale, const std::string& source) {
  checkScale(scale, source);
  if (bytes.size() >= 84) {
    std::uint32_t count = 0;
    std::memcpy(&count, bytes.data() + 80, sizeof count);
    if (bytes.size() == 84 + 50 * static_cast<std::uint64_t>(count))
      return parseBinaryStl(bytes, scale, source, count);
    if (!startsWithSolid(bytes)) {
      if (bytes.size() < 84 + 50 * static_cast<std::uint64_t>(count))
        throw FileError(source + ": not an STL file, or a truncated binary STL: its header gives " +
                        std::to_string(count) + " triangles (" +
                        std::to_string(84 + 50 * static_cast<std::uint64_t>(count)) +
                        " bytes), the file has " + std::to_string(bytes.size()));
      throw FileError(source +
                      ": not an STL file (neither \"solid\" text nor a binary STL of the size its "
                      "header gives)");
    }
  }
  if (!startsWithSolid(bytes)) throw FileError(source + ": not an STL file (too short, and no \"solid\")");
  return parseAsciiStl(bytes, scale, source);
}

TriangleMesh parseObj(std::string_view text, double scale, const std::string& source) {
  checkScale(scale, source);
  TriangleMesh mesh;
  std::size_t lineStart = 0;
  int line = 0;
  while (lineStart < text.size()) {
    std::size_t end = text.find('\n', lineStart);
    if (end == std::string_view::npos) end = text.size();
    std::string_view row = text.substr(lineStart, end - lineStart);
    lineStart = end + 1;
    ++line;
    if (row.find('\0') != std::string_view::npos)
      throw FileError(source + ":" + std::to_string(line) + ": not a Wavefront OBJ file (binary data)");
    Tokens tokens{row};
    std::string_view keyword;
    if (!tokens.next(keyword) || keyword[0] == '#') continue;
    const std::string where = source + ":" + std::to_string(line);
    if (keyword == "v") {
      Eigen::Vector3d v;
      for (int d = 0; d < 3; ++d) {
        std::string_view token;
        if (!tokens.next(token)) throw FileError(where + ": a vertex needs x y z");
        const std::optional<double> x = parseWholeNumber(token);
        if (!x) throw FileError(where + ": \"" + std::string(token) + "\" is not a number");
        if (!std::isfinite(*x)) throw FileError(where + ": a non-finite coordinate");
        if (!(std::abs(*x * scale) <= kMaxModelNumber)) throw FileError(where + ":" + beyondRange);
        v(d) = *x * scale;
      }
      if (mesh.vertices.size() >= 3 * kMaxMeshTriangles)
        throw FileError(where + ": more vertices than a mesh may have");
      mesh.vertices.push_back(v);
    } else if (keyword == "f") {
      std::vector<std::uint32_t> corners;
      std::string_view token;
      while (tokens.next(token)) {
        if (corners.size() >= 1000) throw FileError(where + ": a face of more than 1000 corners");
        corners.push_back(objIndex(token, mesh.vertices.size(), where));
      }
      if (corners.size() < 3) throw FileError(where + ": a face needs at least 3 corners");
      for (std::size_t k = 1; k + 1 < corners.size(); ++k) {
        if (mesh.triangles.size() >= kMaxMeshTriangles)
          throw FileError(where + ": more than the " + std::to_string(kMaxMeshTriangles) +
                          " triangles a mesh may have");
        mesh.triangles.push_back({corners[0], corners[k], corners[k + 1]});
      }
    } else if (keyword != "vn" && keyword != "vt" && keyword != "vp" && keyword != "g" && keyword != "o" &&
               keyword != "s" && keyword != "usemtl" && keyword != "mtllib" && keyword != "l" &&
               keyword != "p") {
      throw FileError(where + ": not a Wavefront OBJ statement: \"" + std::string(keyword.substr(0, 40)) +
                      "\"");
    }
  }
  finish(mesh, source);
  return mesh;
}

namespace {

std::string lowerExtension(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension;
}

// ".stl" or ".obj" (any case) of `path`; FileError otherwise.
std::string meshExtension(const std::string& path) {
  const std::string extension = lowerExtension(path);
  if (extension != ".stl" && extension != ".obj") throw FileError(path + ": a mesh is an .stl or .obj file");
  return extension;
}

}  // namespace

bool hasMeshExtension(const std::string& path) {
  const std::string extension = lowerExtension(path);
  return extension == ".stl" || extension == ".obj";
}

TriangleMesh parseMeshFile(std::string_view bytes, const std::string& path, double scale) {
  return meshExtension(path) == ".stl" ? parseStl(bytes, scale, path) : parseObj(bytes, scale, path);
}

TriangleMesh readMeshFile(const std::string& path, double scale) {
  (void)meshExtension(path);  // before reading anything
  const std::string bytes = readRegularFile(path, kMaxMeshFileBytes, "mesh file");
  return parseMeshFile(bytes, path, scale);
}

}  // namespace mbdrom
