#pragma once
// The VTK building blocks a mechanism is drawn with: glyphs at moving points,
// tubes along lines, and a body's display shape moved by a matrix. Included
// only by the scene's VTK sources (tests/check_view_deps.cmake).

#include "engine/geometry/triangle_mesh.h"

#include <Eigen/Core>

#include <vtkActor.h>
#include <vtkAlgorithm.h>
#include <vtkCellArray.h>
#include <vtkDoubleArray.h>
#include <vtkMatrix4x4.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkTransformPolyDataFilter.h>
#include <vtkTubeFilter.h>

#include <cstddef>
#include <vector>

namespace mbdrom::widgets {

// A set of glyphs at moving locations, optionally oriented.
struct GlyphSet {
  vtkNew<vtkPolyData> data;
  vtkNew<vtkPoints> locations;
  vtkNew<vtkDoubleArray> directions;
  vtkNew<vtkActor> actor;
  std::vector<int> at;  // drawn point of each glyph

  void build(vtkAlgorithm* source, bool oriented, double scale = 1.0);
  void resize(std::size_t n);
  void modified();
};

// Lines through shared or own points, drawn as tubes.
struct TubeSet {
  vtkNew<vtkPolyData> data;
  vtkNew<vtkCellArray> lines;
  vtkNew<vtkTubeFilter> tubes;
  vtkNew<vtkActor> actor;

  void build(vtkPoints* points, double radius, int sides);
};

// A body's display shape: its triangles in reference coordinates, moved by the
// actor's matrix (the body's pose), so a frame changes 16 numbers, not the mesh.
struct ShapeActor {
  vtkNew<vtkPolyData> data;
  vtkNew<vtkActor> actor;
  vtkNew<vtkMatrix4x4> matrix;
  int body = 0;
  Eigen::Vector3d colour;
  double opacity = 1.0;

  void build(const TriangleMesh& mesh);
};

// `source`'s output turned by `rotateZ` degrees about z, so that a glyph made
// along another axis points along x.
vtkSmartPointer<vtkTransformPolyDataFilter> alongX(vtkAlgorithm* source, double rotateZ);

}  // namespace mbdrom::widgets
