#pragma once
// One network evaluated at one input with its first and second derivatives,
// allocation-free per call: the online step of networks inside a time integrator
// (the auto-encoder's decoder, potential and damper, and the neural ODE on its
// latent coordinates).

#include "engine/core/aligned_allocator.h"
#include "engine/nn/activation.h"
#include "engine/nn/dense_kernels.h"
#include "engine/nn/mlp.h"

#include <Eigen/Core>

#include <algorithm>
#include <vector>

namespace mbdrom::nn {

// Evaluates one network at one input with its own buffers (one per layer), so a
// run's time step allocates nothing and two runs never share scratch memory. It evaluates the
// network's parameters as they are when it is made: a copy in which each layer's weights and
// bias, like value()'s buffers, start on a cache line, so that the kernels' vector loads cross
// no line wherever the network's own vector happens to lie (a 64 x 64 layer's product is much
// slower 16 bytes past a line's start with AVX-512: bench/nn_kernels/versions.sh).
class MlpEvaluator {
 public:
  explicit MlpEvaluator(const Mlp& net) : net_(net) {
    int in = net.inputs(), at = 0, weights = 0, values = 0;
    for (const LayerSpec& l : net.layers()) {
      Layer layer;
      layer.in = in;
      layer.out = l.outputs;
      layer.from = at;
      layer.w = weights;
      layer.b = layer.w + lineMultiple(in * l.outputs);
      weights = layer.b + lineMultiple(l.outputs);
      layer.zValue = values;
      layer.aValue = layer.zValue + lineMultiple(l.outputs);
      values = layer.aValue + lineMultiple(l.outputs);
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
      at += (in + 1) * l.outputs;
      in = l.outputs;
      layers_.push_back(std::move(layer));
    }
    weights_.assign(static_cast<std::size_t>(weights), 0.0);
    values_.assign(static_cast<std::size_t>(values), 0.0);
    const double* p = net.parameters().data();
    for (const Layer& L : layers_) {
      std::copy(p + L.from, p + L.from + L.in * L.out, weights_.begin() + L.w);
      std::copy(p + L.from + L.in * L.out, p + L.from + (L.in + 1) * L.out, weights_.begin() + L.b);
    }
    int widest = net.inputs();
    for (const Layer& L : layers_) widest = std::max(widest, L.out);
    zeros_.assign(static_cast<std::size_t>(widest), 0.0);
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
    for (const Layer& L : layers_) {
      double* z = values_.data() + L.zValue;
      double* next = values_.data() + L.aValue;
      affine(L.out, L.in, weights_.data() + L.w, weights_.data() + L.b, a, z);
      activateValues(L.act, z, next, L.out);
      a = next;
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
      // The value, both directional derivatives and each column of the Jacobian through the
      // affine kernel: a few columns, where Eigen's matrix product packs its operands first.
      const double* Wl = weights_.data() + L.w;
      affine(L.out, L.in, Wl, weights_.data() + L.b, a->data(), L.z.data());
      affine(L.out, L.in, Wl, zeros_.data(), ad->data(), L.zd.data());
      affine(L.out, L.in, Wl, zeros_.data(), add->data(), L.zdd.data());
      for (Eigen::Index k = 0; k < Jh->cols(); ++k)
        affine(L.out, L.in, Wl, zeros_.data(), Jh->data() + k * L.in, L.WJ.data() + k * L.out);
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
  // Doubles in whole cache lines of 64 bytes.
  static int lineMultiple(int doubles) { return (doubles + 7) / 8 * 8; }

  struct Layer {
    int in = 0, out = 0;
    int from = 0;                // where the layer's W, then b, start in the network's parameters
    int w = 0, b = 0;            // where they start in weights_
    int zValue = 0, aValue = 0;  // value()'s pre-activation and activation in values_
    Activation act = Activation::Linear;
    Eigen::VectorXd z, zd, zdd, s0, s1, s2, ad, add, delta, dz;
    Eigen::MatrixXd Jh, WJ;
  };
  Eigen::Map<const Eigen::MatrixXd> W(const Layer& L) const { return {weights_.data() + L.w, L.out, L.in}; }
  Eigen::Map<const Eigen::VectorXd> B(const Layer& L) const { return {weights_.data() + L.b, L.out}; }

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

  using Lines = std::vector<double, AlignedAllocator<double, 64>>;

  const Mlp& net_;
  std::vector<Layer> layers_;
  Lines weights_;  // each layer's W (out x in, column-major), then b, each from a line's start
  Lines values_;   // value()'s z and a of each layer, each from a line's start
  Lines zeros_;    // a zero bias for the derivatives' affine maps, as wide as the widest layer
  Eigen::VectorXd a0_, ad0_, add0_;
  Eigen::MatrixXd J0_;
};

}  // namespace mbdrom::nn
