#include "widgets/scene_parts.h"

#include <vtkGlyph3DMapper.h>
#include <vtkPointData.h>
#include <vtkPolyDataMapper.h>
#include <vtkPolyDataNormals.h>
#include <vtkProperty.h>
#include <vtkTransform.h>

namespace mbdrom::widgets {

void GlyphSet::build(vtkAlgorithm* source, bool oriented, double scale) {
  locations->SetDataTypeToDouble();
  data->SetPoints(locations);
  vtkNew<vtkGlyph3DMapper> mapper;
  mapper->SetInputData(data);
  mapper->SetSourceConnection(source->GetOutputPort());
  if (oriented) {
    directions->SetName("direction");
    directions->SetNumberOfComponents(3);
    data->GetPointData()->AddArray(directions);
    mapper->SetOrientationArray("direction");
    mapper->SetOrientationModeToDirection();
  }
  mapper->SetScaleFactor(scale);
  mapper->SetScaleModeToNoDataScaling();
  mapper->ScalingOn();
  actor->SetMapper(mapper);
}

void GlyphSet::resize(std::size_t n) {
  locations->SetNumberOfPoints(static_cast<vtkIdType>(n));
  directions->SetNumberOfTuples(static_cast<vtkIdType>(n));
}

void GlyphSet::modified() {
  locations->Modified();
  directions->Modified();
  data->Modified();
}

void TubeSet::build(vtkPoints* points, double radius, int sides) {
  data->SetPoints(points);
  data->SetLines(lines);
  tubes->SetInputData(data);
  tubes->SetRadius(radius);
  tubes->SetNumberOfSides(sides);
  vtkNew<vtkPolyDataMapper> mapper;
  mapper->SetInputConnection(tubes->GetOutputPort());
  mapper->ScalarVisibilityOff();
  actor->SetMapper(mapper);
}

vtkSmartPointer<vtkTransformPolyDataFilter> alongX(vtkAlgorithm* source, double rotateZ) {
  vtkNew<vtkTransform> transform;
  transform->RotateZ(rotateZ);
  auto filter = vtkSmartPointer<vtkTransformPolyDataFilter>::New();
  filter->SetInputConnection(source->GetOutputPort());
  filter->SetTransform(transform);
  return filter;
}

void ShapeActor::build(const TriangleMesh& mesh) {
  vtkNew<vtkPoints> points;
  points->SetDataTypeToDouble();
  points->SetNumberOfPoints(static_cast<vtkIdType>(mesh.vertices.size()));
  for (std::size_t k = 0; k < mesh.vertices.size(); ++k)
    points->SetPoint(static_cast<vtkIdType>(k), mesh.vertices[k].data());
  vtkNew<vtkCellArray> polys;
  polys->AllocateExact(static_cast<vtkIdType>(mesh.triangleCount()),
                       3 * static_cast<vtkIdType>(mesh.triangleCount()));
  for (const auto& t : mesh.triangles) {
    const vtkIdType ids[3] = {t[0], t[1], t[2]};
    polys->InsertNextCell(3, ids);
  }
  data->SetPoints(points);
  data->SetPolys(polys);
  // Smooth shading on round surfaces, sharp edges where faces meet at more than 50 degrees.
  vtkNew<vtkPolyDataNormals> normals;
  normals->SetInputData(data);
  normals->SetFeatureAngle(50.0);
  normals->SplittingOn();
  normals
      ->ConsistencyOff();  // our meshes are consistently wound; a file's may not be, and is drawn two-sided
  normals->Update();
  vtkNew<vtkPolyDataMapper> mapper;
  mapper->SetInputConnection(normals->GetOutputPort());
  mapper->ScalarVisibilityOff();
  mapper->StaticOn();  // the data never changes; only the matrix does
  actor->SetMapper(mapper);
  actor->SetUserMatrix(matrix);
  actor->GetProperty()->SetSpecular(0.25);
  actor->GetProperty()->SetSpecularPower(30.0);
}

}  // namespace mbdrom::widgets
