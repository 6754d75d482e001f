#pragma once
// The choices of a force element's type (a driver's type, a friction law, a load's type) from
// its table, for the editors' combo boxes, and the choice read back.

#include "engine/model/force_element_types.h"

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace mbdrom::widgets {

/// Every type's name, in the table's order (the enum's).
template <class Enum>
QStringList typeChoices(const std::vector<ForceElementType<Enum>>& types) {
  QStringList names;
  for (const ForceElementType<Enum>& t : types) names << QString::fromLatin1(t.name);
  return names;
}

/// The type named `name` into `value`; false (and `value` unchanged) when none is.
template <class Enum>
bool setType(const std::vector<ForceElementType<Enum>>& types, const std::string& name, Enum& value) {
  for (const ForceElementType<Enum>& t : types)
    if (name == t.name) {
      value = t.value;
      return true;
    }
  return false;
}

/// What each type takes, "name: takes" per type joined by " · ".
template <class Enum>
QString typesTake(const std::vector<ForceElementType<Enum>>& types) {
  QStringList parts;
  for (const ForceElementType<Enum>& t : types)
    parts << QString::fromLatin1(t.name) + ": " + QString::fromLatin1(t.takes);
  return parts.join(" · ");
}

}  // namespace mbdrom::widgets
