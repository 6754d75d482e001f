#include "app/comparison/comparison_parameters.h"

#include "app/project_document.h"
#include "engine/experiments/design_parameter.h"
#include "engine/rom/reduced_model.h"

#include <QCoreApplication>

#include <cmath>
#include <set>

namespace mbdrom::app {

namespace {

QString compareText(const char* text) {
  return QCoreApplication::translate("ComparePanel", text);
}

}  // namespace

std::optional<std::map<std::string, double>> parseParameterValues(const QString& text, QString& why) {
  std::map<std::string, double> given;
  for (const QString& item : text.split(',', Qt::SkipEmptyParts)) {
    const QStringList parts = item.split('=');
    const QString name = parts.value(0).trimmed();
    bool ok = parts.size() == 2 && !name.isEmpty();
    const double value = ok ? parts[1].trimmed().toDouble(&ok) : 0.0;
    if (!ok)
      why = compareText("\"%1\" is not name=value (e.g. force=2.5)").arg(item.trimmed());
    else if (!std::isfinite(value))
      why = compareText("the value of %1 is not a finite number").arg(name);
    else if (given.count(name.toStdString()))
      why = compareText("%1 is given twice").arg(name);
    if (!why.isEmpty()) {
      why = compareText("parameters: %1").arg(why);
      return std::nullopt;
    }
    given[name.toStdString()] = value;
  }
  return given;
}

std::optional<ComparisonParameters> resolveParameters(const std::vector<const ModelEntry*>& models,
                                                      const std::map<std::string, double>& given, double span,
                                                      QString& why) {
  std::set<std::string> modelNames;
  for (const ModelEntry* e : models)
    for (const std::string& name : e->rom->parameterNames()) modelNames.insert(name);
  ComparisonParameters out;
  for (const auto& [name, value] : given) {
    const bool modelNumber = parameterKind(name) == ParameterKind::ModelNumber;
    if (!modelNumber) out.design.insert({name, value});  // a model's parameter may be a design value too
    if (modelNumber && !modelNames.count(name)) {
      why = compareText(
                "parameters: %1 is neither a parameter of a ticked model nor a design value "
                "(load.*, q0.*, qd0.*)")
                .arg(QString::fromStdString(name));
      return std::nullopt;
    }
  }
  for (const ModelEntry* e : models) {
    std::map<std::string, double> own;
    for (const std::string& name : e->rom->parameterNames()) {
      const auto it = given.find(name);
      if (it == given.end()) {
        why = compareText("model \"%1\" needs a value of its parameter \"%2\" (Parameters \u03bc: %2=...)")
                  .arg(QString::fromStdString(e->record.name), QString::fromStdString(name));
        return std::nullopt;
      }
      own.insert(*it);
    }
    for (const std::string& w : modelWarnings(*e->rom, own, span))
      out.warnings
          << compareText("\"%1\": %2").arg(QString::fromStdString(e->record.name), QString::fromStdString(w));
    out.perModel.push_back(std::move(own));
  }
  return out;
}

}  // namespace mbdrom::app
