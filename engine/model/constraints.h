#pragma once
/// @file
/// Constraint equations Phi(q, t) = 0 of a model and their derivatives.
///
/// Every row has the form Phi_i = sum_j alpha_j(t) a_j(q).b_j(q) - c(t) with
/// a_j, b_j linear in q, so the second time derivative is
///   Phi_dd = Phi_q * qdd + evalPhiQdotQd(...) + evalPhiTdot(...),
/// and the acceleration-level constraint is Phi_q * qdd = -(PhiQdotQd + PhiTdot).
/// Row i is named by `model.constraintLabel(i)`.

#include "engine/model/model.h"

#include <Eigen/Core>
#include <Eigen/SparseCore>

namespace mbdrom {

/// Phi: constraint residuals, resized to nc. q: coordinates, size nq; t: time [s].
void evalPhi(const Model& model, const Eigen::VectorXd& q, double t, Eigen::VectorXd& Phi);

/// Row i of Phi alone (size 1 of evalPhi).
double evalPhiRow(const Model& model, int i, const Eigen::VectorXd& q, double t);

/// Row i of Phi_q added into row `into` of `out` (nq columns).
void addPhiQRow(const Model& model, int i, const Eigen::VectorXd& q, double t, Eigen::MatrixXd& out,
                int into);

/// Row i of evalPhiQdotQd alone.
double evalPhiQdotQdRow(const Model& model, int i, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                        double t);

/// True when `row` is linear in q with a factor that does not change in time: each product has
/// a constant side and the row's law keeps its factors. Its gradient is then the same at every
/// state, and its evalPhiQdotQd is zero.
bool hasConstantGradient(const ConstraintRow& row);

/// Phi_q = dPhi/dq, resized to nc x nq (dense).
void evalPhiQ(const Model& model, const Eigen::VectorXd& q, double t, Eigen::MatrixXd& Phi_q);

/// Phi_q = dPhi/dq, nc x nq, compressed column storage with the non-zeros of
/// each row's combinations only (no nc x nq object: large models).
void evalPhiQ(const Model& model, const Eigen::VectorXd& q, double t, Eigen::SparseMatrix<double>& Phi_q);

/// Phi_t = dPhi/dt, resized to nc (non-zero for driver rows only).
void evalPhiT(const Model& model, const Eigen::VectorXd& q, double t, Eigen::VectorXd& Phi_t);

/// (d/dt Phi_q) * qd = (Phi_q qd)_q qd + Phi_qt qd, resized to nc. qd: velocities, size nq.
void evalPhiQdotQd(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
                   Eigen::VectorXd& out);

/// d/dt Phi_t = Phi_tq qd + Phi_tt, resized to nc.
void evalPhiTdot(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t,
                 Eigen::VectorXd& out);

}  // namespace mbdrom
