#pragma once
/// @file
/// The training envelope of a reduced model: the ranges of what it saw in
/// training, so that a run can tell when it has left them. A data-driven model is
/// only known where its data were; outside, its answer is an extrapolation that no
/// test has checked (an auto-encoder at 1.5x the trained load amplitude: 31 %
/// error, no warning).
///
/// Three groups, each a list of components with the range [low, high] seen over
/// every sample of every training run:
/// - "state": the method's reduced state (ReducedModel::envelopeState: reduced or
///   latent coordinates and their rates; local PCA: the local coordinates of the
///   nearest cluster, one block per cluster);
/// - "inputs": the generalized external force f_ext (gravity + loads) [N] on each
///   natural coordinate, for models whose dynamics take the run's loads
///   (ReducedModel::takesLoads);
/// - "parameters": the runs' parameters μ, by name.
///
/// Distance of a point: the largest excess over the range, per unit of range,
/// over every component, 0 inside: `max_i max(low_i - x_i, x_i - high_i, 0) / w_i`,
/// where the unit w_i is the component's range, but at least 1 % of the largest
/// range in its group (a coordinate that never moved in training still has a scale)
/// and at least 1e-6 of the largest magnitude in the group (a group that never
/// varied, e.g. the gravity of unforced runs); a parameter's unit is at least 1 %
/// of its magnitude. A component that is not a number in a point (the blocks of the
/// other clusters of local PCA) is skipped.
///
/// Beside the ranges, the joint envelope (NeighbourEnvelope): the distance of a run's
/// positions, velocities, loads and load rates together to the nearest training sample,
/// calibrated by the held-out check; and for models that take loads, the band of their
/// frequencies (LoadBand), judged over the whole run.
///
/// File: the trained model's "envelope" object,
/// `{"groups": [{"name", "labels": [...], "low": [...], "high": [...], "unit": [...]}, ...], "joint":
/// {...}, "load_band": {...}}`. Files written before envelopes have none: they load, and their runs say
/// that no envelope is known; files written before the joint envelope have no "joint": their runs
/// state no bound; files written before the band have no "load_band": their loads' frequencies are
/// not judged.

#include "engine/rom/load_band.h"
#include "engine/rom/neighbour_envelope.h"

#include <Eigen/Core>
#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <vector>

namespace mbdrom {

struct Dataset;
class ReducedModel;

/// One group of components and their training ranges.
struct EnvelopeGroup {
  std::string name;                 ///< "state", "inputs" or "parameters"
  std::vector<std::string> labels;  ///< per component, e.g. "x_r1", "W.z", "level"
  Eigen::VectorXd low, high;        ///< training range per component (low <= high)
  Eigen::VectorXd unit;             ///< unit of distance per component (> 0), see the file comment
};

/// Where a point lies relative to the envelope.
struct EnvelopeDistance {
  double distance = 0.0;  ///< 0 inside; else the largest excess per unit of range
  int group = -1;         ///< the group of the largest excess (-1: inside)
  int component = -1;     ///< its component
};

/// Labels of a reduced state [x; xd] of n coordinates: the names, then "d/dt " and
/// each name; `names` empty: x_r1 ... x_rn, xd_r1 ... xd_rn.
std::vector<std::string> reducedStateLabels(int n, const std::vector<std::string>& names = {});

class TrainingEnvelope {
 public:
  /// True when the model has one (false for files written before envelopes).
  bool known() const { return !groups_.empty(); }
  const std::vector<EnvelopeGroup>& groups() const { return groups_; }

  /// The envelope of `dataset` as `rom` sees it: its envelopeState of every sample
  /// (with the dataset's mass matrix), the samples' f_ext and the runs' parameters.
  /// A group with no components (a method without envelopeState, runs without
  /// parameters) is left out.
  static TrainingEnvelope fromDataset(const ReducedModel& rom, const Dataset& dataset);

  /// Distance of one point: `state` (the rom's envelopeState; empty: not checked),
  /// `f_ext` (size nq [N]; empty: not checked) and the run's parameters.
  /// `loadsAndParameters` (optional): the same point's distance with the state left out, from
  /// the same pass.
  EnvelopeDistance distance(const Eigen::VectorXd& state, const Eigen::VectorXd& f_ext,
                            const std::map<std::string, double>& parameters,
                            EnvelopeDistance* loadsAndParameters = nullptr) const;
  /// distance() with the run's parameters as parameterValues() gives them: for every sample of a run.
  EnvelopeDistance distanceAtValues(const Eigen::VectorXd& state, const Eigen::VectorXd& f_ext,
                                    const Eigen::VectorXd& parameterValues,
                                    EnvelopeDistance* loadsAndParameters = nullptr) const;
  /// The values of `parameters` in the order of the parameters group's labels, NaN for one not
  /// given (not judged); empty without that group.
  Eigen::VectorXd parameterValues(const std::map<std::string, double>& parameters) const;

  /// The joint envelope (known() false when the runs lacked velocities, or in older files).
  const NeighbourEnvelope& joint() const { return joint_; }
  /// Calibrates the joint envelope (NeighbourEnvelope::calibrate).
  void calibrateJoint(double heldOutDistance, double heldOutError, double leastGate = 0.0,
                      double trainingError = -1.0, bool missed = false) {
    joint_.calibrate(heldOutDistance, heldOutError, leastGate, trainingError, missed);
  }
  /// Records the step probe's error and running mean (NeighbourEnvelope::recordProbe).
  void recordJointProbe(double error, double held, bool failed) { joint_.recordProbe(error, held, failed); }
  /// Records the released pulse's error (NeighbourEnvelope::recordRelease).
  void recordJointRelease(double error, bool failed) { joint_.recordRelease(error, failed); }
  /// Records the frequency scan in the load band (LoadBand::recordScan).
  void recordBandScan(std::vector<double> omega, std::vector<double> error, std::vector<bool> failed) {
    band_.recordScan(std::move(omega), std::move(error), std::move(failed));
  }
  /// Drops the joint envelope's calibration: no bound, no gate.
  void uncalibrateJoint() { joint_.uncalibrate(); }
  /// Replaces the joint envelope (of other runs than the ranges'), uncalibrated.
  void replaceJoint(NeighbourEnvelope joint) { joint_ = std::move(joint); }
  /// The frequency band of the training runs' loads (known() false without loads, or in older files).
  const LoadBand& band() const { return band_; }

  /// "input W.z" / "state x_r2" / "parameter level": the component of a distance, for messages.
  std::string describe(const EnvelopeDistance& d) const;

  nlohmann::ordered_json toJson() const;
  /// Reads the file's "envelope"; throws FileError naming `source` and the field.
  static TrainingEnvelope fromJson(const nlohmann::ordered_json& j, const std::string& source);

 private:
  std::vector<EnvelopeGroup> groups_;
  NeighbourEnvelope joint_;
  LoadBand band_;
};

}  // namespace mbdrom
