#include "engine/model/forces.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>

namespace mbdrom {

namespace {

// K += Ja^T * B * Jb for the combinations a and b.
void addBlock(Eigen::MatrixXd& K, const Combination& a, const Combination& b, const Eigen::Matrix3d& B) {
  BlockAccumulator(K).addCombinations(a, b, B);
}

Eigen::Matrix3d skew(const Eigen::Vector3d& v) {
  Eigen::Matrix3d S;
  S << 0.0, -v.z(), v.y(), v.z(), 0.0, -v.x(), -v.y(), v.x(), 0.0;
  return S;
}

// Piecewise-linear table with linear extrapolation of the end segments.
double tableValue(const std::vector<double>& x, const std::vector<double>& y, double at, double* slope) {
  if (x.size() == 1) {
    if (slope) *slope = 0.0;
    return y[0];
  }
  std::size_t i = static_cast<std::size_t>(std::upper_bound(x.begin(), x.end(), at) - x.begin());
  i = std::clamp<std::size_t>(i, 1, x.size() - 1) - 1;
  const double s = (y[i + 1] - y[i]) / (x[i + 1] - x[i]);
  if (slope) *slope = s;
  return y[i] + s * (at - x[i]);
}

// Integral of the table from x[0] to `to`, exact (trapezoids between breakpoints).
double tableIntegral(const std::vector<double>& x, const std::vector<double>& y, double to) {
  std::vector<double> cuts = {x.front(), to};
  for (double b : x)
    if (b > std::min(x.front(), to) && b < std::max(x.front(), to)) cuts.push_back(b);
  std::sort(cuts.begin(), cuts.end());
  double area = 0.0;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
    area += 0.5 * (cuts[k + 1] - cuts[k]) *
            (tableValue(x, y, cuts[k], nullptr) + tableValue(x, y, cuts[k + 1], nullptr));
  return to >= x.front() ? area : -area;
}

struct Segment {
  const Combination& d;  // P2 - P1
  Eigen::Vector3d e;
  double l;
};

Segment segment(const CompiledSpringDamper& s, const Eigen::VectorXd& q) {
  Segment g{s.d, Eigen::Vector3d::Zero(), 0.0};
  const Eigen::Vector3d d = g.d.value(q);
  g.l = d.norm();
  // A zero-length spring has no direction: no force rather than NaN.
  g.e = g.l > 0.0 ? Eigen::Vector3d(d / g.l) : Eigen::Vector3d::Zero();
  return g;
}

double normalForce(const Model& model, const Eigen::VectorXd& normalForces, std::size_t i) {
  return normalForces.size() > 0 ? normalForces(static_cast<Eigen::Index>(i))
                                 : model.spec().frictions[i].normalForce;
}

// phi(v) and dphi/dv of the friction law.
std::pair<double, double> frictionLaw(const FrictionSpec& f, double v) {
  if (f.law == FrictionLaw::Tanh) {
    const double th = std::tanh(v / f.regularisationVelocity);
    return {th, (1.0 - th * th) / f.regularisationVelocity};
  }
  return {v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0), 0.0};
}

}  // namespace

double springForce(const SpringDamperSpec& spring, double length, double* dfdl) {
  if (!spring.tableLength.empty()) return tableValue(spring.tableLength, spring.tableForce, length, dfdl);
  const double delta = length - spring.freeLength;
  double f = 0.0, df = 0.0, power = 1.0;  // power = delta^i
  for (std::size_t i = 0; i < spring.stiffness.size(); ++i) {
    df += static_cast<double>(i + 1) * spring.stiffness[i] * power;
    power *= delta;
    f += spring.stiffness[i] * power;
  }
  if (dfdl) *dfdl = df;
  return f;
}

void evalSpringForces(const Model& model, const Eigen::VectorXd& q, Eigen::VectorXd& f_spring) {
  f_spring.setZero(model.nq());
  for (std::size_t i = 0; i < model.springDampers().size(); ++i) {
    const Segment g = segment(model.springDampers()[i], q);
    g.d.addTransposed(f_spring, g.e, springForce(model.spec().springDampers[i], g.l));
  }
}

void evalSpringJacobian(const Model& model, const Eigen::VectorXd& q, Eigen::MatrixXd& K) {
  K.setZero(model.nq(), model.nq());
  BlockAccumulator to(K);
  addSpringJacobian(model, q, to);
}

void addSpringJacobian(const Model& model, const Eigen::VectorXd& q, BlockAccumulator& K) {
  for (std::size_t i = 0; i < model.springDampers().size(); ++i) {
    const Segment g = segment(model.springDampers()[i], q);
    if (g.l == 0.0) continue;
    double df = 0.0;
    const double f = springForce(model.spec().springDampers[i], g.l, &df);
    const Eigen::Matrix3d P = Eigen::Matrix3d::Identity() - g.e * g.e.transpose();
    K.addCombinations(g.d, g.d, df * g.e * g.e.transpose() + (f / g.l) * P);
  }
}

double springPotential(const Model& model, const Eigen::VectorXd& q) {
  double V = 0.0;
  for (std::size_t i = 0; i < model.springDampers().size(); ++i) {
    const SpringDamperSpec& s = model.spec().springDampers[i];
    const double l = segment(model.springDampers()[i], q).l;
    if (!s.tableLength.empty()) {
      V += tableIntegral(s.tableLength, s.tableForce, l);
      continue;
    }
    const double delta = l - s.freeLength;
    double power = delta;
    for (std::size_t k = 0; k < s.stiffness.size(); ++k) {
      power *= delta;
      V += s.stiffness[k] * power / static_cast<double>(k + 2);
    }
  }
  return V;
}

void evalDamperForces(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                      Eigen::VectorXd& f_damper) {
  f_damper.setZero(model.nq());
  for (std::size_t i = 0; i < model.springDampers().size(); ++i) {
    const double c = model.spec().springDampers[i].damping;
    if (c == 0.0) continue;
    const Segment g = segment(model.springDampers()[i], q);
    g.d.addTransposed(f_damper, g.e, c * g.e.dot(g.d.rate(qd)));
  }
}

void evalSpringDamperForces(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                            Eigen::VectorXd& f_spring, Eigen::VectorXd& f_damper) {
  f_spring.setZero(model.nq());
  f_damper.setZero(model.nq());
  for (std::size_t i = 0; i < model.springDampers().size(); ++i) {
    const SpringDamperSpec& spec = model.spec().springDampers[i];
    const Segment g = segment(model.springDampers()[i], q);
    g.d.addTransposed(f_spring, g.e, springForce(spec, g.l));
    if (spec.damping != 0.0) g.d.addTransposed(f_damper, g.e, spec.damping * g.e.dot(g.d.rate(qd)));
  }
}

void evalDamperJacobians(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                         Eigen::MatrixXd& D_q, Eigen::MatrixXd& D_qd) {
  D_q.setZero(model.nq(), model.nq());
  D_qd.setZero(model.nq(), model.nq());
  BlockAccumulator toQ(D_q), toQd(D_qd);
  addDamperJacobians(model, q, qd, toQ, toQd);
}

void addDamperJacobians(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                        BlockAccumulator& D_q, BlockAccumulator& D_qd) {
  for (std::size_t i = 0; i < model.springDampers().size(); ++i) {
    const double c = model.spec().springDampers[i].damping;
    const Segment g = segment(model.springDampers()[i], q);
    if (c == 0.0 || g.l == 0.0) continue;
    const Eigen::Vector3d dd = g.d.rate(qd);
    const double ld = g.e.dot(dd);
    const Eigen::Matrix3d P = Eigen::Matrix3d::Identity() - g.e * g.e.transpose();
    // d(ld e)/dd = [e dd^T P + ld P] / l
    D_q.addCombinations(g.d, g.d, (c / g.l) * (g.e * (P * dd).transpose() + ld * P));
    D_qd.addCombinations(g.d, g.d, c * g.e * g.e.transpose());
  }
}

double frictionSlidingVelocity(const Model& model, int friction, const Eigen::VectorXd& q,
                               const Eigen::VectorXd& qd) {
  const CompiledFriction& f = model.frictions()[static_cast<std::size_t>(friction)];
  return f.axis.value(q).dot(f.r.rate(qd));
}

void evalFrictionForces(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                        const Eigen::VectorXd& normalForces, Eigen::VectorXd& f_friction) {
  f_friction.setZero(model.nq());
  for (std::size_t i = 0; i < model.frictions().size(); ++i) {
    const CompiledFriction& f = model.frictions()[i];
    const FrictionSpec& spec = model.spec().frictions[i];
    const Eigen::Vector3d u = f.axis.value(q);
    const Combination& r = f.r;
    const double v = u.dot(r.rate(qd));
    const double magnitude = spec.mu * normalForce(model, normalForces, i) * frictionLaw(spec, v).first;
    r.addTransposed(f_friction, u, magnitude);
  }
}

void evalFrictionJacobians(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd,
                           const Eigen::VectorXd& normalForces, Eigen::MatrixXd& F_q, Eigen::MatrixXd& F_qd) {
  F_q.setZero(model.nq(), model.nq());
  F_qd.setZero(model.nq(), model.nq());
  for (std::size_t i = 0; i < model.frictions().size(); ++i) {
    const CompiledFriction& f = model.frictions()[i];
    const FrictionSpec& spec = model.spec().frictions[i];
    const Eigen::Vector3d u = f.axis.value(q);
    const Combination& r = f.r;
    const Eigen::Vector3d rd = r.rate(qd);
    const auto [phi, dphi] = frictionLaw(spec, u.dot(rd));
    const double muN = spec.mu * normalForce(model, normalForces, i);
    // f = muN phi(u.rd) Jr^T u
    addBlock(F_qd, r, r, muN * dphi * u * u.transpose());
    addBlock(F_q, r, f.axis, muN * (dphi * u * rd.transpose() + phi * Eigen::Matrix3d::Identity()));
  }
}

bool externalForcesDependOnState(const Model& model, int loadCase) {
  if (loadCase < 0) return false;
  for (const CompiledLoad& load : model.loads(loadCase))
    if (load.type != LoadSpec::Type::Force) return true;
  return false;
}

void evalExternalForces(const Model& model, int loadCase, const Eigen::VectorXd& q, double t,
                        Eigen::VectorXd& f_ext) {
  f_ext = model.gravityForce();
  if (loadCase < 0) return;
  for (const CompiledLoad& load : model.loads(loadCase)) {
    const Eigen::Vector3d v = load.function(t) * load.direction;
    if (load.type == LoadSpec::Type::Force) {
      load.point.addTransposed(f_ext, v, 1.0);
      continue;
    }
    // Torque: Q_i = sum_j Ginv_ij (tau x d_j) on direction i (see model.cpp).
    const Eigen::Index n = static_cast<Eigen::Index>(load.directions.size());
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < n; ++j)
        load.directions[static_cast<std::size_t>(i)].addTransposed(
            f_ext, v.cross(load.directions[static_cast<std::size_t>(j)].value(q)), load.gramInverse(i, j));
  }
}

void evalExternalJacobian(const Model& model, int loadCase, const Eigen::VectorXd& q, double t,
                          Eigen::MatrixXd& K_ext) {
  K_ext.setZero(model.nq(), model.nq());
  BlockAccumulator to(K_ext);
  addExternalJacobian(model, loadCase, q, t, to);
}

void addExternalJacobian(const Model& model, int loadCase, const Eigen::VectorXd& /*q*/, double t,
                         BlockAccumulator& K_ext) {
  if (loadCase < 0) return;
  for (const CompiledLoad& load : model.loads(loadCase)) {
    if (load.type != LoadSpec::Type::Torque) continue;
    const Eigen::Matrix3d S = skew(load.function(t) * load.direction);
    const Eigen::Index n = static_cast<Eigen::Index>(load.directions.size());
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < n; ++j)
        K_ext.addCombinations(load.directions[static_cast<std::size_t>(i)],
                              load.directions[static_cast<std::size_t>(j)], load.gramInverse(i, j) * S);
  }
}

double gravityPotential(const Model& model, const Eigen::VectorXd& q) {
  return -model.gravityForce().dot(q);
}

}  // namespace mbdrom
