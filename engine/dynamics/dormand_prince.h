#pragma once
/// @file
/// A second, independent integrator of the full model: the embedded
/// Runge-Kutta pair 5(4) of Dormand & Prince (1980), with the error estimate
/// of its 4th-order companion and the step control of Hairer, Norsett &
/// Wanner 1993 (Solving ODEs I, II.4-5), on the index-1 form of the equations of
/// motion, followed by a projection onto the constraints (Hairer, Lubich &
/// Roche 1989; Eich 1993) after every step.
///
/// The state y = (q, qd, W) (W: work of the non-conservative forces, carried
/// to the same order for the energy balance). Its derivative (qd, qdd, power)
/// solves, at every stage, the accelerations from
///   min 1/2 qdd^T M qdd - Q^T qdd  s.t.  Phi_q qdd + c = 0   (c = (Phi_q qd)_q qd + 2 Phi_qt qd + Phi_tt)
/// by the method of multipliers with A = M + Phi_q^T B Phi_q, B = beta W^2 (the
/// row weights and penalty of the trapezoidal integrator), warm-started from the
/// previous stage's multipliers. Nothing inverts Phi_q M^-1 Phi_q^T, so
/// redundant constraints are harmless, and M may be singular on coordinates
/// the constraints fix.
///
/// After an accepted step, positions are projected onto Phi = 0 and velocities
/// onto Phi_q qd + Phi_t = 0 in the metric of A (iterations x -= A^-1 Phi_q^T B r,
/// which converge to the M-orthogonal projection); the stage derivative at the
/// step's end is reused for the next step (first same as last).
///
/// Why this pair: the mechanisms mbdrom models are smooth between load
/// corners and mostly non-stiff at the accuracies engineers ask for
/// (1e-3 ... 1e-8 m); a 5th-order explicit step with 6 new stages needs
/// far fewer steps than the 2nd-order trapezoidal rule there, and each stage
/// costs one symmetric factorisation of a constant-pattern matrix, no Newton
/// iteration. It is independent of the trapezoidal integrator (other
/// formulation, other order, other error estimate), which makes it a
/// cross-check. It does not handle Coulomb stick-slip (a non-smooth force
/// whose stops need event location): such a model is refused by name and the
/// trapezoidal integrator takes it. Stiff springs limit its stable step
/// (about 3.3 / the highest natural frequency); the error control finds it.

#include "engine/core/dense_solvers.h"
#include "engine/dynamics/constraint_operators.h"
#include "engine/dynamics/integrator.h"
#include "engine/dynamics/measures.h"
#include "engine/dynamics/scales.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"

#include <Eigen/Core>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include <string>
#include <vector>

namespace mbdrom {

/// The Dormand-Prince integrator of one model under one load case, with its
/// workspaces. Same calls as Integrator (the run loop in simulation.cpp takes
/// either). Not thread-safe: one per run. The model must outlive it.
class DormandPrinceIntegrator {
 public:
  /// loadCase: index into model.spec().loadCases, -1 for gravity only. Uses
  /// options.dt, tolerance, initialStep, maxStep, minStep, penaltyRatio and the
  /// position, velocity and acceleration tolerances. Throws InputError for bad
  /// options, a load case that does not exist, or a Coulomb friction element
  /// (named; the trapezoidal integrator handles stick-slip).
  DormandPrinceIntegrator(const Model& model, int loadCase, const IntegratorOptions& options = {});

  const Model& model() const { return model_; }
  const IntegratorOptions& options() const { return options_; }

  /// A consistent state at t0 [s] (see Integrator::initialState).
  DynamicState initialState(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t0 = 0.0);

  /// One step of the pair from state.t to t1 [s] without error control (fixed
  /// steps); a step whose accelerations cannot be solved is cut in halves.
  /// Throws SolverError naming the time and cause and leaves `state` unchanged.
  StepReport advance(DynamicState& state, double t1);

  /// One accepted error-controlled step of at most tStop - state.t [s],
  /// landing on tStop when the proposal reaches it; the next step is proposed in
  /// state.h. Needs tolerance > 0. Throws SolverError as advance() does, or when
  /// the step falls below the minimum.
  StepReport stepAdaptive(DynamicState& state, double tStop);

  /// After a discontinuity of the loads at state.t: the next step evaluates
  /// the derivative there again instead of reusing the last stage.
  void restartErrorHistory(DynamicState& state) const { state.jerkValid = false; }

  const MechanismScales& scales() const { return scales_; }

  /// Fills the outputs of `sample` at `state` (accelerations and multipliers
  /// solved again at the projected state).
  void evalSample(const DynamicState& state, Sample& sample);

  /// Factorisations of A so far (one per stage).
  long long factorizations() const { return factorizations_; }
  /// Penalty over the mass scale in use: IntegratorOptions::penaltyRatio, or
  /// higher after the multiplier iteration crawled (long chains) [-].
  double penaltyRatio() const { return penaltyRatio_; }
  /// True when A and Phi_q are sparse (nq >= options().sparseThreshold): no dense
  /// nq x nq or nc x nq object, cost per step linear in the size of a chain-like model.
  bool sparse() const { return sparse_; }

 private:
  struct Derivative {
    Eigen::VectorXd qdd, lambda;
    double power = 0.0;
  };
  void solveA(const Eigen::VectorXd& b, Eigen::VectorXd& x) const;
  bool factorA();  // A = M + Phi_q^T B Phi_q at the last Jacobian; false when not positive definite
  bool derivative(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t, Derivative& d,
                  StepReport& r);
  bool tryStep(const DynamicState& start, double h, DynamicState& out, double& errorRatio,
               double& positionError, StepReport& r);
  bool projectState(DynamicState& s, StepReport& r);
  struct StepEnergy {
    double kinetic = 0.0, potential = 0.0, work = 0.0;  // [J]
  };
  StepEnergy stepEnergy(const DynamicState& s) const;
  // Energy balance error of the step from `start` to `end`, over the tolerance's share of the energy at stake
  // [-].
  double energyRatio(const StepEnergy& start, const DynamicState& end) const;
  void ensureDerivative(DynamicState& s, StepReport& r);
  std::string blowUp(const DynamicState& s) const;
  [[noreturn]] void fail(const DynamicState& start, double t1, const std::string& cause) const;
  void advanceRecursive(DynamicState& s, double t1, int depth, StepReport& total);

  const Model& model_;
  int loadCase_;
  IntegratorOptions options_;
  MeasureSet measures_;
  int nq_, nc_, nf_;
  ConstraintOperators phi_;  // Phi_q at the last stage
  MechanismScales scales_;
  Eigen::VectorXd rowWeight_, rowPenalty_;  // 1 / rowScale; beta / rowScale^2 (size nc)
  Eigen::VectorXd coordInv_;                // 1 / coordinateScale (size nq)
  double minStep_ = 0.0;
  long long floorFailures_ =
      0;  // steps in a row taken at the smallest size although they failed the error test
  double penaltyRatio_ = 0.0;  // raised from options.penaltyRatio when the multipliers crawl
  long long factorizations_ = 0;
  std::string failure_;

  // Workspaces (sized once).
  Eigen::VectorXd Phi_, Phi_t_, c_, cT_, fExt_, fS_, fD_, fF_, Q_, rhs_, g_, sigma_, tmp_, dx_;
  Eigen::MatrixXd A_;         // dense path only (nq < options.sparseThreshold)
  std::vector<int> rowCols_;  // non-zero columns of one row of Phi_q
  Cholesky llt_;
  // Sparse path: no nq x nq or nc x nq dense object.
  bool sparse_ = false, sparseAnalyzed_ = false;
  Eigen::Index analyzedNonZeros_ = 0;
  Eigen::SparseMatrix<double> PhiTs_, PhiBs_, As_;
  Eigen::SimplicialLLT<Eigen::SparseMatrix<double>> sllt_;
  Eigen::VectorXd yq_, yv_;  // stage arguments (q, qd)
  Eigen::MatrixXd kq_, kv_;  // stage derivatives of q and qd, nq x 7
  double kw_[7] = {};        // stage derivatives of W
  Derivative stage_;         // the derivative of the stage being evaluated
  DynamicState trial_, callStart_;
};

}  // namespace mbdrom
