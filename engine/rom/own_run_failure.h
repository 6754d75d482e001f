#pragma once
/// @file
/// What training does with a model that blows up on one of its own training runs.

namespace mbdrom {

/// Refuse it (SolverError naming the run and the time), or keep it for inspection, every run
/// of it warning so (validationWarning).
enum class OwnRunFailure { Refuse, Keep };

}  // namespace mbdrom
