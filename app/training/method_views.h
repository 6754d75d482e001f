#pragma once
// What Model Details shows of a trained model, from the method registry alone:
// the method's own sections (MethodInfo::details) and, for a reference run, its
// run sections (MethodInfo::runDetails), computed from the engine (no widgets)
// so a worker thread can make them as a value. No method is named here: a new
// method's sections show without a change in app/.

#include "engine/core/monitor.h"
#include "engine/data/dataset.h"
#include "engine/model/model.h"
#include "engine/rom/method_details.h"

#include <cstddef>
#include <string>
#include <vector>

namespace mbdrom {
class ReducedModel;
}  // namespace mbdrom

namespace mbdrom::app {

/// The sections of one run.
struct RunDetails {
  std::string runName;
  std::size_t samples = 0;  ///< the run's samples
  std::vector<DetailsSection> sections;
  std::string
      error;  ///< why nothing could be computed (bad run file, other mechanism, ...); empty on success
};

/// Whether the method of `rom` shows anything per run (it has MethodInfo::runDetails).
bool detailsNeedRun(const ReducedModel& rom);

/// The method's sections of `rom` (MethodInfo::details); none when the method has
/// none or is not registered. Never throws: a failure becomes a note.
std::vector<DetailsSection> modelDetails(const ReducedModel& rom);

/// The method's sections of `rom` for `run` (a run of `model`, the mechanism `rom` was
/// trained for; checked). Never throws: failures end up in `error`. The monitor
/// (optional) can stop a long computation (the reduced run of local PCA).
RunDetails computeRunDetails(const ReducedModel& rom, const Model& model, const DatasetRun& run,
                             Monitor* monitor = nullptr);

}  // namespace mbdrom::app
