#pragma once
/// @file
/// mbdrom engine: natural-coordinate multibody models and their reduced models.
///
/// Naming scheme (written down once, used everywhere):
/// - `q`, `qd`, `qdd`: natural coordinates [m or -] and their first and second
///   time derivatives; size `nq` (3 per free basic point or unit vector).
/// - `M`: constant mass matrix [kg], nq x nq. `Phi`: constraint vector, size
///   `nc`; `Phi_q`: its Jacobian, nc x nq. `lambda`: multipliers, size nc.
/// - `x_r`, `q_r`: reduced coordinates of a reduced model, size `nr`.
/// - Units are SI throughout (m, kg, s, N, rad).
/// - The model is constant once built; per-run state is separate, and engine
///   algorithms take `(model, state, ...)`.

#include "engine/core/error.h"
#include "engine/core/monitor.h"
#include "engine/core/version.h"
