#pragma once
/// @file
/// Editing operations on a ModelSpec as an editor needs them: elements are
/// addressed by kind and index, renames update every reference, and new names
/// are made unique. The result is not validated here: build a Model from it.

#include "engine/model/model_spec.h"

#include <string>
#include <vector>

namespace mbdrom {

enum class ElementKind {
  Mechanism,
  Point,
  Vector,
  Body,
  Marker,  ///< index: body, sub: marker within the body
  Joint,
  Driver,
  SpringDamper,
  Friction,
  LoadCase,
  Load,  ///< index: load case, sub: load within the case
  Measure,
};

/// An element of a spec: kind, index in its list, and for markers and loads
/// the index within the owning body or load case.
struct ElementRef {
  ElementKind kind = ElementKind::Mechanism;
  int index = 0;
  int sub = 0;
  bool operator==(const ElementRef&) const = default;
};

/// Kind name for messages and the editor ("point", "spring-damper", ...).
const char* elementKindName(ElementKind kind);

/// Whether `ref` addresses an existing element of `spec`.
bool elementExists(const ModelSpec& spec, const ElementRef& ref);
/// Name of the element (the mechanism's name for Mechanism). Throws InputError for a bad ref.
std::string elementName(const ModelSpec& spec, const ElementRef& ref);
/// Whether `name` is free for an element of `kind` (points and markers share one name space;
/// loads are unique within their load case `loadCase`).
bool nameIsFree(const ModelSpec& spec, ElementKind kind, const std::string& name, int loadCase = -1);
/// `base` if free, else `base_2`, `base_3`, ...
std::string uniqueName(const ModelSpec& spec, ElementKind kind, const std::string& base, int loadCase = -1);

/// Renames an element and every reference to it (bodies' point and vector lists,
/// joints, drivers, forces, loads, measures). Throws InputError when the new name
/// is empty or taken.
void renameElement(ModelSpec& spec, const ElementRef& ref, const std::string& newName);
/// Removes an element. References to it are left alone: building a Model then
/// names them, which is the editor's message for "still in use".
void removeElement(ModelSpec& spec, const ElementRef& ref);
/// Inserts a copy after the element with a unique name; returns the copy's ref.
ElementRef duplicateElement(ModelSpec& spec, const ElementRef& ref);
/// Appends a new element of `kind` with default values and a unique name
/// (Marker: on body `parent`; Load: in load case `parent`); returns its ref.
/// Throws InputError for Mechanism or a missing parent.
ElementRef addElement(ModelSpec& spec, ElementKind kind, int parent = -1);

/// Elements that refer to `ref` by name, as "joint \"A\"" etc. (empty when unused).
std::vector<std::string> elementUsers(const ModelSpec& spec, const ElementRef& ref);

/// Checks a mechanism under construction as building a Model checks it, except that
/// free points and vectors no body lists yet are allowed (they are added before the
/// bodies through them). Throws ModelError naming the first inconsistent element.
void checkDraftMechanism(const ModelSpec& spec);

}  // namespace mbdrom
