#include "engine/rom/method_registry.h"
#include "engine/rom/confirmation_check.h"
#include "engine/rom/training_finish.h"

#include "engine/core/error.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <sstream>

namespace mbdrom {

std::string formatText(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

double metricNumber(const nlohmann::ordered_json& metrics, const char* key) {
  return metrics.is_object() && metrics.contains(key) && metrics[key].is_number() ? metrics[key].get<double>()
                                                                                  : -1.0;
}

std::vector<std::string> splitCommaList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) items.push_back(item);
  return items;
}

std::string trainedMetricsText(const ReducedModel& model) {
  std::ostringstream out;
  if (model.metrics().contains("parameter_ranges"))
    for (const auto& [name, range] : model.metrics().at("parameter_ranges").items())
      out << "parameter " << name << " trained on [" << range[0].get<double>() << ", "
          << range[1].get<double>() << "]\n";
  // The metrics of a few numbers; the long ones (every training run's retrace, the verdict's
  // text) run to tens of kilobytes on one line: rom-info shows them.
  OJson figures = OJson::object();
  bool more = false;
  for (const auto& [name, value] : model.metrics().items()) {
    if (value.dump().size() <= 1000)
      figures[name] = value;
    else
      more = true;
  }
  out << "metrics " << figures.dump() << (more ? " (lists, tables and texts: mbdrom-cli rom-info)" : "")
      << "\n";
  return out.str();
}

std::unique_ptr<ReducedModel> trainedAgainIfMissed(
    const MethodInfo& method, std::unique_ptr<ReducedModel> first, const OJson& settings, const Model* model,
    Monitor& monitor, const std::function<std::unique_ptr<ReducedModel>(const OJson&)>& train,
    OwnRunFailure ownRunFailure) {
  if (!first || !method.secondTry || !model) return first;
  std::unique_ptr<ReducedModel> best = std::move(first);
  OJson bestSettings = settings;
  std::vector<std::string> tried;
  std::string notes;  // what the tries added to the verdict of the model kept
  // A model that passes its check but whose bound is above the goal would warn on every run as far
  // from its data as the held-out run: it gets the tries too.
  while (!monitor.finishingEarly() &&
         (missedHeldOutCheck(*best) || failsItsOwnRuns(*best) || boundAboveGoal(*best))) {
    // Each proposal once, and a few at most, whatever the method proposes.
    const std::optional<SecondTry> next = method.secondTry(bestSettings, *best, tried);
    if (!next || tried.size() >= 4 || std::find(tried.begin(), tried.end(), next->second) != tried.end())
      break;
    tried.push_back(next->second);
    monitor.reportNow({(boundAboveGoal(*best) ? "the model's bound is above the goal: training again with "
                                              : "the model missed its checks: training again with ") +
                           next->second,
                       0,
                       1,
                       {}});
    std::unique_ptr<ReducedModel> second;
    try {
      second = train(next->settings);
    } catch (const Cancelled&) {
      throw;
    } catch (const Error& e) {
      // The reason, without the advice a refused training gives its user (it does not apply here).
      std::string why = e.what();
      why = why.substr(0, why.find(", so it is not kept"));
      const std::string note = "; the model with " + next->first + " " + whyTrainedAgain(*best, "") +
                               ", and training again with " + next->second + " failed (" + why +
                               "): the model with " + next->first + " is written";
      best->recordSecondTry({{"first", next->first}, {"second", next->second}, {"failed", why}}, note);
      notes += note;
      continue;
    }
    if (!second) continue;
    const ReducedModel* challenger = second.get();
    best = betterByHeldOutCheck(std::move(best), std::move(second), next->first, next->second, notes);
    if (best.get() == challenger) bestSettings = next->settings;
  }
  std::string triedText;  // for a refusal: "; trained again with A and with B"
  if (!tried.empty()) {   // every try in the figures of the last
    OJson figures = best->metrics().value("second_try", OJson::object());
    figures["tried"] = tried;
    best->recordSecondTry(std::move(figures), "");
    for (const std::string& label : tried)
      triedText += (triedText.empty() ? "; trained again with " : " and with ") + label;
  }
  if (ownRunFailure == OwnRunFailure::Refuse) refuseIfItFailsItsChecks(*best, triedText);
  return best;
}

namespace {

// True when the method reads inputs of its own of `request` (a measured table, data columns): a
// training on a part of the runs could not be given them (load cases and parameters are the runs').
bool readsInputsItself(const MethodInfo& method, const TrainingRequest& request) {
  for (const InputSpec& in : method.inputs)
    if (request.inputs.count(in.option) && in.role != InputSpec::Role::LoadCases &&
        in.role != InputSpec::Role::Parameters)
      return true;
  return false;
}

// One training through the method's trainRequest, finished (finishTrainedModel).
TrainingOutcome trainRequestAndFinish(const MethodInfo& method, TrainingRequest& request, Monitor& monitor) {
  TrainingOutcome outcome = method.trainRequest(request, monitor);
  if (!outcome.model) return outcome;
  outcome.model = finishWithTrainer(
      std::move(outcome.model), request.settings, request.dataset, request.model,
      [&](const Dataset& d, const OJson& s, Monitor& m) {
        TrainingRequest again = request;
        again.dataset = d;
        again.settings = s;
        return method.trainRequest(again, m).model;
      },
      monitor, request.ownRunFailure);
  return outcome;
}

}  // namespace

TrainingOutcome trainFromRequest(const MethodInfo& method, TrainingRequest& request, Monitor& monitor) {
  TrainingOutcome outcome;
  if (!method.trainRequest) {
    outcome.model = trainReducedModel(method.name, request.dataset, request.settings, monitor, request.model,
                                      request.ownRunFailure, request.secondTry);
    return outcome;
  }
  // The request as given: a second training starts from it, as the first did. A model that blows
  // up on its own training runs is kept until the tries are over, so that it gets them too.
  const bool tryAgain = method.secondTry && request.secondTry && request.model;
  const OwnRunFailure ownRunFailure = request.ownRunFailure;
  if (tryAgain) request.ownRunFailure = OwnRunFailure::Keep;
  const TrainingRequest given = tryAgain ? request : TrainingRequest{};
  outcome = trainRequestAndFinish(method, request, monitor);
  request.ownRunFailure = ownRunFailure;
  if (!outcome.model) return outcome;
  if (tryAgain)
    outcome.model = trainedAgainIfMissed(
        method, std::move(outcome.model), method.checkSettings(request.settings), request.model, monitor,
        [&](const OJson& settings) {
          TrainingRequest second = given;
          second.settings = settings;
          return trainRequestAndFinish(method, second, monitor).model;
        },
        ownRunFailure);
  if (outcome.model && request.secondTry && !readsInputsItself(method, request))
    confirmChosenSettings(method, *outcome.model, request.dataset, request.model, monitor);
  return outcome;
}

std::string methodTitle(const MethodInfo& method) {
  return method.authors.empty() ? method.displayName : method.displayName + " (" + method.authors + ")";
}

MethodRegistry& MethodRegistry::global() {
  static MethodRegistry registry = [] {
    MethodRegistry r;
    registerBuiltinMethods(r);
    return r;
  }();
  return registry;
}

void MethodRegistry::add(MethodInfo method) {
  if (method.name.empty()) throw InputError("a reduced-model method needs a name");
  if (find(method.name)) throw InputError("reduced-model method \"" + method.name + "\" is registered twice");
  if (!method.checkSettings || !method.train || !method.load)
    throw InputError("reduced-model method \"" + method.name +
                     "\" lacks a settings check, a trainer or a loader");
  if (method.displayName.empty()) method.displayName = method.name;
  if (method.shortName.empty()) method.shortName = method.displayName;
  methods_.push_back(std::move(method));
}

const MethodInfo* MethodRegistry::find(const std::string& name) const {
  const auto it =
      std::find_if(methods_.begin(), methods_.end(), [&](const MethodInfo& m) { return m.name == name; });
  return it == methods_.end() ? nullptr : &*it;
}

const MethodInfo& MethodRegistry::at(const std::string& name) const {
  if (const MethodInfo* m = find(name)) return *m;
  throw InputError("unknown reduced-model method \"" + name + "\" (known: " + names() + ")");
}

std::string MethodRegistry::names() const {
  std::string out;
  for (const MethodInfo& m : methods_) out += (out.empty() ? "" : ", ") + m.name;
  return out;
}

}  // namespace mbdrom
