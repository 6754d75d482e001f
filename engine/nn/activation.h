#pragma once
/// @file
/// Element-wise activation functions and their first and second derivatives.

#include <Eigen/Core>

#include <string>

namespace mbdrom::nn {

enum class Activation { Linear, ReLU, Sigmoid, Tanh, Softplus, SiLU };

/// Name used in files ("linear", "relu", "sigmoid", "tanh", "softplus", "silu").
const char* activationName(Activation a);
/// Inverse of activationName; throws InputError naming the unknown text.
Activation activationFromName(const std::string& name);

/// a = sigma(z), element-wise; z and a have the same shape.
void activate(Activation act, const Eigen::MatrixXd& z, Eigen::MatrixXd& a);
/// a = sigma(z) of n values (a may be z), as activate gives them.
void activateValues(Activation act, const double* z, double* a, Eigen::Index n);
/// d = sigma'(z), element-wise.
void activateDerivative(Activation act, const Eigen::MatrixXd& z, Eigen::MatrixXd& d);
/// d2 = sigma''(z), element-wise (ReLU: 0 everywhere, its kink is ignored).
void activateSecondDerivative(Activation act, const Eigen::MatrixXd& z, Eigen::MatrixXd& d2);

/// sigma, sigma' and sigma'' of one vector in one pass (outputs resized to z's size).
void activateWithDerivatives(Activation act, const Eigen::VectorXd& z, Eigen::VectorXd& s0,
                             Eigen::VectorXd& s1, Eigen::VectorXd& s2);
/// a = sigma(z), d = sigma'(z) and, when `d2` is given, d2 = sigma''(z), element-wise, in one
/// pass over z: the logistic function or tanh evaluated once per element, where activate,
/// activateDerivative and activateSecondDerivative evaluate it each. The values are theirs,
/// bit for bit.
void activateWithDerivatives(Activation act, const Eigen::MatrixXd& z, Eigen::MatrixXd& a, Eigen::MatrixXd& d,
                             Eigen::MatrixXd* d2);

}  // namespace mbdrom::nn
