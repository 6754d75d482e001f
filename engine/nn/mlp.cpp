#include "engine/nn/mlp.h"

#include "engine/core/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

namespace mbdrom::nn {

namespace {

// Platform-independent uniform [0, 1) and normal samples from mt19937_64
// (std:: distributions differ between standard libraries).
double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}
double normal(std::mt19937_64& rng) {
  double u1 = uniform01(rng);
  while (u1 <= 0.0) u1 = uniform01(rng);
  const double u2 = uniform01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

std::string sizeMessage(const char* what, Eigen::Index expected, Eigen::Index got) {
  std::ostringstream out;
  out << what << ": expected " << expected << ", got " << got;
  return out.str();
}

}  // namespace

std::uint64_t checksum(const Eigen::VectorXd& values) {
  std::uint64_t h = 1469598103934665603ull;
  for (Eigen::Index i = 0; i < values.size(); ++i) {
    std::uint64_t bits = 0;
    const double v = values(i);
    std::memcpy(&bits, &v, sizeof bits);
    for (int k = 0; k < 8; ++k) {
      h ^= (bits >> (8 * k)) & 0xffu;
      h *= 1099511628211ull;
    }
  }
  return h;
}

Mlp::Mlp(int inputs, std::vector<LayerSpec> layers, std::uint64_t seed, Init init)
    : inputs_(inputs), layers_(std::move(layers)) {
  if (inputs_ <= 0) throw InputError("network: inputs must be positive, got " + std::to_string(inputs_));
  if (layers_.empty()) throw InputError("network: at least one layer is needed");
  for (std::size_t l = 0; l < layers_.size(); ++l)
    if (layers_[l].outputs <= 0)
      throw InputError("network: layer " + std::to_string(l) + " width must be positive, got " +
                       std::to_string(layers_[l].outputs));
  // Refused before any training: a larger network could not be saved (trained
  // models are read up to kMaxTrainedModelBytes).
  long long parameters = 0, width = inputs_;
  for (const LayerSpec& layer : layers_) {
    parameters += (width + 1) * layer.outputs;
    width = layer.outputs;
  }
  if (parameters > kMaxParameters)
    throw InputError("network: " + std::to_string(parameters) + " parameters, more than the limit of " +
                     std::to_string(kMaxParameters) +
                     " (a trained model must fit its file); use narrower layers");
  allocate();
  std::mt19937_64 rng(seed);
  for (int l = 0; l < layerCount(); ++l) {
    const Offsets& o = offsets_[static_cast<std::size_t>(l)];
    const Activation act = layers_[static_cast<std::size_t>(l)].activation;
    const bool he =
        init == Init::He || (init == Init::Auto && (act == Activation::ReLU || act == Activation::SiLU));
    const double limit = std::sqrt(6.0 / (o.in + o.out)), sd = std::sqrt(2.0 / o.in);
    for (int k = 0; k < o.in * o.out; ++k)
      params_(o.w + k) = he ? sd * normal(rng) : limit * (2.0 * uniform01(rng) - 1.0);
  }
}

void Mlp::allocate() {
  offsets_.clear();
  int in = inputs_, at = 0;
  for (const LayerSpec& layer : layers_) {
    Offsets o;
    o.in = in;
    o.out = layer.outputs;
    o.w = at;
    o.b = at + in * layer.outputs;
    at = o.b + layer.outputs;
    offsets_.push_back(o);
    in = layer.outputs;
  }
  params_.setZero(at);
  inMean_.setZero(inputs_);
  inScale_.setOnes(inputs_);
  outMean_.setZero(outputs());
  outScale_.setOnes(outputs());
}

Eigen::Map<const Eigen::MatrixXd> Mlp::W(int l) const {
  const Offsets& o = offsets_[static_cast<std::size_t>(l)];
  return {params_.data() + o.w, o.out, o.in};
}

Eigen::Map<const Eigen::VectorXd> Mlp::b(int l) const {
  const Offsets& o = offsets_[static_cast<std::size_t>(l)];
  return {params_.data() + o.b, o.out};
}

void Mlp::checkInput(Eigen::Index rows, const char* what) const {
  if (rows != inputs_) throw InputError(sizeMessage(what, inputs_, rows));
}

void Mlp::setParameters(const Eigen::VectorXd& p) {
  if (p.size() != params_.size())
    throw InputError(sizeMessage("network parameters", params_.size(), p.size()));
  params_ = p;
}

void Mlp::setInputNormalization(const Eigen::VectorXd& mean, const Eigen::VectorXd& scale) {
  checkInput(mean.size(), "input normalisation mean");
  checkInput(scale.size(), "input normalisation scale");
  if (!(scale.array() > 0.0).all() || !scale.allFinite() || !mean.allFinite())
    throw InputError("input normalisation: scales must be positive and finite");
  inMean_ = mean;
  inScale_ = scale;
}

void Mlp::setOutputNormalization(const Eigen::VectorXd& mean, const Eigen::VectorXd& scale) {
  if (mean.size() != outputs())
    throw InputError(sizeMessage("output normalisation mean", outputs(), mean.size()));
  if (scale.size() != outputs())
    throw InputError(sizeMessage("output normalisation scale", outputs(), scale.size()));
  if (!(scale.array() > 0.0).all() || !scale.allFinite() || !mean.allFinite())
    throw InputError("output normalisation: scales must be positive and finite");
  outMean_ = mean;
  outScale_ = scale;
}

void Mlp::forward(const Eigen::MatrixXd& X, Eigen::MatrixXd& Y, Workspace& ws) const {
  checkInput(X.rows(), "network input");
  const int L = layerCount();
  ws.z.resize(static_cast<std::size_t>(L));
  ws.s1.resize(ws.derivatives ? static_cast<std::size_t>(L) : 0);
  ws.a.resize(static_cast<std::size_t>(L + 1));
  ws.a[0] = (X.colwise() - inMean_).array().colwise() / inScale_.array();
  for (int l = 0; l < L; ++l) {
    auto& z = ws.z[static_cast<std::size_t>(l)];
    z.noalias() = W(l) * ws.a[static_cast<std::size_t>(l)];
    z.colwise() += b(l);
    const Activation act = layers_[static_cast<std::size_t>(l)].activation;
    auto& a = ws.a[static_cast<std::size_t>(l + 1)];
    // The derivative too, for backward: the activation is evaluated once.
    if (ws.derivatives)
      activateWithDerivatives(act, z, a, ws.s1[static_cast<std::size_t>(l)], nullptr);
    else
      activate(act, z, a);
  }
  Y = (ws.a.back().array().colwise() * outScale_.array()).matrix();
  Y.colwise() += outMean_;
}

Eigen::MatrixXd Mlp::predict(const Eigen::MatrixXd& X) const {
  Workspace ws;
  ws.derivatives = false;
  Eigen::MatrixXd Y;
  forward(X, Y, ws);
  return Y;
}

void Mlp::derivativeAt(Workspace& ws, int l) const {
  const auto k = static_cast<std::size_t>(l);
  if (k < ws.s1.size())
    ws.d = ws.s1[k];
  else
    activateDerivative(layers_[k].activation, ws.z[k], ws.d);
}

void Mlp::backward(Workspace& ws, const Eigen::MatrixXd& dY, Eigen::VectorXd& grad,
                   Eigen::MatrixXd* dX) const {
  if (dY.rows() != outputs()) throw InputError(sizeMessage("network output gradient", outputs(), dY.rows()));
  if (grad.size() != params_.size())
    throw InputError(sizeMessage("parameter gradient", params_.size(), grad.size()));
  Eigen::MatrixXd delta = (dY.array().colwise() * outScale_.array()).matrix();
  for (int l = layerCount() - 1; l >= 0; --l) {
    const Offsets& o = offsets_[static_cast<std::size_t>(l)];
    derivativeAt(ws, l);
    ws.d.array() *= delta.array();  // dL/dz
    Eigen::Map<Eigen::MatrixXd>(grad.data() + o.w, o.out, o.in).noalias() +=
        ws.d * ws.a[static_cast<std::size_t>(l)].transpose();
    Eigen::Map<Eigen::VectorXd>(grad.data() + o.b, o.out) += ws.d.rowwise().sum();
    if (l > 0 || dX) delta.noalias() = W(l).transpose() * ws.d;
  }
  if (dX) *dX = (delta.array().colwise() / inScale_.array()).matrix();
}

void Mlp::jacobian(const Eigen::VectorXd& x, Eigen::VectorXd& y, Eigen::MatrixXd& J) const {
  checkInput(x.size(), "network input");
  Eigen::VectorXd a = (x - inMean_).cwiseQuotient(inScale_);
  Eigen::MatrixXd Jh = inScale_.cwiseInverse().asDiagonal();
  Eigen::MatrixXd z, d, act;
  for (int l = 0; l < layerCount(); ++l) {
    z = W(l) * a + b(l);
    activateWithDerivatives(layers_[static_cast<std::size_t>(l)].activation, z, act, d, nullptr);
    Jh = d.col(0).asDiagonal() * (W(l) * Jh);
    a = act.col(0);
  }
  y = outMean_ + outScale_.cwiseProduct(a);
  J = outScale_.asDiagonal() * Jh;
}

void Mlp::jacobianAndCurvature(const Eigen::VectorXd& x, const Eigen::VectorXd& v, Eigen::VectorXd& y,
                               Eigen::MatrixXd& J, Eigen::VectorXd& d2) const {
  checkInput(x.size(), "network input");
  checkInput(v.size(), "network input direction");
  // Called every time step of a reduced model: per-thread scratch, no allocation
  // once warm. Forward-mode second order (a, a_dot, a_ddot) along v, plus the
  // full Jacobian.
  thread_local struct {
    Eigen::VectorXd a, ad, add, z, zd, zdd, s0, s1, s2;
    Eigen::MatrixXd Jh, WJ;
  } t;
  t.a = (x - inMean_).cwiseQuotient(inScale_);
  t.ad = v.cwiseQuotient(inScale_);
  t.add.setZero(inputs_);
  t.Jh = inScale_.cwiseInverse().asDiagonal();
  for (int l = 0; l < layerCount(); ++l) {
    const auto Wl = W(l);
    t.z.noalias() = Wl * t.a;
    t.z += b(l);
    t.zd.noalias() = Wl * t.ad;
    t.zdd.noalias() = Wl * t.add;
    t.WJ.noalias() = Wl * t.Jh;
    activateWithDerivatives(layers_[static_cast<std::size_t>(l)].activation, t.z, t.s0, t.s1, t.s2);
    t.Jh.noalias() = t.s1.asDiagonal() * t.WJ;
    t.a.swap(t.s0);
    t.ad = t.s1.cwiseProduct(t.zd);
    t.add = t.s2.cwiseProduct(t.zd.cwiseAbs2()) + t.s1.cwiseProduct(t.zdd);
  }
  y = outMean_ + outScale_.cwiseProduct(t.a);
  J.noalias() = outScale_.asDiagonal() * t.Jh;
  d2 = outScale_.cwiseProduct(t.add);
}

void Mlp::inputGradient(const Eigen::MatrixXd& X, Eigen::MatrixXd& G) const {
  if (outputs() != 1)
    throw InputError(sizeMessage("input gradient needs a scalar network: outputs", 1, outputs()));
  Workspace ws;
  Eigen::MatrixXd Y;
  forward(X, Y, ws);
  Eigen::MatrixXd delta = Eigen::MatrixXd::Constant(1, X.cols(), outScale_(0));
  for (int l = layerCount() - 1; l >= 0; --l) {
    derivativeAt(ws, l);
    ws.d.array() *= delta.array();
    delta.noalias() = W(l).transpose() * ws.d;
  }
  G = (delta.array().colwise() / inScale_.array()).matrix();
}

void Mlp::inputGradientBackward(const Eigen::MatrixXd& X, const Eigen::MatrixXd& R,
                                Eigen::VectorXd& grad) const {
  if (outputs() != 1)
    throw InputError(sizeMessage("input gradient needs a scalar network: outputs", 1, outputs()));
  checkInput(X.rows(), "network input");
  checkInput(R.rows(), "input gradient adjoint");
  if (R.cols() != X.cols())
    throw InputError(sizeMessage("input gradient adjoint columns", X.cols(), R.cols()));
  if (grad.size() != params_.size())
    throw InputError(sizeMessage("parameter gradient", params_.size(), grad.size()));
  // sum_i R_i . df/dx(X_i) is the directional derivative of f along R_i:
  // propagate (a, a_dot) forward, then reverse through both.
  const int L = layerCount();
  std::vector<Eigen::MatrixXd> z(static_cast<std::size_t>(L)), zd(static_cast<std::size_t>(L)),
      a(static_cast<std::size_t>(L + 1)), ad(static_cast<std::size_t>(L + 1)),
      s1(static_cast<std::size_t>(L)), s2(static_cast<std::size_t>(L));
  a[0] = (X.colwise() - inMean_).array().colwise() / inScale_.array();
  ad[0] = (R.array().colwise() / inScale_.array()).matrix();
  for (int l = 0; l < L; ++l) {
    const auto k = static_cast<std::size_t>(l);
    z[k].noalias() = W(l) * a[k];
    z[k].colwise() += b(l);
    zd[k].noalias() = W(l) * ad[k];
    activateWithDerivatives(layers_[k].activation, z[k], a[k + 1], s1[k], &s2[k]);
    ad[k + 1] = s1[k].cwiseProduct(zd[k]);
  }
  Eigen::MatrixXd abar = Eigen::MatrixXd::Zero(1, X.cols());
  Eigen::MatrixXd adbar = Eigen::MatrixXd::Constant(1, X.cols(), outScale_(0));
  Eigen::MatrixXd zbar, zdbar;
  for (int l = L - 1; l >= 0; --l) {
    const auto k = static_cast<std::size_t>(l);
    const Offsets& o = offsets_[k];
    zdbar = s1[k].cwiseProduct(adbar);
    zbar = s2[k].cwiseProduct(zd[k]).cwiseProduct(adbar) + s1[k].cwiseProduct(abar);
    auto gW = Eigen::Map<Eigen::MatrixXd>(grad.data() + o.w, o.out, o.in);
    gW.noalias() += zdbar * ad[k].transpose();
    gW.noalias() += zbar * a[k].transpose();
    Eigen::Map<Eigen::VectorXd>(grad.data() + o.b, o.out) += zbar.rowwise().sum();
    if (l > 0) {
      adbar.noalias() = W(l).transpose() * zdbar;
      abar.noalias() = W(l).transpose() * zbar;
    }
  }
}

nlohmann::json Mlp::toJson() const {
  nlohmann::json j;
  j["format"] = "mbdrom-mlp";
  j["version"] = 1;
  j["inputs"] = inputs_;
  j["layers"] = nlohmann::json::array();
  for (const LayerSpec& l : layers_)
    j["layers"].push_back({{"outputs", l.outputs}, {"activation", activationName(l.activation)}});
  auto vec = [](const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); };
  j["input_mean"] = vec(inMean_);
  j["input_scale"] = vec(inScale_);
  j["output_mean"] = vec(outMean_);
  j["output_scale"] = vec(outScale_);
  j["parameters"] = vec(params_);
  Eigen::VectorXd all(params_.size() + 2 * inputs_ + 2 * outputs());
  all << params_, inMean_, inScale_, outMean_, outScale_;
  std::ostringstream hex;
  hex << std::hex << checksum(all);
  j["checksum"] = hex.str();
  return j;
}

Mlp Mlp::fromJson(const nlohmann::json& j) {
  // Sizes must be integers in int range: converting a float such as 1e34 to int
  // is undefined behaviour (found by fuzzing), so check before get<int>().
  auto count = [](const nlohmann::json& v, const std::string& key) {
    if (!v.is_number_integer() || v.get<long long>() < 0 ||
        v.get<long long>() > std::numeric_limits<int>::max())
      throw FileError("network: \"" + key + "\" must be a non-negative integer, got " + v.dump());
    return static_cast<int>(v.get<long long>());
  };
  try {
    if (j.at("format").get<std::string>() != "mbdrom-mlp")
      throw FileError("network: not an mbdrom-mlp object");
    if (!j.at("version").is_number_integer() || j.at("version").get<long long>() != 1)
      throw FileError("network: unsupported version " + j.at("version").dump());
    Mlp net;
    net.inputs_ = count(j.at("inputs"), "inputs");
    for (const auto& l : j.at("layers"))
      net.layers_.push_back(
          {count(l.at("outputs"), "outputs"), activationFromName(l.at("activation").get<std::string>())});
    if (net.inputs_ <= 0 || net.layers_.empty()) throw FileError("network: no inputs or no layers");
    for (const LayerSpec& l : net.layers_)
      if (l.outputs <= 0) throw FileError("network: a layer has no outputs");
    // The layer sizes come from the file: match them against the stored parameters
    // before allocating (absurd sizes would overflow int offsets or exhaust memory).
    constexpr long long kCap = 1LL << 40;  // keeps the sum below overflow
    long long needed = 0, in = net.inputs_;
    for (const LayerSpec& l : net.layers_) {
      needed = std::min(kCap, needed + (in + 1) * l.outputs);
      in = l.outputs;
    }
    const auto stored = static_cast<long long>(j.at("parameters").size());
    if (needed != stored)
      throw FileError(std::string("network: ") + sizeMessage("parameters", static_cast<Eigen::Index>(needed),
                                                             static_cast<Eigen::Index>(stored)));
    net.allocate();
    auto read = [&](const char* key, Eigen::VectorXd& v) {
      const auto values = j.at(key).get<std::vector<double>>();
      if (static_cast<Eigen::Index>(values.size()) != v.size())
        throw FileError(std::string("network: ") +
                        sizeMessage(key, v.size(), static_cast<Eigen::Index>(values.size())));
      v = Eigen::Map<const Eigen::VectorXd>(values.data(), v.size());
    };
    read("parameters", net.params_);
    read("input_mean", net.inMean_);
    read("input_scale", net.inScale_);
    read("output_mean", net.outMean_);
    read("output_scale", net.outScale_);
    Eigen::VectorXd all(net.params_.size() + 2 * net.inputs_ + 2 * net.outputs());
    all << net.params_, net.inMean_, net.inScale_, net.outMean_, net.outScale_;
    std::ostringstream hex;
    hex << std::hex << checksum(all);
    if (j.at("checksum").get<std::string>() != hex.str())
      throw FileError("network: checksum mismatch: the weights are corrupted");
    return net;
  } catch (const nlohmann::json::exception& e) {
    throw FileError(std::string("network: malformed data: ") + e.what());
  } catch (const InputError& e) {
    throw FileError(std::string("network: ") + e.what());
  }
}

}  // namespace mbdrom::nn
