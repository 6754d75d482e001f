#pragma once
// The workbench states that several GUI test files start from.

#include "app/files/autosave.h"
#include "app/files/project_files.h"
#include "app/job_runner.h"
#include "app/main_window.h"
#include "app/project_document.h"
#include "app/runs/reference_runs.h"
#include "engine/dynamics/simulation.h"
#include "engine/model/model.h"
#include "gui_helpers.h"
#include "tests/test_paths.h"

#include <catch2/catch.hpp>

#include <QDir>
#include <QString>

namespace mbdrom::test {

inline const QString kMacPherson = QString::fromStdString(sourcePath("/resources/examples/macpherson.json"));

/// Folder `name` of the test output folder, removed.
inline QString freshOutputPath(const QString& name) {
  QDir dir(QString::fromStdString(outputPath("/")) + name);
  dir.removeRecursively();
  return dir.absolutePath();
}

/// Folder `name` of the test output folder, created empty.
inline QString freshOutputDir(const QString& name) {
  const QString path = freshOutputPath(name);
  QDir().mkpath(path);
  return path;
}

/// Opens `model` and runs its load case "train" for tEnd seconds (1 ms steps), waiting for the run.
inline void openWithRun(app::MainWindow& window, double tEnd, const QString& model = kMacPherson,
                        double outputDt = 0.005) {
  REQUIRE(window.files()->openModel(model));
  RunOptions o;
  o.loadCase = window.model()->findLoadCase("train");
  o.tEnd = tEnd;
  o.integrator.dt = 1e-3;
  o.outputDt = outputDt;
  window.runs()->runSimulation(o);
  REQUIRE(
      waitFor([&] { return window.document()->runs().size() == 1 && !window.jobRunner()->busy(); }, 60000));
}

}  // namespace mbdrom::test
