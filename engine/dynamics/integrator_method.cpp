#include "engine/dynamics/integrator_method.h"

#include "engine/core/error.h"

namespace mbdrom {

const char* integratorMethodName(IntegratorMethod method) {
  switch (method) {
    case IntegratorMethod::Automatic: return "auto";
    case IntegratorMethod::Trapezoidal: return "trapezoidal";
    case IntegratorMethod::DormandPrince: return "dopri5";
  }
  return "?";
}

const char* integratorMethodDescription(IntegratorMethod method) {
  switch (method) {
    case IntegratorMethod::Automatic:
      return "chosen per run: Dormand & Prince's Runge-Kutta pair unless the model has Coulomb friction "
             "or stiffness an explicit step cannot take, then the trapezoidal rule";
    case IntegratorMethod::Trapezoidal:
      return "trapezoidal rule on the index-3 equations with projections (ALI3-P; Bayo & Ledesma, "
             "Cuadrado, Cardenal & Bayo), 2nd order, implicit; handles Coulomb stick-slip";
    case IntegratorMethod::DormandPrince:
      return "embedded Runge-Kutta pair 5(4) of Dormand & Prince on the index-1 equations with "
             "projection onto the constraints, 5th order, explicit; no Coulomb stick-slip";
  }
  return "?";
}

std::vector<IntegratorMethod> integratorMethods() {
  return {IntegratorMethod::Automatic, IntegratorMethod::DormandPrince, IntegratorMethod::Trapezoidal};
}

IntegratorMethod integratorMethodFromName(const std::string& name) {
  std::string known;
  for (IntegratorMethod m : integratorMethods()) {
    if (name == integratorMethodName(m)) return m;
    known += std::string(known.empty() ? "" : ", ") + integratorMethodName(m);
  }
  throw InputError("unknown integrator \"" + name + "\"; known: " + known);
}

}  // namespace mbdrom
