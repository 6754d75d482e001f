#pragma once
/// @file
/// Which independent coordinates SINDy identifies in, chosen from the data. The mobility
/// analysis suggests a set at the first sample; a set can be independent there and still a
/// poor basis for a polynomial library over the runs: on a stiff bar carrying a pendulum the
/// pendulum's tip height is, to micrometres, a function of its sideways position, so the
/// monomials of the two are linearly dependent. Then every set of that size among the
/// coordinates that move is tried, and the one whose library, built on the runs, is best
/// conditioned (and independent at the first sample) is taken. When no set has an independent
/// library, the runs do not excite the library's terms apart (a half-car under sines, whose
/// motion is near two functions of time per run, leaves 120 cubic terms in eight variables about
/// 40 directions): the suggested set is kept and the terms the data cannot tell from the ones
/// before them are left out of its library, lowest degrees first.

#include "engine/data/dataset.h"
#include "engine/model/model.h"
#include "engine/rom/sindy/sindy.h"

#include <string>
#include <vector>

namespace mbdrom {

/// The chosen coordinates (indices into q) and, when they are not the suggestion, why.
struct SindyCoordinateChoice {
  std::vector<int> coordinates;
  std::string note;  ///< e.g. "coordinates A.z, P.x: with P.x, P.z the library's columns ... are dependent"
  /// The library's terms kept when some were left out (in library order, user columns aside);
  /// empty: every term. `leftOut` names the others.
  std::vector<std::string> terms, leftOut;
};

/// `suggested` (the mobility analysis' set, size = the DOF) when the polynomial library of
/// `library` (user columns aside), built on the rows of `dataset` (data of `model`, positions
/// from `qRef`, size nq) that the held-out check fits on (heldOutRuns: the other runs; with none,
/// each run without its last quarter), has independent columns; otherwise the set of the same
/// size, among coordinates that move, whose library is best conditioned there; when no set has
/// one, `suggested` with the terms those rows cannot tell apart left out. Throws InputError
/// naming the dependent columns when that would leave out a term of degree one or lower (the
/// coordinates themselves dependent). A library that selects its terms is the user's choice:
/// returned as it is (the fit names its dependent columns).
SindyCoordinateChoice chooseSindyCoordinates(const Model& model, const Dataset& dataset,
                                             const std::vector<int>& suggested,
                                             const SindyLibraryOptions& library, const Eigen::VectorXd& qRef);

}  // namespace mbdrom
