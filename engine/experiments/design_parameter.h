#pragma once
/// @file
/// What a design parameter's name addresses, and a run's mechanism, load and
/// initial state from its design row.
///
/// Names:
/// - `q0.<coordinate>`, `qd0.<coordinate>`: the initial position or velocity of a
///   natural coordinate (Model::coordinateName, e.g. `q0.B.z`); the coordinates a
///   row gives are held and the rest assembled (initialPositions), the free
///   velocity components chosen with the least kinetic energy (initialVelocities).
/// - `load.<load>.<field>`: a field of a load of the sweep's load case: `amplitude`,
///   `frequency`, `rate` (chirp), `offset`, `phase`, `value`, `t0`, `t1` of its time
///   function (in a sum, of the one term that has it; `load.<load>.function.terms.<k>.<field>`
///   names a term when several have it), or any path inside the load (`direction.z`).
/// - `load.amplitude_scale`, `load.frequency_scale`: every load of the load case
///   times a factor, or evaluated at factor * t.
/// - anything else: a number in the model file, as a path of keys: array elements
///   by their `name` or by index, `x`, `y`, `z` for the components of a vector
///   (`spring_dampers.strut.stiffness`, `bodies.lca.mass`, `points.BJ.position.z`).
///   These change the mechanism: a design over them is a family of mechanisms,
///   one hash each.

#include "engine/dynamics/run_options.h"
#include "engine/experiments/experiment_design.h"
#include "engine/model/model.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mbdrom {

/// What a design parameter varies.
enum class ParameterKind {
  Load,             ///< a load of the load case (the mechanism is unchanged)
  InitialPosition,  ///< q0 of a coordinate
  InitialVelocity,  ///< qd0 of a coordinate
  ModelNumber,      ///< a number of the model file (a spring rate, a mass, a hardpoint...)
};

/// The kind of a parameter name (by its form; not checked against a model).
ParameterKind parameterKind(const std::string& name);

struct SweepCase;
/// The design values of a scaled sweep's case `c` (load.amplitude_scale, load.frequency_scale),
/// as its runs record them: by these a run of it is made again (a held-out check, a design point).
std::map<std::string, double> sweepCaseDesignValues(const SweepCase& c);

/// Names a design can vary on `model` under load case `loadCase` (-1: none), by
/// group: "Loads" (load.amplitude_scale, load.frequency_scale, then every number
/// of each load's time function and direction), "Initial position" (q0.*),
/// "Initial velocity" (qd0.*), and one group per section of the model file
/// ("bodies", "points", "spring_dampers", ...: its numbers, arrays of names by
/// name). At most `limit` names in all.
std::vector<std::pair<std::string, std::vector<std::string>>> designParameterCandidates(
    const Model& model, int loadCase, std::size_t limit = 5000);

/// The value `name` has in `model` under load case `loadCase` (scales: 1; q0: the
/// reference position; qd0: 0), or nothing when the model has no such parameter.
std::optional<double> parameterValue(const Model& model, int loadCase, const std::string& name);

/// One run of a design, ready to simulate.
struct DesignRun {
  std::string name;
  std::shared_ptr<const Model> model;  ///< the run's mechanism and loads
  RunOptions options;                  ///< the base options with the run's initial state
  /// The run's design values (parameter -> value), its parameters μ in a dataset.
  std::map<std::string, double> parameters;
};

/// The run of `options` at the design point its parameters name: the values of a design's
/// loads and initial state (`load.*`, `q0.*`, `qd0.*`) among options.parameters, applied to
/// `model` and the options as DesignApplier does, and taken out of the options' parameters
/// except the names in `keep` (a reduced model's own parameters μ, which may be design values
/// too). `model` null when there are none (the run is `options` itself). Throws what
/// DesignApplier throws.
DesignRun designPointRun(const Model& model, const RunOptions& options, const std::vector<std::string>& keep);

/// Builds the runs of a design on one mechanism.
class DesignApplier {
 public:
  /// The model's CSV tables enter as their numbers. Throws InputError naming every parameter of
  /// `design` the model does not have (with what the path reaches instead), and
  /// for load parameters without a load case in `base`.
  DesignApplier(const Model& model, const RunOptions& base, const ExperimentDesign& design);

  /// Run `row` of the design. Throws InputError, ModelError (a value the model
  /// refuses, e.g. a negative mass) or SolverError (an initial position that does
  /// not assemble), naming the run and the parameter.
  DesignRun run(int row) const;

  /// The mechanism hash of run `row` (builds its model; the base's when only
  /// loads and initial conditions vary).
  std::uint64_t mechanismHash(int row) const;

  const ExperimentDesign& design() const { return design_; }

 private:
  const Model& model_;
  RunOptions base_;
  const ExperimentDesign& design_;
  std::string loadCaseName_;
  std::vector<ParameterKind> kinds_;
  std::vector<int> coordinates_;  // q0 / qd0: the coordinate index, else -1
  bool editsModel_ = false;
  std::shared_ptr<const Model> shared_;  // the base model, when no run edits it

  std::shared_ptr<const Model> modelOf(int row) const;
};

}  // namespace mbdrom
