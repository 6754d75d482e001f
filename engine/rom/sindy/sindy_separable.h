#pragma once
/// @file
/// The library terms a SINDy fit can tell apart on its data. Runs that do not excite a library's
/// terms apart make its columns linearly dependent: under a sine the motion of a damped linear
/// mechanism soon lies near two functions of time per run, so on a half-car the 120 cubic
/// monomials of eight variables span about 40 directions over ten runs, and STLS has no unique
/// fit. Rather than refusing, training leaves out the terms the data cannot tell from the ones
/// it keeps: the constant, the linear terms and the user's columns first, then the library's
/// other families, then the monomials by degree.

#include "engine/rom/sindy/sindy.h"

#include <Eigen/Core>

#include <vector>

namespace mbdrom {

/// The columns (indices, ascending) of Θ (N x L, a column per term of `terms`) to fit with so
/// that checkSindyColumns passes both on the rows `fitRows` (the held-out check's fit; empty:
/// none) and on every row: all of them when it passes already. Otherwise a column is kept when
/// more than a tolerance of it (at unit norm) lies outside the span of the columns kept before it,
/// in the order: the constant, the degree-one monomials and the columns (the user's or friction
/// columns: never left out), the library's other terms (signs, sines, time terms) as listed, the
/// monomials of degree two, three, ...; the tolerance 1e-4, raised tenfold (to 1e-2) while the
/// kept columns still fail the check; past that, while they fail, the column of the highest rank
/// (the last listed among equals) that the weakest direction of their Gram matrix holds is left out. When
/// `fitRows` cannot keep a term that is never left out, every row decides (all columns when they pass there:
/// the held-out check's fit then fails and says so). Throws InputError (checkSindyColumns' message, and the
/// term) when such a term would be left out on every row.
std::vector<Eigen::Index> separableSindyColumns(const Eigen::MatrixXd& Theta,
                                                const std::vector<Eigen::Index>& fitRows,
                                                const std::vector<SindyTerm>& terms);

}  // namespace mbdrom
