#pragma once
/// @file
/// Spring-dampers too stiff for SINDy to identify from sampled runs. A stiff element's force in
/// the independent coordinates is the small difference of large terms (a torsional spring
/// between two bodies that turn by a tenth of a radian transmits a fraction of a newton metre
/// through a stiffness of thousands of newton metres per radian): a library of polynomials fits
/// it to a few per cent at best, and the fitted model blows up. When its own vibration has
/// fewer than kResolvedSamplesPerPeriod samples of the data a period (unresolved_modes.h), the data cannot
/// resolve its motion either; SINDy's second try then takes such elements as known forces (from the
/// mechanism's file, as the loads are) and identifies the rest.
///
/// Own frequency of element e at q: ω² = k_e gᵀ (RᵀMR)⁻¹ g, g = Rᵀ ∇_q l_e, with k_e = df_k/dl
/// at its length, R the null-space basis of Φ_q in the independent coordinates: the frequency
/// of the reduced mechanism held by this spring alone.

#include <Eigen/Core>

#include <string>
#include <vector>

namespace mbdrom {

class Model;

/// A spring-damper whose own vibration the data sample too coarsely.
struct SindyStiffElement {
  std::string name;
  double frequency = 0.0;         ///< its own frequency [Hz]
  double samplesPerPeriod = 0.0;  ///< samples of the data per period of it [-]
};

/// The spring-dampers of `model` not among `known` (known-force names, "springs" for all of
/// them) whose own frequency at `q` [m, -] (size nq), `t` [s], in the independent coordinates
/// `independent` (indices into q), has fewer than kResolvedSamplesPerPeriod samples of
/// `spacing` [s] a period; largest frequency first. Throws InputError where the coordinates are
/// not independent at q.
std::vector<SindyStiffElement> sindyStiffElements(const Model& model, const Eigen::VectorXd& q, double t,
                                                  const std::vector<int>& independent,
                                                  const std::vector<std::string>& known, double spacing);

/// "\"joint_spring\" (60.4 Hz: 3.3 samples a period)" for each, joined by ", ".
std::string sindyStiffElementsText(const std::vector<SindyStiffElement>& elements);

}  // namespace mbdrom
