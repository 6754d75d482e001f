#pragma once
/// @file
/// The reference simulation's integrators, by name.

#include <string>
#include <vector>

namespace mbdrom {

/// Which integrator runs the full model.
enum class IntegratorMethod {
  /// Chosen per run (engine/dynamics/integrator_choice.h): Dormand & Prince unless
  /// the model needs the implicit trapezoidal rule (Coulomb friction, stiffness).
  Automatic,
  /// The trapezoidal rule on the index-3 equations with projections (ALI3-P:
  /// Bayo & Ledesma; Cuadrado, Cardenal & Bayo), second order, implicit:
  /// engine/dynamics/integrator.h. Handles Coulomb stick-slip and stiff springs.
  Trapezoidal,
  /// The embedded Runge-Kutta pair of Dormand & Prince, order 5(4), explicit, on
  /// the index-1 equations with projection onto the position and velocity
  /// constraints after every step: engine/dynamics/dormand_prince.h. Refuses
  /// Coulomb stick-slip.
  DormandPrince,
};

/// "auto", "trapezoidal" or "dopri5": the name the CLI, the model files and the GUI use.
const char* integratorMethodName(IntegratorMethod method);
/// A sentence naming the method and its authors, for help texts and reports.
const char* integratorMethodDescription(IntegratorMethod method);
/// Every method, in the order the front ends list them.
std::vector<IntegratorMethod> integratorMethods();
/// The method of a name; throws InputError naming the known ones.
IntegratorMethod integratorMethodFromName(const std::string& name);

}  // namespace mbdrom
