#pragma once
/// @file
/// The error goal a reduced model is judged by, wherever it is judged.

namespace mbdrom {

/// The largest relative RMS error of a held-out run a model may have and be said to follow it [-]:
/// the goal a run's stated bound is compared with too.
inline constexpr double kHeldOutTolerance = 0.05;

}  // namespace mbdrom
