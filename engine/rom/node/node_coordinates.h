#pragma once
// The neural ODE's choice of coordinates (private to engine/rom/node/).

#include "engine/data/dataset.h"
#include "engine/model/model.h"

#include <string>
#include <vector>

namespace mbdrom::internal {

struct CoordinateChoice {
  std::vector<int> indices;
  bool independent = false;
  std::string text;  // what was chosen and why
};

// "auto": the candidate set of DOF natural coordinates whose rows of the null space
// of Φ_q are best conditioned along the data (see the file comment).
CoordinateChoice chooseCoordinates(const Model& model, const Dataset& dataset);

/// "P.x, P.y": the names of coordinates `indices` of `model`.
std::string coordinateNames(const Model& model, const std::vector<int>& indices);

}  // namespace mbdrom::internal
