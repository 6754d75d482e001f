#include "engine/dynamics/constraint_hessian.h"

#include <cmath>

namespace mbdrom {

ConstraintHessian::ConstraintHessian(const Model& model) : model_(&model) {
  for (int i = 0; i < model.nc(); ++i) {
    const ConstraintRow& row = model.constraints()[static_cast<std::size_t>(i)];
    if (row.law == ConstraintRow::Law::Angle) angleRows_.push_back(i);
    for (std::size_t j = 0; j < row.products.size(); ++j)
      for (const auto& ta : row.products[j].a.terms)
        for (const auto& tb : row.products[j].b.terms)
          blocks_.push_back({i, static_cast<int>(j), ta.index, tb.index, ta.weight * tb.weight});
  }
}

void ConstraintHessian::add(const Eigen::VectorXd& lambda, double t, double scale, Eigen::MatrixXd& H) const {
  // alpha_j of angle-driver rows: (sin f, -cos f); every other row has alpha = 1.
  auto alpha = [&](const Block& b) {
    const ConstraintRow& row = model_->constraints()[static_cast<std::size_t>(b.row)];
    if (row.law != ConstraintRow::Law::Angle) return 1.0;
    const double f = model_->spec().drivers[static_cast<std::size_t>(row.driver)].function(t);
    return b.product == 0 ? std::sin(f) : -std::cos(f);
  };
  for (const Block& b : blocks_) {
    const double lam = lambda(b.row);
    if (lam == 0.0) continue;
    const double s = scale * lam * b.weight * (angleRows_.empty() ? 1.0 : alpha(b));
    for (int k = 0; k < 3; ++k) {
      H(b.ia + k, b.ib + k) += s;
      H(b.ib + k, b.ia + k) += s;
    }
  }
}

void ConstraintHessian::add(const Eigen::VectorXd& lambda, double t, BlockAccumulator& H) const {
  for (const Block& b : blocks_) {
    double alpha = 1.0;
    const ConstraintRow& row = model_->constraints()[static_cast<std::size_t>(b.row)];
    if (row.law == ConstraintRow::Law::Angle) {
      const double f = model_->spec().drivers[static_cast<std::size_t>(row.driver)].function(t);
      alpha = b.product == 0 ? std::sin(f) : -std::cos(f);
    }
    const double s = lambda(b.row) * b.weight * alpha;
    H.addIdentity(b.ia, b.ib, s);
    H.addIdentity(b.ib, b.ia, s);
  }
}

void evalConstraintHessian(const Model& model, const Eigen::VectorXd& lambda, double t, Eigen::MatrixXd& H) {
  H.setZero(model.nq(), model.nq());
  ConstraintHessian(model).add(lambda, t, 1.0, H);
}

}  // namespace mbdrom
