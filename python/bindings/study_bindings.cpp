// mbdrom.study: a reduced-model study over a design of experiments, as 'mbdrom-cli study'
// runs it (the same engine call): every method over its search space, scored on held-out
// design points, with a leaderboard and a recommendation.

#include "engine/core/error.h"
#include "engine/experiments/experiment_design.h"
#include "engine/study/study.h"
#include "python/bindings/bindings.h"
#include "python/bindings/engine_call.h"

#include <pybind11/stl.h>

#include <cmath>

namespace py = pybind11;

namespace mbdrom::python {

namespace {

// A figure of the leaderboard: None when there is none (not scored), inf for a run that failed.
py::object figure(const LeaderboardRow& row, double x) {
  if (row.score.runs.empty() || std::isnan(x)) return py::none();
  return py::float_(x);
}

py::dict rowDict(const LeaderboardRow& row, const std::string& folder) {
  py::dict d;
  d["id"] = row.candidate.id;
  d["method"] = row.candidate.method;
  d["settings"] = py::module_::import("json").attr("loads")(row.candidate.settings.dump());
  d["status"] = candidateStatusName(row.status);
  d["effort"] = row.effort;
  d["median_error"] = figure(row, row.score.median);
  d["p95_error"] = figure(row, row.score.p95);
  d["worst_error"] = figure(row, row.score.worst);
  d["bound"] = figure(row, row.score.bound);
  d["silent_misses"] = row.score.runs.empty() ? py::object(py::none()) : py::int_(row.score.silentMisses);
  d["speed_up"] =
      row.score.speedUp > 0.0 ? py::object(py::float_(row.score.speedUp)) : py::object(py::none());
  d["training_seconds"] = row.status == CandidateStatus::NotTrained
                              ? py::object(py::none())
                              : py::object(py::float_(row.trainingSeconds));
  d["pareto"] = row.pareto;
  d["recommended"] = row.recommended;
  d["note"] = row.note;
  d["model_file"] = row.status == CandidateStatus::Trained || row.status == CandidateStatus::Stopped
                        ? py::object(py::str(folder + "/candidates/" + row.candidate.id + ".json"))
                        : py::object(py::none());
  return d;
}

py::dict resultDict(const StudyResult& r, const std::string& folder) {
  py::dict d;
  py::list rows;
  for (const LeaderboardRow& row : r.rows) rows.append(rowDict(row, folder));
  d["leaderboard"] = rows;
  d["held_out"] = r.heldOut;
  d["trained_on"] = r.trainedOn;
  d["recommended"] =
      r.recommended >= 0 ? py::object(rows[static_cast<std::size_t>(r.recommended)]) : py::none();
  d["recommendation"] = r.recommendation;
  d["design_runs_made"] = r.designRunsMade;
  d["resumed"] = r.resumed;
  d["budget_spent"] = r.budgetSpent;
  d["folder"] = folder;
  return d;
}

}  // namespace

void bindStudy(py::module_& m) {
  m.def(
      "study",
      [](const std::shared_ptr<Model>& model, const std::shared_ptr<ExperimentDesign>& design,
         const std::string& folder, const py::object& loadCase, double tEnd, const py::object& dt,
         const py::object& tolerance, double outputDt, const std::string& integrator, double heldOut,
         double goal, double budget, const std::vector<std::string>& methods, int jobs,
         const py::object& progress) {
        if (!model) throw py::type_error("model must be an mbdrom.Model");
        if (!design) throw py::type_error("design must be an mbdrom.Design (mbdrom.design makes one)");
        if (folder.empty()) throw py::value_error("folder: name the study's folder");
        const RunOptions base =
            simulationOptions(*model, loadCase, tEnd, dt, tolerance, outputDt, integrator);
        StudyOptions options;
        options.heldOutShare = heldOut;
        options.errorGoal = goal;
        options.budgetSeconds = budget;
        options.methods = methods;
        options.workers = jobs;
        EngineCall call(progress);
        StudyResult result;
        call.run([&] { result = runStudy(*model, base, *design, folder, options, call.monitor()); });
        if (result.budgetSpent) {
          const std::string text = "study: the budget of " + std::to_string(static_cast<long long>(budget)) +
                                   " s was spent before every candidate trained (the same call resumes)";
          if (PyErr_WarnEx(PyExc_RuntimeWarning, text.c_str(), 1) != 0) throw py::error_already_set();
        }
        return resultDict(result, folder);
      },
      py::arg("model"), py::arg("design"), py::arg("folder"), py::arg("load_case") = py::none(),
      py::arg("t_end") = 1.0, py::arg("dt") = py::none(), py::arg("tolerance") = py::none(),
      py::arg("output_dt") = 0.01, py::arg("integrator") = "auto", py::arg("held_out") = 0.2,
      py::arg("goal") = 0.02, py::arg("budget") = 900.0, py::arg("methods") = std::vector<std::string>{},
      py::arg("jobs") = 2, py::arg("progress") = py::none(),
      "A reduced-model study, as 'mbdrom-cli study': runs the full model at every point of `design` (loads "
      "and initial states) into `folder`/runs, holds out a share `held_out` of its points (at least 2, "
      "inside "
      "the others' ranges), trains every method of `methods` (default: all) over the key settings its "
      "registry entry declares on the other points (successive halving for the networks), scores each "
      "candidate on the held-out points (relative RMS of the worst point as compare defines it: median, "
      "95th percentile, worst; silent misses; speed-up against the full model) and recommends the fastest "
      "without a silent miss whose validated bound is within `goal` [-] and that is faster than the full "
      "model (speed-ups within 20 % of the fastest count as equal; the lowest bound among them wins). "
      "`budget` [s] limits training and scoring. Returns a dict: leaderboard (a dict per candidate), "
      "held_out, trained_on, recommended (its row, or None), recommendation (a sentence), design_runs_made, "
      "resumed, budget_spent, folder. The folder gets leaderboard.csv, study.json and every trained model; "
      "the same call again resumes; Ctrl+C keeps what is finished. Bad input (a design too small for the "
      "split, held-out points at its edge, an unknown method, a budget under 30 s, a design over the "
      "mechanism's own numbers) raises InputError before anything runs.");
}

}  // namespace mbdrom::python
