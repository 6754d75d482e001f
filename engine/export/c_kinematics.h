#pragma once
/// @file
/// The mechanism's kinematics in an exported model's C source (c_model.h), for the
/// methods whose online step needs more than its loads: the constraints Φ(q) with their
/// Jacobian and the projection of a state onto them (engine/export/c/constraints.c.in),
/// and a kinematic table of a mechanism with one degree of freedom
/// (engine/export/c/kinematic_table.c.in).

#include "engine/export/c_model.h"
#include "engine/model/model.h"

#include <string>
#include <vector>

namespace mbdrom {

class KinematicGrid;
class KinematicTable;
class TrainingEnvelope;

/// What an exported model takes of the constraints: all of Φ(q, t), or its Jacobian Φ_q alone
/// (which a driver with a coordinate or distance law leaves free of time).
enum class ConstraintUse { Full, JacobianOnly };

/// Adds the constraints of `model` (tables, scratch and the C functions constraint_values,
/// constraint_jacobian, project_onto_constraints). With `independent` coordinates (indices,
/// NI of them) also the positions and velocities in them (engine/export/c/independent.c.in:
/// assemble_positions, independent_split); with `charts`, in a chart that starts as
/// `independent` and may change during a run (chart_reset, chart_stretch, chart_swap: the
/// engine's generalised coordinate partitioning). Throws InputError for a mechanism with
/// drivers (their time laws are not in C yet), naming `method`; with `use` JacobianOnly only
/// for an angle driver (its Jacobian turns with the driven angle), and then constraint_values
/// and project_onto_constraints do not hold the drivers' rows: call constraint_jacobian alone.
void writeCConstraints(CModelWriter& writer, const Model& model, const std::string& method,
                       const std::vector<int>& independent = {}, bool charts = false,
                       ConstraintUse use = ConstraintUse::Full);

/// Adds the kinematic table a reduced run of `model` in its coordinate `independent` makes
/// (SINDy's and the neural ODE's steppers): anchored where the run starts, at `reference`
/// (size nq) with the coordinate at `start`, assembled, spaced as kinematicTableSpacing
/// gives for `envelope`, its nodes made over the trained range of the envelope's first state
/// component (plus `offset`, to the coordinate's value) widened by its width on each side.
/// Throws InputError (naming `method`) without a trained range.
void writeCRunKinematicTable(CModelWriter& writer, const Model& model, int independent,
                             const Eigen::VectorXd& reference, double start, const TrainingEnvelope& envelope,
                             double offset, const std::string& method);

/// Adds the nodes of `table` (a table of `model`'s mechanism in its coordinate
/// `independent`) made so far and the C function kinematic_table. Throws InputError when
/// the table has fewer than two nodes.
void writeCKinematicTable(CModelWriter& writer, const KinematicTable& table, int independent);

/// The C of a two-coordinate kinematic grid (kinematic_grid(u1, u2, ud, q, R, qd, c), R row-major):
/// its nodes and which cells a run interpolates, as the engine's runs do.
void writeCKinematicGrid(CModelWriter& writer, const KinematicGrid& grid);

}  // namespace mbdrom
