#pragma once
/// @file
/// What a SINDy library is missing, read from the structure of the fit's residual.
/// For every candidate family not in the library, candidate columns
/// are built on the data, the part the library already spans is projected out, and the
/// correlation of the rest with the residual y − Θ ξ is measured; the family of the best
/// correlating column is the most likely missing one. Families:
/// - "higher polynomial degree": monomials of positions only, up to one degree above the library's;
/// - "velocity products": monomials with a velocity factor, up to the same degree;
/// - "harmonics": cos and sin of k ω t, k = 1..5, for the library's ω or, without one,
///   the frequency at the peak of the residual's spectrum;
/// - "sign/friction": sgn(u̇) (Coulomb friction);
/// - "trigonometric": sin(u), cos(u) (angles, pendulum-like forces);
/// - "spring-damper geometry": the columns of sindy_element_terms.h, given by the caller (they
///   need the mechanism), for a spring-damper that turns with the motion.

#include "engine/rom/sindy/sindy.h"

#include <string>
#include <vector>

namespace mbdrom {

/// The correlation above which a hint is named as the likely missing family [-]; below it
/// the residual shows no structure of the families tried (noise, or something else).
inline constexpr double kSindyHintCorrelation = 0.2;

/// One family's best candidate.
struct SindyHint {
  std::string family;        ///< e.g. "higher polynomial degree"
  std::string term;          ///< its best column, named as the library would, e.g. "u^3"
  std::string coordinate;    ///< the coordinate whose residual it correlates with
  double correlation = 0.0;  ///< |cos| between the column (library part removed) and the residual [-]
  std::string advice;        ///< what to add, e.g. "raise the polynomial degree to 3 (or add the term u^3)"
};

/// The families' best candidates for the residual of `result` (a fit on `samples` with the
/// library `library` built by `options`), best first; families whose columns the library
/// already spans are left out. `geometry`: the spring-dampers' geometry columns on every sample
/// (values of size N each), or none.
std::vector<SindyHint> sindyResidualHints(const SindySamples& samples, const SindyLibraryOptions& options,
                                          const SindyLibrary& library, const StlsResult& result,
                                          const std::vector<SindyColumn>& geometry = {});

}  // namespace mbdrom
