// A frame of a ParaView export, written by the engine (no VTK there), read back
// by VTK's own XML PolyData reader: what ParaView will see.

#include "engine/data/paraview_export.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model_file.h"

#include <catch2/catch.hpp>

#include <vtkCellArray.h>
#include <vtkDataArray.h>
#include <vtkFieldData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkXMLPolyDataReader.h>

#include <filesystem>

using namespace mbdrom;

TEST_CASE("VTK's XML reader reads a frame of a ParaView export back", "[paraview]") {
  const Model model = readModel(MBDROM_SOURCE_DIR "/resources/examples/macpherson.json");
  RunOptions o;
  o.loadCase = model.requireLoadCase("train");
  o.tEnd = 0.05;
  o.integrator.dt = 1e-3;
  o.outputDt = 0.01;
  TrajectoryRecorder recorder;
  simulate(model, o, recorder);
  REQUIRE(recorder.samples().size() >= 6);
  const std::string dir = MBDROM_TEST_OUTPUT_DIR "/paraview_read_macpherson";
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

  // 7 basic points and the knuckle's marker; the strut (one point) as a vertex;
  // lca, knuckle and tie rod as polylines and the coilover as a line.
  const auto points = static_cast<vtkIdType>(model.spec().points.size() + model.markers().size());
  CHECK(data->GetNumberOfPoints() == points);
  CHECK(points == 8);
  CHECK(data->GetNumberOfVerts() == 1);
  CHECK(data->GetNumberOfLines() == 4);

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
  CHECK(fixed->GetNumberOfTuples() == points);
  CHECK(fixed->GetTuple1(ball) == 0.0);
  vtkDataArray* time = data->GetFieldData()->GetArray("TIME");
  REQUIRE(time != nullptr);
  CHECK(time->GetTuple1(0) == Approx(s.t).margin(1e-15));
}
