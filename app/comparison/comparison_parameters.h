#pragma once
// The Compare dock's "Parameters μ" field: values of the compared models' parameters
// (a neural ODE's μ) and a design point of a new reference run (load.*, q0.*, qd0.*), read
// and checked against the ticked models before anything runs.

#include <QString>
#include <QStringList>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mbdrom::app {

struct ModelEntry;

/// The values of "name=value, ..." (empty: none); nullopt with the reason in `why`.
std::optional<std::map<std::string, double>> parseParameterValues(const QString& text, QString& why);

/// What the given values mean for the compared models.
struct ComparisonParameters {
  std::vector<std::map<std::string, double>> perModel;  ///< each model's own values, every one it takes
  std::map<std::string, double> design;                 ///< design values of a new reference run
  QStringList warnings;                                 ///< a model run outside its training, named
};

/// The values `given` sorted out for `models` over a span of `span` [s]: every model needs a
/// value of each of its parameters; another name must be a design value. nullopt with the
/// reason in `why`.
std::optional<ComparisonParameters> resolveParameters(const std::vector<const ModelEntry*>& models,
                                                      const std::map<std::string, double>& given, double span,
                                                      QString& why);

}  // namespace mbdrom::app
