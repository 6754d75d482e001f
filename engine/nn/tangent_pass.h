#pragma once
// The tangent pass of a network for training with a directional-derivative loss.

#include "engine/nn/activation.h"
#include "engine/nn/mlp.h"

#include <Eigen/Core>

#include <vector>

namespace mbdrom::nn {

// (encoder layers, then decoder layers): y = AE(x) and its directional derivative
// yd = dAE/dx v, propagated forward (a, a_dot) and reversed through both, as
// Mlp::inputGradientBackward does for scalar networks. dY, dYd: adjoints of y and yd
// (outputs x B); adds the parameter gradient to grad.
class TangentPass {
 public:
  explicit TangentPass(const Mlp& net) : net_(net) {
    int in = net.inputs(), at = 0;
    for (const LayerSpec& l : net.layers()) {
      offsets_.push_back({in, l.outputs, at, at + in * l.outputs});
      at += in * l.outputs + l.outputs;
      in = l.outputs;
    }
  }

  void forward(const Eigen::MatrixXd& X, const Eigen::MatrixXd& V, Eigen::MatrixXd& Y, Eigen::MatrixXd& Yd) {
    const std::size_t L = offsets_.size();
    z_.resize(L);
    zd_.resize(L);
    s1_.resize(L);
    s2_.resize(L);
    a_.resize(L + 1);
    ad_.resize(L + 1);
    a_[0] = (X.colwise() - net_.inputMean()).array().colwise() / net_.inputScale().array();
    ad_[0] = (V.array().colwise() / net_.inputScale().array()).matrix();
    for (std::size_t k = 0; k < L; ++k) {
      z_[k].noalias() = W(k) * a_[k];
      z_[k].colwise() += B(k);
      zd_[k].noalias() = W(k) * ad_[k];
      // sigma'' too, for backward: one pass evaluates the activation once.
      activateWithDerivatives(net_.layers()[k].activation, z_[k], a_[k + 1], s1_[k], &s2_[k]);
      ad_[k + 1] = s1_[k].cwiseProduct(zd_[k]);
    }
    Y = (a_[L].array().colwise() * net_.outputScale().array()).matrix();
    Y.colwise() += net_.outputMean();
    Yd = (ad_[L].array().colwise() * net_.outputScale().array()).matrix();
  }

  void backward(const Eigen::MatrixXd& dY, const Eigen::MatrixXd& dYd, Eigen::VectorXd& grad) {
    abar_ = (dY.array().colwise() * net_.outputScale().array()).matrix();
    adbar_ = (dYd.array().colwise() * net_.outputScale().array()).matrix();
    for (int l = static_cast<int>(offsets_.size()) - 1; l >= 0; --l) {
      const auto k = static_cast<std::size_t>(l);
      const Offsets& o = offsets_[k];
      zdbar_ = s1_[k].cwiseProduct(adbar_);
      zbar_ = s2_[k].cwiseProduct(zd_[k]).cwiseProduct(adbar_) + s1_[k].cwiseProduct(abar_);
      auto gW = Eigen::Map<Eigen::MatrixXd>(grad.data() + o.w, o.out, o.in);
      gW.noalias() += zdbar_ * ad_[k].transpose();
      gW.noalias() += zbar_ * a_[k].transpose();
      Eigen::Map<Eigen::VectorXd>(grad.data() + o.b, o.out) += zbar_.rowwise().sum();
      if (l > 0) {
        adbar_.noalias() = W(k).transpose() * zdbar_;
        abar_.noalias() = W(k).transpose() * zbar_;
      }
    }
  }

 private:
  struct Offsets {
    int in = 0, out = 0, w = 0, b = 0;
  };
  Eigen::Map<const Eigen::MatrixXd> W(std::size_t k) const {
    return {net_.parameters().data() + offsets_[k].w, offsets_[k].out, offsets_[k].in};
  }
  Eigen::Map<const Eigen::VectorXd> B(std::size_t k) const {
    return {net_.parameters().data() + offsets_[k].b, offsets_[k].out};
  }

  const Mlp& net_;
  std::vector<Offsets> offsets_;
  std::vector<Eigen::MatrixXd> z_, zd_, s1_, s2_, a_, ad_;
  Eigen::MatrixXd abar_, adbar_, zbar_, zdbar_;
};

}  // namespace mbdrom::nn
