#pragma once
/// @file
/// How far a motion is from the full model's equations of motion: a second signal beside
/// the envelope, which needs no training data. At a sample (q, q̇, q̈ and the forces at
/// them), the imbalance g = M q̈ + f_spring + f_damper + f_friction − f_ext has a part that
/// constraint forces Φ_qᵀλ can take (the least-squares λ) and a part they cannot: its
/// projection on the motions the constraints allow (the null space of Φ_q). The full
/// model's own motion has none of the second; a reduced motion that misses the dynamics
/// has it in proportion. The figure of a run is the RMS of that part over the RMS of the
/// inertial force M q̈ projected the same way, both over the samples added.
///
/// A spring-damper stiffer than the model's training data resolve (unresolved_modes.h: its own
/// vibration sampled fewer than kResolvedSamplesPerPeriod times a period) counts as a rigid
/// link: its length gradient joins the constraint normals. A reduced model cannot follow such
/// a vibration (it carries only the quasi-static deflection the data had), and the spring's
/// force, a large stiffness times a small error in that deflection, would otherwise swamp the
/// slow dynamics the figure is meant to judge. What the link's multiplier asks of it beyond the
/// spring's own tension, over its stiffness, is the spring's length error: a motion whose stiff
/// joint is off by a share of its ends' motion is off by as much at those ends. Its RMS over the
/// RMS motion of the spring's ends joins the figure (in quadrature), so that a model that gets
/// the deflection wrong is not hidden by the link.
///
/// In natural coordinates M is constant, so a sample costs Φ_q and one QR of Φ_qᵀ
/// (nq x nc). Mechanisms of more than kMaxCoordinates coordinates are not measured (the
/// dense QR would cost more than their run).

#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace mbdrom {

/// Which samples of a run the equation residual measures, in the order they come: every
/// `every`-th (EquationResidual::every), or, when that one lies between a step's ends (its
/// accelerations the interpolant's, which would measure the interpolation), the next step's end.
class ResidualSchedule {
 public:
  explicit ResidualSchedule(long long every = 1) : every_(every) {}
  /// Whether the next sample is measured; `between`: it lies between a step's ends.
  bool measures(bool between) {
    due_ = next_++ % every_ == 0 || due_;
    if (!due_ || between) return false;
    due_ = false;
    return true;
  }

 private:
  long long every_, next_ = 0;
  bool due_ = false;
};

class EquationResidual {
 public:
  /// Of a run of `samples` output samples, every how many the residual is measured: at most
  /// RomSimulationSummary::kResidualSamples (16) spread over the run, the first included; the
  /// same for a reduced run and for training's check of a run of the same samples.
  static long long every(long long samples);
  static constexpr int kMaxCoordinates = 200;
  /// A run warns when its residual exceeds this many times the largest of its model's own
  /// training runs (metric "training_rollout"."equation_residual") ...
  static constexpr double kWarnFactor = 1.5;
  /// ... and this share of the inertial force [-]: below it, a motion obeys the equations
  /// to a fraction of the 5 % a run may miss by.
  static constexpr double kWarnFloor = 0.005;

  /// `frictionInSamples`: the samples' f_friction are the forces the motion had (the full
  /// model's, sticking included); else each friction element's sliding force is evaluated.
  /// `spacing` [s]: the spacing of the training data's samples, which decides at the first
  /// sample added the spring-dampers taken as rigid links (none when 0).
  explicit EquationResidual(const Model& model, bool frictionInSamples = false, double spacing = 0.0);
  /// False for a mechanism too large to measure (nothing is added then).
  bool measures() const { return measures_; }
  /// Adds sample `s`: q, qd, qdd [m, m/s, m/s²] and f_ext, f_spring, f_damper [N] (size nq)
  /// at s.t, and its friction forces as the constructor says.
  void add(const Sample& s);
  /// Samples added.
  int samples() const { return samples_; }
  /// The spring-dampers taken as rigid links (indices into Model::springDampers()), once a
  /// sample was added.
  const std::vector<int>& rigidSprings() const { return rigid_; }
  /// Their names.
  std::vector<std::string> rigidSpringNames() const;
  /// forceShare() and lengthShare() in quadrature [-]; NaN when nothing was added.
  double relative() const;
  /// RMS of the unbalanced force over RMS of the inertial force, both on the allowed
  /// motions (at least a millionth of the loads' RMS, so that a motion at rest gives
  /// round-off, not noise over noise) [-]; NaN when nothing was added.
  double forceShare() const;
  /// RMS of the rigid springs' length errors over the RMS motion of their ends (of each spring
  /// the end that moves more, about its mean over the samples) [-]; 0 without rigid springs or
  /// where their ends move by less than a micrometre RMS.
  double lengthShare() const;

 private:
  /// Fills normals_ (nq x k) with the directions forces take without motion: Φ_qᵀ and the
  /// rigid springs' length gradients; false when there are none.
  bool fillNormals(const Eigen::VectorXd& q, double t);
  void chooseRigidSprings(const Eigen::VectorXd& q, double t);
  /// Adds the rigid springs' length errors, from the multipliers `lambda` of the normals [N],
  /// and their ends' positions at `q`.
  void addLengthErrors(const Eigen::VectorXd& q, const Eigen::VectorXd& lambda);

  /// Sums over the samples of a rigid spring's ends' positions [m] and their squares [m²].
  struct EndSums {
    Eigen::Vector3d p1 = Eigen::Vector3d::Zero(), p2 = Eigen::Vector3d::Zero();
    double p1Squares = 0.0, p2Squares = 0.0;
  };

  const Model& model_;
  bool measures_ = false, frictionInSamples_ = false, chosen_ = false;
  double spacing_ = 0.0;
  int samples_ = 0, lengthSamples_ = 0;
  double residualSquares_ = 0.0, inertiaSquares_ = 0.0, forceSquares_ = 0.0, lengthSquares_ = 0.0;
  std::vector<int> rigid_;
  std::vector<EndSums> ends_;
  Eigen::MatrixXd phiQ_, normals_;
  Eigen::VectorXd g_, inertia_, friction_;
};

}  // namespace mbdrom
