#pragma once
/// @file
/// Which independent coordinates SINDy identifies in, chosen from the data. The mobility
/// analysis suggests a set at the first sample; a set can be independent there and still a
/// poor basis for a polynomial library over the runs: on a stiff bar carrying a pendulum the
/// pendulum's tip height is, to micrometres, a function of its sideways position, so the
/// monomials of the two are linearly dependent. Then every set of that size among the
/// coordinates that move is tried, and the one whose library, built on the runs, is best
/// conditioned (and independent at the first sample) is taken.

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
};

/// `suggested` (the mobility analysis' set, size = the DOF) when the polynomial library of
/// `library` (user columns aside) built on the runs of `dataset` (data of `model`, positions
/// from `qRef`, size nq) has independent columns; otherwise the set of the same size, among
/// coordinates that move, whose library is best conditioned; `suggested` again when no set has
/// an independent library (training then leaves out the terms the runs cannot tell apart).
SindyCoordinateChoice chooseSindyCoordinates(const Model& model, const Dataset& dataset,
                                             const std::vector<int>& suggested,
                                             const SindyLibraryOptions& library, const Eigen::VectorXd& qRef);

}  // namespace mbdrom
