#pragma once
/// @file
/// Vibration modes that sampled data cannot resolve. A mode whose period spans fewer than
/// kResolvedSamplesPerPeriod samples of the training data (a stiff joint or mounting beside a
/// slow mechanism) is barely excited by loads inside the data's band and carries, in the data,
/// little more than the quasi-static deflection it follows the slow motion with; a reduced model
/// stepping at the data's spacing cannot follow its vibration either. Local PCA then condenses
/// it (n_r below the degrees of freedom); SINDy takes the spring-dampers behind it as known
/// forces (sindy_stiff_elements.h).

#include <Eigen/Core>

#include <string>
#include <vector>

namespace mbdrom {

class Model;

/// Fewer samples a period than this: the data do not resolve the vibration.
inline constexpr double kResolvedSamplesPerPeriod = 8.0;

/// A linearised mode of a mechanism that the data sample too coarsely.
struct UnresolvedMode {
  double frequency = 0.0;         ///< undamped natural frequency [Hz]
  double samplesPerPeriod = 0.0;  ///< samples of the data per period [-]
};

/// The linearised modes of `model` about its equilibrium under gravity (solved from q0) with
/// fewer than kResolvedSamplesPerPeriod samples of `spacing` [s] a period, fastest first. Empty
/// where the spacing is not positive, the mechanism has more than
/// kUnresolvedModesMaxCoordinates coordinates, or no equilibrium is found (an unstable or
/// unrestrained mechanism).
std::vector<UnresolvedMode> unresolvedModes(const Model& model, double spacing);

/// Mechanisms with more coordinates are not analysed (dense statics and eigenproblem).
inline constexpr int kUnresolvedModesMaxCoordinates = 300;

/// A spring-damper whose own vibration the data sample too coarsely.
struct UnresolvedSpring {
  int index = 0;                  ///< into Model::springDampers()
  double frequency = 0.0;         ///< its own frequency [Hz]
  double samplesPerPeriod = 0.0;  ///< samples of the data per period of it [-]
};

/// The spring-dampers of `model` whose own vibration at `q` [m, -] (size nq) has fewer than
/// kResolvedSamplesPerPeriod samples of `spacing` [s] a period, largest frequency first. Own
/// vibration: of the motions spanned by the columns of `allowed` (nq x n, a basis of the motions
/// the constraints allow), held by this spring alone: ω² = k gᵀ (AᵀMA)⁻¹ g, g = Aᵀ ∇_q l, with
/// k = df/dl at its length l. Empty where the spacing is not positive.
std::vector<UnresolvedSpring> unresolvedSprings(const Model& model, const Eigen::VectorXd& q,
                                                const Eigen::MatrixXd& allowed, double spacing);

/// ∇_q l of spring-damper `index` of `model` at `q` (size nq) [-], l its length [m]; zero at
/// zero length.
Eigen::VectorXd springLengthGradient(const Model& model, int index, const Eigen::VectorXd& q);

/// "the mode at 60.4 Hz (3.31 samples a period of the data)", "the modes at 60.4 and 45 Hz (3.31
/// and 4.44 samples a period of the data)".
std::string unresolvedModesText(const std::vector<UnresolvedMode>& modes);

}  // namespace mbdrom
