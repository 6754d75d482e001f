#pragma once
// One network evaluated at one input with its first and second derivatives,
// allocation-free per call: the online step of networks inside a time integrator
// (the auto-encoder's decoder, potential and damper, and the neural ODE on its
// latent coordinates).

#include "engine/nn/activation.h"
#include "engine/nn/dense_kernels.h"
#include "engine/nn/mlp.h"

#include <Eigen/Core>

#include <vector>

namespace mbdrom::nn {

// Evaluates one network at one input with its own buffers (one per layer), so a
// run's time step allocates nothing and two runs never share scratch memory.
class MlpEvaluator {
 public:
  explicit MlpEvaluator(const Mlp& net) : net_(net) {
    int in = net.inputs(), at = 0;
    for (const LayerSpec& l : net.layers()) {
      Layer layer;
      layer.in = in;
      layer.out = l.outputs;
      layer.w = at;
      layer.b = at + in * l.outputs;
      layer.act = l.activation;
      layer.z.setZero(l.outputs);
      layer.zd.setZero(l.outputs);
      layer.zdd.setZero(l.outputs);
      layer.s0.setZero(l.outputs);
      layer.s1.setZero(l.outputs);
      layer.s2.setZero(l.outputs);
      layer.ad.setZero(l.outputs);
      layer.add.setZero(l.outputs);
      layer.Jh.setZero(l.outputs, net.inputs());
      layer.WJ.setZero(l.outputs, net.inputs());
      layer.delta.setZero(in);
      layer.dz.setZero(l.outputs);
      at = layer.b + l.outputs;
      in = l.outputs;
      layers_.push_back(std::move(layer));
    }
    a0_.setZero(net.inputs());
    ad0_.setZero(net.inputs());
    add0_.setZero(net.inputs());
    J0_ = net.inputScale().cwiseInverse().asDiagonal();
  }

  // y = f(x).
  void value(const Eigen::VectorXd& x, Eigen::VectorXd& y) {
    y.resize(net_.outputs());
    value(x.data(), y.data());
  }
  // y (size outputs()) = f(x) (size inputs()), without derivatives.
  void value(const double* x, double* y) {
    const Eigen::VectorXd &inMean = net_.inputMean(), &inScale = net_.inputScale();
    for (Eigen::Index i = 0; i < a0_.size(); ++i) a0_(i) = (x[i] - inMean(i)) / inScale(i);
    const double* a = a0_.data();
    for (Layer& L : layers_) {
      affine(L.out, L.in, net_.parameters().data() + L.w, net_.parameters().data() + L.b, a, L.z.data());
      activateValues(L.act, L.z.data(), L.s0.data(), L.out);
      a = L.s0.data();
    }
    const Eigen::VectorXd &outMean = net_.outputMean(), &outScale = net_.outputScale();
    for (Eigen::Index i = 0; i < outMean.size(); ++i) y[i] = outMean(i) + outScale(i) * a[i];
  }

  // Scalar networks: returns f(x), g = df/dx (reverse mode).
  double valueGradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) {
    forward(x);
    const double y = net_.outputMean()(0) + net_.outputScale()(0) * layers_.back().s0(0);
    for (int l = static_cast<int>(layers_.size()) - 1; l >= 0; --l) {
      Layer& L = layers_[static_cast<std::size_t>(l)];
      if (l == static_cast<int>(layers_.size()) - 1)
        L.dz = L.s1 * net_.outputScale()(0);
      else
        L.dz = L.s1.cwiseProduct(layers_[static_cast<std::size_t>(l + 1)].delta);
      L.delta.noalias() = W(L).transpose() * L.dz;
    }
    g = layers_.front().delta.cwiseQuotient(net_.inputScale());
    return y;
  }

  // y = f(x), J = df/dx, d2 = sum_jk d2f/dx_j dx_k v_j v_k (forward mode, second order along v).
  void valueJacobianCurvature(const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& y,
                              Eigen::MatrixXd& J, Eigen::VectorXd& d2) {
    a0_ = (x - net_.inputMean()).cwiseQuotient(net_.inputScale());
    ad0_ = v.cwiseQuotient(net_.inputScale());
    const Eigen::VectorXd* a = &a0_;
    const Eigen::VectorXd* ad = &ad0_;
    const Eigen::VectorXd* add = &add0_;
    const Eigen::MatrixXd* Jh = &J0_;
    for (Layer& L : layers_) {
      const auto Wl = W(L);
      L.z.noalias() = Wl * *a;
      L.z += B(L);
      L.zd.noalias() = Wl * *ad;
      L.zdd.noalias() = Wl * *add;
      L.WJ.noalias() = Wl * *Jh;
      activateWithDerivatives(L.act, L.z, L.s0, L.s1, L.s2);
      L.Jh.noalias() = L.s1.asDiagonal() * L.WJ;
      L.ad = L.s1.cwiseProduct(L.zd);
      L.add = L.s2.cwiseProduct(L.zd.cwiseAbs2()) + L.s1.cwiseProduct(L.zdd);
      a = &L.s0;
      ad = &L.ad;
      add = &L.add;
      Jh = &L.Jh;
    }
    y = net_.outputMean() + net_.outputScale().cwiseProduct(*a);
    J.noalias() = net_.outputScale().asDiagonal() * *Jh;
    d2 = net_.outputScale().cwiseProduct(*add);
  }

 private:
  struct Layer {
    int in = 0, out = 0, w = 0, b = 0;
    Activation act = Activation::Linear;
    Eigen::VectorXd z, zd, zdd, s0, s1, s2, ad, add, delta, dz;
    Eigen::MatrixXd Jh, WJ;
  };
  Eigen::Map<const Eigen::MatrixXd> W(const Layer& L) const {
    return {net_.parameters().data() + L.w, L.out, L.in};
  }
  Eigen::Map<const Eigen::VectorXd> B(const Layer& L) const {
    return {net_.parameters().data() + L.b, L.out};
  }

  void forward(const Eigen::VectorXd& x) {
    a0_ = (x - net_.inputMean()).cwiseQuotient(net_.inputScale());
    const Eigen::VectorXd* a = &a0_;
    for (Layer& L : layers_) {
      L.z.noalias() = W(L) * *a;
      L.z += B(L);
      activateWithDerivatives(L.act, L.z, L.s0, L.s1, L.s2);
      a = &L.s0;
    }
  }

  const Mlp& net_;
  std::vector<Layer> layers_;
  Eigen::VectorXd a0_, ad0_, add0_;
  Eigen::MatrixXd J0_;
};

}  // namespace mbdrom::nn
