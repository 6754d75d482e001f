#pragma once
/// @file
/// Generalized forces of a model, in the convention of Angeli et al., minimal coordinates, eq. 8:
///   M qdd + f_spring + f_damper + f_friction + Phi_q^T lambda = f_ext(t).
/// f_spring, f_damper and f_friction are on the left (a spring's f_spring is
/// the gradient of its potential); f_ext (gravity + the loads of a load case)
/// is on the right. All vectors have size nq [N or N m per coordinate unit];
/// Jacobians are nq x nq, dense.

#include "engine/model/block_accumulator.h"
#include "engine/model/model.h"

#include <Eigen/Core>

namespace mbdrom {

/// Spring force law f_k(l) [N] (tension positive) of a spring-damper at length l [m];
/// its derivative df_k/dl [N/m] goes to *dfdl when given. Tables extrapolate linearly.
double springForce(const SpringDamperSpec& spring, double length, double* dfdl = nullptr);

/// f_spring [N], resized to nq. q: coordinates [m, -], size nq.
void evalSpringForces(const Model& model, const Eigen::VectorXd& q, Eigen::VectorXd& f_spring);
/// K = d f_spring / dq [N/m], resized to nq x nq.
void evalSpringJacobian(const Model& model, const Eigen::VectorXd& q, Eigen::MatrixXd& K);
/// K += scale * d f_spring / dq, into a dense matrix or triplets (BlockAccumulator).
void addSpringJacobian(const Model& model, const Eigen::VectorXd& q, BlockAccumulator& K);
/// Potential energy of the springs [J], zero at the free length (tables: at their first length).
double springPotential(const Model& model, const Eigen::VectorXd& q);

/// f_damper [N], resized to nq. qd: velocities [m/s, 1/s], size nq.
void evalDamperForces(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                      Eigen::VectorXd& f_damper);
/// evalSpringForces and evalDamperForces in one pass over the elements (each one's geometry
/// found once): the same values, to the bit.
void evalSpringDamperForces(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                            Eigen::VectorXd& f_spring, Eigen::VectorXd& f_damper);
/// D_q = d f_damper / dq [N s/m / s], D_qd = d f_damper / dqd [N s/m], resized to nq x nq.
void evalDamperJacobians(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                         Eigen::MatrixXd& D_q, Eigen::MatrixXd& D_qd);

/// D_q += scale_q d f_damper / dq, D_qd += scale_qd d f_damper / dqd.
void addDamperJacobians(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                        BlockAccumulator& D_q, BlockAccumulator& D_qd);

/// f_friction [N], resized to nq. normalForces [N]: one per friction element
/// (spec().frictions order), or empty to use each element's normal_force.
void evalFrictionForces(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                        const Eigen::VectorXd& normalForces, Eigen::VectorXd& f_friction);
/// F_q = d f_friction / dq, F_qd = d f_friction / dqd at fixed normal forces, resized to nq x nq.
/// The Coulomb law's sign function contributes nothing to F_qd.
void evalFrictionJacobians(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                           const Eigen::VectorXd& normalForces, Eigen::MatrixXd& F_q, Eigen::MatrixXd& F_qd);
/// Sliding velocity [m/s] of friction element i: axis1 . (dP2/dt - dP1/dt).
double frictionSlidingVelocity(const Model& model, int friction, const Eigen::VectorXd& q,
                               const Eigen::VectorXd& qd);

/// Whether f_ext of load case `loadCase` (-1: gravity only) depends on the positions q:
/// torques act through the bodies' orientation; gravity and forces of fixed direction at
/// points and markers (fixed combinations of natural coordinates) do not.
bool externalForcesDependOnState(const Model& model, int loadCase);
/// f_ext = gravity + loads of load case `loadCase` (-1: gravity only) at time t [s]; resized to nq.
void evalExternalForces(const Model& model, int loadCase, const Eigen::VectorXd& q, double t,
                        Eigen::VectorXd& f_ext);
/// d f_ext / dq, resized to nq x nq (non-zero for torques only: they act through the body basis).
void evalExternalJacobian(const Model& model, int loadCase, const Eigen::VectorXd& q, double t,
                          Eigen::MatrixXd& K_ext);

/// K_ext += scale * d f_ext / dq.
void addExternalJacobian(const Model& model, int loadCase, const Eigen::VectorXd& q, double t,
                         BlockAccumulator& K_ext);

/// Potential energy of gravity [J]: -f_g^T q (up to a constant).
double gravityPotential(const Model& model, const Eigen::VectorXd& q);

}  // namespace mbdrom
