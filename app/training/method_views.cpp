#include "app/training/method_views.h"

#include "engine/rom/method_registry.h"

#include <exception>

namespace mbdrom::app {

bool detailsNeedRun(const ReducedModel& rom) {
  const MethodInfo* info = MethodRegistry::global().find(rom.method());
  return info && info->runDetails;
}

std::vector<DetailsSection> modelDetails(const ReducedModel& rom) {
  const MethodInfo* info = MethodRegistry::global().find(rom.method());
  if (!info || !info->details) return {};
  try {
    return info->details(rom);
  } catch (const std::exception& e) {
    return {{info->displayName, {detailsNote("detailsError", {}, std::string("No details: ") + e.what())}}};
  }
}

RunDetails computeRunDetails(const ReducedModel& rom, const Model& model, const DatasetRun& run,
                             Monitor* monitor) {
  RunDetails d;
  d.runName = run.name;
  d.samples = static_cast<std::size_t>(run.samples());
  const MethodInfo* info = MethodRegistry::global().find(rom.method());
  if (!info || !info->runDetails) return d;
  try {
    rom.checkMechanism(model);
    d.sections = info->runDetails(rom, model, run, monitor);
  } catch (const std::exception& e) {
    d.error = e.what();
  }
  return d;
}

}  // namespace mbdrom::app
