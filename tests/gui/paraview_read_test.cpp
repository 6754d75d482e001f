// A frame of a ParaView export, written by the engine (no VTK there), read back
// by VTK's own XML PolyData reader: what ParaView will see.

#include "engine/data/paraview_export.h"
#include "engine/dynamics/simulation.h"
#include "engine/geometry/body_pose.h"
#include "engine/geometry/shape_mesh.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkFieldData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkXMLPolyDataReader.h>

#include <filesystem>
#include "tests/test_paths.h"

using namespace mbdrom;

TEST_CASE("VTK's XML reader reads a frame of a ParaView export back", "[paraview]") {
  const Model model = readModel(mbdrom::test::sourcePath("/resources/examples/macpherson.json"));
  RunOptions o;
  o.loadCase = model.requireLoadCase("train");
  o.tEnd = 0.05;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  REQUIRE(recorder.samples().size() >= 6);
  const std::string dir = mbdrom::test::outputPath("/paraview_read_macpherson");
  std::filesystem::remove_all(dir);
  const ParaviewExportResult result = exportParaview(model, recorder.samples(), dir);
  REQUIRE(result.frames == static_cast<int>(recorder.samples().size()));

  vtkNew<vtkXMLPolyDataReader> reader;
  const std::string frame = dir + "/frame_000005.vtp";
  REQUIRE(reader->CanReadFile(frame.c_str()) == 1);
  reader->SetFileName(frame.c_str());
  reader->Update();
  vtkPolyData* data = reader->GetOutput();
  REQUIRE(data != nullptr);

  // 7 basic points and the knuckle's marker, then the shapes' vertices; the strut
  // (one point) as a vertex; lca, knuckle and tie rod as polylines and the coilover
  // as a line; the shapes' triangles as polygons.
  const ShapeParts shapes = buildShapeParts(model.spec());
  REQUIRE(shapes.notes.empty());
  vtkIdType shapeVertices = 0, shapeTriangles = 0;
  for (const ShapePart& part : shapes.parts) {
    shapeVertices += static_cast<vtkIdType>(part.mesh.vertices.size());
    shapeTriangles += static_cast<vtkIdType>(part.mesh.triangleCount());
  }
  const auto points = static_cast<vtkIdType>(model.spec().points.size() + model.markers().size());
  CHECK(points == 8);
  CHECK(data->GetNumberOfPoints() == points + shapeVertices);
  CHECK(data->GetNumberOfVerts() == 1);
  CHECK(data->GetNumberOfLines() == 4);
  CHECK(data->GetNumberOfPolys() == shapeTriangles);
  CHECK(shapeTriangles > 1000);
  // The first shape's first vertex where the body's pose puts it at this frame.
  const BodyPoses poses(model);
  const Eigen::Vector3d corner =
      poses.pose(model, recorder.samples()[5].q, shapes.parts[0].body) * shapes.parts[0].mesh.vertices[0];
  double at[3];
  data->GetPoint(points, at);
  for (int c = 0; c < 3; ++c) CHECK(at[c] == Approx(corner(c)).margin(1e-12));
  vtkDataArray* colour = data->GetCellData()->GetArray("colour");
  REQUIRE(colour != nullptr);
  CHECK(colour->GetNumberOfComponents() == 3);
  CHECK(colour->GetNumberOfTuples() == data->GetNumberOfCells());

  const Sample& s = recorder.samples()[5];
  const int ball = model.findPoint("BJ");
  REQUIRE(ball >= 0);
  const Eigen::Vector3d expected = pointPosition(model, s.q, ball);
  double read[3];
  data->GetPoint(ball, read);
  for (int c = 0; c < 3; ++c) CHECK(read[c] == Approx(expected(c)).margin(1e-12));
  CHECK((expected - model.spec().points[static_cast<std::size_t>(ball)].position).norm() > 0.0);  // it moved

  vtkDataArray* fixed = data->GetPointData()->GetArray("fixed");
  REQUIRE(fixed != nullptr);
  CHECK(fixed->GetNumberOfTuples() == points + shapeVertices);
  CHECK(fixed->GetTuple1(ball) == 0.0);
  vtkDataArray* time = data->GetFieldData()->GetArray("TIME");
  REQUIRE(time != nullptr);
  CHECK(time->GetTuple1(0) == Approx(s.t).margin(1e-15));
}
