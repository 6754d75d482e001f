// What a user of the workbench waits for, on the MacPherson example in a shown window:
//  - BM_WorkbenchEdit: one edit (a hardpoint moved by 1 mm and back, alternately) as the
//    property editor makes it: the document's undoable edit, the Model rebuilt and checked, the
//    tree, the property page, the hardpoint table, the 3D view and the live mobility refreshed;
//  - BM_WorkbenchFrame: one frame of a run played in the 3D view: the mechanism moved to the
//    next sample of a 0.5 s run under "train" and rendered (read back, so the render is done).
// Counter us_per_op: microseconds per edit or frame (bench/ab_compare.sh compares two builds).
// Run under a display (xvfb-run) with Mesa's software OpenGL, as the GUI tests do:
//   xvfb-run -a taskset -c 0 build/release/bench/mbdrom_workbench_bench
#include "app/main_window.h"
#include "app/project_document.h"
#include "engine/dynamics/simulation.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"
#include "widgets/scene_view.h"

#include <benchmark/benchmark.h>

#include <QApplication>
#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>

#include <string>
#include <vector>

namespace {

mbdrom::app::MainWindow* window = nullptr;

std::string macPhersonPath() {
  return std::string(MBDROM_SOURCE_DIR) + "/resources/examples/macpherson.json";
}

void loadMacPherson() {
  window->document()->newFromSpec(mbdrom::readModelSpec(macPhersonPath()), QString());
  QCoreApplication::processEvents();
}

void BM_WorkbenchEdit(benchmark::State& state) {
  loadMacPherson();
  const mbdrom::ModelSpec base = window->document()->spec();
  std::size_t moved = 0;
  while (moved < base.points.size() && base.points[moved].name != "T") ++moved;
  mbdrom::ModelSpec up = base;
  up.points.at(moved).position.z() += 1e-3;
  long long edits = 0;
  for (auto _ : state) {
    const QString refused = window->document()->edit(edits % 2 == 0 ? up : base, QStringLiteral("move T"));
    QCoreApplication::processEvents();
    if (!refused.isEmpty()) state.SkipWithError(refused.toStdString().c_str());
    ++edits;
  }
  state.counters["us_per_op"] = benchmark::Counter(static_cast<double>(edits) * 1e-6,
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel("edit");
}

void BM_WorkbenchFrame(benchmark::State& state) {
  loadMacPherson();
  const auto model = window->document()->model();
  mbdrom::RunOptions options;
  options.loadCase = model->findLoadCase("train");
  options.tEnd = 0.5;
  options.integrator.dt = 1e-3;
  options.outputDt = 0.01;
  mbdrom::TrajectoryRecorder run;
  mbdrom::simulate(*model, options, run);
  const std::vector<mbdrom::Sample>& samples = run.samples();
  mbdrom::widgets::SceneView* view = window->sceneView();
  long long frames = 0;
  for (auto _ : state) {
    view->updateConfiguration(*model, samples[static_cast<std::size_t>(frames) % samples.size()].q);
    benchmark::DoNotOptimize(view->grabFramebuffer());
    ++frames;
  }
  state.counters["us_per_op"] = benchmark::Counter(static_cast<double>(frames) * 1e-6,
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel("3D frame");
}

BENCHMARK(BM_WorkbenchEdit)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_WorkbenchFrame)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  // The settings and autosaves of this window stay out of the user's.
  QTemporaryDir home;
  qputenv("XDG_CONFIG_HOME", QFile::encodeName(home.path() + "/config"));
  qputenv("XDG_DATA_HOME", QFile::encodeName(home.path() + "/data"));
  qputenv("QT_QPA_PLATFORM", "xcb");
  qputenv("LIBGL_ALWAYS_SOFTWARE", "1");
  mbdrom::widgets::SceneView::setDefaultSurfaceFormat();
  QApplication::setApplicationName("mbdrom-workbench-bench");
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  mbdrom::app::MainWindow main;
  main.resize(1400, 900);
  main.show();
  window = &main;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
