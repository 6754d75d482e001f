#pragma once
/// @file
/// A reduced run whose loads are sampled and held as a co-simulation host drives an
/// exported FMU (engine/export/fmu_export.h): before each communication step from t_n
/// (t_0 = 0, t_n+1 = t_n + H, accumulated as the host does) every load of the load case is
/// set to its value at t_n and held while the model takes the steps of its grid that end
/// at or before t_n + H (within 1e-9 of a step). The run is then the FMU's, step for step.

#include "engine/core/monitor.h"
#include "engine/dynamics/trajectory.h"
#include "engine/model/model.h"
#include "engine/rom/reduced_model.h"

namespace mbdrom {

/// Runs `rom` of `model` under `options` (load case, t_end, output_dt; step
/// options.integrator.dt or the model's own) with its loads held over communication
/// steps of `hold` [s] > 0, streaming samples to `sink` as ReducedModel::simulate does.
/// Throws what simulate throws, and InputError for a hold that is not > 0.
RomSimulationSummary simulateWithHeldInputs(const ReducedModel& rom, const Model& model,
                                            const RunOptions& options, double hold, TrajectorySink& sink,
                                            Monitor* monitor = nullptr);

}  // namespace mbdrom
