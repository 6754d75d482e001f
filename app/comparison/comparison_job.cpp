#include "app/comparison/comparison_job.h"

#include "app/project_document.h"
#include "engine/core/monitor.h"
#include "engine/rom/reduced_model.h"

namespace mbdrom::app {

namespace {

// The stored reference as a table, its first sample, and its motion into `result`.
TrajectoryTable storedReference(const ComparisonJob& job, ComparisonResult& result, Sample& first) {
  const Model& mech = *result.model;
  if (job.storedSamples) {
    result.referenceMotion = std::make_shared<RunMotion>(runMotionOf(*job.storedSamples));
    first = job.storedSamples->front();
    return trajectoryTable(mech, *job.storedSamples);
  }
  StoredReference stored = readStoredReference(mech, job.storedFile, result.referenceName.toStdString(),
                                               result.referenceInfo.loadCase);
  auto motion = std::make_shared<RunMotion>();
  motion->t = std::move(stored.t);
  motion->q = std::move(stored.q);
  result.referenceMotion = motion;
  first = std::move(stored.first);
  return std::move(stored.table);
}

}  // namespace

void runComparison(const ComparisonJob& job, ComparisonResult& result, TrajectoryRecorder& recorder,
                   Monitor& monitor) {
  const Model& mech = *result.model;
  std::vector<ComparedModel> models;
  for (std::size_t k = 0; k < job.models.size(); ++k)
    models.push_back({job.models[k].get(), job.parameters[k]});
  ModelComparison c;
  if (job.storedRun < 0) {
    c = compareWithNewReference(mech, job.newRun, models, {}, recorder, &monitor);
    result.referenceMotion = std::make_shared<RunMotion>(runMotionOf(recorder.samples()));
  } else {
    Sample first;
    TrajectoryTable reference = storedReference(job, result, first);
    c = compareWithStoredReference(mech, std::move(reference), result.referenceInfo, first, models, {},
                                   &monitor);
  }
  result.referenceInfo = c.referenceInfo;
  result.reference = std::move(c.reference);
  result.full = c.full;
  result.runs = std::move(c.runs);
  for (const ReducedRunComparison& r : result.runs)
    result.motions.push_back(std::make_shared<RunMotion>(runMotionOf(r.samples)));
}

}  // namespace mbdrom::app
