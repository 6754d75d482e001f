// The goal: a 100,000-triangle mesh loads in under 1 s. A sphere of
// 100,000 triangles written as binary STL (5 MB), ASCII STL (~27 MB) and OBJ,
// read from disk by readMeshFile (vertices shared, normals computed), and its
// decimation to 20,000 triangles for display.
//   taskset -c 0 build/release/bench/mbdrom_bench --benchmark_filter=Mesh
#include "engine/geometry/mesh_file.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

constexpr int kRings = 250, kSegments = 200;  // 2 x 250 x 200 = 100,000 triangles

Eigen::Vector3f spherePoint(int i, int j) {
  const double theta = M_PI * i / kRings, phi = 2 * M_PI * j / kSegments;
  return Eigen::Vector3f(static_cast<float>(std::sin(theta) * std::cos(phi)),
                         static_cast<float>(std::sin(theta) * std::sin(phi)),
                         static_cast<float>(std::cos(theta)));
}

// Writes the sphere in `format` ("binary", "ascii", "obj") once per process; returns its path.
std::string sphereFile(const std::string& format) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("mbdrom_mesh_bench_" + std::to_string(::getpid()) + "_" +
                                                 format + (format == "obj" ? ".obj" : ".stl")))
          .string();
  if (std::filesystem::exists(path)) return path;
  // The files go when the benchmark ends.
  static std::vector<std::string> written;
  static const struct Cleanup {
    ~Cleanup() {
      for (const std::string& f : written) std::filesystem::remove(f);
    }
  } cleanup;
  written.push_back(path);
  std::ofstream out(path, std::ios::binary);
  auto triangles = [](auto&& emit) {
    for (int i = 0; i < kRings; ++i)
      for (int j = 0; j < kSegments; ++j) {
        emit(spherePoint(i, j), spherePoint(i + 1, j), spherePoint(i + 1, j + 1));
        emit(spherePoint(i, j), spherePoint(i + 1, j + 1), spherePoint(i, j + 1));
      }
  };
  if (format == "binary") {
    out << std::string(80, ' ');
    const std::uint32_t count = 2 * kRings * kSegments;
    out.write(reinterpret_cast<const char*>(&count), 4);
    triangles([&](const Eigen::Vector3f& a, const Eigen::Vector3f& b, const Eigen::Vector3f& c) {
      const float zero[3] = {0, 0, 0};
      out.write(reinterpret_cast<const char*>(zero), 12);
      for (const Eigen::Vector3f* v : {&a, &b, &c}) out.write(reinterpret_cast<const char*>(v->data()), 12);
      out.write("\0\0", 2);
    });
  } else if (format == "ascii") {
    out << "solid sphere\n";
    char line[160];
    triangles([&](const Eigen::Vector3f& a, const Eigen::Vector3f& b, const Eigen::Vector3f& c) {
      out << "facet normal 0 0 0\n outer loop\n";
      for (const Eigen::Vector3f* v : {&a, &b, &c}) {
        std::snprintf(line, sizeof line, "  vertex %.9g %.9g %.9g\n", v->x(), v->y(), v->z());
        out << line;
      }
      out << " endloop\nendfacet\n";
    });
    out << "endsolid sphere\n";
  } else {
    char line[160];
    for (int i = 0; i <= kRings; ++i)
      for (int j = 0; j <= kSegments; ++j) {
        const Eigen::Vector3f p = spherePoint(i, j);
        std::snprintf(line, sizeof line, "v %.9g %.9g %.9g\n", p.x(), p.y(), p.z());
        out << line;
      }
    auto index = [](int i, int j) { return i * (kSegments + 1) + j + 1; };
    for (int i = 0; i < kRings; ++i)
      for (int j = 0; j < kSegments; ++j) {
        out << "f " << index(i, j) << " " << index(i + 1, j) << " " << index(i + 1, j + 1) << "\n";
        out << "f " << index(i, j) << " " << index(i + 1, j + 1) << " " << index(i, j + 1) << "\n";
      }
  }
  return path;
}

void BM_MeshRead100k(benchmark::State& state, const std::string& format) {
  const std::string path = sphereFile(format);
  std::size_t triangles = 0;
  for (auto _ : state) {
    const mbdrom::TriangleMesh mesh = mbdrom::readMeshFile(path);
    triangles = mesh.triangleCount();
    benchmark::DoNotOptimize(mesh.vertices.data());
  }
  state.counters["triangles"] = static_cast<double>(triangles);
  state.counters["MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
}
BENCHMARK_CAPTURE(BM_MeshRead100k, binary_stl, std::string("binary"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_MeshRead100k, ascii_stl, std::string("ascii"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_MeshRead100k, obj, std::string("obj"))->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_MeshDecimate100kTo20k(benchmark::State& state) {
  const mbdrom::TriangleMesh mesh = mbdrom::readMeshFile(sphereFile("binary"));
  std::size_t triangles = 0;
  for (auto _ : state) triangles = mbdrom::decimated(mesh, 20000).triangleCount();
  state.counters["triangles"] = static_cast<double>(triangles);
}
BENCHMARK(BM_MeshDecimate100kTo20k)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
