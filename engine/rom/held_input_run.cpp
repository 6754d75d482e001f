#include "engine/rom/held_input_run.h"

#include "engine/core/error.h"
#include "engine/experiments/design_parameter.h"
#include "engine/rom/reduced_run.h"
#include "engine/rom/rom_support.h"

#include <cmath>

namespace mbdrom {

RomSimulationSummary simulateWithHeldInputs(const ReducedModel& rom, const Model& model,
                                            const RunOptions& options, double hold, TrajectorySink& sink,
                                            Monitor* monitor) {
  if (!(hold > 0.0) || !std::isfinite(hold))
    throw InputError("the input hold interval must be a number > 0 [s]");
  // At a design point, as ReducedModel::simulate runs.
  const DesignRun point = designPointRun(model, options, rom.parameterNames());
  const RunOptions o = rom.resolveStep(point.model ? point.options : options, true);
  const ReducedRunPlan plan = planReducedRun(model, o, model.nq(), rom.method(), rom.parameterNames());
  Model driven = point.model ? *point.model : model;
  const int lc = o.loadCase;
  const auto hold_at = [&](double t) {
    if (lc < 0) return;
    for (std::size_t k = 0; k < model.loads(lc).size(); ++k)
      driven.holdLoad(lc, static_cast<int>(k), model.loads(lc)[k].function(t));
  };
  hold_at(0.0);
  ReducedRun run = rom.startRun(driven, o);
  RomSimulationSummary summary;
  summary.dt = o.integrator.dt;
  // The run loop's output: envelope figures, the stop outside it, the sink.
  internal::ReducedRunOutput output(driven, rom, o, sink, summary);
  const auto write = [&](const Sample& s) { output.write(s); };
  sink.begin(driven, plan.info);
  output.startClock();
  streamReducedRun(sink, [&] {
    write(run.sample());
    const double dt = o.integrator.dt;
    Progress progress{"simulate " + rom.method() + " (inputs held)", 0, plan.steps, {{"t", 0.0}}};
    long long step = 0;
    for (double time = 0.0; step < plan.steps; time += hold) {
      hold_at(time);
      const double end = time + hold;
      if (!(end > time)) throw InputError("the input hold interval is too small for the run's time span");
      // The FMU's loop, the same comparison: whole steps of the grid up to the point.
      while (step < plan.steps && static_cast<double>(step + 1) * dt <= end + 1e-9 * dt) {
        run.advance();
        ++step;
        summary.steps = step;
        summary.tEnd = run.t();
        if (step % plan.stride == 0 || step == plan.steps) write(run.sample());
      }
      if (monitor) {
        progress.step = step;
        progress.metrics[0].second = run.t();
        if (!monitor->report(progress)) monitor->checkpoint();
      }
    }
    output.finish();  // the load band, judged over the whole run as simulate() judges it
  });
  run.stepper().finish(summary);
  completeReducedRun(sink, summary, output.runSeconds());
  return summary;
}

}  // namespace mbdrom
