#pragma once
/// @file
/// Output samples of a simulation and the sinks they stream to.
///
/// A simulation hands every output sample to a `TrajectorySink` as it is
/// computed, so a long run needs memory for one sample only; the sink decides
/// what to keep (`TrajectoryRecorder`: everything in memory; the CSV writer in
/// engine/data/trajectory_csv.h: a file).

#include "engine/model/model.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace mbdrom {

/// One output sample: the state, the forces and the bookkeeping of a run at time t.
/// Vectors indexed by coordinate have size nq and the units of the coordinate
/// (point coordinates [m], unit-vector components [-]); generalized forces are
/// [N] on point coordinates and [N m] on unit-vector components.
struct Sample {
  long long step = 0;   ///< time steps done (accepted steps of an error-controlled run)
  double t = 0.0;       ///< time [s]
  Eigen::VectorXd q;    ///< natural coordinates [m, -], size nq
  Eigen::VectorXd qd;   ///< velocities [m/s, 1/s], size nq
  Eigen::VectorXd qdd;  ///< accelerations [m/s^2, 1/s^2], size nq
  /// Constraint multipliers, size nc: Phi_q^T lambda is the constraint force (left-hand side).
  Eigen::VectorXd lambda;
  Eigen::VectorXd f_ext;     ///< gravity + applied loads [N], size nq
  Eigen::VectorXd f_spring;  ///< spring forces (left-hand side) [N], size nq
  Eigen::VectorXd f_damper;  ///< damper forces (left-hand side) [N], size nq
  Eigen::VectorXd
      f_friction;  ///< friction forces (left-hand side; the stick force while sticking) [N], size nq
  /// Friction elements: sliding velocity [m/s] and state (+1/-1 slipping forwards/backwards, 0 sticking),
  /// size nf.
  Eigen::VectorXd frictionVelocity, frictionState;
  Eigen::Matrix3Xd markers;  ///< marker positions [m], 3 x number of markers (model.markers() order)
  Eigen::VectorXd measures;  ///< the model's measures [rad or m], spec().measures order

  double kineticEnergy = 0.0;    ///< 1/2 qd^T M qd [J]
  double potentialEnergy = 0.0;  ///< springs + gravity [J] (gravity: -f_g^T q)
  /// Work done since t0 by applied loads (f_ext without gravity), dampers, friction
  /// and constraint forces (non-zero for drivers) [J]; trapezoidal in time.
  double workNonConservative = 0.0;
  /// Energy balance error: (T + V) - (T0 + V0) - W_nc [J].
  double energyError = 0.0;

  double residualPosition = 0.0;      ///< max |Phi_i(q, t)| [m^2 or -]
  double residualVelocity = 0.0;      ///< max |Phi_q qd + Phi_t|
  double residualAcceleration = 0.0;  ///< max |Phi_q qdd + Phi_q,dot qd + Phi_t,dot|
  int newtonIterations = 0;           ///< of the step that produced this sample
  /// Reduced runs: distance outside the model's training envelope (0 inside, per unit
  /// of training range); -1: not measured (the full model, a model without envelope).
  double envelopeDistance = -1.0;
};

/// What a run was, told to the sink before the first sample.
struct RunInfo {
  std::string modelName;
  std::string loadCase;  ///< name, or "" for gravity only
  /// Fixed steps: the time step [s]. Error-controlled: 0 (the steps vary; see tolerance).
  double dt = 0.0;
  double outputDt = 0.0;  ///< time between samples [s] (0: every accepted step of an error-controlled run)
  double tEnd = 0.0;      ///< [s]
  /// Fixed steps: the number of steps. Error-controlled: 0 (not known in advance).
  long long totalSteps = 0;
  double tolerance = 0.0;  ///< relative tolerance of an error-controlled run; 0: fixed steps
};

/// How a run ended, told to the sink last.
enum class RunStatus {
  Completed,
  Cancelled,  ///< a monitor asked it to stop; the samples so far are valid
  Failed,     ///< divergence or solver failure; the samples so far are valid
};

/// Receives the samples of a run, in time order. `begin` comes first, then
/// any number of `write`, then `end` exactly once (also when the run fails).
/// A sink may throw (e.g. FileError); the run then stops and is reported failed.
class TrajectorySink {
 public:
  virtual ~TrajectorySink() = default;
  virtual void begin(const Model& model, const RunInfo& info) = 0;
  virtual void write(const Sample& sample) = 0;
  /// message: empty when completed, otherwise why the run stopped.
  virtual void end(RunStatus status, const std::string& message) = 0;
};

/// A sink whose samples go nowhere: for runs whose cost alone counts.
class NullSink final : public TrajectorySink {
 public:
  void begin(const Model&, const RunInfo&) override {}
  void write(const Sample&) override {}
  void end(RunStatus, const std::string&) override {}
};

/// Hands every sample to two sinks (a file and a recorder), in that order.
class TeeSink final : public TrajectorySink {
 public:
  TeeSink(TrajectorySink& first, TrajectorySink& second) : first_(first), second_(second) {}
  void begin(const Model& model, const RunInfo& info) override {
    first_.begin(model, info);
    second_.begin(model, info);
  }
  void write(const Sample& sample) override {
    first_.write(sample);
    second_.write(sample);
  }
  void end(RunStatus status, const std::string& message) override {
    first_.end(status, message);
    second_.end(status, message);
  }

 private:
  TrajectorySink& first_;
  TrajectorySink& second_;
};

/// Keeps every sample in memory (memory grows with the number of samples:
/// choose the output interval accordingly).
class TrajectoryRecorder : public TrajectorySink {
 public:
  void begin(const Model& model, const RunInfo& info) override;
  void write(const Sample& sample) override;
  void end(RunStatus status, const std::string& message) override;

  const RunInfo& info() const { return info_; }
  const std::vector<Sample>& samples() const { return samples_; }
  RunStatus status() const { return status_; }
  const std::string& message() const { return message_; }

 private:
  RunInfo info_;
  std::vector<Sample> samples_;
  RunStatus status_ = RunStatus::Completed;
  std::string message_;
};

}  // namespace mbdrom
