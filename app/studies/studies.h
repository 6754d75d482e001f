#pragma once
// Designs of experiments and reduced-model studies in the workbench: Simulate ▸ Run Sweep (a
// design of experiments, its runs joining the project), Train ▸ Reduced-Model Study (the dialog),
// the study on the worker thread with its progress and cancel, the Study dock filling as
// candidates are scored, a candidate shown against the full model on its worst held-out point,
// and a candidate added to the project. The engine calls are the CLI's and Python's
// (runExperiment, runStudy).

#include "app/dock.h"
#include "app/workbench_context.h"
#include "engine/dynamics/run_options.h"
#include "engine/experiments/experiment_design.h"
#include "engine/study/study_plan.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>

class QAction;
class QDockWidget;
class QMenu;

namespace mbdrom {
class Model;
}

namespace mbdrom::app {

class ReferenceRuns;
class StudyPanel;
class Viewport;

class Studies : public QObject {
  Q_OBJECT
 public:
  /// Where the controller puts its parts (TrainDockPlacement; the dock hidden until a study runs).
  using Placement = TrainDockPlacement;
  /// A design's runs join the project through `runs`.
  Studies(const WorkbenchContext& wb, Viewport* viewport, ReferenceRuns* runs, const Placement& placement);

  QAction* studyAction() const { return action_; }
  /// Simulate ▸ Run Sweep: a design of experiments of the open mechanism.
  QAction* designAction() const { return designAction_; }
  StudyPanel* panel() const { return panel_; }
  QDockWidget* dock() const { return dock_; }
  void enableForProject(bool open);

  /// Opens the sweep dialog and runs the design it describes.
  void designDialog();
  /// Runs every row of a design of experiments (engine/experiments) on both cores; each finished
  /// run joins the project with the mechanism it ran on. Returns the job's id.
  int runDesign(const RunOptions& base, const ExperimentDesign& design);

  /// Opens the study dialog and starts the study it describes.
  void studyDialog();
  /// Starts a study of the open mechanism in `folder`; returns the job's id (-1: no mechanism).
  int start(const RunOptions& base, const ExperimentDesign& design, const StudyOptions& options,
            const QString& folder);
  /// Runs candidate `candidate` (index into the panel's rows) at its worst held-out point and plays
  /// it as a ghost over the full model's run there; returns the job's id (-1: nothing to show).
  int showCandidate(int candidate);
  /// Adds candidate `candidate`'s trained model to the project's models.
  void addCandidate(int candidate);

 signals:
  /// The study job ended (also cancelled or failed: what it finished is in the panel).
  void studyFinished();

 private:
  void createActions(const Placement& placement);
  QString proposedFolder() const;

  struct Request {
    std::shared_ptr<const Model> model;
    RunOptions base;
    ExperimentDesign design;
    StudyOptions options;
    QString folder;
  };

  WorkbenchContext wb_;
  Viewport* viewport_;
  ReferenceRuns* runs_;
  StudyPanel* panel_;
  QDockWidget* dock_;
  QAction* action_ = nullptr;
  QAction* designAction_ = nullptr;
  std::optional<Request> last_;  // the study the panel shows
  int jobId_ = -1;               // the study job, whose progress the panel shows
};

}  // namespace mbdrom::app
