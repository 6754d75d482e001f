#pragma once
/// @file
/// Library terms from the geometry of a mechanism's spring-dampers. A polynomial in the
/// identified coordinates expresses a spring's force only approximately where the spring turns
/// with the motion: on a bob hanging from a spring in a plane, identified in its Cartesian
/// coordinates, the spring's force is −k (1 − L₀/r) (x, z), with r = √(x² + z²), which cubic
/// polynomials fit within a per cent and roll out 15 % off. The spring's geometry is known from the
/// mechanism's file even where its law is not: its force in the identified coordinates is
/// g_c(q) φ(s, ṡ), with g_c = ∂l/∂u_c along the constraints (row c of Rᵀ∇l, R the basis whose rows
/// of the identified coordinates are the identity), s = l − l(q_ref) its stretch from the
/// reference configuration and φ its unknown law. The library gets, per spring-damper and
/// identified coordinate c, the columns
///   g(E).c,  g(E).c*s(E),  g(E).c*s(E)^2,  g(E).c*s(E)^3,  g(E).c*s_dot(E)
/// (a preload, a cubic spring, a linear damper), and STLS picks the law: a linear spring of
/// stiffness k and free length L₀ is −k (l_ref − L₀) g − k g s, its damper −c g ṡ.

#include "engine/rom/sindy/sindy.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace mbdrom {

class Model;
struct DatasetRun;

/// One geometry column: g(E).c × s(E)^stretchPower, or g(E).c × ṡ(E) when `rate`.
struct SindyElementTerm {
  std::string name;      ///< e.g. "g(spring).P.x*s(spring)"
  int element = 0;       ///< index into the model's spring-dampers
  int component = 0;     ///< the identified coordinate c (index into the identified coordinates)
  int stretchPower = 0;  ///< power of s (0..3); 0 with `rate`
  bool rate = false;     ///< times ṡ [m/s] instead of a power of s
};

/// The geometry terms of every spring-damper of `model` whose force is not known (`known`:
/// elements named there, or all springs / all dampers: their stretch or rate terms), for the
/// identified coordinates named `coordinates`, element by element.
std::vector<SindyElementTerm> sindyElementTerms(const Model& model,
                                                const std::vector<std::string>& coordinates,
                                                const SindyKnownForces& known);

/// The names of `terms`, in order.
std::vector<std::string> sindyElementTermNames(const std::vector<SindyElementTerm>& terms);

/// The terms of `all` named `names` (a trained model's library), in the order of `names`.
/// Throws InputError naming a term the mechanism's spring-dampers do not give.
std::vector<SindyElementTerm> sindyElementTermsNamed(const std::vector<SindyElementTerm>& all,
                                                     const std::vector<std::string>& names);

/// Evaluates geometry terms at a state of the mechanism, allocating nothing per call.
class SindyElementValues {
 public:
  /// `qRef` [m, -] (size nq): the configuration the stretches are measured from.
  SindyElementValues(const Model& model, const Eigen::VectorXd& qRef, std::vector<SindyElementTerm> terms);
  /// The terms' values (size of the terms) at q [m, -], qd [m/s, 1/s] (size nq each), with
  /// `basis` (nq x n) the velocity basis whose rows of the identified coordinates are the identity.
  void eval(const Eigen::VectorXd& q, const Eigen::VectorXd& qd, const Eigen::MatrixXd& basis,
            Eigen::VectorXd& values);
  bool empty() const { return terms_.empty(); }

 private:
  const Model& model_;
  std::vector<SindyElementTerm> terms_;
  std::vector<int> elements_;       // the distinct elements the terms use
  std::vector<double> length0_;     // their lengths at q_ref [m], per element of the model
  Eigen::VectorXd gradient_;        // ∇l (size nq)
  Eigen::MatrixXd g_;               // n x elements: Rᵀ∇l of each
  Eigen::VectorXd stretch_, rate_;  // per element of the model
};

/// The geometry columns of `terms` on every sample of `run`, with `bases` the basis of each sample
/// (SindySamples::bases, nq x n each).
std::vector<SindyColumn> sindyElementColumns(const Model& model, const DatasetRun& run,
                                             const std::vector<Eigen::MatrixXd>& bases,
                                             const Eigen::VectorXd& qRef,
                                             const std::vector<SindyElementTerm>& terms);

}  // namespace mbdrom
