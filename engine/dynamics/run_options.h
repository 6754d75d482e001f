#pragma once
/// @file
/// The options and the summary core that every run shares, of the full model
/// (simulate) and of a reduced model (ReducedModel::simulate): one type each, so a
/// comparison hands the same conditions to both.

#include "engine/dynamics/integrator.h"

#include <Eigen/Core>

#include <map>
#include <string>

namespace mbdrom {

/// The default margin of a reduced run's training envelope: it counts as outside
/// when a component went past its training range by more than a tenth of that range.
inline constexpr double kDefaultEnvelopeMargin = 0.1;

/// How to run the full model or a reduced model.
struct RunOptions {
  int loadCase = -1;  ///< index into spec().loadCases, -1: gravity only
  double tEnd = 1.0;  ///< end time [s], >= 0; the last step ends on it (shortened when tEnd is off the grid)
  /// Time between samples [s]; 0: every step. Fixed steps: a multiple of dt
  /// (to 1e-9 relative). Error-controlled steps are cut to land on every output time.
  double outputDt = 0.0;
  /// Initial positions, size nq; empty: the model's reference (full model, assembled
  /// first) or the first sample of the first training run (reduced model, projected).
  Eigen::VectorXd q0;
  /// Initial velocities, size nq; empty: at rest (full model, projected) or the first
  /// sample of the first training run (reduced model).
  Eigen::VectorXd qd0;
  /// Step and solver settings. The full model takes dt (fixed steps) or a tolerance
  /// (error-controlled steps, when > 0); a reduced model steps at a fixed dt and
  /// refuses a tolerance.
  IntegratorOptions integrator;
  /// Values of a reduced model's parameters μ (ReducedModel::parameterNames), name ->
  /// value; every one must be given, and a model without parameters (the full model
  /// among them) takes none.
  std::map<std::string, double> parameters;
  /// A reduced run outside its training envelope: warn (the summary says when and
  /// how far) or stop (SolverError at the first output sample outside, samples kept).
  /// The full model ignores both.
  bool stopOutsideEnvelope = false;
  /// Distance outside the envelope (per unit of training range) a reduced run may
  /// reach before it counts as outside; >= 0.
  double envelopeMargin = kDefaultEnvelopeMargin;
};

/// The one check of a run's numbers, for the full model and reduced models alike:
/// throws InputError naming the value for step and solver settings an integrator
/// cannot take, an end time or output interval < 0 or not finite, more than 1e9
/// output rows, or a negative envelope margin.
void checkRunValues(const RunOptions& options);

/// What every run reports.
struct RunSummary {
  long long steps = 0;    ///< time steps done (accepted steps of an error-controlled run)
  long long samples = 0;  ///< samples written
  double tEnd = 0.0;      ///< time reached [s]
  double wallSeconds =
      0.0;  ///< wall time of the steps and of making the samples [s], the sink's time left out
  double realTimeFactor = 0.0;  ///< simulated time / wall time
  double secondsPerStep = 0.0;  ///< wall time per step [s]
};

}  // namespace mbdrom
