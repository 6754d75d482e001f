#pragma once
// The Properties dock's pages as data: per element kind, the fields its page shows in order, each
// with its key, label and unit, how it reads and writes the element, and when it shows.
// PropertyEditor builds a page by walking its kind's description (property_pages.cpp); a new kind
// of element is its description, not new editor code.

#include "engine/model/spec_edit.h"
#include "engine/model/time_function.h"

#include <Eigen/Core>
#include <QString>
#include <QStringList>

#include <functional>
#include <string>
#include <vector>

namespace mbdrom::widgets {

/// The element a page shows: its index i and its sub-index k (a marker of body i, a load of case i).
struct FieldAt {
  std::size_t i = 0, k = 0;
};

/// One field of a page. Only the accessors of its type are set.
struct FieldDescription {
  enum class Type {
    Name,          ///< the element's name (renamed everywhere it is used)
    Text,          ///< free text
    Number,        ///< a number with a unit; with `reset`, empty means the default
    Vector,        ///< three numbers with a unit
    NumberList,    ///< comma-separated numbers
    Choice,        ///< one of `options`; `staged`: applied with the page's Apply button
    Check,         ///< a tick box
    TimeFunction,  ///< f(t): its type, parameters and preview
    Note,          ///< read-only text
    StagedApply,   ///< the button that applies the staged choices above it as one edit
    Inertia,       ///< a rigid body's inertia tensor
    Shapes,        ///< a body's display shapes
  };
  Type type = Type::Note;
  const char* key = "";
  const char* label = "";  ///< untranslated (QT_TR_NOOP); a note's or the Apply button's text
  const char* unit = "";
  bool staged = false;
  /// When it shows (empty: always), read from the element as the page is built.
  std::function<bool(const ModelSpec&, FieldAt)> shown;
  /// A note's text read from the element (empty: `label`).
  std::function<QString(const ModelSpec&, FieldAt)> text;
  /// A choice's options, read from the mechanism.
  std::function<QStringList(const ModelSpec&)> options;

  std::function<std::string(const ModelSpec&, FieldAt)> getText;
  std::function<void(ModelSpec&, FieldAt, const std::string&)> setText;
  std::function<double(const ModelSpec&, FieldAt)> getNumber;
  std::function<void(ModelSpec&, FieldAt, double)> setNumber;
  std::function<void(ModelSpec&, FieldAt)> reset;
  std::function<Eigen::Vector3d(const ModelSpec&, FieldAt)> getVector;
  std::function<void(ModelSpec&, FieldAt, const Eigen::Vector3d&)> setVector;
  std::function<std::vector<double>(const ModelSpec&, FieldAt)> getList;
  std::function<void(ModelSpec&, FieldAt, const std::vector<double>&)> setList;
  std::function<bool(const ModelSpec&, FieldAt)> getCheck;
  std::function<void(ModelSpec&, FieldAt, bool)> setCheck;
  std::function<TimeFunction(const ModelSpec&, FieldAt)> getFunction;
  std::function<void(ModelSpec&, FieldAt, const TimeFunction&)> setFunction;
};

/// The page of element kind `kind`: its fields in the order they show.
const std::vector<FieldDescription>& pageDescription(ElementKind kind);

/// The names a choice offers: the mechanism's elements of `kind` (points with the markers),
/// after "ground" and an empty entry when asked.
QStringList elementNames(const ModelSpec& spec, ElementKind kind, bool withGround = false,
                         bool withEmpty = false);

}  // namespace mbdrom::widgets
