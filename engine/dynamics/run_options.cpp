#include "engine/dynamics/run_options.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/dynamics/step_support.h"

#include <cmath>

namespace mbdrom {

void checkRunValues(const RunOptions& o) {
  internal::checkIntegratorValues(o.integrator);
  if (!(o.tEnd >= 0.0) || !std::isfinite(o.tEnd))
    throw InputError("end time must be >= 0 s (got " + shortNumberText(o.tEnd) + ")");
  if (!(o.outputDt >= 0.0) || !std::isfinite(o.outputDt))
    throw InputError("output interval must be >= 0 s (got " + shortNumberText(o.outputDt) + ")");
  // Every output row is kept and written: beyond 1e9 rows no disk or memory holds the run.
  if (o.outputDt > 0.0 && o.tEnd / o.outputDt > 1e9)
    throw InputError("the output interval " + shortNumberText(o.outputDt) + " s gives " +
                     shortNumberText(o.tEnd / o.outputDt) + " output rows over " + shortNumberText(o.tEnd) +
                     " s, more than the limit of 1e9: choose a larger one");
  if (!(o.envelopeMargin >= 0.0) || !std::isfinite(o.envelopeMargin))
    throw InputError("the envelope margin must be a number >= 0 (got " + shortNumberText(o.envelopeMargin) +
                     ")");
}

}  // namespace mbdrom
