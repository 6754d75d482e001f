#include "app/studies/studies.h"

#include "app/job_runner.h"
#include "app/load_case_name.h"
#include "app/message_box.h"
#include "app/project_document.h"
#include "app/runs/forwarding_sink.h"
#include "app/runs/reference_runs.h"
#include "app/studies/study_dialog.h"
#include "app/studies/study_panel.h"
#include "app/studies/sweep_dialog.h"
#include "app/viewport.h"
#include "engine/core/error.h"
#include "engine/experiments/experiment_run.h"
#include "engine/model/model.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_model.h"
#include "engine/study/study.h"
#include "widgets/log_view.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QPointer>

#include <algorithm>
#include <cmath>

namespace mbdrom::app {

namespace {

// What the worker thread hands back: lines and rows as they come, delivered on the GUI thread.
struct StudyJob {
  StudyResult result;
  std::vector<StudyCandidate> candidates;
};

// The motion of a trajectory's samples, positions only.
std::shared_ptr<RunMotion> motionOf(const std::vector<double>& t, const std::vector<Eigen::VectorXd>& q) {
  auto motion = std::make_shared<RunMotion>();
  motion->t = t;
  motion->q = q;
  return motion;
}

}  // namespace

Studies::Studies(const WorkbenchContext& wb, Viewport* viewport, ReferenceRuns* runs,
                 const Placement& placement)
    : QObject(wb.window),
      wb_(wb),
      viewport_(viewport),
      runs_(runs),
      panel_(new StudyPanel(wb.window)),
      dock_(new QDockWidget(tr("Study"), wb.window)) {
  dock_->setObjectName("studyDock");
  dock_->setWidget(panel_);
  placeTrainDock(wb.window, dock_, placement);  // shown when a study runs, or by View
  createActions(placement);
  connect(panel_, &StudyPanel::showRequested, this, &Studies::showCandidate);
  connect(panel_, &StudyPanel::addRequested, this, &Studies::addCandidate);
  connect(wb.runner, &JobRunner::jobProgress, panel_, [this](int id, const Progress& p) {
    if (id == jobId_ && p.total > 0 && p.stage.starts_with("study: "))
      panel_->showProgress(tr("%1 of %2 trainings scored; last: %3")
                               .arg(p.step)
                               .arg(p.total)
                               .arg(QString::fromStdString(p.stage.substr(7))));
  });
}

void Studies::createActions(const Placement& placement) {
  action_ = new QAction(tr("Reduced-Model &Study..."), wb_.window);
  action_->setObjectName("studyAction");
  action_->setStatusTip(
      tr("Every reduced-model method over a design of experiments, judged on held-out "
         "design points: a leaderboard, a Pareto plot and a recommendation"));
  action_->setEnabled(false);
  connect(action_, &QAction::triggered, this, &Studies::studyDialog);
  placement.trainMenu->addAction(action_);
  designAction_ = new QAction(tr("Run S&weep..."), wb_.window);
  designAction_->setObjectName("sweepAction");
  designAction_->setStatusTip(
      tr("A design of experiments (a grid, a Latin hypercube or a Sobol sequence over loads and the "
         "model's numbers), one reference run per point on both cores"));
  designAction_->setEnabled(false);
  connect(designAction_, &QAction::triggered, this, &Studies::designDialog);
}

void Studies::enableForProject(bool open) {
  action_->setEnabled(open);
  designAction_->setEnabled(open);
}

void Studies::designDialog() {
  auto model = wb_.doc->model();
  if (!model) return;
  SweepDialog dialog(model, wb_.window);
  if (dialog.exec() != QDialog::Accepted) return;
  runDesign(dialog.options(), dialog.design());
}

int Studies::runDesign(const RunOptions& base, const ExperimentDesign& design) {
  auto model = wb_.doc->model();
  if (!model || design.runs() == 0) return -1;
  auto results = std::make_shared<std::vector<ExperimentRunResult>>();
  auto recorders = std::make_shared<std::vector<std::shared_ptr<TrajectoryRecorder>>>();
  for (int i = 0; i < design.runs(); ++i) recorders->push_back(std::make_shared<TrajectoryRecorder>());
  const QString caseName = loadCaseName(*model, base.loadCase);
  const QString title = tr("Sweep %1: %2 design (%n run(s))", nullptr, design.runs())
                            .arg(caseName, QString::fromStdString(designTypeName(design.type)));
  return wb_.runner->submit(
      title,
      [model, base, design, recorders, results](Monitor& m) {
        const DesignApplier applier(*model, base, design);
        std::vector<int> rows(static_cast<std::size_t>(design.runs()));
        for (int i = 0; i < design.runs(); ++i) rows[static_cast<std::size_t>(i)] = i;
        ExperimentOptions options;
        options.workers = 2;  // both cores
        *results = runExperiment(
            applier, rows,
            [recorders](int row, const Model&) {
              return std::make_unique<ForwardingSink>((*recorders)[static_cast<std::size_t>(row)]);
            },
            options, &m);
        m.checkpoint();
        std::string failed;
        int count = 0;
        for (const ExperimentRunResult& r : *results)
          if (!r.ok && !r.cancelled && ++count <= 5) failed += "\n" + r.name + ": " + r.error;
        if (count)
          throw SolverError(std::to_string(count) + " of " + std::to_string(results->size()) +
                            " runs failed (the others joined the project):" + failed);
      },
      [this, base, recorders, results, caseName](JobRunner::Outcome, const QString&) {
        for (const ExperimentRunResult& r : *results) {
          const auto& recorder = (*recorders)[static_cast<std::size_t>(r.row)];
          if (r.model && !recorder->samples().empty())
            runs_->addFinishedRun(r.model, caseName + " " + QString::fromStdString(r.name), base,
                                  r.summary.method, recorder, r.parameters);
        }
      });
}

QString Studies::proposedFolder() const {
  if (wb_.doc->directory().isEmpty()) return {};
  for (int k = 1;; ++k) {
    const QString dir = QDir(wb_.doc->directory()).filePath(QStringLiteral("studies/study_%1").arg(k));
    if (!QDir(dir).exists()) return dir;
  }
}

void Studies::studyDialog() {
  const auto model = wb_.doc->model();
  if (!model) return;
  StudyDialog dialog(model, proposedFolder(), wb_.window);
  if (dialog.exec() != QDialog::Accepted) return;
  start(dialog.options(), dialog.design(), dialog.studyOptions(), dialog.folder());
}

int Studies::start(const RunOptions& base, const ExperimentDesign& design, const StudyOptions& options,
                   const QString& folder) {
  const auto model = wb_.doc->model();
  if (!model) return -1;
  last_ = Request{model, base, design, options, folder};
  auto job = std::make_shared<StudyJob>();
  try {
    job->candidates = studyCandidates(MethodRegistry::global(), options.methods);
  } catch (const Error& e) {
    wb_.log->error(QString::fromStdString(e.what()));
    return -1;
  }
  panel_->begin(job->candidates, options.errorGoal);
  dock_->show();
  dock_->raise();
  const QPointer<StudyPanel> panel = panel_;
  const QPointer<widgets::LogView> log = wb_.log;
  const StudyLog onLine = [log](const std::string& line) {
    QMetaObject::invokeMethod(log, [log, text = QString::fromStdString(line)] {
      if (log) log->info(QObject::tr("Study: %1").arg(text));
    });
  };
  const StudyScored onRow = [panel](const LeaderboardRow& row) {
    QMetaObject::invokeMethod(panel, [panel, row] {
      if (!panel) return;
      panel->updateRow(row);
      panel->showProgress(tr("Scored %1 (%2)")
                              .arg(QString::fromStdString(row.candidate.id),
                                   QString::fromStdString(settingsText(row.candidate.settings))));
    });
  };
  const Request r = *last_;
  const int id = wb_.runner->submit(
      tr("Study of %1 (%n design point(s))", nullptr, design.runs())
          .arg(QString::fromStdString(model->spec().name)),
      [r, job, onLine, onRow](Monitor& m) {
        job->result =
            runStudy(*r.model, r.base, r.design, r.folder.toStdString(), r.options, m, onLine, onRow);
      },
      [this, job, folder](JobRunner::Outcome outcome, const QString& message) {
        if (outcome == JobRunner::Outcome::Succeeded) {
          panel_->showResult(job->result.rows, QString::fromStdString(job->result.recommendation));
          wb_.log->info(
              tr("Study written to %1: recommended %2")
                  .arg(QDir::toNativeSeparators(folder), QString::fromStdString(job->result.recommendation)));
        } else {
          panel_->showProgress(outcome == JobRunner::Outcome::Cancelled
                                   ? tr("Cancelled: the candidates finished are kept in %1; the same study "
                                        "again resumes from them")
                                         .arg(QDir::toNativeSeparators(folder))
                                   : tr("Failed: %1").arg(message));
          if (outcome == JobRunner::Outcome::Failed) wb_.log->error(message);
        }
        emit studyFinished();
      });
  jobId_ = id;
  return id;
}

int Studies::showCandidate(int candidate) {
  if (!last_ || candidate < 0 || candidate >= static_cast<int>(panel_->rows().size())) return -1;
  const LeaderboardRow& row = panel_->rows()[static_cast<std::size_t>(candidate)];
  const auto worst = std::max_element(row.score.runs.begin(), row.score.runs.end(),
                                      [](const HeldOutResult& a, const HeldOutResult& b) {
                                        const double x = std::isnan(a.error) ? INFINITY : a.error;
                                        const double y = std::isnan(b.error) ? INFINITY : b.error;
                                        return x < y;
                                      });
  if (worst == row.score.runs.end()) {
    wb_.log->warning(tr("Study: %1 has no held-out run to show (%2)")
                         .arg(QString::fromStdString(row.candidate.id), QString::fromStdString(row.note)));
    return -1;
  }
  const Request r = *last_;
  const auto designRow =
      std::find(r.design.runNames.begin(), r.design.runNames.end(), worst->run) - r.design.runNames.begin();
  const std::string file = r.folder.toStdString() + "/candidates/" + row.candidate.id + ".json";
  struct Shown {
    HeldOutPoint point;
    std::vector<Sample> samples;
  };
  auto shown = std::make_shared<Shown>();
  const QString name = QString::fromStdString(row.candidate.id);
  return wb_.runner->submit(
      tr("Study: %1 on %2").arg(name, QString::fromStdString(worst->run)),
      [r, designRow, file, shown](Monitor& m) {
        shown->point =
            studyDesignPoint(*r.model, r.base, r.design, static_cast<int>(designRow), r.folder.toStdString());
        const auto rom = loadReducedModel(file);
        TrajectoryRecorder recorder;
        try {
          rom->simulate(*shown->point.model, heldOutRunOptions(*rom, shown->point), recorder, &m);
        } catch (const Cancelled&) {
          throw;
        } catch (const Error&) {
          // A run that diverged is shown up to where it stopped.
        }
        shown->samples = recorder.samples();
      },
      [this, shown, name](JobRunner::Outcome outcome, const QString& message) {
        if (outcome != JobRunner::Outcome::Succeeded) {
          if (outcome == JobRunner::Outcome::Failed) wb_.log->error(message);
          return;
        }
        std::vector<double> t;
        std::vector<Eigen::VectorXd> q;
        for (const Sample& s : shown->samples) {
          t.push_back(s.t);
          q.push_back(s.q);
        }
        auto reference = motionOf(shown->point.reference.t, shown->point.reference.q);
        viewport_->playWithOverlays(shown->point.model, reference,
                                    {{name, motionOf(t, q), QColor(230, 140, 30)}});
        wb_.log->info(tr("Study: %1 (orange) against the full model on its worst held-out point %2")
                          .arg(name, QString::fromStdString(shown->point.name)));
      });
}

void Studies::addCandidate(int candidate) {
  if (!last_ || candidate < 0 || candidate >= static_cast<int>(panel_->rows().size())) return;
  const LeaderboardRow& row = panel_->rows()[static_cast<std::size_t>(candidate)];
  const std::string file = last_->folder.toStdString() + "/candidates/" + row.candidate.id + ".json";
  try {
    std::shared_ptr<const ReducedModel> rom = loadReducedModel(file);
    const QString name = wb_.doc->uniqueModelName(QString::fromStdString(row.candidate.id));
    wb_.doc->addModel(name, rom);
    wb_.log->info(tr("Study: %1 added to the project's models as \"%2\"")
                      .arg(QString::fromStdString(row.candidate.id), name));
  } catch (const Error& e) {
    wb_.log->error(QString::fromStdString(e.what()));
    showMessageBox(wb_.window, QMessageBox::Warning, tr("Add to Project"), QString::fromStdString(e.what()));
  }
}

}  // namespace mbdrom::app
