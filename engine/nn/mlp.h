#pragma once
/// @file
/// Multilayer perceptron on Eigen, double precision, with exact derivatives
/// with respect to its parameters and its input.
///
/// y = mu_y + s_y .* f(x_hat), x_hat = (x - mu_x) ./ s_x: normalisation is part
/// of the network, so every function below works in physical units. Batches
/// are matrices with one sample per column.

#include "engine/nn/activation.h"

#include <Eigen/Core>
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <vector>

namespace mbdrom::nn {

struct LayerSpec {
  int outputs = 1;
  Activation activation = Activation::Linear;
};

enum class Init {
  Auto,    ///< He for ReLU/SiLU layers, Xavier otherwise
  Xavier,  ///< uniform, limit sqrt(6 / (in + out))
  He,      ///< normal, standard deviation sqrt(2 / in)
};

/// Intermediate values of a batched forward pass, kept for the backward pass.
struct Workspace {
  std::vector<Eigen::MatrixXd> z, a;  // per layer: pre-activation, activation; a[0] = x_hat
  std::vector<Eigen::MatrixXd> s1;    // per layer: the activation's derivative at z (for backward)
  Eigen::MatrixXd d, delta;           // scratch
  bool derivatives = true;            // forward keeps s1; off for a forward pass alone
};

class Mlp {
 public:
  /// Most weights and biases a network may have (20 million: ~0.5 GB as JSON).
  static constexpr long long kMaxParameters = 20'000'000;

  Mlp() = default;
  /// inputs: size of x; layers: width and activation of each layer (the last
  /// gives the outputs). Weights from `init` with a generator seeded by `seed`:
  /// the same seed gives identical weights on every platform. Biases are 0.
  Mlp(int inputs, std::vector<LayerSpec> layers, std::uint64_t seed, Init init = Init::Auto);

  int inputs() const { return inputs_; }
  int outputs() const { return layers_.empty() ? inputs_ : layers_.back().outputs; }
  int layerCount() const { return static_cast<int>(layers_.size()); }
  const std::vector<LayerSpec>& layers() const { return layers_; }
  /// Number of trainable parameters (weights and biases).
  int parameterCount() const { return static_cast<int>(params_.size()); }

  /// All parameters, layer by layer: W (column-major, outputs x inputs) then b.
  const Eigen::VectorXd& parameters() const { return params_; }
  Eigen::VectorXd& parameters() { return params_; }
  void setParameters(const Eigen::VectorXd& p);

  /// Input normalisation: x_hat = (x - mean) ./ scale; sizes inputs(). scale > 0.
  void setInputNormalization(const Eigen::VectorXd& mean, const Eigen::VectorXd& scale);
  /// Output normalisation: y = mean + scale .* f; sizes outputs(). scale > 0.
  void setOutputNormalization(const Eigen::VectorXd& mean, const Eigen::VectorXd& scale);
  const Eigen::VectorXd& inputMean() const { return inMean_; }
  const Eigen::VectorXd& inputScale() const { return inScale_; }
  const Eigen::VectorXd& outputMean() const { return outMean_; }
  const Eigen::VectorXd& outputScale() const { return outScale_; }

  /// Y (outputs x B) for X (inputs x B); keeps what backward() needs in ws.
  void forward(const Eigen::MatrixXd& X, Eigen::MatrixXd& Y, Workspace& ws) const;
  /// Y for X without keeping intermediates.
  Eigen::MatrixXd predict(const Eigen::MatrixXd& X) const;
  /// After forward(X, Y, ws): adds dL/dparameters to grad (size parameterCount())
  /// for dY = dL/dY (outputs x B); writes dL/dX (inputs x B) when dX is given.
  void backward(Workspace& ws, const Eigen::MatrixXd& dY, Eigen::VectorXd& grad,
                Eigen::MatrixXd* dX = nullptr) const;

  /// For one input x (size inputs()): y = f(x) and the Jacobian J = dy/dx (outputs x inputs).
  void jacobian(const Eigen::VectorXd& x, Eigen::VectorXd& y, Eigen::MatrixXd& J) const;
  /// For one input x and direction v (size inputs()): y, J = dy/dx and
  /// d2 = sum_jk d2y/dx_j dx_k v_j v_k (size outputs()), in one pass.
  void jacobianAndCurvature(const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& y,
                            Eigen::MatrixXd& J, Eigen::VectorXd& d2) const;

  /// Scalar networks (outputs() == 1): G = df/dx for each column of X (inputs x B).
  void inputGradient(const Eigen::MatrixXd& X, Eigen::MatrixXd& G) const;
  /// Scalar networks: adds to grad the parameter gradient of sum_i R_i . (df/dx)(X_i),
  /// i.e. the double-backprop term of a loss on the input gradient G with
  /// adjoint R = dLoss/dG (inputs x B).
  void inputGradientBackward(const Eigen::MatrixXd& X, const Eigen::MatrixXd& R, Eigen::VectorXd& grad) const;

  /// Self-describing JSON: layers, activations, normalisation, parameters
  /// (shortest round-trip decimal, so reloading is bit-identical) and a checksum.
  nlohmann::json toJson() const;
  /// Inverse of toJson(); throws FileError on missing, inconsistent or corrupted data.
  static Mlp fromJson(const nlohmann::json& j);

 private:
  // ws.d = the activation's derivative at layer l's z: kept by forward, or computed.
  void derivativeAt(Workspace& ws, int l) const;
  struct Offsets {
    int in = 0, out = 0, w = 0, b = 0;
  };
  Eigen::Map<const Eigen::MatrixXd> W(int l) const;
  Eigen::Map<const Eigen::VectorXd> b(int l) const;
  void checkInput(Eigen::Index rows, const char* what) const;
  void allocate();

  int inputs_ = 0;
  std::vector<LayerSpec> layers_;
  std::vector<Offsets> offsets_;
  Eigen::VectorXd params_;
  Eigen::VectorXd inMean_, inScale_, outMean_, outScale_;
};

/// FNV-1a 64 over the bit patterns of the values (corruption check).
std::uint64_t checksum(const Eigen::VectorXd& values);

}  // namespace mbdrom::nn
