// libFuzzer harness: any bytes as an STL file and as an OBJ file must read as
// a mesh or throw an mbdrom::Error, never crash, hang or leak; a mesh that
// reads has finite vertices, valid indices and unit (or zero) normals, and its
// decimation for display succeeds.
#include "engine/core/error.h"
#include "engine/geometry/mesh_file.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

void check(const mbdrom::TriangleMesh& mesh) {
  for (const Eigen::Vector3d& v : mesh.vertices)
    if (!v.allFinite()) std::abort();
  for (const auto& t : mesh.triangles)
    for (std::uint32_t i : t)
      if (i >= mesh.vertices.size()) std::abort();
  for (const Eigen::Vector3d& n : mesh.normals)
    if (!(std::abs(n.norm() - 1.0) < 1e-9 || n.norm() == 0.0)) std::abort();
  (void)mbdrom::decimated(mesh, 64);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (1u << 20)) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    check(mbdrom::parseStl(bytes, 1.0, "fuzz.stl"));
  } catch (const mbdrom::Error&) {
  }
  try {
    check(mbdrom::parseObj(bytes, 0.001, "fuzz.obj"));
  } catch (const mbdrom::Error&) {
  }
  return 0;
}
