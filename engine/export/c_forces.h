#pragma once
/// @file
/// The mechanism's mass matrix and force elements in an exported model's C source (c_model.h):
/// spring-dampers and friction elements as the engine evaluates them
/// (engine/export/c/forces.c.in: spring_forces, damper_forces, friction_value,
/// friction_forces).

#include "engine/export/c_model.h"
#include "engine/model/model.h"

namespace mbdrom {

/// Adds the tables of `model`'s spring-dampers and friction elements and their C functions.
void writeCForceElements(CModelWriter& writer, const Model& model);

/// Adds `model`'s constant mass matrix in compressed rows (its nonzeros only: a body couples
/// a few coordinates) and the C function mass_times(X, cols, Y): Y = M X for X and Y of NQ
/// rows and `cols` columns, row-major.
void writeCMassMatrix(CModelWriter& writer, const Model& model);

}  // namespace mbdrom
